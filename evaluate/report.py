"""The run report: one page per run, the same for every benchmark, with the benchmark's own parts declared.

Written beside the run's eval.json as ``report.md`` and a self-contained ``report.html``: the headline with
incomplete badges and confidence intervals, each task beside its chance level and selected published models
(inline SVG charts), both profiles, the plug-in's own blocks, coverage, each note once, refine methods, requests,
tokens and cost, definitions and provenance.

A plug-in adds blocks after the profiles through :meth:`avibench.plugin.Benchmark.report_blocks`, and may
replace the headline, scores, profiles and coverage sections by declaring a :class:`ReportPage`
(:meth:`avibench.plugin.Benchmark.report_page`): AVI-Bench's declares its stages, Overall and L1-L4 headline,
its stage chart and per-task sub-metrics, its profile table with stages, and its coverage totals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths
from avibench.evaluate.badges import Status, aggregate_cell, number_cell, score_cell, task_statuses
from avibench.evaluate.board_runs import data_mark, dataset_of
from avibench.evaluate.document import (
    DASH,
    Block,
    Document,
    Figure,
    Figures,
    Heading,
    NoteList,
    Notes,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_delta,
    fmt_score,
)
from avibench.evaluate.run_files import infer_stats, load_eval, read_run_json, refine_stats
from avibench.evaluate.sections import (
    ReportOptions,
    definitions_table,
    provenance_table,
    refine_table,
    usage_explanation,
    usage_table,
)
from avibench.evaluate.svg import NOT_PUBLISHED, Series, grouped_bars
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.evaluate.unparsed import unparsed_of
from avibench.infer.probe_record import media_note, sentence

if TYPE_CHECKING:
    from avibench.plugin import Benchmark

COVERAGE_KEYS = ("questions", "answered", "failed", "missing", "unparsed", "scored")
PUBLISHED_SHOWN = 3


def select_published(
    rows: Sequence[Mapping[str, Any]], wanted: Sequence[str] | None, score: str = "headline"
) -> list[Mapping[str, Any]]:
    """The published rows named in ``wanted`` (case-insensitive, in that order), else the best three by ``score``."""
    if wanted:
        by_name = {str(r["model"]).lower(): r for r in rows}
        return [by_name[w.lower()] for w in wanted if w.lower() in by_name]
    ranked = sorted((r for r in rows if as_number(r.get(score)) is not None), key=lambda r: -float(r[score]))
    return ranked[:PUBLISHED_SHOWN]


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


def coverage_table(coverage: Mapping[str, Any], notes: Notes) -> Table:
    """Per task: the counts behind its score, its status, and pointers to the notes that explain it."""
    rows = []
    for task, info in coverage.items():
        info = as_dict(info)
        counts = [str(info.get(k, DASH)) for k in COVERAGE_KEYS]
        texts = [str(info["reason"])] if info.get("reason") else []
        texts += [str(w) for w in info.get("warnings") or []]
        rows.append([task, *counts, str(info.get("status", DASH)), notes.refs(texts)])
    headers = ["Task", *(k.capitalize() for k in COVERAGE_KEYS), "Status", "Notes"]
    return Table(headers, rows, align="l" + "r" * len(COVERAGE_KEYS) + "ll")


def task_scores_table(
    tasks: Sequence[str],
    summary: Mapping[str, Any],
    statuses: Mapping[str, Status],
    published: Sequence[Mapping[str, Any]],
    *,
    lead: Sequence[Sequence[str]] | None = None,
    lead_headers: Sequence[str] = ("Task",),
    extra: Sequence[str] | None = None,
    extra_header: str = "",
) -> Table:
    """One row per task: score (with badge), 95% CI, chance level, items resampled, and published scores."""
    scores, chance = as_dict(summary.get("tasks")), as_dict(summary.get("chance"))
    items = as_dict(as_dict(summary.get("intervals")).get("items"))
    incomplete = as_dict(summary.get("incomplete"))
    rows = []
    for i, task in enumerate(tasks):
        row: list[Any] = list(lead[i]) if lead else [task]
        row += [
            number_cell(
                scores.get(task),
                f"tasks.{task}",
                incomplete,
                score_cell(scores.get(task), statuses.get(task)),
            ),
            fmt_interval(interval_of(summary, "tasks", task)),
            fmt_score(chance.get(task)),
            str(items.get(task, DASH)),
        ]
        row += [fmt_score(as_dict(p.get("tasks")).get(task)) for p in published]
        row += [extra[i]] if extra is not None else []
        rows.append(row)
    headers = [*lead_headers, "Score", "95% CI", "Chance", "Items"]
    headers += [str(p["model"]) for p in published]
    headers += [extra_header] if extra is not None else []
    align = "l" * len(lead_headers) + "r" * (len(headers) - len(lead_headers) - (extra is not None))
    return Table(headers, rows, align=align + ("w" if extra is not None else ""))


def task_chart(
    title: str,
    tasks: Sequence[str],
    summary: Mapping[str, Any],
    published: Sequence[Mapping[str, Any]],
    run_name: str,
) -> Figure:
    """The run's task scores (with CIs and chance levels) beside the published models that report tasks."""
    scores, chance = as_dict(summary.get("tasks")), as_dict(summary.get("chance"))
    series = [
        Series(
            run_name,
            [as_number(scores.get(t)) for t in tasks],
            [interval_of(summary, "tasks", t) for t in tasks],
        )
    ]
    series += [
        Series(
            str(p["model"]), [as_number(as_dict(p.get("tasks")).get(t)) for t in tasks], missing=NOT_PUBLISHED
        )
        for p in published
        if any(as_number(as_dict(p.get("tasks")).get(t)) is not None for t in tasks)
    ]
    levels = [as_number(chance.get(t)) for t in tasks]
    return Figure(title, grouped_bars(tasks, series, chance=levels if any(levels) else None, label=title))


