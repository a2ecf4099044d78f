"""Metrics that declare their tallies score the same through them, and the bootstrap's batched replicates of a
tallied metric equal the metric recomputed on every resample."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avibench.level_metrics import bootstrap
from avibench.level_metrics.audiomarathon import Record, defined_classes
from avibench.level_metrics.bootstrap import TaskUnits
from avibench.level_metrics.task_metrics import (
    accuracy,
    corpus_wer,
    macro_f1,
    recall_at,
    tallies_of,
    weighted_f1,
)

LABELS = st.sampled_from(["a", "b", "c", "d"])
PAIRS = st.lists(st.tuples(LABELS, st.one_of(st.none(), LABELS)), min_size=1, max_size=40)
CASES: list[tuple[Callable[[Sequence[Any]], float | None], Any]] = [
    (accuracy, st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=1, max_size=40)),
    (recall_at(1), st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=1, max_size=40)),
    (recall_at(3), st.lists(st.one_of(st.none(), st.integers(1, 5)), min_size=1, max_size=40)),
    (macro_f1, PAIRS),
    (weighted_f1, PAIRS),
    (corpus_wer, st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=40)),
]


@pytest.mark.parametrize("metric, values", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_tallied_metric_scores_the_same_through_its_tallies(metric: Any, values: Any) -> None:
    tallies = tallies_of(metric)
    assert tallies is not None

    @settings(max_examples=150, deadline=None)
    @given(values)
    def check(drawn: list[Any]) -> None:
        direct = metric(drawn)
        through = tallies.score(drawn)
        assert (direct is None) == (through is None)
        if direct is not None:
            assert through == pytest.approx(direct, abs=1e-9)

    check()


def _units(values: list[Any], per_item: int) -> tuple[tuple[Any, ...], ...]:
    return tuple(tuple(values[i : i + per_item]) for i in range(0, len(values), per_item))


@pytest.mark.parametrize(
    "metric, partial",
    [(accuracy, False), (accuracy, True), (macro_f1, False), (corpus_wer, False)],
    ids=["accuracy", "partial-credit", "macro_f1", "corpus_wer"],
)
def test_batched_replicates_equal_the_metric_on_every_resample(metric: Any, partial: bool) -> None:
    """Whole-number tallies (counts) are summed name by name; partial credit (0.3) through the dense product."""
    rng = random.Random(3)
    if metric is accuracy:
        scores = [0.0, 0.3, 1.0] if partial else [0.0, 1.0]
        values = [rng.choice(scores) for _ in range(300)]
    elif metric is macro_f1:
        values = [(rng.choice("abcd"), rng.choice(["a", "b", "c", "d", None])) for _ in range(300)]
    else:
        values = [(rng.randint(0, 6), rng.randint(1, 9)) for _ in range(300)]
    units = _units(values, 2)  # two questions per item, drawn together
    task = TaskUnits(
        tuple(str(i) for i in range(len(units))), np.zeros(len(units)), metric(values), units, metric
    )
    draws = np.random.default_rng(0).integers(0, len(units), size=(300, len(units)))
    batched = bootstrap._replicates(task, draws)
    direct = [metric([v for i in row for v in units[i]]) for row in draws]
    assert batched == pytest.approx(np.asarray(direct, dtype=float), abs=1e-9)


def test_a_metric_without_tallies_is_called_on_every_resample() -> None:
    calls: list[int] = []

    def counted(values: Sequence[Any]) -> float | None:
        calls.append(len(values))
        return accuracy(values)

    units = _units([1.0, 0.0, 1.0, 1.0], 1)
    task = TaskUnits(("0", "1", "2", "3"), np.zeros(4), 75.0, units, counted)
    assert tallies_of(counted) is None
    bootstrap._replicates(task, np.random.default_rng(0).integers(0, 4, size=(5, 4)))
    assert calls == [4] * 5


def _chat_values(rng: random.Random, count: int) -> list[dict[str, Any]]:
    """Chat values as the AIR-Bench plug-in makes them: judge replies by order, some unreadable or missing, and
    some unanswered questions."""
    from avibench.level_metrics.airbench_chat import CHAT_CATEGORY_OF_TASK, ORDERS

    names = sorted(CHAT_CATEGORY_OF_TASK)
    replies = ["7 5", "3 9", "10 10", "6 6", "", "8", "nonsense", "2 4", None]
    out: list[dict[str, Any]] = []
    for _ in range(count):
        name = rng.choice(names)
        if rng.random() < 0.1:
            out.append({"task_name": name, "replies": None})
        else:
            out.append({"task_name": name, "replies": {o: rng.choice(replies) for o in ORDERS}})
    return out


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_airbench_parts_score_the_same_through_their_tallies(profile: str) -> None:
    from avibench.level_metrics.airbench import FOUNDATION_TASKS, PROFILES, foundation_average
    from avibench.level_metrics.airbench_chat import chat_metric, judged_score

    rng = random.Random(7)
    subsets = [s for task in FOUNDATION_TASKS for s in task.subsets]
    for size in (1, 5, 60, 400):
        foundation = [(rng.choice(subsets), float(rng.random() < 0.5)) for _ in range(size)]
        assert tallies_of(foundation_average).score(foundation) == pytest.approx(
            foundation_average(foundation)
        )
        chat = _chat_values(rng, size)
        metric = chat_metric(PROFILES[profile])
        direct = judged_score(chat, PROFILES[profile])
        assert metric(chat) == direct
        through = tallies_of(metric).score(chat)
        assert (through is None) == (direct is None) and (direct is None or through == pytest.approx(direct))


@pytest.mark.parametrize("alias", ["pc", "sr"])
@pytest.mark.parametrize("two_decimals", [True, False])
def test_starbench_aa_scores_the_same_through_its_tallies(alias: str, two_decimals: bool) -> None:
    from avibench.level_metrics.starbench import aa_metric
    from avibench.level_metrics.starbench_profile import REFERENCE, STRICT

    profile = REFERENCE if two_decimals else STRICT
    assert profile.two_decimal_values is two_decimals
    metric = aa_metric(alias, profile)
    rng = random.Random(11)
    for size in (1, 7, 90):
        values = [
            (rng.choice(["loudness", "pitch", None, "timbre"]), float(rng.random() < 0.4))
            for _ in range(size)
        ]
        through = tallies_of(metric).score(values)
        assert through == pytest.approx(metric(values), abs=1e-9)


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_audiomarathon_resample_equals_its_metric_on_every_row(profile: str, tmp_path: Any) -> None:
    from avibench.items import Response
    from avibench.plugin import get_benchmark

    plugin = get_benchmark("audiomarathon")
    plugin.generate_sample(tmp_path, seed=2)
    rng = random.Random(5)
    for task in plugin.tasks():
        values = []
        for item in plugin.load(tmp_path, task):
            raw = rng.choice(
                [plugin.random_answer(item, rng), plugin.oracle_answer(item, rng), "", "no idea"]
            )
            answer = plugin.read(Response(item, "answered", raw=raw), profile)
            if answer is not None or profile == "strict":
                values.append(plugin.item_value(answer, item))
        metric = plugin.metric_of(task.name, profile)
        units = _units(values, 1)
        draws = np.random.default_rng(1).integers(0, len(units), size=(20, len(units)))
        whole = defined_classes(task.name, [_rec(v) for u in units for v in u], profile)
        got = metric.resample(units, draws)
        for row, score in zip(draws.tolist(), got, strict=True):
            drawn = [v for i in row for v in units[i]]
            if defined_classes(task.name, [_rec(v) for v in drawn], profile) == whole:
                assert score == metric(drawn), task.name  # every class drawn: the metric itself
            else:
                assert score is None or score >= metric(drawn), task.name  # a class left out, not counted 0


def _rec(value: Any) -> Record:
    return Record(**{**value, "options": tuple(value["options"])})
