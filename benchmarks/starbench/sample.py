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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from avibench.items import Item
from avibench.kits.media import (
    SR,
    noise,
    seconds_to_samples,
    timeline,
    tone,
    write_wav,
)
from avibench.level_metrics.starbench_rotation import (
    PERMUTATIONS,
    SUBTASKS,
    answer_letter,
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
FULL_COUNTS = {"pc": 950, "sr": 500, "tr": 950}
ITD_SAMPLES = 8  # 0.5 ms at 16 kHz
ILD_DB = 9.0
SCENE_S = 3.0
TR_OPTIONS = 4
ORDINALS = ("the first audio", "the second audio", "the third audio")
Entry = dict[str, Any]


@dataclass
class _Writer:
    root: Path
    rng: np.random.Generator

    def wav(self, rel: str, signal: np.ndarray) -> str:
        write_wav(self.root / rel, signal)
        return rel

    def choice(self, n: int) -> int:
        return int(self.rng.integers(n))


def _entry(
    sid: str,
    task: str,
    category: str,
    sub: str,
    question: str,
    options: list[str],
    answer: str,
    audio: list[str],
) -> Entry:
    return {
        "id": sid,
        "task": task,
        "category": category,
        "sub-category": sub,
        "question": question,
        "options": options,
        "answer": answer,
        "audio_paths": audio,
    }


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


# ---- perception -----------------------------------------------------------------------------------------------


def _pitch_relative(w: _Writer, sid: str) -> Entry:
    higher = w.choice(2)
    freqs = (330.0, 990.0) if higher else (990.0, 330.0)
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}_{i}.wav", tone(f, 0.8, 0.4)) for i, f in enumerate(freqs, 1)]
    options = list(ORDINALS[:2])
    return _entry(
        sid,
        PC_TASK,
        "pitch",
        "pitch_relative",
        "Which audio has the higher pitch?",
        options,
        options[higher],
        audio,
    )


def _pitch_absolute(w: _Writer, sid: str) -> Entry:
    freqs = (250, 500, 1000, 2000)
    k = w.choice(len(freqs))
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}.wav", tone(float(freqs[k]), 1.0, 0.4))]
    options = [f"about {f} Hz" for f in freqs]
    return _entry(
        sid,
        PC_TASK,
        "pitch",
        "pitch_absolute",
        "What is the frequency of the tone?",
        options,
        options[k],
        audio,
    )


def _loudness_relative(w: _Writer, sid: str) -> Entry:
    amps = [0.05, 0.15, 0.6]
    order = [int(i) for i in w.rng.permutation(3)]
    audio = [
        w.wav(f"{PERCEPTION_AUDIO}/{sid}_{i}.wav", tone(440.0, 0.8, amps[o])) for i, o in enumerate(order, 1)
    ]
    options = list(ORDINALS)
    answer = options[order.index(2)]
    return _entry(
        sid, PC_TASK, "loudness", "loudness_relative", "Which audio is the loudest?", options, answer, audio
    )


def _duration_relative(w: _Writer, sid: str) -> Entry:
    longer = w.choice(2)
    lengths = (0.4, 1.2) if longer else (1.2, 0.4)
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}_{i}.wav", noise(w.rng, s)) for i, s in enumerate(lengths, 1)]
    options = list(ORDINALS[:2])
    return _entry(
        sid,
        PC_TASK,
        "duration",
        "duration_relative",
        "Which audio lasts longer?",
        options,
        options[longer],
        audio,
    )


def _event_order(w: _Writer, sid: str) -> Entry:
    low_first = w.choice(2)
    first, second = (220.0, 1760.0) if low_first else (1760.0, 220.0)
    signal = timeline(1.4, [(0.1, tone(first, 0.5)), (0.8, tone(second, 0.5))])
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}.wav", signal)]
    options = ["the high tone", "the low tone"]
    return _entry(
        sid, PC_TASK, "timing", "event_order", "Which sound comes first?", options, options[low_first], audio
    )


def _azimuth(w: _Writer, sid: str) -> Entry:
    k = w.choice(3)
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}.wav", binaural(noise(w.rng, 1.0, 0.5), k - 1))]
    options = ["on the left", "straight ahead", "on the right"]
    return _entry(
        sid, PC_TASK, "direction", "azimuth", "Where is the sound source?", options, options[k], audio
    )


def _motion(w: _Writer, sid: str) -> Entry:
    rightward = w.choice(2)
    start = -1.0 if rightward else 1.0
    audio = [w.wav(f"{PERCEPTION_AUDIO}/{sid}.wav", panned(noise(w.rng, 2.0, 0.5), start, -start))]
    options = ["from right to left", "from left to right"]
    return _entry(
        sid, PC_TASK, "direction", "motion", "How does the sound move?", options, options[rightward], audio
    )


PERCEPTION = (
    _pitch_relative,
    _pitch_absolute,
    _loudness_relative,
    _duration_relative,
    _event_order,
    _azimuth,
    _motion,
)
SPATIAL_PERCEPTION = {"azimuth", "motion"}


# ---- spatial reasoning ----------------------------------------------------------------------------------------


