"""Bootstrap confidence intervals over items, for task scores and the numbers computed from them. Pure.

The unit of resampling is an *item*: every question that shares an item (a double-confirm pair, the rotations of
one multiple-choice question, the folders of a pooled task) is drawn together, so the interval reflects how much the
score would move with another draw of items from the same population, not with another draw of variants.

A task's score is not always the mean of its items' scores (an F1 over classes, a corpus WER, an official
formula). Where the benchmark declares the task's metric as a function of its items' values, each resample
recomputes that metric on the drawn items' values, so such a task gets a true interval; a metric with a
``resample`` (its own, or from its tallies: :func:`avibench.level_metrics.task_metrics.tallied`) scores every
resample at once. Where it declares none (a
plug-in written against the older interface), each resample moves the reported score by how far the resampled mean
of item scores moved from the full mean: exact for mean scores, a measure of item-to-item variation for the others.
Summary numbers (stages, Overall, taxonomy) are recomputed from the resampled task scores with the benchmark's own
formula, so their intervals carry the correlation between tasks that formula introduces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Aggregator = Callable[[Mapping[str, float | None]], Mapping[str, float | None]]
#: A task's metric: its score (0-100, ``None`` when undefined) from the values of the items scored. A metric may
#: also have ``resample(values, draws)``: its score on every row of ``draws`` (item positions) at once, for
#: ``values`` one tuple per item; it must equal the metric on each row's values (the items drawn, in draw order).
Metric = Callable[[Sequence[Any]], float | None]
DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95
#: Drawn item positions held at once (32 MiB of them): a large task's resamples are drawn and scored in blocks.
BLOCK_DRAWS = 1 << 22


@dataclass(frozen=True)
class TaskUnits:
    """One reported task: its items' ids, their scores (0-1, one per item) and the reported score (0-100).

    ``values`` (one tuple per item: the values of its scored questions) and ``metric`` are set where the benchmark
    declares the task's metric; each resample then recomputes it from the drawn items' values."""

    units: tuple[str, ...]
    scores: np.ndarray
    headline: float | None
    values: tuple[tuple[Any, ...], ...] | None = None
    metric: Metric | None = None

    def subset(self, units: tuple[str, ...]) -> TaskUnits:
        position = {u: i for i, u in enumerate(self.units)}
        picked = [position[u] for u in units]
        values = None if self.values is None else tuple(self.values[i] for i in picked)
        return TaskUnits(units, self.scores[picked], self.headline, values, self.metric)


@dataclass
class Intervals:
    """Percentile intervals ``(low, high)`` on 0-100 for each task and each summary number."""

    tasks: dict[str, tuple[float, float]] = field(default_factory=dict)
    aggregates: dict[str, tuple[float, float]] = field(default_factory=dict)


def _replicates(task: TaskUnits, draws: np.ndarray) -> np.ndarray:
    """The task score under each row of ``draws`` (item positions), on 0-100 (NaN where the metric is undefined)."""
    assert task.headline is not None
    if task.metric is not None and task.values is not None:
        values = task.values
        resample = getattr(task.metric, "resample", None)
        if resample is not None:
            scores = resample(values, draws)
        else:
            # rows as Python ints: indexing a tuple with numpy integers costs more than the metric itself
            scores = [task.metric([v for i in row for v in values[i]]) for row in draws.tolist()]
        return np.asarray([np.nan if s is None else float(s) for s in scores])
    shifted = task.headline + 100.0 * (task.scores[draws].mean(axis=1) - task.scores.mean())
    return np.clip(shifted, 0.0, 100.0)


def _draws(
    tasks: Mapping[str, TaskUnits], resamples: int, seed: int
) -> Iterator[tuple[str, Iterator[np.ndarray]]]:
    """Per task, its matrix of drawn item positions (``resamples`` rows) in blocks of rows, from one seeded
    generator, made as they are asked for (a task's blocks must be used before the next task's): the matrices of
    every task at once held about 45 MiB for AVI-Bench, and one task of 21,000 items 168 MiB alone. Blocks of rows
    drawn one after the other equal the rows of the whole matrix drawn at once, so the numbers do not depend on
    the block size."""
    rng = np.random.default_rng(seed)
    for name, task in sorted(tasks.items()):
        if task.headline is not None and len(task.units):
            n = len(task.units)
            rows = max(1, BLOCK_DRAWS // n)
            yield (
                name,
                (rng.integers(0, n, size=(min(rows, resamples - r), n)) for r in range(0, resamples, rows)),
            )


def _replicated(task: TaskUnits, blocks: Iterator[np.ndarray]) -> np.ndarray:
    return np.concatenate([_replicates(task, draws) for draws in blocks])


def _aggregate_replicates(
    aggregate: Aggregator,
    names: list[str],
    replicates: Mapping[str, np.ndarray],
    fixed: Mapping[str, float | None],
) -> dict[str, np.ndarray]:
    """The summary numbers of every resample (NaN where the formula gives none)."""
    resamples = len(next(iter(replicates.values()))) if replicates else 0
    out: dict[str, list[float]] = {}
    for r in range(resamples):
        scores = {**fixed, **{name: float(replicates[name][r]) for name in names}}
        for key, value in aggregate(scores).items():
            out.setdefault(key, []).append(np.nan if value is None else float(value))
    return {key: np.asarray(values) for key, values in out.items()}


def _interval(values: np.ndarray, level: float) -> tuple[float, float] | None:
    values = values[np.isfinite(values)]
    if not len(values):
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return round(float(low), 2), round(float(high), 2)


def bootstrap(
    tasks: Mapping[str, TaskUnits],
    aggregate: Aggregator,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> Intervals:
    """Intervals for every task with a score and items, and for every number ``aggregate`` computes."""
    replicates = {name: _replicated(tasks[name], blocks) for name, blocks in _draws(tasks, resamples, seed)}
    fixed = {name: task.headline for name, task in tasks.items() if name not in replicates}
    result = Intervals()
    for name, values in replicates.items():
        if (interval := _interval(values, level)) is not None:
            result.tasks[name] = interval
    aggregated = _aggregate_replicates(aggregate, list(replicates), replicates, fixed)
    for key, values in aggregated.items():
        if (interval := _interval(values, level)) is not None:
            result.aggregates[key] = interval
    return result


@dataclass(frozen=True)
class Difference:
    """``b − a`` on 0-100 with its paired interval; ``significant`` when the interval excludes 0."""

    delta: float
    low: float
    high: float
    items: int

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_bootstrap(
    a: Mapping[str, TaskUnits],
    b: Mapping[str, TaskUnits],
    aggregate: Aggregator,
    *,
    aggregate_b: Aggregator | None = None,
    fixed_a: Mapping[str, float | None] | None = None,
    fixed_b: Mapping[str, float | None] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Difference]:
    """Differences ``b − a`` per task and per summary number, resampling the items both runs share together.

    Drawing the same items for both runs removes the item-to-item variation they have in common, so the
    interval measures the difference between the models, not the difficulty of the items drawn. A summary number
    is each run's own (every task it scored, ``fixed_*`` holding task scores without items), so its difference is
    the difference of the two runs' numbers; tasks the runs do not share stay at their scores in every resample.
    ``aggregate_b`` is run b's own formula where it differs from a's (its question counts), else ``aggregate``.
    """
    aggregate_b = aggregate_b or aggregate
    shared: dict[str, tuple[TaskUnits, TaskUnits]] = {}
    for name in sorted(set(a) & set(b)):
        if a[name].headline is None or b[name].headline is None:
            continue
        units = tuple(u for u in a[name].units if u in set(b[name].units))
        if units:
            shared[name] = (a[name].subset(units), b[name].subset(units))
    reps_a: dict[str, np.ndarray] = {}
    reps_b: dict[str, np.ndarray] = {}
    for name, blocks in _draws({name: pair[0] for name, pair in shared.items()}, resamples, seed):
        drawn = [(_replicates(shared[name][0], d), _replicates(shared[name][1], d)) for d in blocks]
        reps_a[name] = np.concatenate([a for a, _ in drawn])
        reps_b[name] = np.concatenate([b for _, b in drawn])
    out: dict[str, Difference] = {}
    for name, (ta, tb) in shared.items():
        diff = reps_b[name] - reps_a[name]
        low, high = _interval(diff, level) or (np.nan, np.nan)
        delta = round(float(tb.headline) - float(ta.headline), 2)  # type: ignore[arg-type]
        out[name] = Difference(delta, float(low), float(high), len(ta.units))
    whole_a = {**(fixed_a or {}), **{name: t.headline for name, t in a.items()}}
    whole_b = {**(fixed_b or {}), **{name: t.headline for name, t in b.items()}}
    agg_a = _aggregate_replicates(aggregate, list(reps_a), reps_a, whole_a)
    agg_b = _aggregate_replicates(aggregate_b, list(reps_b), reps_b, whole_b)
    point_a, point_b = aggregate(whole_a), aggregate_b(whole_b)
    for key in agg_a:
        interval = _interval(agg_b[key] - agg_a[key], level)
        pa, pb = point_a.get(key), point_b.get(key)
        if interval is None or pa is None or pb is None:
            continue
        items = sum(len(p[0].units) for p in shared.values())
        out[key] = Difference(round(float(pb) - float(pa), 2), *interval, items)
    return out


def run_spread(scores: Mapping[str, float]) -> dict[str, float | int]:
    """How a score varies between repeated runs (rotations, repeats): count, mean, SD, min and max on 0-100."""
    values = np.asarray(list(scores.values()), dtype=float)
    return {
        "runs": len(values),
        "mean": round(float(values.mean()), 2),
        "sd": round(float(values.std(ddof=1)) if len(values) > 1 else 0.0, 2),
        "min": round(float(values.min()), 2),
        "max": round(float(values.max()), 2),
    }
