"""AIR-Bench Foundation: the official letter rule, the strict extractor and the aggregation, on hand-computed cases
(scored by the plug-in, as eval scores the journals' responses)."""

from __future__ import annotations

import random
from statistics import fmean
from typing import NamedTuple

import pytest

from avibench.benchmarks.airbench.sample import foundation_entries
from avibench.items import Item, Response
from avibench.kits.published import published_table
from avibench.level_metrics.airbench import (
    FOUNDATION_TASKS,
    REFERENCE,
    choose,
    strict_choice,
    summarize,
    task_accuracy,
)
from avibench.plugin import get_benchmark

ANIMALS = ("dog", "cat", "cow", "bird")


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("Based on the audio, the answer is D.", "B"),  # "Based" starts with B
        ("Answer: C", "A"),
        ("Dog barking", "D"),
        ("the answer is B", None),  # the second-to-last character is a space
        ("the answer is (B).", None),
        ("The answer is C.", "C"),
        ("  B\n", "B"),
        ("The answer is\nC.", "C"),  # newlines are removed before reading
        ("b", None),  # lower case never matches
        ("None", None),
        ("", None),
        ("E", None),
    ],
)
def test_official_letter(response: str, letter: str | None) -> None:
    index = choose(response, ANIMALS, REFERENCE)
    assert (None if index is None else "ABCD"[index]) == letter


@pytest.mark.parametrize(
    ("response", "options", "index"),
    [
        ("B", ANIMALS, 1),
        ("(C)", ANIMALS, 2),
        ("**D.**", ANIMALS, 3),
        ("A. dog", ANIMALS, 0),
        ("B) cat", ANIMALS, 1),
        ("Answer: C", ANIMALS, 2),
        ("Based on the audio, the answer is D.", ANIMALS, 3),
        ("the answer is (B).", ANIMALS, 1),
        ("Option A is wrong; the answer is C", ANIMALS, 2),
        ("It is a cat meowing.", ANIMALS, 1),
        ("Dog barking", ANIMALS, 0),
        ("A dog and a cat", ANIMALS, None),  # two options named
        ("I cannot tell.", ANIMALS, None),
        ("C", ("male", "female"), None),  # no option C on a two-option question
        ("The speaker is female.", ("male", "female"), 1),  # "male" is not a word of "female"
    ],
)
def test_strict_choice(response: str, options: tuple[str, ...], index: int | None) -> None:
    assert strict_choice(response, options) == index


class FoundationRecord(NamedTuple):
    """One Foundation question and the model's answer (``None``: no answer)."""

    task_name: str
    dataset_name: str
    options: tuple[str, ...]
    answer: str
    response: str | None


def _official(records: list[FoundationRecord], profile: str) -> dict:
    """The Foundation block the plug-in writes for ``records`` in ``profile``."""
    plugin = get_benchmark("airbench")
    foundation = next(t for t in plugin.tasks() if t.name == "foundation")
    responses = []
    for index, r in enumerate(records):
        item = Item(
            benchmark="airbench",
            task="foundation",
            item_id=str(index),
            parts=(),
            answer=r.answer,
            index=index,
            options=r.options,
            meta={"subset": f"{r.task_name}_{r.dataset_name}"},
        )
        responses.append(
            Response(item, "missing") if r.response is None else Response(item, "answered", r.response)
        )
    scored = plugin.score({"foundation": responses}, profile="reference", options={}, tasks=(foundation,))
    return scored.document["summary"]["by_profile"][profile]["official"]["foundation"]


def _scores(block: dict) -> dict[str, dict]:
    """The block's counts per subset, as task_accuracy reads them."""
    return block["tasks"]


GENDER = ("male", "female")
FIXTURE = [
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", "B"),
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", "The answer is B."),
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", "Answer: B"),
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", "cat"),
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", None),
    FoundationRecord("Speech_Grounding", "librispeech", ANIMALS, "cat", "D"),
    FoundationRecord("Speaker_Gender_Recognition", "meld", GENDER, "female", "C"),
    FoundationRecord("Speaker_Gender_Recognition", "meld", GENDER, "female", "B."),
    FoundationRecord("Speaker_Gender_Recognition", "meld", GENDER, "female", "I cannot tell"),
    FoundationRecord("Speaker_Gender_Recognition", "common_voice_13_en", GENDER, "male", "A"),
]


