"""Bootstrap intervals over items: seeded, grouped, shifted to the reported score, paired for comparisons."""

from __future__ import annotations

import numpy as np
import pytest

from avibench.evaluate.uncertainty import run_intervals, task_units
from avibench.level_metrics.bootstrap import TaskUnits, bootstrap, paired_bootstrap, run_spread
from avibench.plugin import get_benchmark


def _mean(tasks):
    values = [v for v in tasks.values() if v is not None]
    return {"headline": sum(values) / len(values) if values else None}


def _units(scores: list[float], headline: float | None = None) -> TaskUnits:
    arr = np.asarray(scores, dtype=float)
    return TaskUnits(
        tuple(str(i) for i in range(len(scores))), arr, 100 * arr.mean() if headline is None else headline
    )


def test_interval_brackets_the_score_and_is_reproducible() -> None:
    tasks = {"A": _units([1, 0] * 50), "B": _units([1, 1, 1, 0] * 25)}
    first = bootstrap(tasks, _mean, seed=3)
    assert first == bootstrap(tasks, _mean, seed=3)
    low, high = first.tasks["A"]
    # 100 Bernoulli(0.5) items: standard error 5 points, so the 95% interval is about 50 ± 10
    assert 38 < low < 45 and 55 < high < 62
    assert first.aggregates["headline"][0] < 62.5 < first.aggregates["headline"][1]


def test_a_constant_task_has_no_spread_and_a_task_without_score_none() -> None:
    result = bootstrap({"A": _units([1, 1, 1]), "B": TaskUnits(("x",), np.ones(1), None)}, _mean)
    assert result.tasks == {"A": (100.0, 100.0)}


def test_a_score_that_is_not_the_item_mean_is_shifted_and_clipped_to_the_scale() -> None:
    # reported 2.0 while the items average 50: resamples move around 2.0 and never below 0
    low, high = bootstrap({"A": _units([1, 0] * 20, headline=2.0)}, _mean).tasks["A"]
    assert low == 0.0 and 10 < high < 25


def test_items_group_the_questions_they_hold() -> None:
    rows = [
        {"reported_task": "VSQA", "group": "VSQA/1", "scores": {"reference": 1.0}},
        {"reported_task": "VSQA", "group": "VSQA/1", "scores": {"reference": 0.0}},
        {"reported_task": "VSQA", "group": "VSQA/2", "scores": {"reference": 1.0}},
        {"reported_task": "VSQA", "group": "VSQA/3", "scores": {"reference": None}},
    ]
    units = task_units(rows, "reference", {"VSQA": 75.0})["VSQA"]
    assert (
        units.units == ("VSQA/1", "VSQA/2") and units.scores.tolist() == [0.5, 1.0] and units.headline == 75.0
    )


def test_paired_differences() -> None:
    same = {"A": _units([1, 0, 1, 0, 1])}
    d = paired_bootstrap(same, same, _mean)
    assert (d["A"].delta, d["A"].low, d["A"].high, d["A"].significant) == (0.0, 0.0, 0.0, False)
    half, full = {"A": _units([1, 0] * 20)}, {"A": _units([1] * 40)}
    d = paired_bootstrap(half, full, _mean)
    assert d["A"].delta == pytest.approx(50.0) and d["A"].significant and d["headline"].significant
    assert 30 < d["A"].low < 50 < d["A"].high < 70
    # only the items both runs scored are compared
    partial = {"A": TaskUnits(("0", "1"), np.asarray([0.0, 0.0]), 0.0)}
    assert paired_bootstrap(same, partial, _mean)["A"].items == 2


def test_run_spread() -> None:
    assert run_spread({"r1": 50.0, "r2": 70.0}) == {
        "runs": 2,
        "mean": 60.0,
        "sd": 14.14,
        "min": 50.0,
        "max": 70.0,
    }


def test_run_intervals_cover_stages_overall_and_taxonomy_and_report_spread() -> None:
    bench = get_benchmark("avibench")
    rows = []
    tasks = {}
    for task in bench.aggregate_members()["overall"]:
        scores = [float(i % 3 == 0) for i in range(30)]
        tasks[task] = 100 * sum(scores) / len(scores)
        rows += [
            {"reported_task": task, "group": f"{task}/{i}", "run": f"r{i % 2}", "scores": {"strict": s}}
            for i, s in enumerate(scores)
        ]
    result = run_intervals(bench, rows, {"tasks": tasks}, "strict", resamples=200)
    assert set(result["aggregates"]) == {
        "perception", "understanding", "reasoning", "sensation", "overall",
        "l1_task", "l2_modality", "l3_stage", "l4_domain", "headline",
    }  # fmt: skip
    assert len(result["tasks"]) == 14 and result["items"]["AMIC"] == 30
    # runs r0 (items 0, 2, ...) and r1 score 1/3 each: spread 0
    assert result["spread"]["AMIC"]["sd"] == 0.0 and result["spread"]["AMIC"]["runs"] == 2


def test_resamples_drawn_in_blocks_equal_the_whole_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large task's resamples are drawn and scored in blocks of rows (memory); the intervals must not depend on
    the block size, single and paired alike."""
    import avibench.level_metrics.bootstrap as boot

    rng = np.random.default_rng(7)
    a = {"A": _units(list(rng.integers(0, 2, 301))), "B": _units(list(rng.integers(0, 2, 57)), headline=40.0)}
    b = {"A": _units(list(rng.integers(0, 2, 301))), "B": _units(list(rng.integers(0, 2, 57)), headline=55.0)}
    whole = bootstrap(a, _mean, seed=5), paired_bootstrap(a, b, _mean, seed=5)
    monkeypatch.setattr(
        boot, "BLOCK_DRAWS", 301 * 7
    )  # blocks of 7 rows for A (the last one shorter), 37 for B
    blocked = bootstrap(a, _mean, seed=5), paired_bootstrap(a, b, _mean, seed=5)
    assert blocked == whole
    monkeypatch.setattr(boot, "BLOCK_DRAWS", 1)  # one row per block
    assert (bootstrap(a, _mean, seed=5), paired_bootstrap(a, b, _mean, seed=5)) == whole
