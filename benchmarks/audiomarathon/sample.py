"""A deterministic AudioMarathon sample in the official layout.

Clips are long (90 s) but sampled at a low rate so the sample stays small: tone sequences whose pitches encode the
item's class for the classification tasks, a spoken-like signal (one voiced burst per word, its length following the
word) with a known transcript for ASR, and real/fake pairs for HAD (the fake clip is its real twin with a synthetic
segment spliced in). RACE puts two questions on each passage, as the real data shares a passage between questions.
``full_size=True`` writes the official per-task counts at a lower rate; there every question still has its own file
name, but the files are hard links to a small pool of distinct clips per task, so the sample stays a few megabytes.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from avibench.benchmarks.audiomarathon import layout
from avibench.kits.media import voiced_words, write_audio

SMALL = dict(SER=4, SCR=4, ASR=3, SED=4, MC=4, ASC=4, SD=4, ER=4, SAR=5, SGR=4)
FULL = dict(SER=490, SCR=820, ASR=204, SED=254, MC=120, ASC=1145, SD=776, ER=185, SAR=959, SGR=1614)
"""Questions per task: the small default, and the official counts (README; HAD and gender after balancing)."""

SECONDS = 90.0
SAMPLE_RATE = {False: 1000, True: 200}
"""Sample rate of the generated clips (Hz) for the small and the full-size sample."""
POOL = 6
"""Distinct clips per task in the full-size sample (the other files are hard links to them)."""
SURPLUS = 1
"""Extra real HAD clips and male speakers written beyond the balanced count, so balancing has something to cut."""

VOCABULARY = layout.data_file("audiomarathon/sample.yaml")
GENRES, SCENES, EVENTS, EMOTIONS, AGE_GROUPS, ENTITIES, WORDS = (
    tuple(VOCABULARY[name])
    for name in ("genres", "scenes", "events", "emotions", "age_groups", "entities", "words")
)


# ---- signals -------------------------------------------------------------------------------------------------


def _tones(pitches: Sequence[float], rate: int, seconds: float = SECONDS) -> np.ndarray:
    """A repeating sequence of half-second tones at ``pitches`` (Hz), a short gap after each."""
    t = np.arange(int(rate * seconds)) / rate
    slot = (t // 0.6).astype(int)
    pitch = np.asarray(pitches, dtype=float)[slot % len(pitches)]
    voiced = (t % 0.6) < 0.5
    return 0.4 * np.sin(2 * np.pi * pitch * t) * voiced


def _class_pitches(key: int, rate: int) -> list[float]:
    """Tone pitches identifying class ``key`` (below the Nyquist frequency of ``rate``)."""
    top = rate / 2 * 0.8
    return [top * (0.2 + 0.6 * ((key * 7 + j * 3) % 11) / 10) for j in range(3)]


def _write(path: Path, signal: np.ndarray, rate: int) -> None:
    write_audio(path, signal, rate, subtype="PCM_16" if path.suffix == ".flac" else "PCM_U8")


class Clips:
    """Writes clips; in pooled mode the ``key``-th clip of a kind is written once and later files link to it."""

    def __init__(self, rate: int, pooled: bool):
        self.rate = rate
        self.pooled = pooled
        self.written: dict[tuple[str, int], Path] = {}

    def put(self, path: Path, kind: str, key: int, make: Callable[[], np.ndarray]) -> None:
        first = self.written.get((kind, key % POOL)) if self.pooled else None
        if first is None:
            _write(path, make(), self.rate)
            self.written[(kind, key % POOL)] = path
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(first, path)
        except OSError:
            shutil.copyfile(first, path)


# ---- questions --------------------------------------------------------------------------------------------------


def _options(rng: random.Random, pool: Sequence[str], correct: str, k: int, position: int) -> list[str]:
    """``k`` options from ``pool`` with ``correct`` at ``position``."""
    others = rng.sample([p for p in pool if p != correct], k - 1)
    return [*others[:position], correct, *others[position:]]


POOLS = {
    "SED": EVENTS,
    "MC": GENRES,
    "ASC": SCENES,
    "ER": EMOTIONS,
    "SAR": AGE_GROUPS,
    "SGR": ("male", "female"),
}


def _filled(template: Any, values: dict[str, Any]) -> Any:
    """A template of the sample data file with one question's values (see the file)."""
    if isinstance(template, list):
        return [_filled(v, values) for v in template]
    if isinstance(template, dict):
        out: dict[str, Any] = {}
        for key, value in template.items():
            if key == "{fields}":
                out.update({f"choice_{'abcde'[i]}": o for i, o in enumerate(values["options"])})
            else:
                out[key] = _filled(value, values)
        return out
    if isinstance(template, str) and template[:1] == "{" and template[1:-1] in values:
        return values[template[1:-1]]
    return template.format(**values) if isinstance(template, str) else template


