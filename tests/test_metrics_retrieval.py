"""VAR / AVR retrieval (spec 4.7, quirks 18 and 32)."""

from __future__ import annotations

import pytest
from test_metrics_helpers import make_items

from avibench.level_metrics import REFERENCE, STRICT, retrieval
from avibench.level_metrics.common import Notes
from avibench.level_metrics.retrieval import ranked_indices, set_f1


def test_spec_vector() -> None:
    # GT [2], pred "[2, 0]": cleaned "2 0" -> set order [0, 2]: R@1 0, R@3 1, F1 2*0.5*1/1.5 = 0.66667.
    # Average = ((0 + 1)/2 + 0.66667)/2 = 0.583335 (not rounded).
    score = retrieval(make_items("VAR", [("0", [2], "[2, 0]")]), profile=REFERENCE)
    assert score.value == {
        "Recall@1": 0.0,
        "Recall@3": 1.0,
        "F1_score": 0.66667,
        "Average": pytest.approx(0.583335, abs=1e-12),
    }
    assert score.headline == score.value["Average"]
    # Strict keeps the model's order: R@1 = 1 -> ((1 + 1)/2 + 0.66667)/2 = 0.833335.
    assert retrieval(make_items("VAR", [("0", [2], "[2, 0]")]), profile=STRICT).value["Recall@1"] == 1.0


def test_set_order_and_no_space_tokenising() -> None:
    notes = Notes()
    assert ranked_indices("1 8", REFERENCE, notes, 0) == [8, 1]
    assert ranked_indices("0 3 9", REFERENCE, notes, 0) == [0, 9, 3]
    # "[0,3]" cleans to "03", a single token -> [3]; strict reads the raw text with \d+.
    assert ranked_indices("03", REFERENCE, notes, 0) == [3]
    assert ranked_indices("[0,3]", STRICT, notes, 0) == [0, 3]
    assert ranked_indices("3, 1, 3, 2", STRICT, notes, 0) == [3, 1, 2]
    assert ranked_indices("1\n2", REFERENCE, notes, 0) == [1, 2]
    items = make_items("AVR", [("0", [0, 3], "[0,3]")])
    assert retrieval(items, profile=REFERENCE).value["F1_score"] == 0.66667
    assert retrieval(items, profile=STRICT).value["F1_score"] == 1.0


def test_superscript_digit_does_not_abort() -> None:
    # "²".isdigit() holds but int("²") fails: the reference aborts the task; we ignore the token and warn.
    items = make_items("VAR", [("0", [1], "1 ²"), ("1", [2], "2")])
    for profile in (REFERENCE, STRICT):
        score = retrieval(items, profile=profile)
        assert score.value["F1_score"] == 1.0
    assert any("not a usable integer" in w for w in retrieval(items, profile=REFERENCE).warnings)


def test_set_f1_cases() -> None:
    assert set_f1([], []) == 1.0
    assert set_f1([1], []) == 0.0
    assert set_f1([], [1]) == 0.0
    assert set_f1([1, 2], [2, 3]) == 0.5


def test_confidence_factor() -> None:
    # 7 predicted indices: confidence 0.3 for that sample; mean confidence (0.3 + 1)/2 = 0.65.
    items = make_items("VAR", [("0", [0], "0 1 2 3 4 5 6"), ("1", [1], "1")])
    score = retrieval(items, profile=REFERENCE)
    # R@1: sample 0 first index is 0 (set order of 0..6 is ascending) -> 1; sample 1 -> 1. 1 * 0.65 = 0.65.
    assert score.value["Recall@1"] == 0.65
    # F1: sample 0 = 2*(1/7)*1/(1/7 + 1) = 0.25; sample 1 = 1 -> 0.625 * 0.65 = 0.40625.
    assert score.value["F1_score"] == 0.40625


def test_repeat_penalty() -> None:
    # 10 samples, one distinct list: repeat rate 0.9 -> penalty 1 - (0.9 - 0.8) = 0.9.
    items = make_items("VAR", [(str(i), [1], "1") for i in range(10)])
    assert retrieval(items, profile=REFERENCE).value["Recall@1"] == 0.9


def test_empty_prediction_and_empty_gt() -> None:
    items = make_items("VAR", [("0", [], ""), ("1", [1], "none of them")])
    score = retrieval(items, profile=REFERENCE)
    # F1: both empty -> 1, pred empty -> 0: 0.5. R@1/R@3 are 0 for empty predictions.
    assert score.value["F1_score"] == 0.5 and score.value["Recall@1"] == 0.0


def test_missing_predictions() -> None:
    items = make_items("VAR", [("0", [1], "1"), ("1", [], None)])
    reference = retrieval(items, profile=REFERENCE)
    assert reference.scored == 1 and reference.value["F1_score"] == 1.0
    strict = retrieval(items, profile=STRICT)
    # The missing entry scores 0 everywhere (even with an empty GT): F1 (1 + 0)/2.
    assert strict.scored == 2 and strict.value["F1_score"] == 0.5


def test_average_is_not_rounded() -> None:
    # R@1 = R@3 = 1/3 -> 0.33333; F1 mean (1 + 0 + 0)/3 -> 0.33333: Average 0.333330000...; carries float noise.
    items = make_items("VAR", [("0", [1], "1"), ("1", [2], "3"), ("2", [4], "5")])
    value = retrieval(items, profile=REFERENCE).value
    assert value["Average"] == ((value["Recall@1"] + value["Recall@3"]) / 2 + value["F1_score"]) / 2


def test_no_prediction_and_bad_gt() -> None:
    score = retrieval([], profile=REFERENCE)
    assert score.scored == 0 and score.headline == 0.0 and score.warnings
    bad = make_items("VAR", [("0", "[1]", "1"), ("1", [[1]], "1"), ("2", [1], "1")])
    score = retrieval(bad, profile=REFERENCE)
    assert score.scored == 1 and score.value["F1_score"] == 1.0


def test_correct_empty_answer_is_penalised_in_both_profiles() -> None:
    # The ceiling the sample benchmark avoids: answering [] to an empty ground truth is right (F1 = 1), yet
    # R@1 and R@3 are 0 for an empty list, so a perfect model scores ((0 + 0)/2 + 1)/2 = 0.5 on that sample.
    items = make_items("VAR", [("0", [], "[]")])
    for profile in (REFERENCE, STRICT):
        value = retrieval(items, profile=profile).value
        assert value["F1_score"] == 1.0
        assert value["Recall@1"] == value["Recall@3"] == 0.0
        assert value["Average"] == 0.5