def test_reference_block() -> None:
    block = _official(FIXTURE, "reference")
    assert block == {
        "tasks": {
            "Speech_Grounding_librispeech": {"correct": 2, "n": 4, "accuracy": 0.5},
            "Speaker_Gender_Recognition_meld": {"correct": 1, "n": 2, "accuracy": 0.5},
            "Speaker_Gender_Recognition_common_voice_13_en": {"correct": 1, "n": 1, "accuracy": 1.0},
        },
        "fail_num": 2,
        "total_sum": 7,
    }


def test_strict_block() -> None:
    block = _official(FIXTURE, "strict")
    assert block == {
        "tasks": {
            "Speech_Grounding_librispeech": {"correct": 4, "n": 6, "accuracy": pytest.approx(4 / 6)},
            "Speaker_Gender_Recognition_meld": {"correct": 1, "n": 3, "accuracy": pytest.approx(1 / 3)},
            "Speaker_Gender_Recognition_common_voice_13_en": {"correct": 1, "n": 1, "accuracy": 1.0},
        },
        "fail_num": 2,
        "total_sum": 10,
        "missing": 1,
    }


def test_task_accuracy_pools_subsets_and_summary() -> None:
    assert task_accuracy(_scores(_official(FIXTURE, "reference"))) == {
        "Speech_Grounding": 0.5,
        "Speaker_Gender_Recognition": pytest.approx(2 / 3),
    }
    summary = summarize(task_accuracy(_scores(_official(FIXTURE, "strict"))))
    assert summary["tasks"] == {"Speech_Grounding": pytest.approx(4 / 6), "Speaker_Gender_Recognition": 0.5}
    assert summary["categories"] == {"speech": pytest.approx((4 / 6 + 0.5) / 2), "sound": None, "music": None}
    assert summary["mean"] == pytest.approx((4 / 6 + 0.5) / 2)
    assert summary["average"] is None


def test_all_failed_subset_has_no_accuracy() -> None:
    block = _official([FoundationRecord("Music_AQA", "music_avqa", ANIMALS, "dog", "maybe")], "reference")
    assert block["tasks"] == {"Music_AQA_music_avqa": {"correct": 0, "n": 0, "accuracy": None}}
    assert task_accuracy(_scores(block)) == {}


def test_answer_outside_the_options_is_an_error() -> None:
    with pytest.raises(ValueError, match="not one of the options"):
        _official([FoundationRecord("Music_AQA", "music_avqa", ANIMALS, "horse", "A")], "reference")


def test_summary_reproduces_published_averages() -> None:
    """The leaderboard average is the mean of the three category means of the per-task table."""
    by_category = published_table("airbench", "foundation_by_category")
    for by_task in published_table("airbench", "foundation_by_task").rows:
        model = by_task["model"]
        if by_task["average"] is None:
            continue
        summary = summarize({t.name: by_task[t.name] for t in FOUNDATION_TASKS})
        assert summary["average"] == pytest.approx(by_task["average"], abs=0.051), model
        for category in ("speech", "sound", "music"):
            expected = by_category.row(model)[category]
            assert summary["categories"][category] == pytest.approx(expected, abs=0.051), (model, category)
    turbo = published_table("airbench", "foundation_by_task").row("Qwen-Audio-Turbo")
    assert summarize({t.name: turbo[t.name] for t in FOUNDATION_TASKS})["mean"] == pytest.approx(
        58.31, abs=0.01
    )


def _records(entries: list[dict], answer) -> list[FoundationRecord]:
    out = []
    for e in entries:
        options = tuple(e[f] for f in ("choice_a", "choice_b", "choice_c", "choice_d") if f in e)
        out.append(
            FoundationRecord(e["task_name"], e["dataset_name"], options, e["answer_gt"], answer(options, e))
        )
    return out


def test_random_guess_lands_on_chance() -> None:
    rng = random.Random(3)
    entries = foundation_entries(per_subset=200, seed=1)
    records = _records(entries, lambda options, _: "ABCD"[rng.randrange(len(options))])
    by_task: dict[str, list[float]] = {}
    for r in records:
        by_task.setdefault(r.task_name, []).append(1.0 / len(r.options))
    chance = summarize({task: fmean(levels) for task, levels in by_task.items()})["average"]
    for profile in ("reference", "strict"):
        measured = summarize(task_accuracy(_scores(_official(records, profile))))["average"]
        assert measured == pytest.approx(chance, abs=0.02)
    assert 0.25 < chance < 0.5
