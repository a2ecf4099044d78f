"""AIR-Bench Foundation: the official letter rule, the strict extractor and the aggregation, on hand-computed cases."""

from __future__ import annotations

import random

import pytest

from avibench.benchmarks.airbench.sample import foundation_entries
from avibench.kits.published import published_table
from avibench.level_metrics.airbench import (
    FOUNDATION_TASKS,
    REFERENCE,
    STRICT,
    FoundationRecord,
    chance_by_task,
    foundation_block,
    official_letter,
    score_foundation,
    strict_choice,
    summarize,
    task_accuracy,
)

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
    assert official_letter(response) == letter


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
    block = foundation_block(score_foundation(FIXTURE, REFERENCE), REFERENCE)
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
    block = foundation_block(score_foundation(FIXTURE, STRICT), STRICT)
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
    assert task_accuracy(score_foundation(FIXTURE, REFERENCE)) == {
        "Speech_Grounding": 0.5,
        "Speaker_Gender_Recognition": pytest.approx(2 / 3),
    }
    summary = summarize(task_accuracy(score_foundation(FIXTURE, STRICT)))
    assert summary["tasks"] == {"Speech_Grounding": pytest.approx(4 / 6), "Speaker_Gender_Recognition": 0.5}
    assert summary["categories"] == {"speech": pytest.approx((4 / 6 + 0.5) / 2), "sound": None, "music": None}
    assert summary["mean"] == pytest.approx((4 / 6 + 0.5) / 2)
    assert summary["average"] is None


def test_all_failed_subset_has_no_accuracy() -> None:
    scores = score_foundation(
        [FoundationRecord("Music_AQA", "music_avqa", ANIMALS, "dog", "maybe")], REFERENCE
    )
    assert foundation_block(scores)["tasks"] == {
        "Music_AQA_music_avqa": {"correct": 0, "n": 0, "accuracy": None}
    }
    assert task_accuracy(scores) == {}


def test_answer_outside_the_options_is_an_error() -> None:
    with pytest.raises(ValueError, match="not one of the options"):
        score_foundation([FoundationRecord("Music_AQA", "music_avqa", ANIMALS, "horse", "A")])


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
    chance = summarize(chance_by_task(records))["average"]
    for profile in (REFERENCE, STRICT):
        measured = summarize(task_accuracy(score_foundation(records, profile)))["average"]
        assert measured == pytest.approx(chance, abs=0.02)
    assert 0.25 < chance < 0.5