def not_scored_caption(tasks: Sequence[str], summary: Mapping[str, Any]) -> str:
    scores = as_dict(summary.get("tasks"))
    missing = [t for t in tasks if as_number(scores.get(t)) is None]
    text = "Scores on 0–100; whiskers are 95% confidence intervals; dashed red lines are chance levels."
    return text + (f" Not scored (no bar drawn): {', '.join(missing)}." if missing else "")


def tail_sections(
    paths: RunPaths,
    task_names: Sequence[str],
    meta: Mapping[str, Any],
    options: ReportOptions,
    notes: Notes,
    definitions: Sequence[tuple[str, str]] = (),
) -> list[Block]:
    """Refine methods, requests and tokens, definitions, the notes (each once) and provenance."""
    blocks: list[Block] = [Heading("How answers were refined")]
    refined = refine_stats(paths, task_names)
    if refined:
        blocks += [
            Paragraph("Questions per refine method (latest journal record per question)."),
            refine_table(refined),
        ]
    else:
        blocks.append(
            Paragraph("Not available: no refine journal (runs that rescored official predictions have none).")
        )
    blocks.append(Heading("Requests, tokens and latency"))
    usage = infer_stats(paths, task_names)
    if usage:
        blocks += [usage_explanation(options), usage_table(usage, options)]
        served = as_dict(meta.get("throughput"))
        if served.get("requests_per_second") is not None:
            blocks.append(
                Paragraph(
                    f"Throughput: {served['requests']} requests in {served['seconds']:.1f} s of infer wall time "
                    f"(every finished invocation, start to end), {served['requests_per_second']:.2f} requests/s."
                )
            )
    else:
        blocks.append(
            Paragraph("Not available: no infer journal (runs that rescored official predictions have none).")
        )
    blocks += [Heading("Definitions"), definitions_table(definitions)]
    if notes.texts:
        blocks += [Heading("Notes"), NoteList(list(notes.texts))]
    blocks.append(Heading("Provenance"))
    run_json = read_run_json(paths.run_json)
    if isinstance(run_json, str):
        blocks.append(Paragraph(f"infer/run.json is {run_json}."))
        run_json = None
    blocks.append(provenance_table(meta, run_json))
    return blocks


def intro(meta: Mapping[str, Any], summary: Mapping[str, Any], label: str) -> Paragraph:
    dataset = dataset_of(meta)
    kind = "the official dataset" if dataset["kind"] == "official" else data_mark(dataset)
    return Paragraph(
        f"Model: {meta.get('model') or label}. Primary profile: {summary.get('profile') or meta.get('profile') or DASH}. "
        f"Prompt template: {meta.get('template') or DASH}. Data: {meta.get('data_root') or DASH} "
        f"({kind}: {dataset['why']}). "
        f"Created: {meta.get('created') or DASH}. {sentence(media_note(meta.get('media_probe')))} "
        f"Per-question results: samples.jsonl beside eval.json "
        f"(browse them with `avibench view --label {label}`)."
    )


def unparsed_warning(coverage: Mapping[str, Any]) -> list[Paragraph]:
    """The report's flag of a run whose answers are mostly unparsed (none otherwise)."""
    unparsed = unparsed_of(coverage)
    return [Paragraph(f"Warning: {unparsed.warning()}.")] if unparsed.mostly else []