def _question(task: str, i: int, rng: random.Random) -> tuple[dict[str, Any], int]:
    """One metadata entry (without its audio path) and the class key its clip encodes."""
    k = 5 if task == "SAR" else 4
    position = i % k
    if task == "SER":
        correct = ", ".join(rng.sample(ENTITIES, 2))
        pool, key = [correct, *(", ".join(rng.sample(ENTITIES, 2)) for _ in range(6))], i
    elif task == "SCR":
        correct, pool, key = "", [], i
    else:
        pool = POOLS[task]
        correct = pool[i % 2 if task == "SGR" else i % len(pool)]
        key = pool.index(correct)
    if task == "SCR":
        options = [f"statement {i}-{j}" for j in range(4)]
    elif task == "SGR":
        options = list(pool)
    else:
        options = _options(rng, pool, correct, k, position)
    values = {
        "index": i,
        "letter": "ABCD"[position % 4],
        "correct": correct,
        "options": options,
        "choices": dict(zip("ABCD", options, strict=False)),
        "person": str(3 + i % 7),
        "speaker": f"id{(10000 if task == 'SAR' else 20000) + i}",
        "age": 20 + 12 * key,
    }
    return _filled(VOCABULARY["entries"][task], values), key


CLIP_FOLDER = {
    "SER": "audio",
    "SCR": "{subset}",
    "SED": "audio",
    "MC": "genres",
    "ASC": "audio",
    "ER": "audio",
}
"""Sub-folder of the generated clips (SAR and SGR: ``speakers``)."""


def _json_task(root: Path, task: str, n: int, rng: random.Random, clips: Clips) -> None:
    spec = layout.json_task(task)
    field, sub = spec["audio"], CLIP_FOLDER.get(task, "speakers")
    folder = root / task
    entries = []
    for i in range(n):
        entry, key = _question(task, i, rng)
        clip = i // 2 if task == "SCR" else i
        subset = "high" if clip % 2 == 0 else "middle"
        rel = f"{sub.format(subset=subset)}/{task.lower()}_{clip:04d}.wav"
        path = folder / spec.get("audio_dir", "") / rel
        if not path.exists():
            clips.put(path, task, clip, lambda key=key: _tones(_class_pitches(key, clips.rate), clips.rate))
        entries.append({field: rel, **entry})
    body: Any = {"tasks": entries} if task == "SED" else entries
    (folder / spec["metadata"]).write_text(json.dumps(body, indent=1), encoding="utf-8")


def _asr(root: Path, n: int, rng: random.Random, clips: Clips) -> None:
    by_chapter: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for i in range(n):
        speaker, chapter = str(1000 + i % 3), str(200 + i % 2)
        words = [rng.choice(WORDS) for _ in range(rng.randint(40, 60))]
        utterance = f"{speaker}-{chapter}-{i:04d}"
        folder = root / "ASR" / "test-clean" / speaker / chapter
        _write(folder / f"{utterance}.flac", voiced_words(words, clips.rate, SECONDS), clips.rate)
        by_chapter.setdefault((speaker, chapter), []).append((utterance, " ".join(words).upper()))
    for (speaker, chapter), lines in by_chapter.items():
        path = root / "ASR" / "test-clean" / speaker / chapter / f"{speaker}-{chapter}.trans.txt"
        path.write_text("".join(f"{u} {t}\n" for u, t in lines), encoding="utf-8")


def _had(root: Path, n: int, clips: Clips) -> None:
    half, rate = n // 2, clips.rate

    def real(i: int) -> np.ndarray:
        return voiced_words(WORDS[i % 7 : i % 7 + 30], rate, SECONDS)

    def fake(i: int) -> np.ndarray:
        clip = real(i)
        start, stop = int(rate * 30), int(rate * 40)
        clip[start:stop] = _tones([rate / 5], rate, (stop - start) / rate)
        return clip

    for i in range(half + SURPLUS):
        clips.put(root / "SD" / "real" / f"had_{i:04d}.wav", "real", i, lambda i=i: real(i))
        if i < half:
            clips.put(root / "SD" / "fake" / f"had_fake_{i:04d}.wav", "fake", i, lambda i=i: fake(i))


def generate(root: Path | str, *, full_size: bool = False, seed: int = 0) -> dict[str, int]:
    """Write the sample under ``root`` (one folder per task); returns the questions per task after balancing."""
    root = Path(root)
    counts = FULL if full_size else SMALL
    clips = Clips(SAMPLE_RATE[full_size], pooled=full_size)
    for task, n in counts.items():
        rng = random.Random(f"{seed}/{task}")
        if task == "ASR":
            _asr(root, n, rng, clips)
        elif task == "SD":
            _had(root, n, clips)
        else:
            _json_task(root, task, n + (SURPLUS if task == "SGR" else 0), rng, clips)
    return dict(counts)