def _single_source(w: _Writer, sid: str) -> Entry:
    k = w.choice(3)
    signal = binaural(timeline(1.5, [(0.2, noise(w.rng, 0.3, 0.5)), (0.9, noise(w.rng, 0.3, 0.5))]), k - 1)
    options = ["from the left", "from straight ahead", "from the right"]
    question = "A knocking sound plays twice. From which direction does it come?"
    audio = [w.wav(f"{SPATIAL_AUDIO}/{sid}.wav", signal)]
    return _entry(sid, SR_TASK, "static localization", "single source", question, options, options[k], audio)


def _two_sources(w: _Writer, sid: str) -> Entry:
    high_left = w.choice(2)
    high, low = (
        binaural(tone(1500.0, 1.5, 0.3), -1 if high_left else 1),
        binaural(tone(250.0, 1.5, 0.3), 1 if high_left else -1),
    )
    options = ["the low tone", "the high tone"]
    question = "A high and a low tone play together. Which one is on the listener's left?"
    audio = [w.wav(f"{SPATIAL_AUDIO}/{sid}.wav", high + low)]
    return _entry(
        sid, SR_TASK, "multi-source relation", "two sources", question, options, options[high_left], audio
    )


def _moving_source(w: _Writer, sid: str) -> Entry:
    rightward = w.choice(2)
    start = -1.0 if rightward else 1.0
    options = ["it passes from right to left", "it passes from left to right"]
    audio = [w.wav(f"{SPATIAL_AUDIO}/{sid}.wav", panned(tone(600.0, 2.0, 0.4), start, -start))]
    question = "A humming source passes the listener. Which way does it travel?"
    return _entry(
        sid, SR_TASK, "dynamic trajectory", "moving source", question, options, options[rightward], audio
    )


SPATIAL = (_single_source, _two_sources, _moving_source)


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


def _temporal(subtask: str) -> Callable[[_Writer, str], Entry]:
    category, caption, make = SCENES[subtask]

    def build(w: _Writer, sid: str) -> Entry:
        scene = make(w.rng)
        n = seconds_to_samples(SCENE_S / 3)
        folder = f"{TEMPORAL_AUDIO}/{sid}"
        audio = [w.wav(f"{folder}/segment_{k + 1}.wav", scene[k * n : (k + 1) * n]) for k in range(3)]
        options = temporal_options(sid, random.Random(sid))
        entry = _entry(sid, TR_TASK, category, subtask, TR_QUESTION, options, order_answer((1, 2, 3)), audio)
        entry["global_caption"] = caption
        entry["uncut_audio_path"] = w.wav(f"{folder}/uncut.wav", scene)
        return entry

    return build


TEMPORAL = tuple(_temporal(s) for s in SUBTASKS)


# ---- writing --------------------------------------------------------------------------------------------------


def _sample_id(family: str, k: int) -> str:
    if family == "tr":
        return f"tr_{SUBTASKS[k % len(SUBTASKS)]}_{k // len(SUBTASKS)}"
    return f"{family}_{k:04d}"


def _build(
    family: str, builders: tuple[Callable[[_Writer, str], Entry], ...], count: int, pool: int, w: _Writer
) -> list[Entry]:
    """``count`` entries cycling through ``builders``; after ``pool`` rounds, copies reusing earlier audio."""
    entries: list[Entry] = []
    for k in range(count):
        sid = _sample_id(family, k)
        if k < pool * len(builders):
            entries.append(builders[k % len(builders)](w, sid))
            continue
        entry = copy.deepcopy(entries[k % (pool * len(builders))])
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
    pool = SMALL_COUNTS["pc"] // len(PERCEPTION)

    def writer(name: str) -> _Writer:
        return _Writer(root, np.random.default_rng([seed, zlib.crc32(name.encode())]))

    perception = _build("pc", PERCEPTION, counts["pc"], pool, writer("pc"))
    files = {
        DATASETS["pc"].meta_file: perception,
        DATASETS["pc_sp"].meta_file: [e for e in perception if e["sub-category"] in SPATIAL_PERCEPTION],
        DATASETS["pc_nsp"].meta_file: [e for e in perception if e["sub-category"] not in SPATIAL_PERCEPTION],
        DATASETS["sr"].meta_file: _build("sr", SPATIAL, counts["sr"], pool, writer("sr")),
        DATASETS["tr"].meta_file: _build("tr", TEMPORAL, counts["tr"], pool, writer("tr")),
    }
    for rel, entries in files.items():
        _write_json(root / rel, entries)
    return {rel: len(entries) for rel, entries in files.items()}


# ---- baseline answers -----------------------------------------------------------------------------------------

ORACLE_PHRASES = (
    "The answer is ({letter}).",
    "After listening carefully, the correct option is <{letter}>: {text}.",
    "Answer: {letter}",
    "Listening to the clips, I'd say the best match is option ({letter}), {text}.",
)
RANDOM_PHRASES = ("Answer: {letter}", "I think it is ({letter}).", "{letter}")


def oracle_answer(item: Item, rng: random.Random) -> str:
    """The gold answer phrased like a model would (every phrasing parses to the gold letter in both profiles)."""
    letter = answer_letter(item.options, item.answer)
    return rng.choice(ORACLE_PHRASES).format(letter=letter, text=item.answer)


def random_answer(item: Item, rng: random.Random) -> str:
    """A uniformly random option letter, phrased like a model would."""
    letter = chr(ord("A") + rng.randrange(len(item.options)))
    return rng.choice(RANDOM_PHRASES).format(letter=letter)
