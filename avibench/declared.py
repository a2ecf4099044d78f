"""The core's scoring of a declared benchmark: from how an answer is read, how one question is scored and each
task's metric, the eval document in both profiles, its coverage, chance levels and the per-question values.

One code path for every declared benchmark: per profile, each response becomes a value (:meth:`Benchmark.read`,
then :meth:`Benchmark.item_value`; the reference profile leaves unanswered or unread questions out where
:attr:`Benchmark.reference_drops_unanswered` says so, the strict profile scores them), each task's metric takes its
values, and :meth:`Benchmark.aggregate_numbers` makes the summary numbers from the task scores and the questions
each was scored on. The same values go to samples.jsonl, so intervals and comparisons recompute the same metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from avibench.items import Response

if TYPE_CHECKING:
    from avibench.plugin import Benchmark, Scored, Task

PROFILE_NAMES = ("reference", "strict")


def _values(
    benchmark: Benchmark, responses: Sequence[Response], profile: str
) -> list[tuple[Any, float | None]]:
    """Per response, ``(value, score)`` in ``profile``; both ``None`` where the profile leaves it out."""
    out: list[tuple[Any, float | None]] = []
    for response in responses:
        answer = benchmark.read(response, profile)
        if answer is None and (profile == "reference" and benchmark.reference_drops_unanswered):
            out.append((None, None))
            continue
        out.append((benchmark.item_value(answer, response.item), benchmark.item_score(answer, response.item)))
    return out


def _coverage(benchmark: Benchmark, responses: Sequence[Response], scored: int) -> dict[str, Any]:
    answered = [r for r in responses if r.status == "answered"]
    counts = {
        "questions": len(responses),
        "answered": len(answered),
        "failed": sum(r.status == "failed" for r in responses),
        "missing": sum(r.status == "missing" for r in responses),
        "unparsed": sum(benchmark.read(r, "strict") is None for r in answered),
        "scored": scored,
    }
    complete = counts["answered"] == counts["questions"]
    if counts["answered"] and not scored:  # every answer unread: the task has no score, so it is not complete
        return {
            **counts,
            "status": "not_scored",
            "reason": f"none of {counts['answered']} answers could be read",
        }
    reason = None if complete else f"{counts['failed']} failed, {counts['missing']} never asked"
    return {**counts, "status": "scored" if complete else "partial", "reason": reason}


def _chance(benchmark: Benchmark, responses: Sequence[Response]) -> float | None:
    """The expected task score of a uniform guess, where every question has one (a mean of item chances)."""
    levels = [benchmark.chance(r.item) for r in responses]
    if not levels or any(level is None for level in levels):
        return None
    return round(100.0 * sum(levels) / len(levels), 2)  # type: ignore[arg-type]


def score_declared(
    benchmark: Benchmark,
    responses: Mapping[str, Sequence[Response]],
    *,
    primary: str,
    tasks: Sequence[Task],
) -> Scored:
    """The eval document (without ``meta``) of the selected ``tasks``; tasks without responses score ``None``.

    The top level holds, for the primary profile, each task's score and question count under its name and each
    summary number; ``summary`` has both profiles, the chance levels and the counts behind each task score."""
    from avibench.plugin import Scored

    present = [t for t in tasks if t.name in responses]
    per_sample: dict[str, dict[str, dict[str, float | None]]] = {t.name: {} for t in present}
    values: dict[str, dict[str, dict[str, Any]]] = {t.name: {} for t in present}
    views: dict[str, dict[str, Any]] = {}
    for profile in PROFILE_NAMES:
        scores: dict[str, float | None] = {t.name: None for t in tasks}
        exact: dict[str, float | None] = {t.name: None for t in tasks}  # the aggregates take unrounded scores
        counts: dict[str, int] = {}
        for task in present:
            rows = list(responses[task.name])
            pairs = _values(benchmark, rows, profile)
            kept = [v for (v, s) in pairs if s is not None]
            metric = benchmark.metric_of(task.name, profile)
            assert metric is not None  # a declared benchmark declares every task's metric
            value = metric(kept) if kept else None
            exact[task.name], scores[task.name] = value, None if value is None else round(value, 2)
            counts[task.name] = len(kept)
            for response, (v, s) in zip(rows, pairs, strict=True):
                per_sample[task.name].setdefault(response.item.key, {})[profile] = s
                values[task.name].setdefault(response.item.key, {})[profile] = v
        numbers = benchmark.aggregate_numbers(exact, counts)
        views[profile] = {
            "tasks": scores,
            **{k: None if v is None else round(v, 2) for k, v in numbers.items()},
            "counts": counts,
        }
    view = views[primary]
    chance = {t.name: _chance(benchmark, responses[t.name]) for t in present}
    document: dict[str, Any] = {
        **{
            name: {"score": view["tasks"][name], "questions": view["counts"].get(name, 0)}
            for name in view["tasks"]
        },
        **{k: v for k, v in view.items() if k not in ("tasks", "counts")},
        "summary": {
            "profile": primary,
            "tasks": view["tasks"],
            "headline": view.get("headline"),
            "chance": {k: v for k, v in chance.items() if v is not None},
            "by_profile": views,
        },
        "coverage": {
            t.name: _coverage(benchmark, responses[t.name], views[primary]["counts"][t.name]) for t in present
        },
    }
    return Scored(document=document, per_sample=per_sample, values=values)
