"""STAR-Bench runs and aggregation on hand-computed fixtures: rotations, clip permutations, AA/ACR, pc macro."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.starbench import chance_block, dataset_block, with_final_ma
from avibench.level_metrics.starbench_parse import LETTERS
from avibench.level_metrics.starbench_profile import REFERENCE, STRICT
from avibench.level_metrics.starbench_rotation import (
    clip_permutation,
    family,
    order_answer,
    run_count,
    temporal_id_parts,
)
from avibench.plugin import get_benchmark

BENCH = get_benchmark("starbench")


class Run(NamedTuple):
    """One run of one item: the options presented, the gold and the response (``None``: never asked)."""

    item_id: str
    rotation: int
    options: tuple[str, ...]
    answer: str
    category: str | None
    sub_category: str | None
    response: str | None


@pytest.mark.parametrize(
    ("options", "rotation", "expected"),
    [
        ("abcd", 0, "abcd"),
        ("abcd", 1, "dabc"),
        ("abcd", 2, "cdab"),
        ("abcd", 3, "bcda"),
        ("xy", 1, "yx"),
        ("xy", 2, "xy"),  # a two-option spatial item's third run repeats the first
        ("xyz", 2, "yzx"),
    ],
)
def test_rotations(options: str, rotation: int, expected: str) -> None:
    assert "".join(mc.rotate(list(options), rotation)) == expected


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


def _run(item: str, rotation: int, correct: bool, cat: str | None, sub: str | None, n: int = 3) -> Run:
    """Run ``rotation`` of an item whose gold is ``opt0``, answered right or wrong."""
    options = mc.rotate(tuple(f"opt{k}" for k in range(n)), rotation)
    gold = options.index("opt0")
    letter = LETTERS[gold if correct else (gold + 1) % n]
    return Run(item, rotation, options, "opt0", cat, sub, f"Answer: {letter}")


def _item(item: str, pattern: str, cat: str | None, sub: str | None, n: int | None = None) -> list[Run]:
    """One run per character of ``pattern`` (T right, F wrong), with as many options as runs by default."""
    return [_run(item, r, c == "T", cat, sub, n or len(pattern)) for r, c in enumerate(pattern)]


def _asked(alias: str, runs: list[Run]) -> list[Response]:
    """The runs as the pipeline's responses to dataset ``alias`` (a run without a response was never asked)."""
    return [
        Response(
            Item(
                benchmark="starbench",
                task=alias,
                item_id=r.item_id,
                parts=(),
                answer=r.answer,
                variant=f"r{r.rotation}",
                options=r.options,
                meta={"category": r.category, "sub-category": r.sub_category, "rotate_id": r.rotation},
                key_override=f"{r.item_id}@{r.rotation}",
            ),
            "missing" if r.response is None else "answered",
            raw=r.response,
        )
        for r in runs
    ]


def _scored(runs: dict[str, list[Run]], profile: str = "reference") -> dict[str, Any]:
    """The eval document of ``runs`` per dataset, scored by the plug-in in ``profile``."""
    responses = {alias: _asked(alias, rs) for alias, rs in runs.items()}
    return BENCH.score(responses, profile=profile, options={}).document


def _block(alias: str, runs: list[Run], profile: str = "reference") -> dict[str, Any]:
    return _scored({alias: runs}, profile)[alias]


def test_micro_block() -> None:
    runs = _item("s1", "TTT", "c1", "x") + _item("s2", "TFT", "c1", "y") + _item("s3", "FFF", "c2", "y")
    block = _block("sr", runs)
    assert list(block) == ["Total", "By Category", "By Sub-category"]
    assert block["Total"] == {"AA": 55.56, "ACR": 33.33, "total_runs": 9, "unique_samples": 3}
    assert block["By Category"]["c1"] == {"AA": 83.33, "ACR": 50.0, "total_runs": 6, "unique_samples": 2}
    assert block["By Category"]["c2"]["AA"] == 0.0
    assert block["By Sub-category"]["y"] == {"AA": 33.33, "ACR": 0.0, "total_runs": 6, "unique_samples": 2}
    strict = _block("sr", runs, "strict")["Total"]
    assert strict["AA"] == pytest.approx(500 / 9)
    assert strict["ACR"] == pytest.approx(100 / 3)


def test_micro_block_without_categories() -> None:
    block = _block("tr", _item("t", "TFT", None, None))
    assert block == {"Total": {"AA": 66.67, "ACR": 0.0, "total_runs": 3, "unique_samples": 1}}


def _perception() -> list[Run]:
    return (
        _item("p1", "FFF", "X", "s1")
        + _item("p2", "TTF", "Y", "s2")
        + _item("p3", "TTT", "Y", "s3")
        + _item("p4", "TFF", "Y", "s3")
    )


