"""Confidence intervals and run-to-run spread of a scored run, from its per-sample results.

``summary.intervals`` in eval.json holds, for the primary profile, a percentile bootstrap interval for every
reported task and every summary number of the benchmark (see :mod:`avibench.level_metrics.bootstrap`), and, for
benchmarks asked several times (rotations, repeats), each task's spread between the runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from avibench.evaluate.document import as_dict, as_number

if TYPE_CHECKING:  # the bootstrap (numpy) is imported where intervals are computed: pages only read them
    from avibench.level_metrics.bootstrap import Aggregator, Metric, TaskUnits
    from avibench.plugin import Benchmark

METHOD = (
    "percentile bootstrap over items (a double-confirm pair, the rotations of a question and the folders of a "
    "pooled task are drawn together), each task's declared metric recomputed on the items drawn, "
    "{resamples} resamples, seed {seed}"
)


def _unit_scores(
    rows: Iterable[Mapping[str, Any]], profile: str
) -> dict[str, dict[str, list[tuple[float, Any]]]]:
    """reported task -> item group -> ``(score, metric value)`` of each of its scored questions."""
    out: dict[str, dict[str, list[tuple[float, Any]]]] = {}
    for row in rows:
        score = as_number(as_dict(row.get("scores")).get(profile))
        if score is None:
            continue
        value = as_dict(row.get("values")).get(profile, score)
        out.setdefault(str(row["reported_task"]), {}).setdefault(str(row["group"]), []).append((score, value))
    return out


def task_units(
    rows: Iterable[Mapping[str, Any]],
    profile: str,
    headlines: Mapping[str, Any],
    metric_of: Callable[[str, str], Metric | None] | None = None,
) -> dict[str, TaskUnits]:
    """Each reported task's items (mean score of each item's scored questions, and their metric values where
    ``metric_of`` declares the task's metric) and its reported score."""
    import numpy as np

    from avibench.level_metrics.bootstrap import TaskUnits

    units = _unit_scores(rows, profile)
    out = {}
    for task, groups in units.items():
        metric = metric_of(task, profile) if metric_of is not None else None
        out[task] = TaskUnits(
            tuple(groups),
            np.fromiter(
                (sum(s for s, _ in v) / len(v) for v in groups.values()), dtype=float, count=len(groups)
            ),
            as_number(headlines.get(task)),
            tuple(tuple(value for _, value in v) for v in groups.values()) if metric is not None else None,
            metric,
        )
    return out


def question_counts(rows: Iterable[Mapping[str, Any]], profile: str) -> dict[str, int]:
    """reported task -> how many of its questions the profile scored (the weights of a micro mean)."""
    counts: dict[str, int] = {}
    for row in rows:
        if as_number(as_dict(row.get("scores")).get(profile)) is not None:
            counts[str(row["reported_task"])] = counts.get(str(row["reported_task"]), 0) + 1
    return counts


def aggregator(benchmark: Benchmark, counts: Mapping[str, int]) -> Aggregator:
    """The benchmark's summary numbers as a function of task scores, with the questions each was scored on."""
    return lambda scores: benchmark.aggregate_numbers(scores, counts)


def _spread(rows: list[Mapping[str, Any]], profile: str) -> dict[str, dict[str, float | int]]:
    """Per task asked in several runs: the spread of the per-run scores (mean of the run's question scores)."""
    from avibench.level_metrics.bootstrap import run_spread

    per_run: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        score = as_number(as_dict(row.get("scores")).get(profile))
        if row.get("run") is None or score is None:
            continue
        per_run.setdefault(str(row["reported_task"]), {}).setdefault(str(row["run"]), []).append(score)
    return {
        task: run_spread({run: 100 * sum(v) / len(v) for run, v in runs.items()})
        for task, runs in per_run.items()
        if len(runs) > 1
    }


def run_intervals(
    benchmark: Benchmark,
    rows: list[Mapping[str, Any]],
    summary: Mapping[str, Any],
    profile: str,
    *,
    resamples: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The ``summary.intervals`` object of eval.json for the primary profile (``resamples``: the bootstrap's
    default when None)."""
    from avibench.level_metrics.bootstrap import DEFAULT_LEVEL, DEFAULT_RESAMPLES, bootstrap

    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    units = task_units(rows, profile, as_dict(summary.get("tasks")), benchmark.metric_of)
    counts = question_counts(rows, profile)
    result = bootstrap(units, aggregator(benchmark, counts), resamples=resamples, seed=seed)
    return {
        "profile": profile,
        "level": DEFAULT_LEVEL,
        "method": METHOD.format(resamples=resamples, seed=seed),
        "items": {task: len(u.units) for task, u in units.items()},
        "tasks": {k: list(v) for k, v in result.tasks.items()},
        "aggregates": {k: list(v) for k, v in result.aggregates.items()},
        "spread": _spread(rows, profile),
    }


def interval_of(summary: Mapping[str, Any], kind: str, name: str) -> tuple[float, float] | None:
    """A stored interval (``kind`` is ``tasks`` or ``aggregates``), or None."""
    value = as_dict(as_dict(summary.get("intervals")).get(kind)).get(name)
    if isinstance(value, list) and len(value) == 2 and all(as_number(v) is not None for v in value):
        return float(value[0]), float(value[1])
    return None


def fmt_interval(interval: tuple[float, float] | None) -> str:
    return "–" if interval is None else f"[{interval[0]:.1f}, {interval[1]:.1f}]"
