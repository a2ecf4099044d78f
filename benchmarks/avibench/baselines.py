"""AVI-Bench's answers for the offline baselines: ``random`` (chance over each task's answer space) and ``oracle``.

``oracle`` phrases the ground truth the way real models answer (with some prose around it, varied by template),
so refine and eval must get it back to 100%.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.dataset import Sample
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.definitions import constants_for

_NOT_CLASSES = {"not sure", "no available option", "no availabel option"}
_FALLBACK_OPTIONS = ("yes", "no")
_CAPTION_SUBJECTS = ("A man", "A woman", "A child", "A dog", "A band", "A crowd", "A car", "A bird")
_CAPTION_ACTIONS = (
    "plays a guitar",
    "speaks",
    "walks by",
    "barks",
    "sings",
    "drives past",
    "claps",
    "chirps",
)
_CAPTION_PLACES = ("in a park", "on a street", "indoors", "on a stage", "near the water", "in a room")


def class_list(task: str) -> list[str]:
    """The task's class vocabulary without the 'not sure' style entries."""
    key = AVIBENCH.task(task).class_list_key
    values = constants_for(task).get(key, []) if key else []
    return [c for c in values if c not in _NOT_CLASSES]


def candidates(sample: Sample) -> tuple[Path, ...]:
    """The media a retrieval question's answer indexes (its task says which: audios or images)."""
    kind = sample.spec.candidates
    return sample.audios if kind == "audios" else sample.images if kind == "images" else ()


def _round_box(box: Sequence[float], digits: int = 4) -> list[float]:
    return [round(float(v), digits) for v in box]


def bbox_truth(sample: Sample) -> tuple[dict[str, Any], tuple[float, float]]:
    """Ground-truth boxes (pixel xywh or null) and the image size, from either GT shape."""
    answer = sample.answer
    if isinstance(answer, dict) and isinstance(answer.get("bbox"), dict):
        boxes, size = answer["bbox"], answer.get("original_wh")
    else:
        boxes, size = (answer if isinstance(answer, dict) else {}), None
    if not size and sample.images:
        from PIL import Image

        with Image.open(sample.images[0]) as image:
            size = image.size
    width, height = (float(size[0]), float(size[1])) if size else (1.0, 1.0)
    return boxes, (width, height)


def normalised_xyxy(box: Sequence[float], size: tuple[float, float]) -> list[float]:
    x, y, w, h = (float(v) for v in box)
    width, height = size
    return _round_box([x / width, y / height, (x + w) / width, (y + h) / height], digits=6)


def _count(value: Any) -> Any:
    text = str(value).strip()
    return int(text) if text.isdigit() else value


# -- random ------------------------------------------------------------------------------------------


def _random_box(rng: random.Random) -> list[float]:
    x1, y1 = rng.uniform(0, 0.7), rng.uniform(0, 0.7)
    return _round_box([x1, y1, rng.uniform(x1 + 0.05, 1.0), rng.uniform(y1 + 0.05, 1.0)])


def random_option(sample: Sample, rng: random.Random) -> str:
    if isinstance(sample.options, list) and sample.options:
        return str(rng.choice(sample.options))
    if str(sample.answer).isdigit():
        return str(rng.randint(0, 9))
    return rng.choice(_FALLBACK_OPTIONS)


def random_avsqa(sample: Sample, rng: random.Random) -> str:
    """A guess in the ``#...#`` form the AVSQA prompt asks for (as the oracle answers), so refine can read it."""
    options = [o for o in sample.options if o not in _NOT_CLASSES] if isinstance(sample.options, list) else []
    if not options:
        return f"#{random_option(sample, rng)}#"
    return "#" + ";".join(rng.sample(options, rng.randint(1, min(3, len(options))))) + "#"


def random_mic(sample: Sample, rng: random.Random) -> str:
    classes = rng.sample(class_list(sample.task), rng.randint(1, 3))
    return f"answer={ {c: rng.randint(1, 5) for c in classes}!r}"


def random_avl(sample: Sample, rng: random.Random) -> str:
    classes = class_list("AVL")
    boxes = {f"{rng.choice(classes)}_{k}": str(_random_box(rng)) for k in range(1, rng.randint(1, 3) + 1)}
    return f"answer={boxes!r}"


def random_avlg(sample: Sample, rng: random.Random) -> str:
    frames = {
        f"frame_{k}": (_random_box(rng) if rng.random() < 0.5 else None)
        for k in range(sample.spec.frames or 0)
    }
    return f"answer={frames!r}"


def random_retrieval(sample: Sample, rng: random.Random) -> str:
    """Uniform over subsets of the candidates: each index is picked with probability 1/2."""
    return str([i for i in range(len(candidates(sample))) if rng.random() < 0.5])


def random_caption(sample: Sample, rng: random.Random) -> str:
    return f"{rng.choice(_CAPTION_SUBJECTS)} {rng.choice(_CAPTION_ACTIONS)} {rng.choice(_CAPTION_PLACES)}."


# -- oracle ------------------------------------------------------------------------------------------

_QA_TEMPLATES = ("The answer is **{}**.", "**{}**", "Answer: {}", "{}", "My final answer: **{}**")
_AVSQA_TEMPLATES = ("#{}#", "The answer is #{}#.", "After watching and listening: #{}#")
_MIC_PROSE = {"AMIC": "Based on the audio, I can hear", "VMIC": "In the image I can see"}
_RETRIEVAL_NOUN = {"VAR": "audio clips", "AVR": "images"}


def oracle_option(sample: Sample, rng: random.Random) -> str:
    if sample.answer is None:
        return "I cannot tell from the input."
    return rng.choice(_QA_TEMPLATES).format(sample.answer)


def oracle_avsqa(sample: Sample, rng: random.Random) -> str:
    if sample.answer is None:
        return "I cannot tell from the input."
    return rng.choice(_AVSQA_TEMPLATES).format(sample.answer)


def oracle_mic(sample: Sample, rng: random.Random) -> str:
    truth = sample.answer if isinstance(sample.answer, dict) else {}
    counts = {str(k): _count(v) for k, v in truth.items()}
    answer = f"answer={counts!r}"
    if rng.random() < 0.5:
        return answer
    listing = ", ".join(f"{k} ({v})" for k, v in counts.items())
    return f"{_MIC_PROSE[sample.task]} {listing}: {answer}"


def oracle_avl(sample: Sample, rng: random.Random) -> str:
    boxes, size = bbox_truth(sample)
    answer = {str(k): str(normalised_xyxy(v, size)) for k, v in boxes.items() if v}
    text = f"answer={answer!r}"
    return text if rng.random() < 0.5 else f"The sounding instances are located as follows: {text}"


def oracle_avlg(sample: Sample, rng: random.Random) -> str:
    boxes, size = bbox_truth(sample)
    answer = {str(k): (normalised_xyxy(v, size) if v else None) for k, v in boxes.items()}
    text = f"answer={answer!r}"
    return text if rng.random() < 0.5 else f"Frame by frame, the sounding object is at: {text}"


def oracle_retrieval(sample: Sample, rng: random.Random) -> str:
    indices = [int(i) for i in sample.answer] if isinstance(sample.answer, list) else []
    choice = rng.randrange(3)
    if choice == 0:
        return f"The matching {_RETRIEVAL_NOUN[sample.task]} are {indices}."
    return str(indices) if choice == 1 else f"Selected indices: {indices}"


def oracle_caption(sample: Sample, rng: random.Random) -> str:
    answer = sample.answer
    references = [str(r) for r in answer if r] if isinstance(answer, list) else [str(answer)]
    return rng.choice(references) if references else "A scene with sound."
