"""The run report of a benchmark that brings no report of its own: scores in both profiles, coverage, journals.

Written beside the run's eval.json as ``report.md`` and a self-contained ``report.html``. A plug-in adds its own
sections through :meth:`avibench.plugin.Benchmark.report_blocks`, or replaces the whole page by overriding
:meth:`avibench.plugin.Benchmark.build_report`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths
from avibench.evaluate.document import (
    DASH,
    Document,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_delta,
    fmt_score,
)
from avibench.evaluate.run_files import infer_stats, load_eval, read_run_json, refine_stats
from avibench.evaluate.sections import provenance_table, refine_table, usage_table

if TYPE_CHECKING:
    from avibench.plugin import Benchmark

COVERAGE_KEYS = ("questions", "answered", "failed", "missing", "unparsed", "scored")


def profile_table(by_profile: Mapping[str, Any]) -> Table:
    """Each task and the headline in both profiles, with the difference."""
    ref, strict = as_dict(by_profile.get("reference")), as_dict(by_profile.get("strict"))
    ref_tasks, strict_tasks = as_dict(ref.get("tasks")), as_dict(strict.get("tasks"))
    rows = []
    for task in dict.fromkeys([*ref_tasks, *strict_tasks]):
        x, y = as_number(ref_tasks.get(task)), as_number(strict_tasks.get(task))
        rows.append([task, fmt_score(x), fmt_score(y), fmt_delta(None if x is None or y is None else y - x)])
    x, y = as_number(ref.get("headline")), as_number(strict.get("headline"))
    if x is not None or y is not None:
        rows.append(
            ["Headline", fmt_score(x), fmt_score(y), fmt_delta(None if x is None or y is None else y - x)]
        )
    return Table(["Task", "Reference", "Strict", "Strict − reference"], rows)


def coverage_table(coverage: Mapping[str, Any]) -> Table:
    """Per task: the counts behind its score, its status and why it is not complete."""
    rows = []
    for task, info in coverage.items():
        info = as_dict(info)
        counts = [str(info.get(k, DASH)) for k in COVERAGE_KEYS]
        rows.append([task, *counts, str(info.get("status", DASH)), str(info.get("reason") or "")])
    headers = ["Task", *(k.capitalize() for k in COVERAGE_KEYS), "Status", "Why"]
    return Table(headers, rows, align="l" + "r" * len(COVERAGE_KEYS) + "ll")


def build_report(benchmark: Benchmark, paths: RunPaths) -> Document:
    """The generic run report, with the plug-in's own sections after the scores."""
    doc = load_eval(paths)
    summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
    title = benchmark.title or benchmark.name
    report = Document(f"{title} report: {paths.label}")
    report.add(
        Paragraph(
            f"Model: {meta.get('model') or paths.label}. Primary profile: {summary.get('profile', DASH)}. "
            f"Prompt template: {meta.get('template') or DASH}. Created: {meta.get('created') or DASH}."
        )
    )
    report.add(Heading("Scores (0–100), reference and strict profiles"))
    report.add(profile_table(as_dict(summary.get("by_profile"))))
    report.add(*benchmark.report_blocks(doc, paths))
    report.add(Heading("Coverage"), coverage_table(as_dict(doc.get("coverage"))))
    tasks = [t.name for t in benchmark.tasks()]
    refined = refine_stats(paths, tasks)
    report.add(Heading("How answers were refined"))
    report.add(refine_table(refined) if refined else Paragraph("Not available: no refine journal."))
    usage = infer_stats(paths, tasks)
    report.add(Heading("Requests, tokens and latency"))
    report.add(usage_table(usage) if usage else Paragraph("Not available: no infer journal."))
    run_json = read_run_json(paths.run_json)
    report.add(
        Heading("Provenance"), provenance_table(meta, run_json if isinstance(run_json, dict) else None)
    )
    return report
