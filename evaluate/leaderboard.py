"""The leaderboard of a benchmark that brings none of its own: every local run beside the published results.

Rows are named by run label; a run's headline and task scores come from its eval.json summary in its primary
profile, and published rows from :meth:`avibench.plugin.Benchmark.published`. Runs on other data than the
official dataset are listed in a separate table (see :mod:`avibench.evaluate.board_runs`). Written as
``<output dir>/leaderboard-<benchmark>.{md,html,json}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths
from avibench.evaluate.badges import number_cell
from avibench.evaluate.board_runs import (
    OTHER_DATA_HEADING,
    BoardOptions,
    dataset_of,
    run_labels,
    run_origin,
    split_runs,
)
from avibench.evaluate.document import (
    DASH,
    Cell,
    Document,
    Figure,
    Figures,
    Filter,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    write_document,
)
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.svg import Series, grouped_bars
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.store import atomic_write_json

if TYPE_CHECKING:
    from avibench.plugin import Benchmark


def run_rows(benchmark: Benchmark, output_dir: Path, options: BoardOptions) -> list[dict[str, Any]]:
    """A row per selected local run (from its eval.json), named by its label."""
    rows: list[dict[str, Any]] = []
    for label in run_labels(output_dir, benchmark.name, options):
        doc = load_eval(RunPaths(Path(output_dir), label, benchmark.name))
        summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
        dataset = dataset_of(meta)
        rows.append(
            {
                "name": label,
                "origin": run_origin(meta, label, str(summary.get("profile"))),
                "headline": as_number(summary.get("headline")),
                "tasks": {k: as_number(v) for k, v in as_dict(summary.get("tasks")).items()},
                "interval": interval_of(summary, "aggregates", "headline"),
                "published": False,
                "dataset": dataset,
                "incomplete": as_dict(summary.get("incomplete")),
            }
        )
    return rows


def _best_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: -(r["headline"] if r["headline"] is not None else -1.0))


def leaderboard_rows(
    benchmark: Benchmark, output_dir: Path, options: BoardOptions | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(Ranked rows: comparable local runs and published results, best headline first; runs on other data)."""
    options = options or BoardOptions()
    runs, apart = split_runs(
        run_rows(benchmark, output_dir, options), options, lambda r: r["dataset"]["kind"]
    )
    published = [
        {**row, "name": row["model"], "origin": f"published ({row.get('source', '')})", "interval": None}
        for row in benchmark.published()
    ]
    return _best_first(runs + [{**row, "published": True} for row in published]), _best_first(apart)


def _table(rows: list[dict[str, Any]], tasks: list[str], *, ranks: bool, headline: bool = True) -> Table:
    """The board's rows; ``headline`` False (a benchmark without one) leaves out its two columns."""

    def cell(row: dict[str, Any], key: str, value: object) -> Cell:
        return number_cell(value, key, row.get("incomplete") or {})

    return Table(
        ["#", "Name", "Origin", *(("Headline", "95% CI") if headline else ()), *tasks],
        [
            [
                str(i) if ranks else DASH,
                r["name"],
                r["origin"],
                *((cell(r, "headline", r["headline"]), fmt_interval(r["interval"])) if headline else ()),
                *(cell(r, f"tasks.{t}", r["tasks"].get(t)) for t in tasks),
            ]
            for i, r in enumerate(rows, start=1)
        ],
        align="rll" + "r" * (len(tasks) + (2 if headline else 0)),
        css="filterable",
        row_classes=[["published" if r["published"] else "local"] for r in rows],
    )


def _json(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "incomplete": sorted(as_dict(row.get("incomplete", {}).get("numbers")))}


def write_leaderboard(
    benchmark: Benchmark, output_dir: Path, options: BoardOptions | None = None
) -> tuple[Path, ...]:
    rows, apart = leaderboard_rows(benchmark, output_dir, options)
    tasks = list(dict.fromkeys(t for row in rows + apart for t in row.get("tasks", {})))
    from avibench.plugin import lower_is_better

    doc = Document(f"{benchmark.title or benchmark.name} leaderboard")
    headline = benchmark.has_headline
    scale = (
        "Error rates in percent (lower is better); local runs, named by label, in their primary profile. "
        if lower_is_better(benchmark)
        else "Scores on 0–100; local runs, named by label, in their primary profile"
        + (" with a 95% bootstrap confidence interval of their headline. " if headline else ". ")
    )
    doc.add(
        Paragraph(
            scale + "A dash is a task not scored in that run, or not reported by "
            "that publication; an incomplete badge a number that rests on a task with missing, failed or "
            "unrefined answers. "
            + (
                "Only runs on the official data are ranked; runs on a generated sample or other "
                "data are listed apart unless --include-unofficial ranks them, marked."
                if headline
                else "The benchmark has no number over its tasks, so rows are not ranked; runs on a generated "
                "sample or other data are listed apart unless --include-unofficial lists them here, marked."
            )
        ),
        Filter("Filter names and origins…", (("local", "local runs"), ("published", "published"))),
        _table(rows, tasks, ranks=headline, headline=headline),
    )
    charted = [r for r in rows if r["headline"] is not None]
    if charted:
        names = [r["name"] if r["published"] else f"{r['name']} (run)" for r in charted]
        series = Series("headline", [r["headline"] for r in charted], [r["interval"] for r in charted])
        title = "Headline per model"
        doc.add(Figures([Figure(title, grouped_bars(names, [series], label=title))]))
    if apart:
        doc.add(
            Heading(OTHER_DATA_HEADING),
            Paragraph(
                "; ".join(f"{r['name']}: {r['dataset']['kind']} ({r['dataset']['why']})" for r in apart)
            ),
            _table(apart, tasks, ranks=False, headline=headline),
        )
    stem = Path((options and options.out) or output_dir) / f"leaderboard-{benchmark.name}"
    paths = (stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json"))
    write_document(doc, paths[0], paths[1])
    atomic_write_json(
        paths[2],
        {
            "benchmark": benchmark.name,
            "rows": [_json(r) for r in rows],
            "other_data": [_json(r) for r in apart],
        },
    )
    return paths
