"""AVI-Bench's run report: headline with stages, Overall and L1-L4, per-task sub-metrics, both profiles, coverage.

Inputs, all under the run's AVI-Bench folder: ``eval.json`` (required), the refine and infer journals and
``infer/run.json`` (optional: runs that rescored reference-format predictions have none, and their sections say
"not available").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from avibench.benchmarks.avibench.table import TAXONOMY_LABELS, summary_numbers, taxonomy_note
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.evaluate.badges import aggregate_cell, number_cell
from avibench.evaluate.document import (
    DASH,
    Block,
    Figure,
    Figures,
    Heading,
    Notes,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_delta,
    fmt_metric,
    fmt_score,
)
from avibench.evaluate.report import (
    ReportPage,
    ReportRun,
    not_scored_caption,
    select_published,
    task_chart,
    task_scores_table,
)
from avibench.evaluate.svg import NOT_PUBLISHED, Series, grouped_bars
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.kits.published import published_table
from avibench.level_metrics.aggregate import STAGE_NAMES

DEFINITIONS: tuple[tuple[str, str], ...] = (
    (
        "formal entry",
        "a question that counts in its task's score; a double-confirm pre-question is asked but not counted.",
    ),
    (
        "double-confirm",
        "in ASQA, VSQA, AVSQA, AVH and VAH some questions come with a pre-question (can you perceive the "
        "stimulus?); a formal entry whose pre-question was answered wrongly scores 0. The pair is one item.",
    ),
    (
        "stage, Overall",
        "a stage score is the unweighted mean of its tasks (VSQA pooled from VSQA_I and VSQA_V, counted once); "
        "Overall is the mean of the four stages.",
    ),
    (
        "L1–L4",
        "L1 is the mean of Perception, Understanding and Reasoning; L2–L4 penalise modality imbalance, a "
        "reasoning lead over its prerequisites, and imbalance in sensation (a reconstruction of the paper's "
        "formulas).",
    ),
)


# --------------------------------------------------------------------------------------------------------------
# Report sections


def paper_task_order() -> list[str]:
    """The 14 paper-level tasks grouped by stage, stages in report order."""
    return [task for stage in AVIBENCH.stages for task in AVIBENCH.paper_tasks(stage.key)]


HEADLINE_COLUMNS = (
    *((stage.name, stage.label) for stage in AVIBENCH.stages),
    ("overall", "Overall"),
    *TAXONOMY_LABELS.items(),
)
"""(key in summary.intervals.aggregates, column label) of the headline table, in order."""


def published_rows() -> list[dict[str, Any]]:
    """The paper's models as rows of stages and Overall (the paper reports no per-task scores)."""
    return [
        {"model": r["model"], "stages": paper.values(r, STAGE_NAMES), "overall": r["overall"]}
        for paper in (published_table("avibench"),)
        for r in paper.rows
        if r["overall"] is not None and not r["approximate"]
    ]


def stage_chart(summary: Mapping[str, Any], published: list[Mapping[str, Any]], run_name: str) -> Figure:
    """Stages and Overall: the run (with CIs) beside the selected published models."""
    categories = [stage.label for stage in AVIBENCH.stages] + ["Overall"]
    keys = [stage.name for stage in AVIBENCH.stages] + ["overall"]
    numbers = summary_numbers(summary)
    run_values = [as_number(numbers["stages"].get(k)) for k in keys[:-1]] + [as_number(numbers["overall"])]
    series = [Series(run_name, run_values, [interval_of(summary, "aggregates", k) for k in keys])]
    for p in published:
        values = [as_number(as_dict(p.get("stages")).get(k)) for k in keys[:-1]] + [
            as_number(p.get("overall"))
        ]
        series.append(Series(str(p["model"]), values, missing=NOT_PUBLISHED))
    title = "Stages and Overall beside published models"
    return Figure(title, grouped_bars(categories, series, label=title))


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


def _profiles(run: ReportRun) -> list[Block]:
    """Each task, stage and Overall in both profiles, with the difference."""
    summary, heading = run.summary, Heading("Reference versus strict profile")
    by_profile = as_dict(summary.get("by_profile"))
    if not by_profile:
        return [heading, Paragraph("Not available: eval.json has no summary.by_profile.")]
    ref, strict = as_dict(by_profile.get("reference")), as_dict(by_profile.get("strict"))
    numbers = {p: summary_numbers(summary, p) for p in ("reference", "strict")}

    def row(name: str, a: object, b: object) -> list[str]:
        x, y = as_number(a), as_number(b)
        return [name, fmt_score(x), fmt_score(y), fmt_delta(None if x is None or y is None else y - x)]

    ref_tasks, strict_tasks = as_dict(ref.get("tasks")), as_dict(strict.get("tasks"))
    rows = [row(t, ref_tasks.get(t), strict_tasks.get(t)) for t in paper_task_order()]
    ref_stages, strict_stages = numbers["reference"]["stages"], numbers["strict"]["stages"]
    rows += [row(s.label, ref_stages.get(s.name), strict_stages.get(s.name)) for s in AVIBENCH.stages]
    rows.append(row("Overall", numbers["reference"]["overall"], numbers["strict"]["overall"]))
    return [heading, Table(["Task / stage", "Reference", "Strict", "Strict − reference"], rows)]


