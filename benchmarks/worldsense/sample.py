"""A small, deterministic WorldSense in the published layout, with real media, and the offline baselines.

Each video shows three solid colours in turn (one second each) and beeps one to four times while one of them is
on screen: ``videos/<id>.mp4`` (H.264 with an AAC soundtrack), the same sound as ``audios/<id>.wav`` and a subtitle
file ``subtitles/<id>.srt`` that names each colour while it is shown. Its five questions are true of the media:
the first colour, the colour after it, the colour on screen during the beeps, the number of beeps, and the number
of colours before the beeps (three options, as some of the release's questions have). Videos cycle over the six
duration buckets and the categories VLMEvalKit reports. The default sample has 6 videos and 30 questions;
``full_size`` writes the release's 3,172 questions (634 videos of five and one of two).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from avibench.benchmarks.worldsense.layout import AUDIOS, DATASET, OFFICIAL_COUNT, SUBTITLES, VIDEOS, protocol
from avibench.items import Item
from avibench.kits import multiple_choice as mc
from avibench.kits.media import NAMED_COLOURS as COLOURS
from avibench.kits.media import colour_beep_clip, write_mp4, write_wav

WORDS = ("one", "two", "three", "four")
SEGMENT_S = 1.0
SMALL_VIDEOS = 6
#: (task domain, task type, audio class) of the five questions of a video, in task order.
TASK_KINDS = (
    ("Recognition", "Attribute Recognition"),
    ("Reasoning", "Temporal Prediction"),
    ("Understanding", "Audio Source Localization"),
    ("Recognition", "Audio Counting"),
    ("Reasoning", "Event Sorting"),
)


def _candidates(right: str, wrong: list[str], n: int = 4) -> tuple[list[str], str]:
    texts = sorted([right, *wrong[: n - 1]])
    letters = "ABCD"[:n]
    return [f"{letter}. {text}" for letter, text in zip(letters, texts, strict=True)], letters[
        texts.index(right)
    ]


def _tasks(order: list[str], beeps: int, at: int) -> dict[str, dict[str, Any]]:
    before = WORDS[at - 1] if at else "none"
    asked = [
        ("What is the first colour shown in the video?", order[0], [c for c in COLOURS if c != order[0]], 4),
        (f"Which colour follows {order[0]}?", order[1], [c for c in COLOURS if c != order[1]], 4),
        ("Which colour is on screen while the beeps sound?", order[at], [c for c in COLOURS if c != order[at]], 4),
        ("How many beeps are heard?", WORDS[beeps - 1], [w for w in WORDS if w != WORDS[beeps - 1]], 4),
        ("How many colours are shown before the beeps start?", before, [w for w in ("none", "one", "two") if w != before], 3),
    ]  # fmt: skip
    tasks = {}
    for k, ((question, right, wrong, n), (domain, kind)) in enumerate(zip(asked, TASK_KINDS, strict=True)):
        candidates, answer = _candidates(right, wrong, n)
        tasks[f"task{k}"] = {"task_domain": domain, "task_type": kind, "question": question, "answer": answer,
                             "candidates": candidates}  # fmt: skip
    return tasks


def _srt_time(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def _write_media(root: Path, video: str, order: list[str], beeps: int, at: int) -> None:
    frames, audio = colour_beep_clip(order, SEGMENT_S, beeps, at)
    write_mp4(root / VIDEOS / f"{video}.mp4", frames, audio)
    write_wav(root / AUDIOS / f"{video}.wav", audio)
    cues = [
        f"{k + 1}\n{_srt_time(k * SEGMENT_S)} --> {_srt_time((k + 1) * SEGMENT_S)}\nNow the screen is {colour}.\n"
        for k, colour in enumerate(order)
    ]
    (root / SUBTITLES).mkdir(parents=True, exist_ok=True)
    (root / SUBTITLES / f"{video}.srt").write_text("\n".join(cues), encoding="utf-8")


def generate(out: Path, *, seed: int = 0, full_size: bool = False) -> int:
    """Write worldsense_qa.json and the media under ``out``; returns the number of questions."""
    rng = random.Random(seed)
    out = Path(out)
    categories = protocol("categories")
    videos = -(-OFFICIAL_COUNT // len(TASK_KINDS)) if full_size else SMALL_VIDEOS
    data: dict[str, Any] = {}
    questions = 0
    for n in range(videos):
        video = f"ws{n:04d}{rng.randrange(16**4):04x}"
        order = rng.sample(list(COLOURS), 3)
        beeps, at = rng.randint(1, 4), rng.randrange(3)
        _write_media(out, video, order, beeps, at)
        tasks = _tasks(order, beeps, at)
        if full_size and questions + len(tasks) > OFFICIAL_COUNT:
            tasks = dict(list(tasks.items())[: OFFICIAL_COUNT - questions])
        questions += len(tasks)
        domain = categories["domain"][n % len(categories["domain"])]
        data[video] = {
            "video_id": video,
            "video_duration": SEGMENT_S * 3,
            "duration": categories["durations"][n % len(categories["durations"])],
            "domain": domain,
            "sub_category": categories["sub_category"][n % len(categories["sub_category"])],
            "audio_class": ["Event"] if n % 2 else ["Event", "Speech"],
            "video_caption": f"Three colours in turn; {WORDS[beeps - 1]} beeps while {order[at]} is shown.",
            **tasks,
        }
    out.mkdir(parents=True, exist_ok=True)
    (out / DATASET).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return questions


def random_answer(item: Item, rng: random.Random) -> str:
    """A uniform guess: one candidate's letter, alone."""
    return mc.random_reply(item.options, rng)


ORACLE_STYLES: tuple[str, ...] = ("{l}", "{l}.", "The answer is {l}.", "{l}. {t}", "Option {l}")


def oracle_answer(item: Item, rng: random.Random, accept: Callable[[str], bool]) -> str:
    """The gold letter in a style drawn from ``rng`` that ``accept`` (both readings) scores right; the bare
    letter at worst."""
    gold = mc.LETTERS.index(str(item.answer))
    texts = [option[2:].strip() for option in item.options]
    return mc.oracle_reply(gold, texts, rng, ORACLE_STYLES, accept, fallback=mc.LETTERS[gold])
