"""AMIC / VMIC (spec 4.4, 7 items 19 and 30)."""

from __future__ import annotations

import json
import math

import pytest
from test_metrics_helpers import make_items

from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.level_metrics import REFERENCE, STRICT, multi_instance
from avibench.level_metrics.multi_instance import count_score


@pytest.mark.parametrize(
    ("rmse", "expected"),
    [(0, 1.0), (0.5, 0.85111), (1, 0.70869), (2, 0.46295), (3, 0.28370), (7, 0.02955), (12, 0.00149)],
)
def test_counting_curve(rmse: float, expected: float) -> None:
    assert round(count_score(rmse, 0.3), 5) == expected


def test_count_score_nan_and_negative_are_zero() -> None:
    assert count_score(math.nan, 0.3) == 0.0
    assert count_score(-1.0, 0.3) == 0.0


def test_amic_worked_sample() -> None:
    # GT {dog: 2, man: 1}, pred {dog: 2}: F1 = 2*1/(2+1) = 0.66667; errors [0, tau=7] -> 3.5;
    # RMSE 3.5 -> counting 1 - tanh(1.05); average = (2/3 + counting) / 2.
    items = make_items("AMIC", [("0", {"dog": "2", "man": "1"}, '{"dog": "2"}')])
    score = multi_instance(items, profile=REFERENCE, task="AMIC")
    counting = 1 - math.tanh(0.3 * 3.5)
    assert score.value == {
        "Semantic": 0.66667,
        "Instance": round(counting, 5),
        "Average": round((2 / 3 + counting) / 2, 5),
    }
    assert score.headline == score.value["Average"]


def test_vmic_recall_ignores_extra_classes_and_uses_tau_12() -> None:
    # Recall 1/2; errors [|3-3|=0, tau=12] -> 6 -> counting 1 - tanh(1.8).
    items = make_items("VMIC", [("0", {"tree": "3", "flower": "5"}, '{"tree": 3, "car": 1}')])
    score = multi_instance(items, profile=REFERENCE, task="VMIC")
    assert score.value["Semantic"] == 0.5
    assert score.value["Instance"] == round(1 - math.tanh(1.8), 5)


def test_vmic_large_counts_are_equal_but_not_for_amic() -> None:
    rows = [("0", {"tree": "12"}, '{"tree": "15"}')]
    assert multi_instance(make_items("VMIC", rows), profile=REFERENCE, task="VMIC").value["Instance"] == 1.0
    # AMIC: error 3 -> 1 - tanh(0.9) = 0.28370.
    assert (
        multi_instance(make_items("AMIC", rows), profile=REFERENCE, task="AMIC").value["Instance"] == 0.2837
    )


def test_semantic_zero_forces_counting_zero() -> None:
    items = make_items("AMIC", [("0", {"dog": "1"}, '{"cat": "1"}')])
    assert multi_instance(items, profile=REFERENCE, task="AMIC").value == {
        "Semantic": 0.0,
        "Instance": 0.0,
        "Average": 0.0,
    }


def test_class_names_exact_in_reference_normalised_in_strict() -> None:
    items = make_items("AMIC", [("0", {"Dog": "1"}, '{" dog ": "1"}')])
    assert multi_instance(items, profile=REFERENCE, task="AMIC").value["Average"] == 0.0
    assert multi_instance(items, profile=STRICT, task="AMIC").value["Average"] == 1.0


def test_answer_prefix_and_single_quotes() -> None:
    items = make_items("AMIC", [("0", {"dog": "2"}, "answer= {'dog': '2'}")])
    for profile in (REFERENCE, STRICT):
        assert multi_instance(items, profile=profile, task="AMIC").value["Average"] == 1.0


