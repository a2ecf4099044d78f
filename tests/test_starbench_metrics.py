"""STAR-Bench runs and aggregation on hand-computed fixtures: rotations, clip permutations, AA/ACR, pc macro."""

from __future__ import annotations

import pytest

from avibench.level_metrics.starbench import (
    Run,
    chance_block,
    chance_levels,
    final_ma,
    judge_run,
    score_benchmark,
    score_dataset,
)
from avibench.level_metrics.starbench_parse import LETTERS
from avibench.level_metrics.starbench_profile import REFERENCE, STRICT
from avibench.level_metrics.starbench_rotation import (
    answer_letter,
    clip_permutation,
    family,
    order_answer,
    rotate_options,
    run_count,
    temporal_id_parts,
)


@pytest.mark.parametrize(
    ("options", "rotation", "expected"),
    [
        ("abcd", 0, "abcd"),
        ("abcd", 1, "dabc"),
        ("abcd", 2, "cdab"),
        ("abcd", 3, "bcda"),
        ("xy", 1, "yx"),
        ("xy", 2, "xy"),  # a two-option spatial item's third run repeats the first
        ("xy", 3, "xy"),  # list slicing, not a modulo: any shift past the length keeps the order
        ("xyz", 2, "yzx"),
    ],
)
def test_rotations(options: str, rotation: int, expected: str) -> None:
    assert "".join(rotate_options(list(options), rotation)) == expected


def test_run_counts() -> None:
    assert run_count("pc", 4) == 4
    assert run_count("pc_sp", 2) == 2
    assert run_count("sr_ch", 2) == 3
    assert run_count("tr_uncut", 6) == 3
    assert family("tr_cap") == "tr"
    with pytest.raises(ValueError, match="unknown"):
        family("sp")


@pytest.mark.parametrize(
    ("item_id", "orders"),
    [
        # offset = (run + subtask index) % 6; permutation = PERMS[(n + offset) % 6]
        ("x_OSM_0", [(1, 2, 3), (1, 3, 2), (2, 1, 3)]),
        ("x_ISSE_4", [(3, 2, 1), (1, 2, 3), (1, 3, 2)]),
        ("x_ETC_2", [(1, 2, 3), (1, 3, 2), (2, 1, 3)]),
        ("a_b_DSS_13", [(3, 1, 2), (3, 2, 1), (1, 2, 3)]),
        ("TAO_5", [(1, 3, 2), (2, 1, 3), (2, 3, 1)]),
    ],
)
def test_clip_permutations(item_id: str, orders: list[tuple[int, int, int]]) -> None:
    assert [clip_permutation(item_id, r) for r in range(3)] == orders


@pytest.mark.parametrize(
    ("order", "answer"),
    [
        ((1, 2, 3), "clip 1 -> clip 2 -> clip 3"),
        ((1, 3, 2), "clip 1 -> clip 3 -> clip 2"),
        ((3, 1, 2), "clip 2 -> clip 3 -> clip 1"),  # segment 1 is played as clip 2
        ((2, 3, 1), "clip 3 -> clip 1 -> clip 2"),
        ((3, 2, 1), "clip 3 -> clip 2 -> clip 1"),
    ],
)
def test_gold_per_permutation(order: tuple[int, int, int], answer: str) -> None:
    assert order_answer(order) == answer


def test_temporal_ids() -> None:
    assert temporal_id_parts("scene_12_ISSE_7") == ("ISSE", 7)
    for bad in ("x_XYZ_1", "x_OSM", "x_OSM_a"):
        with pytest.raises(ValueError, match="does not end"):
            temporal_id_parts(bad)
    assert answer_letter(["p", "q", "r"], "r") == "C"


def _run(item: str, rotation: int, correct: bool, cat: str | None, sub: str | None, n: int = 3) -> Run:
    """Run ``rotation`` of an item whose gold is ``opt0``, answered right or wrong."""
    options = rotate_options(tuple(f"opt{k}" for k in range(n)), rotation)
    gold = options.index("opt0")
    letter = LETTERS[gold if correct else (gold + 1) % n]
    return Run(item, rotation, options, "opt0", cat, sub, response=f"Answer: {letter}")


def _item(item: str, pattern: str, cat: str | None, sub: str | None, n: int | None = None) -> list[Run]:
    """One run per character of ``pattern`` (T right, F wrong), with as many options as runs by default."""
    return [_run(item, r, c == "T", cat, sub, n or len(pattern)) for r, c in enumerate(pattern)]


def test_micro_block() -> None:
    runs = _item("s1", "TTT", "c1", "x") + _item("s2", "TFT", "c1", "y") + _item("s3", "FFF", "c2", "y")
    block = score_dataset("sr", runs).block
    assert list(block) == ["Total", "By Category", "By Sub-category"]
    assert block["Total"] == {"AA": 55.56, "ACR": 33.33, "total_runs": 9, "unique_samples": 3}
    assert block["By Category"]["c1"] == {"AA": 83.33, "ACR": 50.0, "total_runs": 6, "unique_samples": 2}
    assert block["By Category"]["c2"]["AA"] == 0.0
    assert block["By Sub-category"]["y"] == {"AA": 33.33, "ACR": 0.0, "total_runs": 6, "unique_samples": 2}
    strict = score_dataset("sr", runs, STRICT).block["Total"]
    assert strict["AA"] == pytest.approx(500 / 9)
    assert strict["ACR"] == pytest.approx(100 / 3)


def test_micro_block_without_categories() -> None:
    block = score_dataset("tr", _item("t", "TFT", None, None)).block
    assert block == {"Total": {"AA": 66.67, "ACR": 0.0, "total_runs": 3, "unique_samples": 1}}


