"""Folders that a declared plug-in reports under one task (``reported_task``) are scored together by the core: the
reported task's metric takes their values in task order, its chance pools their questions (those with a level of
their own), and coverage stays per folder; an answer waiting for refine leaves its task partial."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toy_benchmark import ToyBench

from avibench.items import Item, Response
from avibench.level_metrics.task_metrics import Aggregate, accuracy, mean_of_tasks
from avibench.plugin import Scored


class PooledToy(ToyBench):
    """The toy with ``attribute`` and ``temporal`` reported as one task, ``detail``."""

    aggregates: ClassVar[dict[str, Aggregate]] = {"headline": mean_of_tasks("event", "detail")}

    def reported_task(self, task: str) -> str:
        return "detail" if task in ("attribute", "temporal") else task


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Scored:
    bench = PooledToy()
    root = tmp_path_factory.mktemp("pooled")
    bench.generate_sample(root)
    responses: dict[str, list[Response]] = {}
    for task in bench.tasks():
        items = bench.load(root, task)
        replies = ["yes", "no", "maybe", "no"] if task.name == "temporal" else ["yes"] * len(items)
        responses[task.name] = [
            Response(item, "answered", raw=reply) for item, reply in zip(items, replies, strict=True)
        ]
    return bench.score(responses, profile="reference", options={})


def test_the_pooled_task_is_scored_on_its_folders_questions_together(scored: Scored) -> None:
    summary = scored.document["summary"]
    # attribute: 4 of 4 right ("yes"); temporal (answer "no"): 2 of 3 read ("maybe" is unread) -> 6 of 7
    assert summary["tasks"] == {"event": 50.0, "detail": round(600 / 7, 2)}
    assert summary["by_profile"]["reference"]["counts"] == {"event": 4, "detail": 7}
    assert summary["by_profile"]["strict"]["tasks"]["detail"] == round(600 / 8, 2)
    assert summary["headline"] == round((50.0 + 600 / 7) / 2, 2)
    assert scored.document["detail"] == {"score": round(600 / 7, 2), "questions": 7}


def test_coverage_and_per_question_scores_stay_per_folder(scored: Scored) -> None:
    coverage = scored.document["coverage"]
    assert sorted(coverage) == ["attribute", "event", "temporal"]
    assert (coverage["temporal"]["scored"], coverage["temporal"]["unparsed"]) == (3, 1)
    assert sorted(scored.per_sample) == ["attribute", "event", "temporal"]


def test_chance_pools_the_folders_questions(scored: Scored) -> None:
    assert scored.document["summary"]["chance"] == {"event": 50.0, "detail": 50.0}


def test_the_reported_tasks_metric_takes_the_folders_values_in_task_order(tmp_path: Path) -> None:
    given: list[list[Any]] = []

    class Recording(PooledToy):
        def item_value(self, answer: Any, item: Item) -> Any:
            return item.task

        def metric_of(self, task: str, profile: str) -> Any:
            def record(values: Sequence[Any]) -> float:
                given.append(list(values))
                return 50.0

            return record if task == "detail" else None

    bench = Recording()
    bench.generate_sample(tmp_path)
    responses = {
        t.name: [Response(item, "answered", raw=item.answer) for item in bench.load(tmp_path, t)]
        for t in bench.tasks()
        if t.name != "event"
    }
    backwards = {"temporal": responses["temporal"], "attribute": responses["attribute"]}
    summary = bench.score(backwards, profile="strict", options={}).document["summary"]
    assert given == [["attribute"] * 4 + ["temporal"] * 4] * 2  # once per profile
    assert summary["tasks"] == {"event": None, "detail": 50.0}
    assert PooledToy().metric_of("detail", "strict") is accuracy


def test_an_own_chance_leaves_out_the_questions_without_a_level(tmp_path: Path) -> None:
    class Gated(PooledToy):
        def chance(self, item: Item) -> float | None:  # the second wording only gates the first
            return None if item.variant == "w1" else (0.2 if item.task == "temporal" else 0.5)

    bench = Gated()
    bench.generate_sample(tmp_path)
    responses = {
        t.name: [Response(item, "answered", raw="yes") for item in bench.load(tmp_path, t)]
        for t in bench.tasks()
    }
    chance = bench.score(responses, profile="reference", options={}).document["summary"]["chance"]
    assert chance == {"event": 50.0, "detail": 35.0}  # attribute's two at 0.5, temporal's two at 0.2