def test_boolean_count_earns_class_but_fails_counting() -> None:
    # Quirk 30: {"dog": true} is a valid dict (semantic 1) but its printed form {'dog': True} does not re-parse,
    # so the counting falls back to the GT count 2 -> RMSE 2 -> 0.46295.
    items = make_items("AMIC", [("0", {"dog": "2"}, '{"dog": true}')])
    for profile in (REFERENCE, STRICT):  # strict rejects a boolean count, with the same fallback
        score = multi_instance(items, profile=profile, task="AMIC")
        assert score.value["Semantic"] == 1.0
        assert score.value["Instance"] == 0.46295


def test_exception_double_append() -> None:
    # GT order dog, man. Reference: dog error 0 recorded, then int("x") fails -> fallback appends 2 and 1:
    # errors [0, 2, 1], mean 1 -> 0.70869. Strict: fallback only [2, 1], mean 1.5 -> 1 - tanh(0.45).
    items = make_items("AMIC", [("0", {"dog": "2", "man": "1"}, '{"dog": "2", "man": "x"}')])
    assert multi_instance(items, profile=REFERENCE, task="AMIC").value["Instance"] == 0.70869
    assert multi_instance(items, profile=STRICT, task="AMIC").value["Instance"] == round(
        1 - math.tanh(0.45), 5
    )


def test_long_prediction_skipped_in_reference_only() -> None:
    long_pred = json.dumps({"dog": "1", "note": "x" * 300})
    items = make_items("AMIC", [("0", {"dog": "1"}, '{"dog": "1"}'), ("1", {"dog": "1"}, long_pred)])
    reference = multi_instance(items, profile=REFERENCE, task="AMIC")
    assert reference.scored == 1 and reference.value["Average"] == 1.0
    assert reference.per_sample == [1.0, None]
    strict = multi_instance(items, profile=STRICT, task="AMIC")
    # Strict scores it: F1 = 2*1/(1+2) = 2/3 -> semantic (1 + 2/3)/2 = 0.83333; counts are exact.
    assert strict.scored == 2
    assert strict.value["Semantic"] == 0.83333


def test_only_long_predictions_gives_nan_like_the_reference() -> None:
    items = make_items("AMIC", [("0", {"dog": "1"}, "{" + " " * 400 + "}")])
    score = multi_instance(items, profile=REFERENCE, task="AMIC")
    assert math.isnan(score.value["Semantic"]) and math.isnan(score.value["Average"])
    assert score.headline == 0.0 and score.warnings


def test_printed_form_of_300_characters_skips_counting_only() -> None:
    # Compact JSON under 300 characters whose printed Python form is longer: semantic yes, counting no.
    compact = json.dumps({f"k{i:02d}": 1 for i in range(33)} | {"dog": "1"}, separators=(",", ":"))
    assert len(compact) < 300 <= len(str(json.loads(compact)))
    items = make_items("AMIC", [("0", {"dog": "1"}, compact), ("1", {"dog": "1"}, '{"dog": "3"}')])
    reference = multi_instance(items, profile=REFERENCE, task="AMIC")
    # Semantic: sample 0 F1 = 2/(1+34), sample 1 = 1 -> mean 0.52857. Counting uses only sample 1:
    # error 2 -> 0.46295.
    assert reference.value["Semantic"] == round((2 / 35 + 1) / 2, 5) == 0.52857
    assert reference.value["Instance"] == 0.46295
    strict = multi_instance(items, profile=STRICT, task="AMIC")
    # Strict counts both: errors 0 and 2 -> RMSE sqrt(2).
    assert strict.value["Instance"] == round(1 - math.tanh(0.3 * math.sqrt(2)), 5)


def test_non_integer_gt_count_does_not_abort() -> None:
    # The reference aborts the task when int() of the GT count is reached; we leave that sample out of counting.
    items = make_items("AMIC", [("0", {"dog": "two"}, '{"dog": "2"}'), ("1", {"dog": "1"}, '{"dog": "1"}')])
    for profile in (REFERENCE, STRICT):
        score = multi_instance(items, profile=profile, task="AMIC")
        assert score.value == {"Semantic": 1.0, "Instance": 1.0, "Average": 1.0}
        assert any("not an integer" in w for w in score.warnings)
    # Not reached (class not predicted): tau, no warning, as in the reference.
    unreached = make_items("AMIC", [("0", {"dog": "two", "cat": "1"}, '{"cat": "1"}')])
    score = multi_instance(unreached, profile=REFERENCE, task="AMIC")
    assert not any("not an integer" in w for w in score.warnings)
    assert score.value["Instance"] == round(1 - math.tanh(0.3 * 3.5), 5)


