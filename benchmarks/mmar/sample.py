"""A small, deterministic MMAR and MMAU test-mini in the official layouts, with real audio.

Every question is about its own audio and its answer is true of it by construction: how many tones sound, which of
two tones is louder or higher, whether the pitch goes up or down, and whether the clip is speech-like (a voiced
buzz whose pitch glides, cut into syllables) or music-like (steady notes of a scale). The breakdown labels cycle so
that every MMAR modality and category and every MMAU task and difficulty occur. The default sample is small (30
questions each); ``full_size`` writes the real benchmarks' 1,000 questions each, with tiny clips.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from avibench.benchmarks.mmar.layout import Layout
from avibench.kits.media import SR, gliding_voice, timeline, tone, write_wav
from avibench.level_metrics.mmar import MMAR_CATEGORIES, MMAR_MODALITIES, MMAU_DIFFICULTIES, MMAU_TASKS

SMALL_SIZE = 30
FULL_SIZE = 1000
#: The length of one tone in seconds (clips are 3-8 tones long): short in the small sample, tiny in the full one.
SMALL_UNIT = 0.1
FULL_UNIT = 0.02
NOTES_HZ = (262.0, 294.0, 330.0, 349.0, 392.0, 440.0, 494.0)


@dataclass(frozen=True)
class Question:
    """One generated question: its text, choices, answer, skill (sub-category) and audio."""

    question: str
    choices: list[str]
    answer: str
    skill: str
    audio: np.ndarray


def _beeps(rng: random.Random, unit: float) -> Question:
    n_choices = rng.choice((4, 4, 5, 6))
    count = rng.randint(1, n_choices)
    events = [(k * 2 * unit, tone(NOTES_HZ[4], unit)) for k in range(count)]
    audio = timeline((2 * count + 1) * unit, events)
    choices = [str(k) for k in range(1, n_choices + 1)]
    return Question("How many beeps can be heard?", choices, str(count), "Counting and Statistics", audio)


def _louder(rng: random.Random, unit: float) -> Question:
    first_louder = rng.random() < 0.5
    amps = (0.6, 0.15) if first_louder else (0.15, 0.6)
    audio = timeline(
        4 * unit, [(0.0, tone(NOTES_HZ[2], unit, amps[0])), (2 * unit, tone(NOTES_HZ[2], unit, amps[1]))]
    )
    answer = "The first" if first_louder else "The second"
    return Question(
        "Which of the two tones is louder?", ["The first", "The second"], answer, "Acoustic Quality", audio
    )


def _higher(rng: random.Random, unit: float) -> Question:
    order = rng.choice(("first", "second", "same"))
    low, high = NOTES_HZ[0], NOTES_HZ[5]
    freqs = {"first": (high, low), "second": (low, high), "same": (low, low)}[order]
    audio = timeline(4 * unit, [(0.0, tone(freqs[0], unit)), (2 * unit, tone(freqs[1], unit))])
    choices = ["The first tone", "The second tone", "Both are equally high"]
    answer = {"first": choices[0], "second": choices[1], "same": choices[2]}[order]
    return Question("Which tone has the higher pitch?", choices, answer, "Music Theory", audio)


def _direction(rng: random.Random, unit: float) -> Question:
    rising = rng.random() < 0.5
    freqs = NOTES_HZ[:4] if rising else NOTES_HZ[3::-1]
    audio = np.concatenate([tone(f, unit) for f in freqs])
    # half of them word the choices alike ("low to high" / "high to low"): the official match accepts either
    choices = ["From low to high", "From high to low"] if rng.random() < 0.5 else ["Rising", "Falling"]
    return Question(
        "How does the pitch move?", choices, choices[0 if rising else 1], "Temporal Analysis", audio
    )


def _speech_or_music(rng: random.Random, unit: float) -> Question:
    speech = rng.random() < 0.5
    if speech:
        buzz = gliding_voice(8 * unit, 140, 40, 1.5)
        t = np.arange(len(buzz)) / SR
        audio = 0.3 * buzz * np.clip(np.sin(2 * np.pi * 4 * t), 0, None)  # four syllables a second
    else:
        audio = np.concatenate([tone(rng.choice(NOTES_HZ), unit) for _ in range(8)])
    choices = ["Speech", "Music", "Silence"][: rng.choice((2, 3))]
    return Question(
        "Is this recording speech or music?", choices, choices[0 if speech else 1], "Content Analysis", audio
    )


KINDS = (_beeps, _louder, _higher, _direction, _speech_or_music)


def _questions(count: int, seed: int, unit: float) -> list[Question]:
    rng = random.Random(seed)
    return [KINDS[k % len(KINDS)](rng, unit) for k in range(count)]


RUBRIC_NOTE = "A synthetic rubric point of the generated sample."
RUBRIC_POINTS = ("Listening", "Cue identification", "Comparison", "Reasoning", "Correct selection")


def _rubric_point(point: str, skill: str) -> dict[str, Any]:
    scoring = f"Award 1 point for {point.lower()} ({skill})."
    return {"name": point, "scoring_point": scoring, "note": RUBRIC_NOTE, "choices": [0, 1]}


def mmar_records(
    count: int, seed: int = 0, unit: float = SMALL_UNIT
) -> list[tuple[dict[str, Any], Question]]:
    """MMAR records (every field of the 2026 format) with their questions, labels cycling over every value."""
    out = []
    for k, q in enumerate(_questions(count, seed, unit)):
        item_id = f"sample{k:04d}_00-00-00_00-00-0{k % 10}"
        audio_name = "sample_multi_segment" if k == 1 else item_id  # one record names a file unlike its id
        record = {
            "id": item_id,
            "audio_path": f"./audio/{audio_name}.wav",
            "question": q.question,
            "choices": q.choices,
            "answer": q.answer,
            "modality": MMAR_MODALITIES[k % len(MMAR_MODALITIES)],
            "category": MMAR_CATEGORIES[k % len(MMAR_CATEGORIES)],
            "sub-category": q.skill,
            "language": None if k % 3 else "en",
            "source": ("youtube", "bilibili")[k % 2],
            "url": f"https://example.org/sample/{item_id}",
            "timestamp": f"00:00:00,00:00:0{k % 10}",
            "thinking": f"The clip answers '{q.question}' directly: {q.answer}.",
            "cue": [q.skill],
            "rubric": [_rubric_point(p, q.skill) for p in RUBRIC_POINTS],
        }
        out.append((record, q))
    return out


def mmau_records(
    count: int, seed: int = 0, unit: float = SMALL_UNIT
) -> list[tuple[dict[str, Any], Question]]:
    """MMAU test-mini records with their questions; a few store ``category`` as a one-element list, as upstream."""
    ids = random.Random(seed + 1)
    out = []
    for k, q in enumerate(_questions(count, seed + 1, unit)):
        item_id = str(uuid.UUID(int=ids.getrandbits(128), version=4))
        category = ("Reasoning", "Information Extraction")[k % 2]
        record = {
            "id": item_id,
            "audio_id": f"./test-mini-audios/{item_id}.wav",
            "question": q.question,
            "choices": q.choices,
            "answer": q.answer,
            "dataset": "synthetic",
            "task": MMAU_TASKS[k % len(MMAU_TASKS)],
            "split": "test-mini",
            "category": [category] if k % 10 == 7 else category,
            "sub-category": q.skill,
            "difficulty": MMAU_DIFFICULTIES[k % len(MMAU_DIFFICULTIES)],
        }
        out.append((record, q))
    return out


def generate(root: Path, layout: Layout, *, seed: int = 0, full_size: bool = False) -> int:
    """Write the sample of ``layout``'s benchmark under ``root``; returns the number of questions."""
    size, unit = (FULL_SIZE, FULL_UNIT) if full_size else (SMALL_SIZE, SMALL_UNIT)
    pairs = (mmar_records if layout.benchmark == "mmar" else mmau_records)(size, seed, unit)
    for record, question in pairs:
        write_wav(Path(root) / record[layout.audio_field], question.audio)
    rows = [record for record, _ in pairs]
    meta = Path(root) / layout.meta_files[0]  # its folder holds the audio written above
    if meta.suffix == ".jsonl":  # as upstream: one record per line, no trailing newline
        meta.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    else:
        meta.write_text(json.dumps(rows, ensure_ascii=False, indent=4), encoding="utf-8")
    return len(rows)
