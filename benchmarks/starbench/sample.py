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
from pathlib import Path
from typing import Any

import numpy as np

from avibench.kits.media import SR, noise, seconds_to_samples, timeline, tone, write_wav
from avibench.level_metrics import starbench_rotation as rotation

from .layout import DATASETS

#: per family: the official ``task`` of its entries and where its audio goes
FAMILIES = {
    "pc": ("foundation_perception", "starbench_audios/foundation_perception"),
    "sr": ("holistic_reasoning_spatial", "starbench_audios/holistic_reasoning/spatial"),
    "tr": ("holistic_reasoning_temporal", "starbench_audios/holistic_reasoning/temporal"),
}
SMALL_COUNTS = {"pc": 14, "sr": 6, "tr": 10}
FULL_COUNTS = {"pc": 950, "sr": 500, "tr": 950}
#: rounds of each family's questions written with their own audio; the entries after them reuse it
POOL = 2
ITD_SAMPLES = 8  # 0.5 ms at 16 kHz
ILD_DB = 9.0
SCENE_S = 3.0
TR_OPTIONS = 4
ORDINALS = ("the first audio", "the second audio", "the third audio")
FREQS = (250, 500, 1000, 2000)
Entry = dict[str, Any]
ENTRY_KEYS = ("id", "task", "category", "sub-category", "question", "options", "answer", "audio_paths")
Make = Callable[[np.random.Generator, int], tuple[int, list[np.ndarray]]]
"""``make(rng, n)``: the answer's index among ``n`` options and the clips that make it the answer."""


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


# ---- perception and spatial reasoning --------------------------------------------------------------------


def _uniform(clips: Callable[[np.random.Generator, int], list[np.ndarray]]) -> Make:
    """The answer drawn uniformly, then the clips that make it the answer."""

    def make(rng: np.random.Generator, n: int) -> tuple[int, list[np.ndarray]]:
        k = int(rng.integers(n))
        return k, clips(rng, k)

    return make


def _pair(k: int, first: float, second: float) -> tuple[float, float]:
    """``(first, second)`` when option 1 is the answer, else swapped."""
    return (first, second) if k else (second, first)


def _loudest(rng: np.random.Generator, n: int) -> tuple[int, list[np.ndarray]]:
    """Three tones at three levels in a random order; the loudest is the answer."""
    order = [int(i) for i in rng.permutation(n)]
    return order.index(2), [tone(440.0, 0.8, (0.05, 0.15, 0.6)[o]) for o in order]


