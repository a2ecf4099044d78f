"""Full-match, AVSQA and VSQA pooling (spec 4.1-4.3, 7 items 20, 23, 26, 28, 29, 8)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from test_metrics_helpers import make_items

from avibench.benchmarks.avibench.prompting import resolve_options
from avibench.level_metrics import REFERENCE, STRICT, avsqa, full_match, pool_vsqa

YES_NO_SURE = ["yes", "no", "not sure"]


def test_option_snapping_vector() -> None:
    # Reference: cleaned "no im not sure it matches"; "no" at 0, "not sure" at 6 -> snapped "no" == GT.
    # Strict: the answer names two options, a hedge that earns nothing.
    items = make_items("AVM", [("0", "no", "No, I'm not sure it matches.")], options=YES_NO_SURE)
    assert full_match(items, profile=REFERENCE).value == 1.0
    assert full_match(items, profile=STRICT).value == 0.0


@pytest.mark.parametrize(
    ("answer", "reference", "strict"),
    [
        ("<think>Could it be no? The sound is off.</think> Yes.", 0.0, 1.0),  # the thought named "no" first
        ("<think>no... maybe yes", 1.0, 0.0),  # reference reads "thinkno maybe yes"; strict: no answer given
        ("Yes or no, hard to say.", 1.0, 0.0),  # a hedge
        ("Yes.", 1.0, 1.0),
    ],
)
def test_strict_drops_reasoning_blocks_and_hedges(answer: str, reference: float, strict: float) -> None:
    items = make_items("AVH", [("0", "yes", answer)], options=YES_NO_SURE)
    assert full_match(items, profile=REFERENCE).value == reference
    assert full_match(items, profile=STRICT).value == strict


def test_snapping_takes_earliest_mention_not_list_order() -> None:
    # "not sure" is mentioned first (position 0), "no" only at 13.
    items = make_items("AVM", [("0", "no", "Not sure, so no")], options=YES_NO_SURE)
    assert full_match(items, profile=REFERENCE).value == 0.0


def test_snapping_restores_option_case() -> None:
    # GT "Yes": the cleaned pred "yes" never equals it, but snapping returns the option "Yes".
    with_options = make_items("AVH", [("0", "Yes", "yes")], options=["Yes", "No"])
    without = make_items("AVH", [("0", "Yes", "yes")])
    assert full_match(with_options, profile=REFERENCE).value == 1.0
    assert full_match(without, profile=REFERENCE).value == 0.0
    assert full_match(without, profile=STRICT).value == 1.0  # strict compares case-insensitively


def test_digit_vector_and_first_integer_rule() -> None:
    # Spec 8: "**4 beats**" -> "4 beats"; GT "4" is a digit string and the first integer is "4".
    items = make_items("ASQA", [("0", "4", "**4 beats**"), ("1", "2", "1 or 2, I think 2"), ("2", 3, "3")])
    score = full_match(items, profile=REFERENCE)
    # 1 + 0 ("1" is the first integer) + 1 (int GT 3 becomes "3") = 2/3 -> 0.66667
    assert score.value == 0.66667
    assert score.per_sample == [1.0, 0.0, 1.0]


def test_double_confirm_vector_and_order_dependence() -> None:
    # Spec 8: [X (cube), pre_X (yes)] with preds [cube, no]: X recorded 1, then zeroed -> 0/1.
    formal_first = make_items("ASQA", [("X", "cube", "cube"), ("pre_X", "yes", "no")])
    assert full_match(formal_first, profile=REFERENCE).value == 0.0
    assert full_match(formal_first, profile=STRICT).value == 0.0
    # Pre entry first: the reference zeroes nothing (accuracy 1); strict links by id in any order.
    pre_first = make_items("ASQA", [("pre_X", "yes", "no"), ("X", "cube", "cube")])
    assert full_match(pre_first, profile=REFERENCE).value == 1.0
    assert full_match(pre_first, profile=STRICT).value == 0.0


def test_double_confirm_duplicate_ids_zeroes_first_only_in_reference() -> None:
    rows = [("X", "a", "a"), ("X", "b", "b"), ("pre_X", "yes", "no")]
    items = make_items("AVSQA", rows)
    # Reference: only the first X is zeroed -> (0 + 1) / 2 = 0.5; strict: both -> 0.
    assert avsqa(items, profile=REFERENCE).value == 0.5
    assert avsqa(items, profile=STRICT).value == 0.0


def test_invalid_pre_skipped_in_full_match_but_not_avsqa() -> None:
    rows = [("X", "cube", "cube"), ("pre_X", None, "whatever")]
    items = make_items("ASQA", rows)
    assert full_match(items, profile=REFERENCE).value == 1.0
    # AVSQA keeps it: label "none" != "whatever" -> zeroes X. Strict skips it as full-match does.
    av_items = make_items("AVSQA", rows)
    assert avsqa(av_items, profile=REFERENCE).value == 0.0
    assert avsqa(av_items, profile=STRICT).value == 1.0
    # A null question text also makes a pre slot invalid.
    null_text = make_items("ASQA", [("X", "cube", "cube"), ("pre_X", "yes", "no")], question_text=None)
    assert full_match(null_text, profile=REFERENCE).value == 1.0


def test_missing_predictions_dropped_or_wrong() -> None:
    items = make_items("AVQA", [("0", "yes", "yes"), ("1", "no", None), ("2", "no", None)])
    reference = full_match(items, profile=REFERENCE)
    strict = full_match(items, profile=STRICT)
    assert (reference.value, reference.scored) == (1.0, 1)  # 1/1: the missing ones leave the denominator
    assert (strict.value, strict.scored) == (0.33333, 3)  # 1/3
    assert reference.per_sample == [1.0, None, None]


def test_missing_pre_prediction_zeroes_formal_only_in_strict() -> None:
    items = make_items("ASQA", [("X", "cube", "cube"), ("pre_X", "yes", None)])
    assert full_match(items, profile=REFERENCE).value == 1.0
    assert full_match(items, profile=STRICT).value == 0.0


def test_raw_option_string_iterated_by_character() -> None:
    # Quirk 26/28: options "get_from_3d-task3" is not a defined pseudo-key, so it stays a raw string; its "-"
    # becomes an empty pattern that matches at position 0 and wins, so the correct "3" scores 0.
    options = resolve_options("VSQA_I", {"options": "get_from_3d-task3"})
    assert options == "get_from_3d-task3"
    items = make_items("VSQA_I", [("0", "3", "3")], options=options)
    assert full_match(items, profile=REFERENCE).value == 0.0
    assert full_match(items, profile=STRICT).value == 1.0
    null_options = make_items("VSQA_I", [("0", "3", "3")], options="")
    assert full_match(null_options, profile=REFERENCE).value == 1.0


def test_raw_option_string_single_letters_snap() -> None:
    # Options "yes/no" as a raw string: characters "y", "e", "s", "/", "n", "o"; "/" cleans to "" which
    # matches at the first word boundary (0) and ties with nothing else there; sorted tie-break picks "/".
    items = make_items("AVM", [("0", "no", "no")], options="yes/no")
    assert full_match(items, profile=REFERENCE).value == 0.0
    assert full_match(items, profile=STRICT).value == 1.0


def test_padded_label_quirk_29() -> None:
    # The padded option cleans to "  no  ", whose pattern needs a word character before the first space, so it
    # never matches "no"; the raw label is compared without trimming either: 0 in the reference.
    items = make_items("AVM", [("0", "  No  ", "no")], options=["  No  ", "yes"])
    assert full_match(items, profile=REFERENCE).value == 0.0
    assert full_match(items, profile=STRICT).value == 1.0
    plain = make_items("AVM", [("0", "  No  ", "no")])
    assert full_match(plain, profile=REFERENCE).value == 0.0
    assert full_match(plain, profile=STRICT).value == 1.0


def test_endoftext_removed_and_punctuation_cleaned() -> None:
    items = make_items("AVQA", [("0", "yes", "<|endoftext|>**YES!**")])
    assert full_match(items, profile=REFERENCE).value == 1.0


def test_no_formal_entry_warns_instead_of_zero_division() -> None:
    for profile in (REFERENCE, STRICT):
        score = full_match(make_items("ASQA", [("pre_X", "yes", "yes")]), profile=profile)
        assert (score.value, score.headline, score.scored) == (0.0, 0.0, 0)
        assert any("ZeroDivisionError" in w for w in score.warnings)
    empty = full_match([], profile=REFERENCE)
    assert empty.scored == 0 and empty.warnings


def test_non_string_options_never_raise() -> None:
    items = make_items("AVM", [("0", "no", "no", 5), ("1", "no", "no", ["no", 3, None])])
    score = full_match(items, profile=REFERENCE)
    assert score.value == 1.0
    assert len(score.warnings) == 2


def test_avsqa_vectors() -> None:
    # Spec 8: "sphere;cube" vs "**Cube; Sphere**": both ['cube', 'sphere'] -> 1; "cube, sphere" -> 0.
    items = make_items(
        "AVSQA",
        [
            ("0", "sphere;cube", "**Cube; Sphere**"),
            ("1", "sphere;cube", "cube, sphere"),
            ("2", "cube", "the answer is cube"),
        ],
    )
    score = avsqa(items, profile=REFERENCE)
    assert score.per_sample == [1.0, 0.0, 0.0]
    assert score.value == 0.33333


def test_avsqa_duplicates_matter() -> None:
    items = make_items("AVSQA", [("0", "cube;cube", "cube")])
    assert avsqa(items, profile=REFERENCE).value == 0.0


def _vsqa_halves() -> tuple[list, list]:
    half_i = make_items("VSQA_I", [("0", "yes", "yes"), ("pre_0", "yes", "yes")])
    half_v = make_items("VSQA_V", [("0", "no", "no"), ("pre_0", "yes", "yes")])
    return half_i, half_v


def test_vsqa_pool_retags_ids() -> None:
    half_i, half_v = _vsqa_halves()
    pooled = pool_vsqa(half_i, half_v)
    assert [item.id for item in pooled] == ["I-0", "pre_I-0", "V-0", "pre_V-0"]
    assert [item.index for item in pooled] == [0, 1, 2, 3]
    assert full_match(pooled, profile=REFERENCE).value == 1.0


def test_vsqa_pool_id_collision_kept_apart() -> None:
    # Both halves have id "0"; without re-tagging a failed pre_0 in VSQA_V would zero VSQA_I's "0".
    half_i = make_items("VSQA_I", [("0", "yes", "yes")])
    half_v = make_items("VSQA_V", [("0", "no", "no"), ("pre_0", "yes", "no")])
    pooled = pool_vsqa(half_i, half_v)
    assert full_match(pooled, profile=REFERENCE).value == 0.5


@pytest.mark.parametrize("profile", [REFERENCE, STRICT])
def test_task_key_uses_item_task(profile) -> None:
    # Ids containing "#" are cut at it by the reference's key parsing; nothing may raise.
    items = make_items("ASQA", [("a#b", "yes", "yes"), ("pre_a#b", "yes", "no")])
    score = full_match(items, profile=profile)
    assert math.isfinite(score.headline)
    strict_pair = [replace(items[0], id="a"), replace(items[1], id="pre_a")]
    assert full_match(strict_pair, profile=profile).value == 0.0