def _perception() -> list[Run]:
    return (
        _item("p1", "FFF", "X", "s1")
        + _item("p2", "TTF", "Y", "s2")
        + _item("p3", "TTT", "Y", "s3")
        + _item("p4", "TFF", "Y", "s3")
    )


def test_perception_macro_reference() -> None:
    block = score_dataset("pc", _perception()).block
    assert list(block) == ["By Sub-category", "By Category", "Total"]
    assert block["By Sub-category"] == {
        "s1": {"AA": 0.0, "ACR": 0.0, "total_runs": 3, "unique_samples": 1},
        "s2": {"AA": 66.67, "ACR": 0.0, "total_runs": 3, "unique_samples": 1},
        "s3": {"AA": 66.67, "ACR": 50.0, "total_runs": 6, "unique_samples": 2},
    }
    assert block["By Category"] == {
        "X": {"AA": 0.0, "ACR": 0.0, "n_subcategories": 1, "total_runs": 3, "unique_samples": 1},
        "Y": {"AA": 66.67, "ACR": 25.0, "n_subcategories": 2, "total_runs": 9, "unique_samples": 3},
    }
    # macro over the rounded sub-category values: (0 + 66.67 + 66.67) / 3 = 44.4467 -> 44.45 (micro would be 50)
    assert block["Total"] == {
        "AA": 44.45,
        "ACR": 16.67,
        "n_subcategories": 3,
        "total_runs": 12,
        "unique_samples": 4,
    }


def test_perception_macro_strict_is_exact() -> None:
    total = score_dataset("pc_nsp", _perception(), STRICT).block["Total"]
    assert total["AA"] == pytest.approx(400 / 9)  # 44.444..., not 44.45
    assert total["ACR"] == pytest.approx(50 / 3)


def test_final_ma_and_benchmark() -> None:
    blocks = {"a": {"Total": {"AA": 50.0, "ACR": 20.0}}, "b": {"Total": {"AA": 33.33, "ACR": 0.0}}}
    assert final_ma(blocks) == pytest.approx({"AA": 41.665, "ACR": 10.0})
    assert final_ma({}) == {"AA": 0.0, "ACR": 0.0}
    combined, scores = score_benchmark({"sr": _item("s", "TTF", "c", "x"), "pc": _perception()})
    assert list(combined) == ["sr", "pc", "Final MA"]
    assert combined["Final MA"] == pytest.approx({"AA": (66.67 + 44.45) / 2, "ACR": (0.0 + 16.67) / 2})
    assert scores["sr"].counts == {"correct": 2, "wrong": 1}


def test_missing_runs() -> None:
    runs = _item("a", "TTT", "c", "x") + _item("b", "TT", "c", "x", n=3)
    runs.append(Run("b", 2, rotate_options(runs[-1].options, 1), "opt0", "c", "x", status="missing"))
    ref = score_dataset("sr", runs)
    assert ref.incomplete_ids == ("b",)
    assert ref.block["Total"] == {"AA": 100.0, "ACR": 100.0, "total_runs": 3, "unique_samples": 1}
    strict = score_dataset("sr", runs, STRICT)
    assert strict.block["Total"]["AA"] == pytest.approx(500 / 6)
    assert strict.block["Total"]["ACR"] == pytest.approx(50.0)
    assert strict.counts == {"correct": 5, "missing": 1}


def test_repeated_two_option_runs() -> None:
    # a two-option spatial item: run 2 presents the same order as run 0; the model answered it differently
    runs = _item("b", "TTF", "c", "x", n=2)
    assert runs[2].options == runs[0].options
    ref = score_dataset("sr", runs)
    assert ref.block["Total"]["AA"] == 66.67
    assert ref.block["Total"]["ACR"] == 0.0
    strict = score_dataset("sr", runs, STRICT)
    assert strict.repeated_runs_dropped == 1
    assert strict.block["Total"]["AA"] == 100.0
    assert strict.block["Total"]["ACR"] == 100.0


def test_error_strings_and_failures() -> None:
    options = ("opt0", "opt1", "opt2")
    lucky = Run("e", 0, options, "opt1", response="ERROR: bad value (B)")
    assert judge_run(lucky, REFERENCE).outcome == "correct"  # the official parses the error message
    assert judge_run(lucky, STRICT).outcome == "failed"
    failed = Run("e", 0, options, "opt1", status="failed")
    assert judge_run(failed, REFERENCE).outcome == "unparsed"
    assert judge_run(failed, STRICT).outcome == "failed"
    assert judge_run(Run("e", 0, options, "opt1", response="answer is (b)"), REFERENCE).outcome == "wrong"
    assert judge_run(Run("e", 0, options, "opt1", response="answer is (b)"), STRICT).outcome == "correct"


def test_empty_dataset() -> None:
    assert score_dataset("tr", []).block["Total"]["total_runs"] == 0


def test_chance_levels() -> None:
    binary = [Run("b", r, rotate_options(("u", "v"), r), "u", "c", "x") for r in range(3)]
    four = [Run("f", r, rotate_options(tuple("wxyz"), r), "w", "c", "s") for r in range(4)]
    # three independent guesses at 1/2: ACR 1/8; strict asks the repeated order once: 1/4
    assert chance_block("sr", binary)["Total"] == {
        "AA": 50.0,
        "ACR": 12.5,
        "total_runs": 3,
        "unique_samples": 1,
    }
    assert chance_block("sr", binary, STRICT)["Total"]["ACR"] == 25.0
    assert chance_block("pc", four)["Total"]["AA"] == 25.0
    assert chance_block("pc", four)["Total"]["ACR"] == 0.39  # 0.25**4 = 0.390625 %
    levels = chance_levels({"sr": binary, "pc": four})
    assert levels["Final MA"]["AA"] == pytest.approx(37.5)
