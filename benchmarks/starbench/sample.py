"""A deterministic STAR-Bench sample in the official layout, with audio whose content answers every question.

* Perception: mono tones and noise bursts whose pitch, loudness, length or order is the answer, and binaural
  bursts whose interaural level and time difference (the near ear louder and earlier) gives the direction.
* Spatial reasoning: one binaural recording per item (a placed source, two sources on opposite sides, or a source
  panned across), so ``sr_ch`` can split it into the two ears.
* Temporal reasoning: one generated scene (a pitch glide, a crescendo, a growing count of beeps, ...) cut into three
  consecutive clips, with the uncut scene and a caption.

The default sample is small; ``full_size=True`` writes about 2,400 items by repeating the default ones under new ids
that share their audio files. Category names are made up for the sample; the structure is the official one.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from avibench.kits.media import SR, noise, seconds_to_samples, timeline, tone, write_wav
from avibench.level_metrics.starbench_rotation import (
    PERMUTATIONS,
    SUBTASKS,
    clip_permutation,
    order_answer,
    run_count,
)

from .layout import DATASETS

PERCEPTION_AUDIO = "starbench_audios/foundation_perception"
SPATIAL_AUDIO = "starbench_audios/holistic_reasoning/spatial"
TEMPORAL_AUDIO = "starbench_audios/holistic_reasoning/temporal"
PC_TASK, SR_TASK, TR_TASK = (
    "foundation_perception",
    "holistic_reasoning_spatial",
    "holistic_reasoning_temporal",
)
SMALL_COUNTS = {"pc": 14, "sr": 6, "tr": 10}
#: rounds of each family's questions written with their own audio; the entries after them reuse it
POOL = 2
FULL_COUNTS = {"pc": 950, "sr": 500, "tr": 950}
ITD_SAMPLES = 8  # 0.5 ms at 16 kHz
ILD_DB = 9.0
SCENE_S = 3.0
TR_OPTIONS = 4
ORDINALS = ("the first audio", "the second audio", "the third audio")
FREQS = (250, 500, 1000, 2000)
Entry = dict[str, Any]
Builder = Callable[[Path, np.random.Generator, str], Entry]
Make = Callable[[np.random.Generator, int], tuple[int, list[np.ndarray]]]


@dataclass(frozen=True)
class Question:
    """One kind of question: its sub-category under ``category``, wording and options, and ``make(rng, n)``, the
    answer's index among the ``n`` options and the clips that make it the answer."""

    category: str
    sub: str
    question: str
    options: tuple[str, ...] = ()
    make: Make | None = None


def _uniform(clips: Callable[[np.random.Generator, int], list[np.ndarray]]) -> Make:
    """The answer drawn uniformly, then the clips that make it the answer."""

    def make(rng: np.random.Generator, n: int) -> tuple[int, list[np.ndarray]]:
        k = int(rng.integers(n))
        return k, clips(rng, k)

    return make


def _loudest(rng: np.random.Generator, n: int) -> tuple[int, list[np.ndarray]]:
    """Three tones at three levels in a random order; the loudest is the answer."""
    order = [int(i) for i in rng.permutation(n)]
    return order.index(2), [tone(440.0, 0.8, (0.05, 0.15, 0.6)[o]) for o in order]


