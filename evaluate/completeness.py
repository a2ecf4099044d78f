"""What a score leaves out, and how the answers were made: the parts of eval.json that keep a partial run honest.

A run is judged against the benchmark's default task set (or the subset named with ``--tasks``), for every
benchmark alike, whatever its plug-in reports: per judged task, eval counts the questions without an answer
(``missing``; every question of a task never run), with a failed request (``failed``), answered but not refined
yet (``unrefined``: only those the strict profile cannot read without refine, and every one of a plug-in that
scores itself), and the task's scoring status
(``no_data`` when its data is not under the data root, else the plug-in's ``coverage`` status). It lists every
summary number that rests on an incomplete task, or on a task outside the selection (``summary.incomplete``),
and exits with :data:`EXIT_INCOMPLETE` when a judged task is incomplete, unless ``--allow-partial``.

It also records how the answers were made: the refine modes and models, and the generation settings when a
label mixes several (``meta.refine``, ``meta.infer_settings``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from avibench.contracts import (
    RunPaths,
    asked_first_variants_only,
    journal_responses,
    latest_read_only,
)
from avibench.infer.journal import generation_settings
from avibench.items import Item, first_variants
from avibench.plugin import Benchmark, Task

#: Exit code of ``eval`` when a selected task is incomplete (1 stays for broken inputs and scorer errors).
EXIT_INCOMPLETE = 3
#: Coverage statuses that mean every question of a task was scored.
COMPLETE_STATUSES = frozenset({"scored", "complete"})


@dataclass
class TaskGaps:
    """What one task's score leaves out."""

    questions: int = 0
    missing: int = 0
    failed: int = 0
    unrefined: int = 0
    read_unrefined: int = 0
    """Answers not refined yet that the benchmark's rules read as they stand: scored, and said (not a gap)."""
    status: str = "scored"
    reason: str | None = None

    @property
    def incomplete(self) -> bool:
        return bool(self.missing or self.failed or self.unrefined) or self.status not in COMPLETE_STATUSES

    def describe(self) -> str:
        if self.status == "not_run":
            return f"never run ({self.questions} questions)"
        if not self.questions and self.status not in COMPLETE_STATUSES:
            return self.reason or self.status.replace("_", " ")
        parts = [
            f"{n} {what}"
            for n, what in (
                (self.missing, "missing"),
                (self.failed, "failed"),
                (self.unrefined, "not refined"),
            )
            if n
        ]
        if self.status not in COMPLETE_STATUSES and (self.reason or not parts):
            # a reason is printed with the scores, but a partial task's only cause (a plug-in's coverage
            # saying partial) would go unsaid
            status = self.status.replace("_", " ")
            said = self.reason and not parts and self.status == "partial"
            parts.append(f"{status} ({self.reason})" if said else status)
        return f"{', '.join(parts)} of {self.questions}"