def coverage_table(coverage: Mapping[str, Any], notes: Notes) -> Table:
    columns = ("questions", "answered", "missing", "failed", "unparsed", "scored")
    rows, totals = [], Counter[str]()
    order = {name: i for i, name in enumerate(AVIBENCH.task_names)}
    for task in sorted(coverage, key=lambda k: (order.get(k, len(order)), k)):
        info = as_dict(coverage[task])
        counts = {c: n if type(n := info.get(c)) is int else 0 for c in columns}
        totals.update(counts)
        texts = [str(info["reason"])] if info.get("reason") else []
        texts += [str(w) for w in info.get("notes") or []]
        rows.append(
            [task, *(str(counts[c]) for c in columns), str(info.get("status") or DASH), notes.refs(texts)]
        )
    rows.append(["Total", *(str(totals[c]) for c in columns), "", ""])
    headers = ["Task", "Questions", "Answered", "Missing", "Failed", "Unparsed", "Scored", "Status", "Notes"]
    return Table(headers, rows, align="lrrrrrrll")


def _headline(run: ReportRun) -> list[Block]:
    """Stages, Overall and L1-L4 with incomplete badges and their 95% intervals below, and how they are computed."""
    summary, names, members = run.summary, HEADLINE_COLUMNS, run.benchmark.aggregate_members()
    numbers = summary_numbers(summary)
    values = {**numbers["stages"], "overall": numbers["overall"], **numbers["taxonomy"]}
    incomplete = as_dict(summary.get("incomplete"))
    rows: list[list[Any]] = [
        [
            number_cell(values.get(k), k, incomplete, aggregate_cell(values.get(k), members[k], run.statuses))
            for k, _ in names
        ]
    ]
    if as_dict(summary.get("intervals")):
        rows.append([fmt_interval(interval_of(summary, "aggregates", k)) for k, _ in names])
    note = run.notes.ref(taxonomy_note(summary, run.meta))
    return [
        Heading("Headline (0–100)"),
        Table([label for _, label in names], rows, align="r" * len(names)),
        Paragraph(f"How the summary numbers are computed: see note {note}."),
    ]


def _scores(run: ReportRun) -> list[Block]:
    """The stages beside the paper's models, the tasks, and the per-task table with sub-metrics."""
    summary = run.summary
    published = select_published(published_rows(), run.options.published, score="overall")
    order = paper_task_order()
    figures = [
        stage_chart(summary, published, run.run_name),
        task_chart("Tasks", order, summary, [], run.run_name),
    ]
    caption = not_scored_caption(order, summary) + " The paper publishes stage scores only, not task scores."
    stage_of = {t: stage.label for stage in AVIBENCH.stages for t in AVIBENCH.paper_tasks(stage.key)}
    table = task_scores_table(
        order,
        summary,
        run.statuses,
        [],
        lead=[[stage_of[t], t] for t in order],
        lead_headers=("Stage", "Task"),
        extra=[_submetrics(run.document, t) for t in order],
        extra_header="Sub-metrics (eval.json, 0–1)",
    )
    return [Figures(figures, caption), Heading("Per-task scores"), table]


def _coverage(run: ReportRun) -> list[Block]:
    """Coverage per task folder with totals; the FENSE models' note joins the notes."""
    blocks: list[Block] = [Heading("Coverage")]
    if run.coverage:
        blocks.append(coverage_table(run.coverage, run.notes))
    else:
        blocks.append(Paragraph("Not available: eval.json has no coverage."))
    fense = as_dict(run.meta.get("fense"))
    if fense.get("note"):
        run.notes.ref(f"FENSE ({fense.get('status', DASH)}): {fense['note']}")
    return blocks


REPORT_PAGE = ReportPage(
    headline=_headline, scores=_scores, profiles=_profiles, coverage=_coverage, definitions=DEFINITIONS
)
"""AVI-Bench's report sections: stages, Overall and L1-L4, the stage chart and sub-metrics, stages in both
profiles, coverage with totals."""
