"""MMAR / MMAU scoring: the official token-set match pinned behaviour by behaviour, both profiles, the breakdowns."""

from __future__ import annotations

import pytest

from avibench.level_metrics.mmar import (
    MMAR_BREAKDOWNS,
    MMAR_CATEGORIES,
    MMAR_MODALITIES,
    MMAU_BREAKDOWNS,
    REFERENCE,
    STRICT,
    Breakdown,
    Disagreement,
    Record,
    aggregate,
    chance_breakdown,
    chance_level,
    get_profile,
    is_correct,
    official_lines,
    official_tokens,
    profile_disagreements,
    score,
    token_set_match,
)

SPEAKER = ["Man", "Woman", "Child", "Robot"]


# The regression strings verified against the official scorer -----------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "prediction", "choices", "expected"),
    [
        ("Man", "B", SPEAKER, False),
        ("Man", "(A) Man", SPEAKER, True),
        ("Man", "The speaker is a man, not a woman", SPEAKER, False),
        ("From far to near", "From near to far", ["From far to near", "From near to far"], True),
        ("3", "There are 3 dogs", ["2", "3", "4", "5"], True),
        ("3", "3 dogs and 2 cats", ["2", "3", "4", "5"], False),
    ],
)
def test_official_regressions(answer: str, prediction: str, choices: list[str], expected: bool) -> None:
    assert token_set_match(answer, prediction, choices) is expected


def test_set_semantics_ignore_order_and_repetition() -> None:
    choices = ["Guitar, Piano", "Piano, Guitar", "Drums"]
    assert token_set_match("Guitar, Piano", "piano piano GUITAR", choices)
    assert token_set_match(
        "Guitar, Piano", "Piano, Guitar", choices
    )  # the distractor verbatim scores correct


def test_distractor_with_the_answer_token_set_adds_no_incorrect_token() -> None:
    # "near" and "far" are shared; "no movement" contributes its own tokens
    choices = ["From far to near", "From near to far", "No movement"]
    assert token_set_match("From far to near", "from near to far", choices)
    assert not token_set_match("From far to near", "from far to near, no movement", choices)


def test_letter_token_in_a_distractor_breaks_lettered_answers() -> None:
    choices = ["A car passes", "Rain falls"]
    assert not token_set_match("Rain falls", "(A) Rain falls", choices)  # "a" is a distractor token
    assert token_set_match("Rain falls", "(B) Rain falls", choices)
    assert not token_set_match("C major", "(B) C major", ["B flat major", "C major"])


def test_unicode_word_tokens() -> None:
    assert official_tokens("答案是 男声！Café") == {"答案是", "男声", "café"}
    assert token_set_match("男声", "男声", ["男声", "女声"])
    assert not token_set_match("男声", "答案是男声", ["男声", "女声"])  # one CJK run is one token


def test_empty_prediction_is_wrong() -> None:
    assert not token_set_match("Man", "", SPEAKER)
    assert not token_set_match("Man", "?!", SPEAKER)  # punctuation only: no token


def test_negation_works_only_by_accident() -> None:
    choices = ["Intense", "Not intense"]
    assert not token_set_match("Intense", "Not intense", choices)
    assert token_set_match("Not intense", "not intense at all", choices)
    assert token_set_match("Intense", "It is intense", choices)


def test_tokens_lowercase_and_word_characters() -> None:
    assert official_tokens("It's a Dog_2, OK?") == {"it", "s", "a", "dog_2", "ok"}


# Profiles ----------------------------------------------------------------------------------------------------------


def _record(prediction: str | None, chosen: int | None = None, answer: str = "Man", **groups: str) -> Record:
    return Record(answer, tuple(SPEAKER), prediction, chosen, groups)


def test_reference_skips_missing_strict_counts_it_wrong() -> None:
    assert is_correct(_record(None), REFERENCE) is None
    assert is_correct(_record(None), STRICT) is False


