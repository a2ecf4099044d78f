"""AVI-Bench's run report: headline with stages, Overall and L1-L4, per-task sub-metrics, both profiles, coverage.

Inputs, all under the run's AVI-Bench folder: ``eval.json`` (required), the refine and infer journals and
``infer/run.json`` (optional: runs that rescored reference-format predictions have none, and their sections say
"not available").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.contracts import RunPaths
from avibench.evaluate import charts
from avibench.evaluate.document import (
    DASH,
    Document,
    Figure,
    Figures,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_delta,
    fmt_metric,
    fmt_score,
)
from avibench.evaluate.run_files import infer_stats, load_eval, read_run_json, refine_stats
from avibench.evaluate.sections import provenance_table, refine_table, usage_table

TAXONOMY_LABELS = {
    "l1_task": "L1 Task",
    "l2_modality": "L2 Modality",
    "l3_stage": "L3 Stage",
    "l4_domain": "L4 Domain",
}


# --------------------------------------------------------------------------------------------------------------
# Report sections


def paper_task_order() -> list[str]:
    """The 14 paper-level tasks grouped by stage, stages in report order."""
    return [task for stage in AVIBENCH.stages for task in AVIBENCH.paper_tasks(stage.key)]


def headline_table(summary: Mapping[str, Any]) -> Table:
    stages, taxonomy = as_dict(summary.get("stages")), as_dict(summary.get("taxonomy"))
    headers = [stage.label for stage in AVIBENCH.stages] + ["Overall", *TAXONOMY_LABELS.values()]
    row = [fmt_score(stages.get(stage.name)) for stage in AVIBENCH.stages]
    row += [fmt_score(summary.get("overall")), *(fmt_score(taxonomy.get(k)) for k in TAXONOMY_LABELS)]
    return Table(headers, [row], align="r" * len(headers))


def _submetrics(doc: Mapping[str, Any], paper_task: str) -> str:
    """The reference-shaped values of a paper-level task: its pooled key, else its folders' keys (VSQA_I/_V)."""
    folders = AVIBENCH.folders_of(paper_task)
    stage_block = as_dict(doc.get(folders[0].stage))
    keys = [paper_task.lower()] if paper_task.lower() in stage_block else [f.eval_key for f in folders]
    parts = []
    for key in keys:
        if key not in stage_block:
            continue
        value = stage_block[key]
        if isinstance(value, dict):
            inner = ", ".join(f"{name} {fmt_metric(v)}" for name, v in value.items())
            parts.append(f"{key}: {inner}" if len(keys) > 1 else inner)
        else:
            parts.append(f"{key} {fmt_metric(value)}")
    return "; ".join(parts) if parts else "not scored"


def task_table(doc: Mapping[str, Any]) -> Table:
    tasks = as_dict(as_dict(doc.get("summary")).get("tasks"))
    rows = []
    for stage in AVIBENCH.stages:
        for paper_task in AVIBENCH.paper_tasks(stage.key):
            rows.append(
                [stage.label, paper_task, fmt_score(tasks.get(paper_task)), _submetrics(doc, paper_task)]
            )
    return Table(["Stage", "Task", "Score (0–100)", "Sub-metrics (eval.json, 0–1)"], rows, align="llrl")


def profile_table(by_profile: Mapping[str, Any]) -> Table:
    ref, strict = as_dict(by_profile.get("reference")), as_dict(by_profile.get("strict"))

    def row(name: str, a: object, b: object) -> list[str]:
        x, y = as_number(a), as_number(b)
        return [name, fmt_score(x), fmt_score(y), fmt_delta(None if x is None or y is None else y - x)]

    ref_tasks, strict_tasks = as_dict(ref.get("tasks")), as_dict(strict.get("tasks"))
    rows = [row(t, ref_tasks.get(t), strict_tasks.get(t)) for t in paper_task_order()]
    ref_stages, strict_stages = as_dict(ref.get("stages")), as_dict(strict.get("stages"))
    rows += [row(s.label, ref_stages.get(s.name), strict_stages.get(s.name)) for s in AVIBENCH.stages]
    rows.append(row("Overall", ref.get("overall"), strict.get("overall")))
    return Table(["Task / stage", "Reference", "Strict", "Strict − reference"], rows)


