"""The core's scoring of a declared benchmark: from how an answer is read, how one question is scored and each
task's metric, the eval document in both profiles, its coverage, chance levels and the per-question values.

One code path for every declared benchmark: per profile, each response becomes a value (:meth:`Benchmark.read`,
then :meth:`Benchmark.item_value`; the reference profile leaves unanswered or unread questions out where
:attr:`Benchmark.reference_drops_unanswered` says so, the strict profile scores them unless
:attr:`Benchmark.strict_drops_unanswered` leaves its unanswered ones out), each task's metric takes its
values (the folders :meth:`Benchmark.reported_task` pools into one reported task together, in task order), and
:meth:`Benchmark.aggregate_numbers` makes the summary numbers from the task scores and the questions each was
scored on. The same values go to samples.jsonl, so intervals and comparisons recompute the same metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from avibench.items import Item, Response

if TYPE_CHECKING:
    from avibench.plugin import Benchmark, Scored, ScoredRow, Task

PROFILE_NAMES = ("reference", "strict")


def _rows(benchmark: Benchmark, responses: Sequence[Response], profile: str) -> list[ScoredRow]:
    """Per response, what ``profile`` read, valued and scored; value and score ``None`` where it leaves it out."""
    from avibench.plugin import Benchmark, ScoredRow

    scores_are_values = (
        type(benchmark).item_value is Benchmark.item_value
    )  # the default: the value is the score
    out: list[ScoredRow] = []
    for response in responses:
        answer = benchmark.read(response, profile)
        if answer is None and (profile == "reference" and benchmark.reference_drops_unanswered):
            out.append(ScoredRow(response, None, None, None))
            continue
        if response.status != "answered" and (profile == "strict" and benchmark.strict_drops_unanswered):
            out.append(ScoredRow(response, None, None, None))
            continue
        if scores_are_values:
            value = score = benchmark.item_score(answer, response.item)
        else:
            value = benchmark.item_value(answer, response.item)
            score = benchmark.item_score(answer, response.item)
        out.append(ScoredRow(response, answer, value, score))
    dropped = set(benchmark.left_out(out, profile))
    return [
        ScoredRow(row.response, row.answer, None, None) if i in dropped else row for i, row in enumerate(out)
    ]


def _rounded(value: float | None, digits: int | None) -> float | None:
    """``value`` to ``digits`` decimals (``None``: as computed)."""
    return value if value is None or digits is None else round(value, digits)


def _differ(per_sample: Mapping[str, Mapping[str, Mapping[str, float | None]]]) -> dict[str, int]:
    """How many questions, scored in both profiles, the profiles score differently, by which scores higher."""
    pairs = [
        (scores["reference"], scores["strict"])
        for task in per_sample.values()
        for scores in task.values()
        if scores.get("reference") is not None and scores.get("strict") is not None
    ]
    reference_only = sum(ref > strict for ref, strict in pairs)  # type: ignore[operator]
    strict_only = sum(strict > ref for ref, strict in pairs)  # type: ignore[operator]
    return {
        "answers": reference_only + strict_only,
        "reference_only": reference_only,
        "strict_only": strict_only,
    }


def _coverage(
    responses: Sequence[Response], strict: Sequence[ScoredRow], scored: int, score: float | None
) -> dict[str, Any]:
    """A task's counts and status; ``strict`` are its rows as the strict profile read them (its unread ones are
    ``unparsed``)."""
    answered = [r for r in responses if r.status == "answered"]
    counts = {
        "questions": len(responses),
        "answered": len(answered),
        "failed": sum(r.status == "failed" for r in responses),
        "missing": sum(r.status == "missing" for r in responses),
        "unparsed": sum(row.answer is None for row in strict if row.response.status == "answered"),
        "scored": scored,
    }
    complete = counts["answered"] == counts["questions"]
    if counts["answered"] and (not scored or score is None):  # no task score, so the task is not complete
        if scored:
            why = f"its metric gives no score from the {scored} answers scored"
        elif counts["unparsed"] == counts["answered"]:
            why = f"none of {counts['answered']} answers could be read"
        else:  # read, but dropped (an official rule that leaves out every run of an item with one missing)
            why = f"none of {counts['answered']} answers is scored: the benchmark's own rule leaves them out"
        return {**counts, "status": "not_scored", "reason": why}
    reason = None if complete else f"{counts['failed']} failed, {counts['missing']} never asked"
    return {**counts, "status": "scored" if complete else "partial", "reason": reason}


def _chance(
    benchmark: Benchmark, name: str, folders: Sequence[Task], responses: Sequence[Response], profile: str
) -> float | None:
    """The expected score of a uniform guess in ``profile`` on the reported task ``name`` (its folders
    ``folders``, their responses pooled): the plug-in's :meth:`Benchmark.task_chance`, else the mean of item
    chances where every question has one.

    The mean of item chances is the chance level of a metric that is a mean of item scores only; for any other
    metric (an F1, a WER, a recall) it is ``None`` unless the plug-in gives its own :meth:`Benchmark.chance`, or
    the task's level itself (:meth:`Benchmark.task_chance`). A plug-in's own chance may leave out a question that
    has no level of its own (a double-confirm pre-question, which only gates its pair: ``None``); the level is
    then the mean over the questions that have one."""
    from avibench.level_metrics.task_metrics import accuracy
    from avibench.plugin import Benchmark, Task, declared_metric

    task = folders[0] if len(folders) == 1 else Task(name, metric=declared_metric(folders[0]))
    level = benchmark.task_chance(task, [r.item for r in responses], profile)
    if level is not None:
        return _rounded(level, benchmark.score_digits)
    own = type(benchmark).chance is not Benchmark.chance
    if not own and any(declared_metric(folder) is not accuracy for folder in folders):
        return None
    levels = [benchmark.chance(r.item) for r in responses]
    if own:
        levels = [level for level in levels if level is not None]
    if not levels or any(level is None for level in levels):
        return None
    return _rounded(100.0 * sum(levels) / len(levels), benchmark.score_digits)  # type: ignore[arg-type]


def items_chance(benchmark: Benchmark, task: Task, items: Sequence[Item], profile: str) -> float | None:
    """The chance level of one task folder from its questions alone (a task never asked has them too)."""
    name = benchmark.reported_task(task.name)
    return _chance(benchmark, name, [task], [Response(item, "missing") for item in items], profile)


def _pooled(benchmark: Benchmark, tasks: Sequence[Task]) -> dict[str, list[Task]]:
    """Each reported task and the folders pooled into it (:meth:`Benchmark.reported_task`), in task order."""
    out: dict[str, list[Task]] = {}
    for task in tasks:
        out.setdefault(benchmark.reported_task(task.name), []).append(task)
    return out


def score_declared(
    benchmark: Benchmark,
    responses: Mapping[str, Sequence[Response]],
    *,
    primary: str,
    tasks: Sequence[Task],
    absent: Mapping[str, str] | None = None,
) -> Scored:
    """The eval document (without ``meta``) of the selected ``tasks``; tasks without responses score ``None``,
    and those ``absent`` names (task -> why it has none) are in ``coverage`` as ``absent`` with that reason.

    The top level holds, for the primary profile, the official document (:meth:`Benchmark.official_document`) or
    else each task's score and question count under its name and each summary number; ``summary`` has both
    profiles, the chance levels, the counts behind each task score and how many questions the profiles score
    differently."""
    from avibench.plugin import Scored, ScoredView, lower_is_better

    digits = benchmark.score_digits
    present = [t for t in tasks if t.name in responses]
    pooled = _pooled(benchmark, present)
    per_sample: dict[str, dict[str, dict[str, float | None]]] = {t.name: {} for t in present}
    values: dict[str, dict[str, dict[str, Any]]] = {t.name: {} for t in present}
    views: dict[str, dict[str, Any]] = {}
    folder_counts: dict[str, dict[str, int]] = {profile: {} for profile in PROFILE_NAMES}
    official: dict[str, dict[str, Any] | None] = {}
    strict_rows: dict[str, list[ScoredRow]] = {}
    for profile in PROFILE_NAMES:
        reported = dict.fromkeys(benchmark.reported_task(t.name) for t in tasks)
        scores: dict[str, float | None] = dict.fromkeys(reported)
        exact: dict[str, float | None] = dict.fromkeys(reported)  # the aggregates take unrounded scores
        counts: dict[str, int] = {}
        rows: dict[str, list[ScoredRow]] = {}
        for task in present:
            rows[task.name] = _rows(benchmark, responses[task.name], profile)
            folder_counts[profile][task.name] = sum(row.score is not None for row in rows[task.name])
            for row in rows[task.name]:
                per_sample[task.name].setdefault(row.response.item.key, {})[profile] = row.score
                values[task.name].setdefault(row.response.item.key, {})[profile] = row.value
        for name, folders in pooled.items():
            kept = [row.value for t in folders for row in rows[t.name] if row.score is not None]
            metric = benchmark.metric_of(name, profile)
            assert metric is not None  # a declared benchmark declares every task's metric
            value = metric(kept) if kept else None
            exact[name], scores[name] = value, _rounded(value, digits)
            counts[name] = len(kept)
        numbers = {k: _rounded(v, digits) for k, v in benchmark.aggregate_numbers(exact, counts).items()}
        chance = {
            name: _chance(benchmark, name, folders, [r for t in folders for r in responses[t.name]], profile)
            for name, folders in pooled.items()
        }
        official[profile] = benchmark.official_document(ScoredView(profile, scores, counts, numbers, rows))
        if profile == "strict":
            strict_rows = rows
        views[profile] = {
            "tasks": scores,
            **numbers,
            "counts": counts,
            "chance": {k: v for k, v in chance.items() if v is not None},
            **({} if official[profile] is None else {"official": official[profile]}),
        }
    view = views[primary]
    top = official[primary]
    if top is None:
        top = {
            **{
                name: {"score": view["tasks"][name], "questions": view["counts"].get(name, 0)}
                for name in view["tasks"]
            },
            **{k: v for k, v in view.items() if k not in ("tasks", "counts", "chance")},
        }
    document: dict[str, Any] = {
        **top,
        "summary": {
            "scale": "percent error rate, lower is better" if lower_is_better(benchmark) else "0-100",
            "profile": primary,
            "tasks": view["tasks"],
            "headline": view.get("headline"),
            "chance": view["chance"],
            "by_profile": views,
            "profiles_differ_on": _differ(per_sample),
        },
        "coverage": {
            t.name: _coverage(
                responses[t.name],
                strict_rows[t.name],
                folder_counts[primary][t.name],
                view["tasks"][benchmark.reported_task(t.name)],
            )
            if t in present
            else {"status": "absent", "reason": (absent or {})[t.name]}
            for t in tasks
            if t in present or t.name in (absent or {})
        },
    }
    return Scored(document=document, per_sample=per_sample, values=values)