def test_strict_scores_the_extracted_option() -> None:
    assert is_correct(_record("B", chosen=0), STRICT) is True
    assert is_correct(_record("B", chosen=0), REFERENCE) is False
    assert is_correct(_record("Man", chosen=None), STRICT) is False  # unparsed is wrong
    assert is_correct(_record("Man", chosen=7), STRICT) is False  # out of range is never right
    order = Record("From far to near", ("From far to near", "From near to far"), "From near to far", 1)
    assert is_correct(order, REFERENCE) is True
    assert is_correct(order, STRICT) is False


def test_empty_string_prediction_is_scored_not_skipped() -> None:
    result = score([_record(""), _record("Man")], MMAR_BREAKDOWNS[:0], REFERENCE)
    assert result["total"] == {"accuracy": 50.0, "n": 2}


def test_get_profile() -> None:
    assert get_profile("strict") is STRICT
    assert get_profile(REFERENCE) is REFERENCE
    with pytest.raises(KeyError, match="reference, strict"):
        get_profile("lenient")


# Aggregation -------------------------------------------------------------------------------------------------------


def _mmar(
    prediction: str | None, modality: str, category: str, sub: str | None, chosen: int | None = None
) -> Record:
    groups = {"modality": modality, "category": category}
    if sub is not None:
        groups["sub-category"] = sub
    return Record("Man", tuple(SPEAKER), prediction, chosen, groups)


MMAR_RECORDS = [
    _mmar("Man", "speech", "Signal Layer", "Speaker Analysis", 0),
    _mmar("Woman", "speech", "Signal Layer", "Speaker Analysis", 1),
    _mmar("(A) Man", "sound", "Cultural Layer", "Imagination", 0),
    _mmar("A", "sound", "Cultural Layer", None, 0),
    _mmar(None, "music", "Semantic Layer", "Imagination"),
]


def test_mmar_reference_shape_and_values() -> None:
    result = score(MMAR_RECORDS, MMAR_BREAKDOWNS, REFERENCE)
    assert list(result) == ["modality", "category", "sub-category", "total"]
    assert list(result["modality"]) == list(MMAR_MODALITIES)
    assert list(result["category"]) == list(MMAR_CATEGORIES)
    assert result["modality"]["speech"] == {"accuracy": 50.0, "n": 2}
    assert result["modality"]["sound"] == {"accuracy": 50.0, "n": 2}
    assert result["modality"]["music"] == {"accuracy": 0.0, "n": 0}  # its only record had no prediction
    assert result["category"]["Cultural Layer"] == {"accuracy": 50.0, "n": 2}
    # sub-categories in first-seen order; a record without one is left out of this breakdown only
    assert result["sub-category"] == {
        "Speaker Analysis": {"accuracy": 50.0, "n": 2},
        "Imagination": {"accuracy": 100.0, "n": 1},
    }
    assert result["total"] == {"accuracy": 50.0, "n": 4}


def test_mmar_strict_values() -> None:
    result = score(MMAR_RECORDS, MMAR_BREAKDOWNS, STRICT)
    assert result["modality"]["sound"] == {"accuracy": 100.0, "n": 2}
    assert result["modality"]["music"] == {"accuracy": 0.0, "n": 1}
    assert result["modality"]["mix-sound-music"] == {"accuracy": None, "n": 0}
    assert result["total"] == {"accuracy": 60.0, "n": 5}


def test_accuracy_is_unrounded_percent() -> None:
    records = [
        _mmar("Man", "speech", "Signal Layer", "x"),
        *[_mmar("Woman", "speech", "Signal Layer", "x")] * 2,
    ]
    assert score(records, MMAR_BREAKDOWNS, REFERENCE)["total"]["accuracy"] == 100 / 3


def test_unknown_fixed_key_value_is_reported_after_the_fixed_keys() -> None:
    result = score([_mmar("Man", "silence", "Signal Layer", "x")], MMAR_BREAKDOWNS, REFERENCE)
    assert list(result["modality"])[-1] == "silence"
    assert result["modality"]["silence"] == {"accuracy": 100.0, "n": 1}