@dataclass
class ReportRun:
    """What a report section reads: the run's eval.json and paths, the options, the notes collected so far."""

    benchmark: Benchmark
    paths: RunPaths
    document: Mapping[str, Any]
    options: ReportOptions
    notes: Notes = field(default_factory=Notes)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """eval.json's summary, its chance levels as the pages state them (:meth:`Benchmark.stated_chance`)."""
        summary = as_dict(self.document.get("summary"))
        return {**summary, "chance": self.benchmark.stated_chance(as_dict(summary.get("chance")))}

    @cached_property
    def meta(self) -> dict[str, Any]:
        return as_dict(self.document.get("meta"))

    @cached_property
    def coverage(self) -> dict[str, Any]:
        return as_dict(self.document.get("coverage"))

    @cached_property
    def statuses(self) -> dict[str, Status]:
        return task_statuses(self.benchmark, self.coverage)

    @property
    def run_name(self) -> str:
        return str(self.meta.get("model") or self.paths.label)

    @cached_property
    def tasks(self) -> list[str]:
        """The reported tasks: those scored, then any other the coverage lists."""
        return list(dict.fromkeys([*as_dict(self.summary.get("tasks")), *self.statuses]))

    @cached_property
    def published(self) -> list[Mapping[str, Any]]:
        """The published rows drawn beside the run (``--published``, else the three best)."""
        return select_published(self.benchmark.published(), self.options.published)


Section = Callable[[ReportRun], list[Block]]
"""A report section: document blocks from the run."""


def headline_section(run: ReportRun) -> list[Block]:
    """The headline with its badge and interval, beside the selected published models (a benchmark without a
    headline has no such section)."""
    if not run.benchmark.has_headline:
        return []
    summary, published = run.summary, run.published
    members = run.benchmark.aggregate_members().get("headline", tuple(run.tasks))
    return [
        Heading("Headline (0–100)"),
        Table(
            ["Headline", "95% CI", *(str(p["model"]) for p in published)],
            [
                [
                    number_cell(
                        summary.get("headline"),
                        "headline",
                        as_dict(summary.get("incomplete")),
                        aggregate_cell(summary.get("headline"), members, run.statuses),
                    ),
                    fmt_interval(interval_of(summary, "aggregates", "headline")),
                    *(fmt_score(p.get("headline")) for p in published),
                ]
            ],
            align="r" * (2 + len(published)),
        ),
    ]


def scores_section(run: ReportRun) -> list[Block]:
    """A chart and a table of the task scores, beside the selected published models."""
    tasks, summary = run.tasks, run.summary
    from avibench.plugin import lower_is_better

    chart = task_chart("Tasks", tasks, summary, run.published, run.run_name)
    caption = not_scored_caption(tasks, summary)
    if lower_is_better(run.benchmark):
        caption = caption.replace("Scores on 0–100", "Error rates in percent (lower is better)")
    return [
        Heading("Scores per task"),
        Figures([chart], caption),
        task_scores_table(tasks, summary, run.statuses, run.published),
    ]


def profiles_section(run: ReportRun) -> list[Block]:
    return [Heading("Reference versus strict profile"), profile_table(as_dict(run.summary.get("by_profile")))]


def coverage_section(run: ReportRun) -> list[Block]:
    return [Heading("Coverage"), coverage_table(run.coverage, run.notes)]


@dataclass(frozen=True)
class ReportPage:
    """A benchmark's report, declared: each section as a function of the :class:`ReportRun` (default: the
    generic one) and the definitions the page explains beside the common ones."""

    headline: Section = headline_section
    scores: Section = scores_section
    profiles: Section = profiles_section
    coverage: Section = coverage_section
    definitions: tuple[tuple[str, str], ...] = ()


def build_report(benchmark: Benchmark, paths: RunPaths, options: ReportOptions | None = None) -> Document:
    """The run report: introduction, the declared sections with the plug-in's blocks after the profiles, then
    refine methods, requests, definitions, notes and provenance."""
    run = ReportRun(benchmark, paths, load_eval(paths), options or ReportOptions())
    page: ReportPage = benchmark.report_page()
    report = Document(f"{benchmark.title or benchmark.name} report: {paths.label}")
    report.add(intro(run.meta, run.summary, paths.label), *unparsed_warning(run.coverage))
    report.add(*page.headline(run), *page.scores(run), *page.profiles(run))
    report.add(*benchmark.report_blocks(run.document, paths))
    report.add(*page.coverage(run))
    tasks = [t.name for t in benchmark.tasks()]
    report.add(*tail_sections(paths, tasks, run.meta, run.options, run.notes, page.definitions))
    return report