def test_perception_macro_reference() -> None:
    block = _block("pc", _perception())
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
    total = _block("pc_nsp", _perception(), "strict")["Total"]
    assert total["AA"] == pytest.approx(400 / 9)  # 44.444..., not 44.45
    assert total["ACR"] == pytest.approx(50 / 3)


def test_final_ma_and_benchmark() -> None:
    blocks = {"a": {"Total": {"AA": 50.0, "ACR": 20.0}}, "b": {"Total": {"AA": 33.33, "ACR": 0.0}}}
    assert with_final_ma(blocks)["Final MA"] == pytest.approx({"AA": 41.665, "ACR": 10.0})
    assert with_final_ma({}) == {"Final MA": {"AA": 0.0, "ACR": 0.0}}
    document = _scored({"sr": _item("s", "TTF", "c", "x"), "pc": _perception()})
    assert document["Final MA"] == pytest.approx({"AA": (66.67 + 44.45) / 2, "ACR": (0.0 + 16.67) / 2})
    assert document["summary"]["headline"] == pytest.approx((66.67 + 44.45) / 2)
    assert document["coverage"]["sr"]["scored"] == 3


def test_missing_runs() -> None:
    runs = _item("a", "TTT", "c", "x") + _item("b", "TT", "c", "x", n=3)
    runs.append(Run("b", 2, mc.rotate(runs[-1].options, 1), "opt0", "c", "x", None))
    ref = _scored({"sr": runs})
    assert ref["coverage"]["sr"]["incomplete_ids"] == 1 and ref["coverage"]["sr"]["missing"] == 1
    assert ref["sr"]["Total"] == {"AA": 100.0, "ACR": 100.0, "total_runs": 3, "unique_samples": 1}
    strict = _block("sr", runs, "strict")
    assert strict["Total"]["AA"] == pytest.approx(500 / 6)
    assert strict["Total"]["ACR"] == pytest.approx(50.0)
    assert strict["Total"]["total_runs"] == 6


def test_repeated_two_option_runs() -> None:
    # a two-option spatial item: run 2 presents the same order as run 0; the model answered it differently
    runs = _item("b", "TTF", "c", "x", n=2)
    assert runs[2].options == runs[0].options
    ref = _block("sr", runs)
    assert ref["Total"]["AA"] == 66.67
    assert ref["Total"]["ACR"] == 0.0
    strict = _block("sr", runs, "strict")
    assert strict["Total"]["total_runs"] == 2  # the repeated presentation counts once
    assert strict["Total"]["AA"] == 100.0
    assert strict["Total"]["ACR"] == 100.0


def test_error_strings_and_failures() -> None:
    def read(raw: str | None, profile: str, status: str = "answered") -> float:
        item = _asked("sr", [Run("e", 0, ("opt0", "opt1", "opt2"), "opt1", None, None, raw)])[0].item
        return BENCH.item_score(BENCH.read(Response(item, status, raw=raw), profile), item)

    assert read("ERROR: bad value (B)", "reference") == 1.0  # the official parses the error message
    assert read("ERROR: bad value (B)", "strict") == 0.0
    assert (
        BENCH.read(Response(_asked("sr", [_run("e", 0, True, None, None)])[0].item, "failed"), "reference")
        is None
    )
    assert read("answer is (b)", "reference") == 0.0
    assert read("answer is (b)", "strict") == 1.0


def test_empty_dataset() -> None:
    assert dataset_block("tr", [], REFERENCE)["Total"]["total_runs"] == 0


def test_chance_levels() -> None:
    binary = [Run("b", r, mc.rotate(("u", "v"), r), "u", "c", "x", "") for r in range(3)]
    four = [Run("f", r, mc.rotate(tuple("wxyz"), r), "w", "c", "s", "") for r in range(4)]
    binary_items, four_items = [r.item for r in _asked("sr", binary)], [r.item for r in _asked("pc", four)]
    # three independent guesses at 1/2: ACR 1/8; strict asks the repeated order once: 1/4
    assert chance_block("sr", binary_items)["Total"] == {
        "AA": 50.0,
        "ACR": 12.5,
        "total_runs": 3,
        "unique_samples": 1,
    }
    assert chance_block("sr", binary_items, STRICT)["Total"]["ACR"] == 25.0
    assert chance_block("pc", four_items)["Total"]["AA"] == 25.0
    assert chance_block("pc", four_items)["Total"]["ACR"] == 0.39  # 0.25**4 = 0.390625 %
    assert _scored({"sr": binary, "pc": four})["summary"]["chance"] == {"pc": 25.0, "sr": 50.0}