def _latest_infer(paths: RunPaths) -> dict[str, Any]:
    try:
        run = json.loads(paths.run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return run if isinstance(run, dict) else {}


def asked_subset(paths: RunPaths) -> str | None:
    """The option of the latest infer that left questions out on purpose (``--n-samples 3``, ``--shard 0/2``): run
    again with the same settings, it asks nothing more."""
    run = _latest_infer(paths)
    if run.get("n_samples"):
        return f"--n-samples {run['n_samples']}"
    if run.get("shard") not in (None, "0/1"):
        return f"--shard {run['shard']}"
    return None


def journal_gaps(benchmark: Benchmark, paths: RunPaths, task: Task, data_root: Any) -> TaskGaps:
    """Counts from the run's journals: questions without an answer, failed, and answered but waiting for refine
    (not refined, and the strict profile cannot read them without it; an answer a declared plug-in reads as it
    stands is scored and counted in ``read_unrefined``; a plug-in that scores itself sees no refined answer, so
    all of its unrefined answers wait for refine).

    A run made with ``infer --variants first`` (for example STAR-Bench without rotations) meant to ask only each
    item's first variant, so only those count."""
    items = benchmark.load(data_root, task)
    if asked_first_variants_only(paths):
        items = first_variants(items)
    responses = journal_responses(paths, task.name, items)
    waiting = [r for r in responses if r.status == "answered" and r.method is None]
    readable = sum(benchmark.read(r, "strict") is not None for r in waiting) if benchmark.declared else 0
    return TaskGaps(
        questions=len(responses),
        missing=sum(r.status == "missing" for r in responses),
        failed=sum(r.status == "failed" for r in responses),
        unrefined=len(waiting) - readable,
        read_unrefined=readable,
    )


def task_gaps(
    benchmark: Benchmark,
    paths: RunPaths,
    tasks: Sequence[Task],
    document: Mapping[str, Any],
    *,
    data_root: Any,
    journals: bool,
) -> dict[str, TaskGaps]:
    """Per judged task (the default task set, or the ``--tasks`` subset), what its score leaves out.

    A task without data under ``data_root`` is ``no_data``; a task never run counts every question missing;
    from prediction files, a task the plug-in did not score keeps its coverage status (``not_scored``...).
    """
    coverage = document.get("coverage", {})
    present = set(benchmark.available(data_root))
    gaps: dict[str, TaskGaps] = {}
    for task in tasks:
        cover = coverage.get(task.name, {})
        scored = cover.get("status") in (*COMPLETE_STATUSES, "partial")
        if task not in present and not (scored and not journals):  # prediction files may carry everything
            gaps[task.name] = TaskGaps(status="no_data", reason=f"no {task.name} data under {data_root}")
            continue
        if journals:
            gap = journal_gaps(benchmark, paths, task, data_root)
            if gap.questions and gap.missing == gap.questions:
                cover = {"status": "not_run", "reason": "never run"}
        else:  # a prediction file's entries: what its coverage counts missing or failed
            gap = TaskGaps(
                questions=int(cover.get("formal", cover.get("questions", 0)) or 0),
                missing=_count(cover.get("missing")),
                failed=_count(cover.get("failed")),
            )
        default = "scored" if cover or journals else "not_scored"
        gap.status = str(cover.get("status", default))
        gap.reason = cover.get("reason") or _counted_reason(cover, gap.status)
        gaps[task.name] = gap
    return gaps


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def fill_coverage(
    benchmark: Benchmark,
    document: dict[str, Any],
    tasks: Sequence[Task],
    gaps: Mapping[str, TaskGaps],
    data_root: Any,
) -> None:
    """Give every selected task a coverage entry and, where its data is there, its chance levels, as the plug-in
    gave those it scored: a task never run (or whose plug-in skipped it) is counted, not left out of coverage, the
    report's coverage table and the chance levels."""
    coverage = document.setdefault("coverage", {})
    summary = document.get("summary") if isinstance(document.get("summary"), dict) else None
    present = set(benchmark.available(data_root))
    for task in tasks:
        gap = gaps.get(task.name)
        if gap is not None and not isinstance(coverage.get(task.name), dict):
            coverage[task.name] = {
                "questions": gap.questions,
                "answered": gap.questions - gap.missing - gap.failed,
                "failed": gap.failed,
                "missing": gap.missing,
                "scored": 0,
                "status": gap.status if gap.status in ("not_run", "no_data") else "absent",
                "reason": gap.reason or gap.describe(),
            }
        if summary is not None and benchmark.declared and task in present:
            _fill_chance(benchmark, summary, task, data_root)


def _fill_chance(benchmark: Benchmark, summary: dict[str, Any], task: Task, data_root: Any) -> None:
    """A task's chance levels from its questions, where the plug-in gives them from the questions alone: its
    :meth:`~Benchmark.task_chance`, or the core's mean of one over the options. A plug-in's own per-question
    :meth:`~Benchmark.chance` may rest on what scoring prepared (AVI-Bench's), so it counts for scored tasks only."""
    from avibench.declared import items_chance

    name = benchmark.reported_task(task.name)
    views = summary.get("by_profile") if isinstance(summary.get("by_profile"), dict) else {}
    wanted = [
        p for p, view in views.items() if isinstance(view, dict) and name not in (view.get("chance") or {})
    ]
    if not wanted:
        return
    items = benchmark.load(data_root, task)
    own_chance = type(benchmark).chance is not Benchmark.chance
    for profile in wanted:
        if own_chance and benchmark.task_chance(task, items, profile) is None:
            continue
        level = items_chance(benchmark, task, items, profile)
        if level is None:
            continue
        views[profile].setdefault("chance", {})[name] = level
        if profile == summary.get("profile"):
            summary.setdefault("chance", {})[name] = level


def _counted_reason(cover: Mapping[str, Any], status: str) -> str | None:
    """Why a task is incomplete when its coverage gives no reason (a plug-in that scores itself): its counts."""
    if status in COMPLETE_STATUSES:
        return None
    counts = [
        f"{cover[k]} {k}"
        for k in ("scored", "unparsed", "failed", "missing")
        if isinstance(cover.get(k), int)
    ]
    return "; ".join([*([", ".join(counts)] if counts else []), "the plug-in gives no reason"])


def unrefined_notes(gaps: Mapping[str, TaskGaps], benchmark: Benchmark, label: str) -> list[str]:
    """The line eval prints when it scored answers refine has not seen, read by the rules as they stand."""
    read = {name: gap.read_unrefined for name, gap in gaps.items() if gap.read_unrefined}
    if not read:
        return []
    listed = ", ".join(f"{name} {n}" for name, n in read.items())
    return [
        f"note: {sum(read.values())} answers not refined yet were scored as they stand, read by the benchmark's "
        f"rules ({listed}); 'avibench refine --benchmark {benchmark.name} --label {label}' refines them"
    ]


def incomplete_summary(
    benchmark: Benchmark, gaps: Mapping[str, TaskGaps], selected: Sequence[Task] | None = None
) -> dict[str, Any] | None:
    """``summary.incomplete``: the incomplete task folders with their counts, and every number that rests on them:
    ``tasks.<reported task>`` and the names of :meth:`~avibench.plugin.Benchmark.aggregate_members` (AVI-Bench:
    the stages, ``overall`` and ``l1_task`` ... ``l4_domain``). A summary number that also rests on tasks outside
    ``selected`` (an explicit ``--tasks`` subset) lists them as ``unselected``: it is not the benchmark's number."""
    bad = {name: gap for name, gap in gaps.items() if gap.incomplete}
    chosen = {t.name for t in selected} if selected is not None else set(gaps)
    folders_of: dict[str, list[str]] = {}
    for task in benchmark.tasks():
        folders_of.setdefault(benchmark.reported_task(task.name), []).append(task.name)
    rests_on = {f"tasks.{name}": folders for name, folders in folders_of.items()}
    aggregates = set(benchmark.aggregate_members())
    for number, members in benchmark.aggregate_members().items():
        rests_on[number] = [folder for member in members for folder in folders_of.get(member, [member])]
    numbers: dict[str, Any] = {}
    for number, folders in rests_on.items():
        hit = sorted(set(folders) & set(bad))
        unselected = sorted(set(folders) - chosen) if number in aggregates else []
        if hit or unselected:
            numbers[number] = {
                "tasks": hit,
                **{k: sum(getattr(bad[t], k) for t in hit) for k in ("missing", "failed", "unrefined")},
                **({"unselected": unselected} if unselected else {}),
            }
    if not numbers:
        return None
    return {
        "tasks": {name: {**asdict(gap), "text": gap.describe()} for name, gap in bad.items()},
        "numbers": numbers,
    }


def warning_lines(
    benchmark: Benchmark,
    label: str,
    gaps: Mapping[str, TaskGaps],
    *,
    allow_partial: bool,
    subset: str | None = None,
) -> list[str]:
    """The loud warning eval prints for an incomplete run, with the command that completes it: tasks never run in
    one line, and questions an ``--n-samples``/``--shard`` infer left out (``subset``) with the command that asks
    them (the same settings would ask nothing)."""
    bad = {name: gap for name, gap in gaps.items() if gap.incomplete}
    if not bad:
        return []
    never = [name for name, gap in bad.items() if gap.status == "not_run"]
    lines = ["WARNING: incomplete run: these scores rest on partial data"]
    lines += [f"  {name}: {gap.describe()}" for name, gap in bad.items() if name not in never]
    if never:
        questions = sum(bad[t].questions for t in never)
        lines.append(
            f"  never run: {len(never)} task(s), {questions} questions ({', '.join(never)}); ask them with "
            f"'avibench infer --benchmark {benchmark.name} --label {label} --tasks {','.join(never)}'"
        )
    unrefined = [name for name, gap in bad.items() if gap.unrefined]
    if unrefined:
        count = sum(bad[t].unrefined for t in unrefined)
        lines.append(
            f"{count} infer answer(s) are not refined yet ({', '.join(unrefined)}); refine them with: avibench "
            f"refine --benchmark {benchmark.name} --label {label} --tasks {','.join(unrefined)}"
        )
    retry = [name for name, gap in bad.items() if (gap.missing or gap.failed) and name not in never]
    if retry and subset is not None and not any(bad[t].failed for t in retry):
        lines.append(
            f"questions missing in {', '.join(retry)}: the latest infer asked a part of them on purpose "
            f"({subset}); run 'avibench infer --benchmark {benchmark.name} --label {label} --tasks "
            f"{','.join(retry)}' without {subset.split()[0]} to ask the rest, then refine"
        )
    elif retry:
        lines.append(
            f"questions missing or failed in {', '.join(retry)}: re-run 'avibench infer' with the same settings "
            "to ask them, then refine"
        )
    if not allow_partial:
        lines.append(f"exit code {EXIT_INCOMPLETE}; pass --allow-partial to accept partial scores")
    return lines


def _limit(record: Mapping[str, Any]) -> Any:
    params = record.get("params")
    return params.get("max_tokens") if isinstance(params, dict) else None


def _settings_key(model: Any, params: dict[str, Any], own_limit: int | None, seen: dict[Any, str]) -> str:
    """One answer's generation settings as the key that counts them (its question's own length limit counted as
    none), worked out once per distinct request settings: a run's answers mostly share one."""
    try:
        memo = (model, own_limit, frozenset(params.items()))
    except TypeError:  # a setting that is a list or an object
        memo = None
    if memo is not None and memo in seen:
        return seen[memo]
    made = generation_settings(params)
    if made.get("max_tokens") is not None and made["max_tokens"] == own_limit:
        made["max_tokens"] = None  # the question's own limit
    text = json.dumps({"model": model, **made}, sort_keys=True)
    if memo is not None:
        seen[memo] = text
    return text


def answer_provenance(
    paths: RunPaths, tasks: Sequence[Task], items_of: Callable[[Task], Sequence[Item]] | None = None
) -> dict[str, Any]:
    """How the answers on record were made: refine modes and models, and each mix of generation settings.

    A question that carries its own answer-length limit (``Item.max_tokens``: STAR-Bench's per task, AudioMarathon's
    per prompt) is asked with it when the run sets none; that limit is the benchmark's, not a setting of the run, so
    an answer made with it counts as made with no ``max_tokens`` (``items_of`` gives a task's questions)."""
    modes: Counter[str] = Counter()
    models: Counter[str] = Counter()
    settings: Counter[str] = Counter()
    seen: dict[Any, str] = {}
    for task in tasks:
        for record in latest_read_only(paths.refine_journal(task.name)).values():
            modes[str(record.get("refine_mode") or "unrecorded")] += 1
            if record.get("refine_model"):
                models[str(record["refine_model"])] += 1
        answers = latest_read_only(paths.infer_journal(task.name))
        own: dict[str, int | None] = {}
        if items_of is not None and any(_limit(r) is not None for r in answers.values()):
            own = {item.key: item.max_tokens for item in items_of(task)}
        for key, record in answers.items():
            params = record.get("params")
            if isinstance(params, dict) and record.get("error") is None:
                settings[_settings_key(record.get("model"), params, own.get(key), seen)] += 1
    provenance: dict[str, Any] = {}
    if modes:
        provenance["refine"] = {"modes": dict(modes), "models": dict(models)}
    if settings:
        provenance["infer_settings"] = [
            {"settings": json.loads(key), "answers": n} for key, n in settings.most_common()
        ]
        provenance["mixed_settings"] = len(settings) > 1
    return provenance