def _two_events(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """A low and a high tone, the low one first when option 1 is the answer."""
    first, second = _pair(k, 220.0, 1760.0)
    return [timeline(1.4, [(0.1, tone(first, 0.5)), (0.8, tone(second, 0.5))])]


def _knocks(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """Two knocks from the left, ahead or the right (option ``k``)."""
    return [binaural(timeline(1.5, [(0.2, noise(rng, 0.3, 0.5)), (0.9, noise(rng, 0.3, 0.5))]), k - 1)]


def _high_left(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    """A high and a low tone on opposite sides, the high one on the left when option 1 is the answer."""
    return [binaural(tone(1500.0, 1.5, 0.3), 1 - 2 * k) + binaural(tone(250.0, 1.5, 0.3), 2 * k - 1)]


#: sub-category -> (category, question, options)
WORDING: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "pitch_relative": ("pitch", "Which audio has the higher pitch?", ORDINALS[:2]),
    "pitch_absolute": ("pitch", "What is the frequency of the tone?", tuple(f"about {f} Hz" for f in FREQS)),
    "loudness_relative": ("loudness", "Which audio is the loudest?", ORDINALS),
    "duration_relative": ("duration", "Which audio lasts longer?", ORDINALS[:2]),
    "event_order": ("timing", "Which sound comes first?", ("the high tone", "the low tone")),
    "azimuth": ("direction", "Where is the sound source?", ("on the left", "straight ahead", "on the right")),
    "motion": ("direction", "How does the sound move?", ("from right to left", "from left to right")),
    "single source": (
        "static localization",
        "A knocking sound plays twice. From which direction does it come?",
        ("from the left", "from straight ahead", "from the right"),
    ),
    "two sources": (
        "multi-source relation",
        "A high and a low tone play together. Which one is on the listener's left?",
        ("the low tone", "the high tone"),
    ),
    "moving source": (
        "dynamic trajectory",
        "A humming source passes the listener. Which way does it travel?",
        ("it passes from right to left", "it passes from left to right"),
    ),
}
SR_SUBS = ("single source", "two sources", "moving source")
#: the sample's questions per family, in the order entries cycle through them (perception: the others worded)
FAMILY_SUBS = {"pc": tuple(s for s in WORDING if s not in SR_SUBS), "sr": SR_SUBS, "tr": rotation.SUBTASKS}
#: sub-category -> how its answer is drawn and its clips made
MAKERS: dict[str, Make] = {
    "pitch_relative": _uniform(lambda rng, k: [tone(f, 0.8, 0.4) for f in _pair(k, 330.0, 990.0)]),
    "pitch_absolute": _uniform(lambda rng, k: [tone(float(FREQS[k]), 1.0, 0.4)]),
    "loudness_relative": _loudest,
    "duration_relative": _uniform(lambda rng, k: [noise(rng, s) for s in _pair(k, 0.4, 1.2)]),
    "event_order": _uniform(_two_events),
    "azimuth": _uniform(lambda rng, k: [binaural(noise(rng, 1.0, 0.5), k - 1)]),
    "motion": _uniform(lambda rng, k: [panned(noise(rng, 2.0, 0.5), *_pair(k, -1.0, 1.0))]),
    "single source": _uniform(_knocks),
    "two sources": _uniform(_high_left),
    "moving source": _uniform(lambda rng, k: [panned(tone(600.0, 2.0, 0.4), *_pair(k, -1.0, 1.0))]),
}
SPATIAL_PERCEPTION = {"azimuth", "motion"}


def _entry(family: str, sid: str, sub: str, options: list[str], answer: str, audio: list[str]) -> Entry:
    category, question = WORDING[sub][:2] if sub in WORDING else (SCENES[sub][0], TR_QUESTION)
    values = (sid, FAMILIES[family][0], category, sub, question, options, answer, audio)
    return dict(zip(ENTRY_KEYS, values, strict=True))


def _asked(root: Path, rng: np.random.Generator, family: str, sub: str, sid: str) -> Entry:
    """One perception or spatial entry, its clips written as ``<sid>.wav`` (one) or ``<sid>_<i>.wav``."""
    options = WORDING[sub][2]
    k, clips = MAKERS[sub](rng, len(options))
    folder = FAMILIES[family][1]
    names = [f"{sid}.wav"] if len(clips) == 1 else [f"{sid}_{i}.wav" for i in range(1, len(clips) + 1)]
    for name, clip in zip(names, clips, strict=True):
        write_wav(root / folder / name, clip)
    return _entry(family, sid, sub, list(options), options[k], [f"{folder}/{name}" for name in names])


# ---- temporal reasoning ---------------------------------------------------------------------------------------


def _beeps(counts: tuple[int, ...], freqs: tuple[float, ...]) -> np.ndarray:
    """One second per segment: ``counts[k]`` short beeps at ``freqs[k]`` Hz."""
    parts = [
        timeline(1.0, [(0.1 + 0.25 * j, tone(f, 0.12)) for j in range(c)])
        for c, f in zip(counts, freqs, strict=True)
    ]
    return np.concatenate(parts)


#: temporal sub-category -> (category, caption)
SCENES = {
    "OSM": ("continuous", "A tone glides steadily upward in pitch."),
    "ISSE": ("continuous", "A hiss grows steadily louder."),
    "TAO": ("discrete", "A bell rings once, then twice, then three times."),
    "DSS": ("continuous", "A tone glides steadily downward in pitch."),
    "ETC": ("discrete", "Three chimes climb a scale: low, middle, then high."),
}
SOUNDS: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "OSM": lambda r: glide(300.0, 1500.0, SCENE_S),
    "ISSE": lambda r: noise(r, SCENE_S, 0.6) * np.linspace(0.05, 1.0, seconds_to_samples(SCENE_S)),
    "TAO": lambda r: _beeps((1, 2, 3), (880.0, 880.0, 880.0)),
    "DSS": lambda r: glide(1500.0, 300.0, SCENE_S),
    "ETC": lambda r: _beeps((2, 2, 2), (330.0, 660.0, 1320.0)),
}
TR_QUESTION = (
    "These three clips were cut from one continuous recording and shuffled. What is their original order?"
)


def temporal_options(sid: str, rng: random.Random) -> list[str]:
    """Four orders: the gold of every run, the file's own answer (the clips in file order), then distractors."""
    runs = range(rotation.run_count("tr", 0))
    golds = [rotation.clip_permutation(sid, r) for r in runs] + [(1, 2, 3)]
    chosen = list(dict.fromkeys(rotation.order_answer(order) for order in golds))
    others = [a for a in map(rotation.order_answer, rotation.PERMUTATIONS) if a not in chosen]
    chosen += rng.sample(others, max(0, TR_OPTIONS - len(chosen)))
    rng.shuffle(chosen)
    return chosen


def _temporal(root: Path, rng: np.random.Generator, family: str, sub: str, sid: str) -> Entry:
    """One temporal entry: its scene cut into three clips, the uncut scene and its caption."""
    scene, n = SOUNDS[sub](rng), seconds_to_samples(SCENE_S / 3)
    folder = f"{FAMILIES[family][1]}/{sid}"
    audio = [f"{folder}/segment_{k + 1}.wav" for k in range(3)] + [f"{folder}/uncut.wav"]
    for k, rel in enumerate(audio):
        write_wav(root / rel, scene[k * n : (k + 1) * n] if k < 3 else scene)
    options = temporal_options(sid, random.Random(sid))
    entry = _entry(family, sid, sub, options, rotation.order_answer((1, 2, 3)), audio[:3])
    return {**entry, "global_caption": SCENES[sub][1], "uncut_audio_path": audio[3]}


# ---- writing --------------------------------------------------------------------------------------------------


def _sample_id(family: str, k: int) -> str:
    if family == "tr":
        return f"tr_{rotation.SUBTASKS[k % len(rotation.SUBTASKS)]}_{k // len(rotation.SUBTASKS)}"
    return f"{family}_{k:04d}"


def _build(family: str, count: int, root: Path, rng: np.random.Generator) -> list[Entry]:
    """``count`` entries cycling through the family's questions; after ``POOL`` rounds, copies reusing earlier
    audio."""
    subs = FAMILY_SUBS[family]
    build = _temporal if family == "tr" else _asked
    entries: list[Entry] = []
    for k in range(count):
        sid = _sample_id(family, k)
        if k < POOL * len(subs):
            entries.append(build(root, rng, family, subs[k % len(subs)], sid))
            continue
        entry = copy.deepcopy(entries[k % (POOL * len(subs))])
        entry["id"] = sid
        if family == "tr":
            entry["options"] = temporal_options(sid, random.Random(sid))
        entries.append(entry)
    return entries


def generate(root: Path | str, *, full_size: bool = False, seed: int = 0) -> dict[str, int]:
    """Write the sample under ``root`` (replacing an earlier one); returns the entry count per metadata file."""
    root = Path(root)
    for sub in ("meta_info", "starbench_audios"):
        shutil.rmtree(root / sub, ignore_errors=True)
    counts = FULL_COUNTS if full_size else SMALL_COUNTS
    built = {}
    for family in FAMILIES:
        rng = np.random.default_rng([seed, zlib.crc32(family.encode())])
        built[family] = _build(family, counts[family], root, rng)
    files = {
        DATASETS["pc"]: built["pc"],
        DATASETS["pc_sp"]: [e for e in built["pc"] if e["sub-category"] in SPATIAL_PERCEPTION],
        DATASETS["pc_nsp"]: [e for e in built["pc"] if e["sub-category"] not in SPATIAL_PERCEPTION],
        DATASETS["sr"]: built["sr"],
        DATASETS["tr"]: built["tr"],
    }
    for rel, entries in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(entries, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
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
