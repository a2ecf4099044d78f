"""The declared core's hooks for official scorers whose rules span a task: rows left out for what other rows hold,
a task's own chance level, and numbers kept unrounded."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from test_plugin_declared_options import _Sixes

from avibench.declared import score_declared
from avibench.items import Item, Response
from avibench.plugin import Benchmark, ScoredRow, Task


class _Pairs(_Sixes):
    """Questions 2k and 2k+1 are two runs of one item; the reference drops an item with a run missing, the strict
    profile counts each item's second run only; chance and numbers come unrounded from the plug-in."""

    score_digits: ClassVar[int | None] = None

    def left_out(self, rows: Sequence[ScoredRow], profile: str) -> Collection[int]:
        if profile == "strict":
            return [i for i in range(len(rows)) if i % 2 == 0]
        incomplete = {i // 2 for i, row in enumerate(rows) if row.response.status == "missing"}
        return [i for i in range(len(rows)) if i // 2 in incomplete]

    def task_chance(self, task: Task, items: Sequence[Item], profile: str) -> float | None:
        return 100 / 3 if task.name == "a" else None


def _scored(bench: Benchmark) -> tuple[dict, dict]:
    replies = ["y", "n", None, "y", "y", "y"]  # question 2 never asked: item 1 is incomplete
    responses = {
        t.name: [
            Response(item, "missing")
            if reply is None
            else Response(item, "answered", raw=reply, refined=reply, method="rule")
            for item, reply in zip(bench.load(Path("."), t), replies, strict=True)
        ]
        for t in bench.tasks()
    }
    scored = score_declared(bench, responses, primary="reference", tasks=bench.tasks())
    return scored.document, scored.per_sample


def test_rows_left_out_score_none_and_leave_the_metric_and_counts() -> None:
    document, per_sample = _scored(_Pairs())
    assert per_sample["a"] == {
        "0": {"reference": 1.0, "strict": None},
        "1": {"reference": 0.0, "strict": 0.0},
        "2": {"reference": None, "strict": None},
        "3": {"reference": None, "strict": 1.0},
        "4": {"reference": 1.0, "strict": None},
        "5": {"reference": 1.0, "strict": 1.0},
    }
    by_profile = document["summary"]["by_profile"]
    assert by_profile["reference"]["counts"] == {"a": 4, "b": 4}
    assert by_profile["strict"]["counts"] == {"a": 3, "b": 3}
    assert document["coverage"]["a"]["scored"] == 4


def test_a_task_chance_and_unrounded_numbers() -> None:
    document, _ = _scored(_Pairs())
    assert document["summary"]["chance"] == {"a": 100 / 3}  # b's questions have no options: no level
    assert document["summary"]["by_profile"]["strict"]["tasks"]["a"] == 200 / 3
    strict = document["summary"]["by_profile"]["strict"]["headline"]
    assert strict == pytest.approx(200 / 3) and strict != round(strict, 2)  # the micro mean, not rounded


def test_the_defaults_leave_nothing_out_and_round() -> None:
    document, per_sample = _scored(_Sixes())
    assert [s["reference"] for s in per_sample["a"].values()] == [1.0, 0.0, None, 1.0, 1.0, 1.0]
    assert document["summary"]["tasks"] == {"a": 80.0, "b": 80.0}
    assert document["summary"]["by_profile"]["strict"]["tasks"] == {"a": 66.67, "b": 66.67}
    assert document["summary"]["chance"] == {}


def test_a_task_whose_every_answer_its_rule_leaves_out_says_so() -> None:
    bench = _Pairs()
    replies = ["y", None, None, "y", "y", None]  # every item has a run missing: the reference keeps none
    responses = {
        t.name: [
            Response(item, "missing")
            if reply is None
            else Response(item, "answered", raw=reply, refined=reply, method="rule")
            for item, reply in zip(bench.load(Path("."), t), replies, strict=True)
        ]
        for t in bench.tasks()
    }
    document = score_declared(bench, responses, primary="reference", tasks=bench.tasks()).document
    coverage = document["coverage"]["a"]
    assert coverage["status"] == "not_scored" and coverage["unparsed"] == 0
    assert coverage["reason"] == "none of 3 answers is scored: the benchmark's own rule leaves them out"
    assert document["summary"]["tasks"]["a"] is None
