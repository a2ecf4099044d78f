"""AVI-Bench's task metric reads the numbers each question's value carries (parsed once, before the core scores)
instead of running the official scorer again; on every generated corpus (oracle, random and adversarial answers,
missing and failed ones), from journals and from prediction files, in both profiles, it gives exactly the official
scorer's task score over the same values, and on bootstrap draws (questions drawn several times) exactly the
official scorer's score of each draw."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_avibench_pinned import _response, _write_journals, _write_prediction_files

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.benchmarks.avibench.values import (
    official_score,
    question_numbers,
    questions_numbers,
    task_metric,
    task_score,
)
from avibench.contracts import RunPaths
from avibench.items import Item, Response
from avibench.level_metrics.aggregate import rounded
from avibench.level_metrics.common import Notes
from avibench.plugin import EvalRequest, Scored, get_benchmark

PROFILES = ("reference", "strict")
CORPORA = ("oracle", "random", "adversarial")
DRAWS = 12


def _answered(plugin: Any, item: Item, raw: str) -> Response:
    refined = raw if plugin.passthrough(item.task) else plugin.extract(item, raw)
    method = "passthrough" if plugin.passthrough(item.task) else "unparsed" if refined is None else "rule"
    recorded = raw if refined is None else refined
    return Response(item=item, status="answered", raw=raw, refined=refined, method=method, recorded=recorded)


def _corpus(plugin: Any, root: Path, kind: str) -> dict[str, list[Response]]:
    """Every question answered by the oracle or at random, or the pinned corpus's mix (adversarial answers,
    unrefined, failed and missing ones)."""
    rng = random.Random(CORPORA.index(kind))
    out: dict[str, list[Response]] = {}
    for task in plugin.tasks():
        items = plugin.load(root, task)
        if kind == "adversarial":
            out[task.name] = [_response(plugin, item, rng) for item in items]
        else:
            answer = plugin.oracle_answer if kind == "oracle" else plugin.random_answer
            out[task.name] = [_answered(plugin, item, answer(item, rng)) for item in items]
    return out


@pytest.fixture(scope="module", params=CORPORA)
def scored(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[Scored]:
    """One corpus scored from journals and from prediction files (VSQA_I's file one short)."""
    plugin = get_benchmark("avibench")
    tmp = tmp_path_factory.mktemp(f"avibench-fast-{request.param}")
    root = tmp / "data"
    plugin.generate_sample(root, seed=3)
    responses = _corpus(plugin, root, request.param)
    paths = RunPaths(tmp / "outputs", "fast", "avibench")
    _write_journals(paths, responses)
    predictions = _write_prediction_files(plugin, tmp / "predictions", responses)
    return [
        plugin.evaluate(
            EvalRequest(
                data_root=root,
                tasks=plugin.default_tasks(),
                profile="reference",
                paths=paths,
                predictions=where,
                options={"fense": "stand-in"},
                model="fast",
            )
        )
        for where in (None, predictions)
    ]


def _values(scored: Scored, task: str, profile: str) -> list[Any]:
    """The values the reported task's metric takes in ``profile`` (its scored questions'), in task order."""
    return [
        by_profile[profile]
        for spec in AVIBENCH.tasks
        if spec.paper_task == task
        for key, by_profile in scored.values.get(spec.name, {}).items()
        if scored.per_sample[spec.name][key].get(profile) is not None
    ]


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN (the reference writes NaN in a few degenerate cases)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("profile", PROFILES)
def test_the_metric_is_the_official_score(scored: list[Scored], profile: str) -> None:
    checked = 0
    for run in scored:
        for task in AVIBENCH.paper_tasks():
            values = _values(run, task, profile)
            if not values:
                continue
            official = official_score(task, values, profile)
            assert _same(task_score(task, values, profile).value, official.value), (task, profile)
            assert task_metric(task, profile)(values) == rounded(official.headline * 100), (task, profile)
            checked += 1
    assert checked >= len(AVIBENCH.paper_tasks())


@pytest.mark.parametrize("profile", PROFILES)
def test_every_draw_scores_as_the_official_scorer_scores_it(scored: list[Scored], profile: str) -> None:
    """Each question its own unit; draws repeat some questions and leave others out."""
    rng = np.random.default_rng(7)
    for run in scored:
        for task in AVIBENCH.paper_tasks():
            values = _values(run, task, profile)
            if not values:
                continue
            units = [(v,) for v in values]
            draws = rng.integers(0, len(units), size=(DRAWS, len(units)))
            expected = [
                rounded(official_score(task, [values[i] for i in row], profile).headline * 100)
                for row in draws.tolist()
            ]
            assert task_metric(task, profile).resample(units, draws) == expected, (task, profile)


@pytest.mark.parametrize("profile", PROFILES)
def test_numbers_read_together_are_the_numbers_read_one_by_one(scored: list[Scored], profile: str) -> None:
    """eval reads a task folder's numbers in one pass of its scorer; each question's numbers, and every note,
    are what reading the questions one at a time gives (double-confirm gates included)."""
    checked = gated = 0
    for run in scored:
        for spec in AVIBENCH.tasks:
            values = [
                by_profile[profile]
                for by_profile in run.values.get(spec.name, {}).values()
                if isinstance(by_profile.get(profile), dict) and "numbers" in by_profile[profile]
            ]
            if not values:
                continue
            together, alone = Notes(), Notes()
            numbers = questions_numbers(values, profile, together)
            assert _same(numbers, [v["numbers"] for v in values]), (spec.name, profile)
            assert _same(numbers, [question_numbers(v, profile, alone) for v in values]), (spec.name, profile)
            assert together.render() == alone.render(), (spec.name, profile)
            checked += len(values)
            gated += sum(len(v["entries"]) > 1 for v in values)
    assert checked > 100 and gated > 10
