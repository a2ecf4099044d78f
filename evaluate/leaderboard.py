"""The leaderboard of a benchmark that brings none of its own: every local run beside the published results.

Rows are named by run label; a run's headline and task scores come from its eval.json summary in its primary
profile, and published rows from :meth:`avibench.plugin.Benchmark.published`. Written as
``<output dir>/leaderboard-<benchmark>.{md,html,json}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths
from avibench.evaluate.document import (
    Document,
    Figure,
    Figures,
    Filter,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_score,
    write_document,
)
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.svg import Series, grouped_bars
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.store import atomic_write_json

if TYPE_CHECKING:
    from avibench.plugin import Benchmark


def leaderboard_rows(benchmark: Benchmark, output_dir: Path) -> list[dict[str, Any]]:
    """Local runs (from their eval.json) and published results, best headline first."""
    rows: list[dict[str, Any]] = []
    for path in sorted(Path(output_dir).glob(f"*/{benchmark.name}/eval.json")):
        label = path.parent.parent.name
        doc = load_eval(RunPaths(Path(output_dir), label, benchmark.name))
        summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
        rows.append(
            {
                "name": label,
                "origin": f"run ({meta.get('model') or label}, {summary.get('profile')} profile)",
                "headline": as_number(summary.get("headline")),
                "tasks": {k: as_number(v) for k, v in as_dict(summary.get("tasks")).items()},
                "interval": interval_of(summary, "aggregates", "headline"),
                "published": False,
            }
        )
    for row in benchmark.published():
        rows.append(
            {
                **row,
                "name": row["model"],
                "origin": f"published ({row.get('source', '')})",
                "interval": None,
                "published": True,
            }
        )
    return sorted(rows, key=lambda r: -(r["headline"] if r["headline"] is not None else -1.0))


def write_leaderboard(benchmark: Benchmark, output_dir: Path) -> tuple[Path, ...]:
    rows = leaderboard_rows(benchmark, output_dir)
    tasks = list(dict.fromkeys(t for row in rows for t in row.get("tasks", {})))
    table = Table(
        ["#", "Name", "Origin", "Headline", "95% CI", *tasks],
        [
            [
                str(i),
                r["name"],
                r["origin"],
                fmt_score(r["headline"]),
                fmt_interval(r["interval"]),
                *(fmt_score(r["tasks"].get(t)) for t in tasks),
            ]
            for i, r in enumerate(rows, start=1)
        ],
        align="rll" + "r" * (len(tasks) + 2),
        css="filterable",
        row_classes=[["published" if r["published"] else "local"] for r in rows],
    )
    doc = Document(f"{benchmark.title or benchmark.name} leaderboard")
    doc.add(
        Paragraph(
            "Scores on 0–100; local runs in their primary profile with a 95% bootstrap confidence interval of "
            "their headline. A dash is a task not scored in that run, or not reported by that publication."
        ),
        Filter("Filter names and origins…", (("local", "local runs"), ("published", "published"))),
        table,
    )
    ranked = [r for r in rows if r["headline"] is not None]
    if ranked:
        names = [r["name"] if r["published"] else f"{r['name']} (run)" for r in ranked]
        series = Series("headline", [r["headline"] for r in ranked], [r["interval"] for r in ranked])
        title = "Headline per model"
        doc.add(Figures([Figure(title, grouped_bars(names, [series], label=title))]))
    stem = Path(output_dir) / f"leaderboard-{benchmark.name}"
    paths = (stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json"))
    write_document(doc, paths[0], paths[1])
    atomic_write_json(paths[2], {"benchmark": benchmark.name, "rows": rows})
    return paths