def test_empty_ground_truth() -> None:
    items = make_items("AMIC", [("0", {}, "{}"), ("1", {"dog": "1"}, '{"dog": "1"}')])
    reference = multi_instance(items, profile=REFERENCE, task="AMIC")
    # Sample 0: empty universe -> semantic 0; NaN count error -> RMSE NaN -> counting 0. Average (0.5 + 0)/2.
    assert reference.value == {"Semantic": 0.5, "Instance": 0.0, "Average": 0.25}
    strict = multi_instance(items, profile=STRICT, task="AMIC")
    # Strict: both empty -> semantic 1; sample 0 left out of counting.
    assert strict.value == {"Semantic": 1.0, "Instance": 1.0, "Average": 1.0}


def test_missing_predictions() -> None:
    items = make_items("AMIC", [("0", {"dog": "1"}, '{"dog": "1"}'), ("1", {"dog": "3"}, None)])
    reference = multi_instance(items, profile=REFERENCE, task="AMIC")
    assert reference.value["Average"] == 1.0 and reference.scored == 1
    strict = multi_instance(items, profile=STRICT, task="AMIC")
    # Strict: semantic (1 + 0)/2 = 0.5; errors 0 and fallback 3 -> RMSE sqrt(4.5).
    assert strict.scored == 2
    assert strict.value["Semantic"] == 0.5
    assert strict.value["Instance"] == round(1 - math.tanh(0.3 * math.sqrt(4.5)), 5)


@pytest.mark.parametrize(
    "pred", ["not json", "[1, 2]", '"dog"', "NaN", "null", '{"dog": [1]}', '{"dog": 2.7}', "{" * 5000, ""]
)
@pytest.mark.parametrize("profile", [REFERENCE, STRICT])
def test_odd_predictions_never_raise(pred: str, profile) -> None:
    items = make_items("VMIC", [("0", {"dog": "1"}, pred)])
    score = multi_instance(items, profile=profile, task="VMIC")
    assert 0.0 <= score.headline <= 1.0


def test_non_dict_ground_truth_does_not_abort() -> None:
    items = make_items("AMIC", [("0", None, '{"dog": "1"}'), ("1", {"dog": "1"}, '{"dog": "1"}')])
    score = multi_instance(items, profile=REFERENCE, task="AMIC")
    assert score.value["Semantic"] == 0.5
    assert score.warnings


def test_no_predictions_at_all() -> None:
    score = multi_instance(make_items("AMIC", [("0", {"dog": "1"}, None)]), profile=REFERENCE, task="AMIC")
    assert score.value == {"Semantic": 0.0, "Instance": 0.0, "Average": 0.0} and score.scored == 0
    assert any("UnboundLocalError" in w for w in score.warnings)


def test_the_metric_kind_scores_with_the_task_it_is_given() -> None:
    items = make_items("VMIC", [("0", {"tree": "12"}, '{"tree": "15"}')])
    assert metric_kind("mic").score(items, profile="reference", task="VMIC").value["Instance"] == 1.0
    with pytest.raises(ValueError):
        multi_instance(items, profile=REFERENCE, task="XMIC")  # type: ignore[arg-type]


def test_sample_error_capped_at_20() -> None:
    # |1 - 100| = 99 -> capped at 20 -> RMSE 20 -> 1 - tanh(6) = 0.0000123 -> 0.00001.
    items = make_items("AMIC", [("0", {"dog": "100"}, '{"dog": "1"}')])
    assert multi_instance(items, profile=REFERENCE, task="AMIC").value["Instance"] == 0.00001
