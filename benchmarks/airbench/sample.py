"""A small, deterministic AIR-Bench in the official layout, with real audio, and the baseline answerers.

Every Foundation subset (25, covering the 19 tasks) and every Chat folder (10, covering the 5 categories) gets
``per_subset`` entries. Questions and options are synthetic (``prompts/airbench/sample.yaml``); the audio is a
short tone whose pitch follows the entry's number, stored as 16 kHz wav (flac for Audio_Grounding, whose entries
still name ``.wav`` files).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

from avibench.benchmarks.airbench.layout import CHAT_SECTION, FOUNDATION_SECTION, OPTION_FIELDS, Section
from avibench.definitions import prompt_resource
from avibench.items import Item
from avibench.kits import multiple_choice as mc
from avibench.kits.media import tone, write_audio
from avibench.level_metrics.airbench import FOUNDATION_TASKS, LETTERS

CLIP_SECONDS = 0.2

#: Per Foundation task the question and its option pool, the Chat folders and the subjects of the Chat clips
#: (``prompts/airbench/sample.yaml``).
SAMPLE = yaml.safe_load(prompt_resource("airbench", "sample.yaml"))
RANDOM_REPLIES = ("I am not sure.", "It sounds pleasant.", "There is some noise.", "Something is moving.")


def _foundation_entry(rng: random.Random, task_name: str, dataset: str, number: int) -> dict[str, Any]:
    question, pool = SAMPLE["questions"][task_name], SAMPLE["option_pools"][task_name]
    k = len(pool) if len(pool) == 2 else rng.choice((2, 3, 4, 4))
    options = rng.sample(pool, k)
    entry: dict[str, Any] = {"path": f"{task_name}_{number:06d}.wav", "question": question}
    entry.update(zip(OPTION_FIELDS, options, strict=False))
    entry.update(
        {"answer_gt": rng.choice(options), "task_name": task_name, "dataset_name": dataset, "uniq_id": number}
    )
    return entry


def foundation_entries(per_subset: int, seed: int = 0) -> list[dict[str, Any]]:
    """The Foundation meta entries: ``per_subset`` for each of the 25 subsets, ids counting from 0."""
    rng = random.Random(seed)
    subsets = [(t.name, d) for t in FOUNDATION_TASKS for d in t.datasets]
    return [
        _foundation_entry(rng, task, dataset, s * per_subset + i)
        for s, (task, dataset) in enumerate(subsets)
        for i in range(per_subset)
    ]


def chat_entries(per_subset: int, seed: int = 0) -> list[dict[str, Any]]:
    """The Chat meta entries: ``per_subset`` for each of the 10 folders, ids counting from 0."""
    rng = random.Random(seed)
    entries = []
    for f, (task_name, dataset) in enumerate(SAMPLE["chat_folders"]):
        for i in range(per_subset):
            number = f * per_subset + i
            subject, other = rng.sample(SAMPLE["chat_subjects"], 2)
            entries.append(
                {
                    "path": f"{task_name}_{number:06d}.wav",
                    "question": "What can be heard in this recording?",
                    "answer_gt": f"The recording mainly features {subject}.",
                    "task_name": task_name,
                    "dataset_name": dataset,
                    "meta_info": f"A short clip in which {subject} is heard clearly and {other} faintly.",
                    "uniq_id": number,
                }
            )
    return entries


def _write_section(root: Path, section: Section, entries: list[dict[str, Any]]) -> None:
    for number, entry in enumerate(entries):
        audio = section.audio_path(root, entry)
        write_audio(audio, tone(220.0 * 2 ** ((number % 24) / 12), CLIP_SECONDS))
    meta = section.meta_path(root)
    meta.write_text(json.dumps(entries, ensure_ascii=False, indent=1), encoding="utf-8")


def generate(
    root: Path, per_subset: int = 2, seed: int = 0, foundation: bool = True, chat: bool = True
) -> Path:
    """Write the sample under ``root`` (either section can be left out) and return ``root``."""
    root = Path(root)
    if foundation:
        _write_section(root, FOUNDATION_SECTION, foundation_entries(per_subset, seed))
    if chat:
        _write_section(root, CHAT_SECTION, chat_entries(per_subset, seed))
    return root


ORACLE_PHRASES = ("{letter}", "{letter}. {text}", "The answer is {letter}.")
"""How the oracle phrases a Foundation answer: each reads as the gold letter under the official rule (first
character, else the second-to-last) and under the strict extractor alike."""


def oracle_answer(item: Item, rng: random.Random) -> str:
    """The right answer: the gold letter in one of :data:`ORACLE_PHRASES` for Foundation, the reference answer
    for Chat."""
    if item.task == "foundation":
        letter = LETTERS[mc.gold_index(item.options, item.answer)]
        return rng.choice(ORACLE_PHRASES).format(letter=letter, text=item.answer)
    return str(item.answer)


def random_answer(item: Item, rng: random.Random) -> str:
    """A uniform guess among the real option letters for Foundation; a stock sentence for Chat."""
    return mc.random_reply(item.options, rng) if item.task == "foundation" else rng.choice(RANDOM_REPLIES)