def _two_events(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """A low and a high tone, the low one first when option 1 is the answer."""
    first, second = _pair(k, 220.0, 1760.0)
    return [timeline(1.4, [(0.1, tone(first, 0.5)), (0.8, tone(second, 0.5))])]


def _pair(k: int, first: float, second: float) -> tuple[float, float]:
    """``(first, second)`` when option 1 is the answer, else swapped."""
    return (first, second) if k else (second, first)


# ---- sound helpers --------------------------------------------------------------------------------------------


def binaural(mono: np.ndarray, side: int) -> np.ndarray:
    """A stereo placement: ``side`` -1 left, 0 ahead, 1 right; the far ear is quieter and later."""
    if side == 0:
        return np.stack([mono, mono], axis=1)
    far = np.concatenate([np.zeros(ITD_SAMPLES), mono[:-ITD_SAMPLES]]) * 10 ** (-ILD_DB / 20)
    left, right = (mono, far) if side < 0 else (far, mono)
    return np.stack([left, right], axis=1)


def panned(mono: np.ndarray, start: float, end: float) -> np.ndarray:
    """A source moving from pan position ``start`` to ``end`` (-1 left, 1 right), constant power."""
    theta = (np.linspace(start, end, len(mono)) + 1) * np.pi / 4
    return np.stack([np.cos(theta) * mono, np.sin(theta) * mono], axis=1)


def glide(f0: float, f1: float, seconds: float, amp: float = 0.4) -> np.ndarray:
    """A tone whose frequency moves linearly from ``f0`` to ``f1`` Hz."""
    freq = np.linspace(f0, f1, seconds_to_samples(seconds))
    return amp * np.sin(2 * np.pi * np.cumsum(freq) / SR)


# ---- perception and spatial reasoning ---------------------------------------------------------------------


PERCEPTION = (
    Question(
        "pitch",
        "pitch_relative",
        "Which audio has the higher pitch?",
        ORDINALS[:2],
        _uniform(lambda rng, k: [tone(f, 0.8, 0.4) for f in _pair(k, 330.0, 990.0)]),
    ),
    Question(
        "pitch",
        "pitch_absolute",
        "What is the frequency of the tone?",
        tuple(f"about {f} Hz" for f in FREQS),
        _uniform(lambda rng, k: [tone(float(FREQS[k]), 1.0, 0.4)]),
    ),
    Question("loudness", "loudness_relative", "Which audio is the loudest?", ORDINALS, _loudest),
    Question(
        "duration",
        "duration_relative",
        "Which audio lasts longer?",
        ORDINALS[:2],
        _uniform(lambda rng, k: [noise(rng, s) for s in _pair(k, 0.4, 1.2)]),
    ),
    Question(
        "timing",
        "event_order",
        "Which sound comes first?",
        ("the high tone", "the low tone"),
        _uniform(_two_events),
    ),
    Question(
        "direction",
        "azimuth",
        "Where is the sound source?",
        ("on the left", "straight ahead", "on the right"),
        _uniform(lambda rng, k: [binaural(noise(rng, 1.0, 0.5), k - 1)]),
    ),
    Question(
        "direction",
        "motion",
        "How does the sound move?",
        ("from right to left", "from left to right"),
        _uniform(lambda rng, k: [panned(noise(rng, 2.0, 0.5), *_pair(k, -1.0, 1.0))]),
    ),
)
SPATIAL_PERCEPTION = {"azimuth", "motion"}
SPATIAL = (
    Question(
        "static localization",
        "single source",
        "A knocking sound plays twice. From which direction does it come?",
        ("from the left", "from straight ahead", "from the right"),
        _uniform(
            lambda rng, k: [
                binaural(timeline(1.5, [(0.2, noise(rng, 0.3, 0.5)), (0.9, noise(rng, 0.3, 0.5))]), k - 1)
            ]
        ),
    ),
    Question(
        "multi-source relation",
        "two sources",
        "A high and a low tone play together. Which one is on the listener's left?",
        ("the low tone", "the high tone"),
        _uniform(
            lambda rng, k: [
                binaural(tone(1500.0, 1.5, 0.3), 1 - 2 * k) + binaural(tone(250.0, 1.5, 0.3), 2 * k - 1)
            ]
        ),
    ),
    Question(
        "dynamic trajectory",
        "moving source",
        "A humming source passes the listener. Which way does it travel?",
        ("it passes from right to left", "it passes from left to right"),
        _uniform(lambda rng, k: [panned(tone(600.0, 2.0, 0.4), *_pair(k, -1.0, 1.0))]),
    ),
)


def _entry(
    sid: str, task: str, q: Question, options: list[str], answer: str, audio: list[str], **extra: Any
) -> Entry:
    keys = ("id", "task", "category", "sub-category", "question", "options", "answer", "audio_paths")
    return dict(
        zip(keys, (sid, task, q.category, q.sub, q.question, options, answer, audio), strict=True), **extra
    )


def _asked(task: str, folder: str, q: Question) -> Builder:
    def build(root: Path, rng: np.random.Generator, sid: str) -> Entry:
        assert q.make is not None
        k, clips = q.make(rng, len(q.options))
        names = [f"{sid}.wav"] if len(clips) == 1 else [f"{sid}_{i}.wav" for i in range(1, len(clips) + 1)]
        for name, clip in zip(names, clips, strict=True):
            write_wav(root / folder / name, clip)
        return _entry(sid, task, q, list(q.options), q.options[k], [f"{folder}/{name}" for name in names])

    return build


# ---- temporal reasoning ---------------------------------------------------------------------------------------


def _beeps(counts: tuple[int, ...], freqs: tuple[float, ...]) -> np.ndarray:
    """One second per segment: ``counts[k]`` short beeps at ``freqs[k]`` Hz."""
    parts = [
        timeline(1.0, [(0.1 + 0.25 * j, tone(f, 0.12)) for j in range(c)])
        for c, f in zip(counts, freqs, strict=True)
    ]
    return np.concatenate(parts)


SCENES: dict[str, tuple[str, str, Callable[[np.random.Generator], np.ndarray]]] = {
    "OSM": ("continuous", "A tone glides steadily upward in pitch.", lambda r: glide(300.0, 1500.0, SCENE_S)),
    "ISSE": (
        "continuous",
        "A hiss grows steadily louder.",
        lambda r: noise(r, SCENE_S, 0.6) * np.linspace(0.05, 1.0, seconds_to_samples(SCENE_S)),
    ),
    "TAO": (
        "discrete",
        "A bell rings once, then twice, then three times.",
        lambda r: _beeps((1, 2, 3), (880.0, 880.0, 880.0)),
    ),
    "DSS": (
        "continuous",
        "A tone glides steadily downward in pitch.",
        lambda r: glide(1500.0, 300.0, SCENE_S),
    ),
    "ETC": (
        "discrete",
        "Three chimes climb a scale: low, middle, then high.",
        lambda r: _beeps((2, 2, 2), (330.0, 660.0, 1320.0)),
    ),
}
TR_QUESTION = (
    "These three clips were cut from one continuous recording and shuffled. What is their original order?"
)


def temporal_options(sid: str, rng: random.Random) -> list[str]:
    """Four orders: the gold of every run, the file's own answer (the clips in file order), then distractors."""
    needed = [order_answer(clip_permutation(sid, r)) for r in range(run_count("tr", 0))] + [
        order_answer((1, 2, 3))
    ]
    chosen = list(dict.fromkeys(needed))
    others = [order_answer(p) for p in PERMUTATIONS if order_answer(p) not in chosen]
    chosen += rng.sample(others, max(0, TR_OPTIONS - len(chosen)))
    rng.shuffle(chosen)
    return chosen


def _temporal(subtask: str) -> Builder:
    category, caption, make = SCENES[subtask]
    q = Question(category, subtask, TR_QUESTION)

    def build(root: Path, rng: np.random.Generator, sid: str) -> Entry:
        scene, n = make(rng), seconds_to_samples(SCENE_S / 3)
        folder = f"{TEMPORAL_AUDIO}/{sid}"
        audio = [f"{folder}/segment_{k + 1}.wav" for k in range(3)] + [f"{folder}/uncut.wav"]
        for k, rel in enumerate(audio):
            write_wav(root / rel, scene[k * n : (k + 1) * n] if k < 3 else scene)
        options = temporal_options(sid, random.Random(sid))
        answer = order_answer((1, 2, 3))
        return _entry(
            sid, TR_TASK, q, options, answer, audio[:3], global_caption=caption, uncut_audio_path=audio[3]
        )

    return build


# ---- writing --------------------------------------------------------------------------------------------------


def _sample_id(family: str, k: int) -> str:
    if family == "tr":
        return f"tr_{SUBTASKS[k % len(SUBTASKS)]}_{k // len(SUBTASKS)}"
    return f"{family}_{k:04d}"


def _build(
    family: str, builders: Sequence[Builder], count: int, root: Path, rng: np.random.Generator
) -> list[Entry]:
    """``count`` entries cycling through ``builders``; after ``POOL`` rounds, copies reusing earlier audio."""
    entries: list[Entry] = []
    for k in range(count):
        sid = _sample_id(family, k)
        if k < POOL * len(builders):
            entries.append(builders[k % len(builders)](root, rng, sid))
            continue
        entry = copy.deepcopy(entries[k % (POOL * len(builders))])
        entry["id"] = sid
        if family == "tr":
            entry["options"] = temporal_options(sid, random.Random(sid))
        entries.append(entry)
    return entries


def _write_json(path: Path, entries: list[Entry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def generate(root: Path | str, *, full_size: bool = False, seed: int = 0) -> dict[str, int]:
    """Write the sample under ``root`` (replacing an earlier one); returns the entry count per metadata file."""
    root = Path(root)
    for sub in ("meta_info", "starbench_audios"):
        shutil.rmtree(root / sub, ignore_errors=True)
    counts = FULL_COUNTS if full_size else SMALL_COUNTS
    builders = {
        "pc": [_asked(PC_TASK, PERCEPTION_AUDIO, q) for q in PERCEPTION],
        "sr": [_asked(SR_TASK, SPATIAL_AUDIO, q) for q in SPATIAL],
        "tr": [_temporal(s) for s in SUBTASKS],
    }
    built = {
        family: _build(
            family,
            builders[family],
            counts[family],
            root,
            np.random.default_rng([seed, zlib.crc32(family.encode())]),
        )
        for family in ("pc", "sr", "tr")
    }
    perception = built["pc"]
    files = {
        DATASETS["pc"].meta_file: perception,
        DATASETS["pc_sp"].meta_file: [e for e in perception if e["sub-category"] in SPATIAL_PERCEPTION],
        DATASETS["pc_nsp"].meta_file: [e for e in perception if e["sub-category"] not in SPATIAL_PERCEPTION],
        DATASETS["sr"].meta_file: built["sr"],
        DATASETS["tr"].meta_file: built["tr"],
    }
    for rel, entries in files.items():
        _write_json(root / rel, entries)
    return {rel: len(entries) for rel, entries in files.items()}


# ---- baseline answers -----------------------------------------------------------------------------------------

#: every phrasing parses to the gold letter in both profiles
ORACLE_PHRASES = (
    "The answer is ({letter}).",
    "After listening carefully, the correct option is <{letter}>: {text}.",
    "Answer: {letter}",
    "Listening to the clips, I'd say the best match is option ({letter}), {text}.",
)
RANDOM_PHRASES = ("Answer: {letter}", "I think it is ({letter}).", "{letter}")