def _ordered(keys: Iterable[str]) -> list[str]:
    order = {name: i for i, name in enumerate(AVIBENCH.task_names)}
    return sorted(keys, key=lambda k: (order.get(k, len(order)), k))


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def coverage_table(coverage: Mapping[str, Any]) -> Table:
    columns = ("entries", "formal", "predictions", "failed", "unparsed", "scored")
    rows, totals = [], Counter[str]()
    for task in _ordered(coverage):
        info = as_dict(coverage[task])
        counts = {c: _count(info.get(c)) for c in columns}
        counts["missing"] = max(counts["entries"] - counts["predictions"], 0)
        totals.update(counts)
        notes = [str(info["reason"])] if info.get("reason") else []
        notes += [str(w) for w in info.get("warnings") or []]
        rows.append(
            [
                task,
                *(str(counts[c]) for c in (*columns[:3], "missing", *columns[3:])),
                str(info.get("status") or DASH),
                "; ".join(notes),
            ]
        )
    rows.append(["Total", *(str(totals[c]) for c in (*columns[:3], "missing", *columns[3:])), "", ""])
    headers = [
        "Task",
        "Entries",
        "Formal",
        "Predictions",
        "Missing",
        "Failed",
        "Unparsed",
        "Scored",
        "Status",
        "Notes",
    ]
    return Table(headers, rows, align="lrrrrrrrll")


def _charts(summary: Mapping[str, Any]) -> Figures:
    tasks = as_dict(summary.get("tasks"))
    figures = []
    for stage in AVIBENCH.stages:
        names = AVIBENCH.paper_tasks(stage.key)
        figures.append(
            Figure(
                stage.label, charts.bar_chart(stage.label, names, [as_number(tasks.get(n)) for n in names])
            )
        )
    order = paper_task_order()
    values = [as_number(tasks.get(t)) for t in order]
    figures.append(Figure("All 14 tasks", charts.radar_chart("All 14 tasks", order, values)))
    missing = [t for t, v in zip(order, values, strict=True) if v is None]
    caption = "Scores on 0–100." + (
        f" Not scored (drawn at 0 on the radar): {', '.join(missing)}." if missing else ""
    )
    return Figures(figures, caption)


def build_report(paths: RunPaths) -> Document:
    label = paths.label
    doc = load_eval(paths)
    task_names = [t.name for t in AVIBENCH.tasks]
    summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
    model = meta.get("model") or label
    report = Document(f"AVI-Bench report: {label}")
    profile = summary.get("profile") or meta.get("profile") or "unknown"
    report.add(
        Paragraph(f"Model: {model}. Scoring profile: {profile}. Created: {meta.get('created') or DASH}.")
    )

    report.add(Heading("Headline (0–100)"), headline_table(summary))
    if summary.get("taxonomy_note"):
        report.add(Paragraph(str(summary["taxonomy_note"])))
    report.add(_charts(summary))

    report.add(Heading("Per-task scores"), task_table(doc))

    report.add(Heading("Reference versus strict profile"))
    by_profile = as_dict(summary.get("by_profile"))
    if by_profile:
        report.add(profile_table(by_profile))
    else:
        report.add(Paragraph("Not available: eval.json has no summary.by_profile."))

    report.add(Heading("Coverage"))
    coverage = as_dict(doc.get("coverage"))
    report.add(
        coverage_table(coverage) if coverage else Paragraph("Not available: eval.json has no coverage.")
    )

    report.add(Heading("How answers were refined"))
    refined = refine_stats(paths, task_names)
    if refined:
        report.add(
            Paragraph("Samples per refine method (latest journal record per sample)."), refine_table(refined)
        )
    else:
        report.add(
            Paragraph(
                "Not available: no refine journal (runs that rescored reference-format predictions have none)."
            )
        )

    report.add(Heading("Token usage and latency"))
    usage = infer_stats(paths, task_names)
    if usage:
        report.add(
            Paragraph(
                "Summed over every request in the infer journal, retries included; Done and Failed count each "
                "sample's latest request."
            ),
            usage_table(usage),
        )
    else:
        report.add(
            Paragraph(
                "Not available: no infer journal (runs that rescored reference-format predictions have none)."
            )
        )

    report.add(Heading("Provenance"))
    run_json = read_run_json(paths.run_json)
    if isinstance(run_json, str):
        report.add(Paragraph(f"infer/run.json is {run_json}."))
        run_json = None
    report.add(provenance_table(meta, run_json))
    return report
