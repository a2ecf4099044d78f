"""A small, deterministic OmniBench in the official layout, with real media.

Every question needs both media and its answer is true of them by construction: the picture (png) shows one to
three shapes of one kind and colour, the audio (wav) sounds one to four times, and the question asks for both
counts. The audio is a sound event (beeps), music (the notes of a scale) or speech-like (voiced syllables), cycling
over the official audio types, and the task types cycle over the paper's eight. Two answer wordings recur because
the official scorer reads them unlike their position: a short answer without a letter (read as no letter) and
options that begin "A picture of ..." (read as A wherever the answer stands). The default sample has 24
questions; ``full_size`` writes the real benchmark's 1,142, with tiny media.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from avibench.benchmarks.omnibench.layout import AUDIO_DIR, DATASET, IMAGE_DIR, OFFICIAL_COUNT
from avibench.kits import media
from avibench.kits.records import write_jsonl
from avibench.level_metrics.omnibench import AUDIO_TYPES

SMALL_SIZE = 24
#: The length of one sound (and of the gap after it) in seconds.
SMALL_UNIT = 0.12
FULL_UNIT = 0.04
SMALL_WH = (96, 48)
FULL_WH = (48, 24)
TASK_TYPES: tuple[str, ...] = (
    "Action and Activity", "Story Description", "Plot Inference", "Object Identification and Description",
    "Contextual and Environmental", "Identity and Relationship", "Text and Symbols", "Count and Quantity",
)  # fmt: skip
SHAPES: tuple[str, ...] = ("circle", "square", "triangle")
COLOURS: tuple[str, ...] = ("blue", "green", "red")
WORDS: tuple[str, ...] = ("zero", "one", "two", "three", "four")
SCALE_HZ: tuple[float, ...] = (262.0, 330.0, 392.0, 523.0)
#: Every 8th question (from the 4th) has short answers, every 8th from the 7th answers beginning "A picture".
SHORT_WORDING, A_WORDING = 3, 6


@dataclass(frozen=True)
class Question:
    """One generated question with its media."""

    record: dict[str, Any]
    image: Any
    audio: np.ndarray


def _plural(n: int, noun: str) -> str:
    return f"{WORDS[n]} {noun}" if n == 1 else f"{WORDS[n]} {noun}s"


def _wording(k: int, shapes: int, shape: str, sounds: int) -> str:
    if k % 8 == SHORT_WORDING:
        return f"{_plural(shapes, shape).capitalize()}, {_plural(sounds, 'sound')}"
    if k % 8 == A_WORDING:
        return f"A picture of {_plural(shapes, shape)} with {_plural(sounds, 'sound')}"
    return f"The picture shows {_plural(shapes, shape)} and the audio has {_plural(sounds, 'sound')}."


def _sound(kind: str, unit: float, rng: random.Random) -> list[np.ndarray]:
    """Four sounds of one audio type, one of which is used per repetition."""
    if kind == "speech":
        return [0.3 * media.gliding_voice(unit, 130, 30, 3) * np.hanning(int(unit * media.SR))] * 4
    if kind == "music":
        return [media.tone(f, unit) for f in SCALE_HZ]
    return [media.tone(rng.choice((880.0, 1000.0)), unit)] * 4


def _audio(kind: str, count: int, unit: float, rng: random.Random) -> np.ndarray:
    sounds = _sound(kind, unit, rng)
    return media.timeline((2 * count + 1) * unit, [((2 * k + 1) * unit, sounds[k]) for k in range(count)])


def _question(k: int, rng: random.Random, unit: float, wh: tuple[int, int]) -> Question:
    shapes, sounds = rng.randint(1, 3), rng.randint(1, 4)
    shape, colour = rng.choice(SHAPES), rng.choice(COLOURS)
    pairs = [(s, n) for s in (1, 2, 3) for n in (1, 2, 3, 4) if (s, n) != (shapes, sounds)]
    distractors = rng.sample(pairs, 3)
    gold = (k // 8) % 3 + 1 if k % 8 == A_WORDING else rng.randrange(4)
    chosen = [*distractors[:gold], (shapes, sounds), *distractors[gold:]]
    options = [_wording(k, s, shape, n) for s, n in chosen]
    audio_kind = AUDIO_TYPES[k % len(AUDIO_TYPES)]
    # every tenth capitalised with a trailing space ("Speech "): the official scorer trims and lowercases
    stored_kind = audio_kind.capitalize() + " " if k % 10 == 9 else audio_kind
    size = wh[1] // 2
    cells = media.grid_cells(3, 1, size, wh)
    image = media.picture(wh, [(shape, cells[c], media.NAMED_COLOURS[colour]) for c in range(shapes)])
    record = {
        "task type": TASK_TYPES[k % len(TASK_TYPES)],
        "audio type": stored_kind,
        "question": f"How many {shape}s does the picture show, and how many times does the audio sound?",
        "audio content": f"{WORDS[sounds].capitalize()} {audio_kind} sounds, one after another.",
        "image content": f"{_plural(shapes, colour + ' ' + shape).capitalize()} on a dark background.",
        "audio_path": f"sample_{k:04d}.wav",
        "image_path": f"sample_{k:04d}.png",
        "index": k,
        "answer": options[gold],
        "options": options,
    }
    return Question(record, image, _audio(audio_kind, sounds, unit, rng))


def questions(
    count: int, seed: int = 0, unit: float = SMALL_UNIT, wh: tuple[int, int] = SMALL_WH
) -> list[Question]:
    rng = random.Random(seed)
    return [_question(k, rng, unit, wh) for k in range(count)]


def generate(root: Path, *, seed: int = 0, full_size: bool = False) -> int:
    """Write the sample under ``root`` in the official layout; returns the number of questions."""
    root = Path(root)
    count, unit, wh = (
        (OFFICIAL_COUNT, FULL_UNIT, FULL_WH) if full_size else (SMALL_SIZE, SMALL_UNIT, SMALL_WH)
    )
    found = questions(count, seed, unit, wh)
    for q in found:
        media.write_wav(root / AUDIO_DIR / q.record["audio_path"], q.audio)
        media.write_image(root / IMAGE_DIR / q.record["image_path"], q.image)
    write_jsonl(root / DATASET, [q.record for q in found])
    return len(found)