def test_no_scored_record_gives_no_total() -> None:
    assert score([_mmar(None, "speech", "Signal Layer", "x")], MMAR_BREAKDOWNS, REFERENCE)["total"] == {
        "accuracy": None,
        "n": 0,
    }


def _mmau(prediction: str, task: str, difficulty: str, category: object) -> Record:
    groups = {"task": task, "difficulty": difficulty, "sub-category": "Event", "category": category}
    return Record("Man", tuple(SPEAKER), prediction, 0, groups)


def test_mmau_breakdowns_and_list_categories() -> None:
    records = [
        _mmau("Man", "sound", "easy", "Reasoning"),
        _mmau("Woman", "music", "hard", ["Reasoning"]),
        _mmau("Man", "speech", "medium", "Information Extraction"),
    ]
    result = score(records, MMAU_BREAKDOWNS, REFERENCE)
    assert list(result) == ["task", "difficulty", "sub-category", "category", "total"]
    assert list(result["task"]) == ["sound", "music", "speech"]
    assert list(result["difficulty"]) == ["easy", "hard", "medium"]
    assert result["category"] == {
        "Reasoning": {"accuracy": 50.0, "n": 2},
        "Information Extraction": {"accuracy": 100.0, "n": 1},
    }
    assert result["total"]["accuracy"] == pytest.approx(200 / 3)


def test_list_value_counts_in_each_group() -> None:
    result = aggregate([_mmau("Man", "sound", "easy", ["A", "B"]).groups], [1.0], [Breakdown("category")])
    assert result["category"] == {"A": {"accuracy": 100.0, "n": 1}, "B": {"accuracy": 100.0, "n": 1}}


def test_official_lines() -> None:
    result = score(MMAR_RECORDS, MMAR_BREAKDOWNS, REFERENCE)
    lines = official_lines(result, MMAR_BREAKDOWNS)
    assert lines[:3] == ["*" * 30, "Modality-wise Accuracy:", "sound : 50.00% over 2 samples"]
    assert "mix-sound-music : 0.00% over 0 samples" in lines
    assert "Imagination : 100.00% over 1 samples" in lines
    assert lines[-3:] == ["Total Accuracy: 50.00% over 4 samples", "*" * 30, "No prediction count: 0"]
    mmau = official_lines(score([_mmau("Man", "sound", "easy", "R")], MMAU_BREAKDOWNS), MMAU_BREAKDOWNS)
    assert "Task-wise Accuracy:" in mmau and "Difficulty-wise Accuracy:" in mmau
    assert not any(line.startswith("R :") for line in mmau)  # category is not an official breakdown


# Chance and disagreements ------------------------------------------------------------------------------------------


def test_chance_level() -> None:
    assert chance_level([["a", "b"], ["a", "b", "c", "d"]]) == pytest.approx(37.5)
    records = [_mmar(None, "speech", "Signal Layer", "x"), _mmar(None, "sound", "Signal Layer", "x")]
    records[1] = Record("a", ("a", "b"), None, None, {"modality": "sound", "category": "Signal Layer"})
    chance = chance_breakdown(records, MMAR_BREAKDOWNS)
    assert chance["modality"]["speech"] == {"accuracy": 25.0, "n": 1}
    assert chance["modality"]["sound"] == {"accuracy": 50.0, "n": 1}
    assert chance["total"] == {"accuracy": 37.5, "n": 2}


def test_profile_disagreements() -> None:
    records = [
        _record("Man", 0),  # both right
        _record("B", 0),  # strict only: a letter answer
        _record("The speaker is a man, not a woman", 0),  # strict only: names a distractor
        Record(
            "From far to near", ("From far to near", "From near to far"), "From near to far", 1
        ),  # reference only
        _record(None),  # not an answer: not counted
        _record("Woman", 1),  # both wrong
    ]
    found = profile_disagreements(records)
    assert found == Disagreement(reference_only=1, strict_only=2)
    assert found.total == 3
