"""The declared core's hooks for official scorers that print full floats, chance levels that depend on the
profile, and selected tasks that have no responses for a reason the plug-in knows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from test_plugin_declared_options import _Sixes

from avibench.declared import score_declared
from avibench.items import Item, Response
from avibench.plugin import Task


class _Thirds(_Sixes):
    """Scores a third of task ``a`` unrounded; its chance level is the profile's own."""

    score_digits: ClassVar[int | None] = None

    def task_chance(self, task: Task, items: Sequence[Item], profile: str) -> float | None:
        return {"reference": 10.0, "strict": 20.0}[profile] if task.name == "a" else None


def _document(bench: _Sixes, tasks: Sequence[str], **kw: Any) -> dict[str, Any]:
    responses = {
        name: [
            Response(item, "answered", raw=reply, refined=reply, method="rule")
            for item in bench.load(Path("."), task)
            for reply in ["y" if item.index < 2 else "n"]
        ]
        for task in bench.tasks()
        if (name := task.name) in tasks
    }
    return score_declared(bench, responses, primary="strict", tasks=bench.tasks(), **kw).document


def test_no_score_digits_keeps_scores_unrounded() -> None:
    summary = _document(_Thirds(), ["a", "b"])["summary"]
    assert summary["tasks"] == {"a": 100 * 2 / 6, "b": 100 * 2 / 6}
    assert _document(_Sixes(), ["a"])["summary"]["tasks"]["a"] == 33.33


def test_a_plugins_task_chance_is_kept_per_profile() -> None:
    summary = _document(_Thirds(), ["a", "b"])["summary"]
    assert summary["chance"] == {"a": 20.0}  # b falls back to the mean of item chances: none without options
    assert summary["by_profile"]["reference"]["chance"] == {"a": 10.0}
    assert summary["by_profile"]["strict"]["chance"] == summary["chance"]


def test_absent_tasks_are_covered_with_their_reason() -> None:
    coverage = _document(_Sixes(), ["a"], absent={"b": "no b results"})["coverage"]
    assert list(coverage) == ["a", "b"]
    assert coverage["b"] == {"status": "absent", "reason": "no b results"}
    assert list(_document(_Sixes(), ["a"])["coverage"]) == ["a"]
