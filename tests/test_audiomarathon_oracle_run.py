"""The oracle through AudioMarathon's sample with ``avibench run``: every question it answered right is scored right
on the pages (HAD, VoxCeleb age and gender included, whose reference prediction is a label, not a letter), and no
interval of an all-correct run falls below its score of 100, although the sample's tiny tasks leave classes out
of most resamples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from avibench.benchmarks.audiomarathon.plugin import task_metric
from avibench.items import Response
from avibench.plugin import PROFILES, Task, get_benchmark
from avibench.testing.harness import CliResult, invoke


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CliResult]:
    base = tmp_path_factory.mktemp("marathon_oracle")
    here = Path.cwd()
    os.chdir(base)  # the sample folder is relative to the working folder
    try:
        args = [
            "run",
            "--model",
            "oracle",
            "--benchmarks",
            "audiomarathon",
            "--sample",
            "--output-dir",
            "out",
        ]
        return base / "out" / "oracle" / "audiomarathon", invoke(args)
    finally:
        os.chdir(here)


def test_every_oracle_answer_is_scored_right_in_both_profiles(oracle_run: tuple[Path, CliResult]) -> None:
    run, result = oracle_run
    assert result.code == 0, result.stderr
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {row["task"] for row in rows} >= {"SD", "SAR", "SGR"}
    wrong = [(row["task"], p) for row in rows for p in PROFILES if row["scores"][p] != 1.0]
    assert not wrong


def test_an_all_correct_run_has_intervals_at_its_score(oracle_run: tuple[Path, CliResult]) -> None:
    run, _ = oracle_run
    intervals = json.loads((run / "eval.json").read_text(encoding="utf-8"))["summary"]["intervals"]
    assert intervals["tasks"] and all(v == [100.0, 100.0] for v in intervals["tasks"].values()), intervals
    assert intervals["aggregates"]["headline"] == [100.0, 100.0]


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_resample_leaves_out_the_classes_it_does_not_draw(profile: str, tmp_path: Path) -> None:
    """Fixed label sets (A-D) and HAD's "fake" F1: a resample without a class scores the classes it has."""
    plugin = get_benchmark("audiomarathon")
    plugin.generate_sample(tmp_path, seed=1)
    for task in ("SCR", "MC", "SD"):
        items = plugin.load(tmp_path, _task(task))
        right = [
            plugin.item_value(plugin.read(Response(i, "answered", raw=i.answer), profile), i) for i in items
        ]
        metric = task_metric(task, profile)
        units = [(v,) for v in right]
        assert metric([v for u in units for v in u]) == 100.0, task
        # every draw of one item: a class of the task at most, the others absent
        draws = np.array([[i] * len(units) for i in range(len(units))])
        scores = metric.resample(units, draws)
        assert all(s in (100.0, None) for s in scores), (task, scores)
        assert any(s == 100.0 for s in scores), (task, scores)


def test_a_wrong_label_or_letter_is_scored_wrong(tmp_path: Path) -> None:
    plugin = get_benchmark("audiomarathon")
    plugin.generate_sample(tmp_path, seed=1)
    item = next(i for i in plugin.load(tmp_path, _task("SD")) if i.meta["gold"] == "real")
    other = "B" if item.answer == "A" else "A"
    assert plugin.item_score("real", item) == plugin.item_score(item.answer, item) == 1.0
    assert plugin.item_score("fake", item) == plugin.item_score(other, item) == 0.0
    assert plugin.item_score("", item) == plugin.item_score(None, item) == 0.0


def _task(name: str) -> Task:
    return next(t for t in get_benchmark("audiomarathon").tasks() if t.name == name)
