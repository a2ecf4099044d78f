"""AVI-Bench's leaderboard page, declared as blocks of the one leaderboard (:mod:`avibench.evaluate.leaderboard`):
the stage table, the taxonomy (L1-L4) table and a chart of stages per model, ranking local runs and the paper's
published results by Overall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from avibench.benchmarks.avibench.submission import PAPER, entry_coverage
from avibench.benchmarks.avibench.table import TAXONOMY_KEYS, TAXONOMY_LABELS, summary_numbers
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.evaluate.badges import number_cell
from avibench.evaluate.board_runs import dataset_of, run_origin
from avibench.evaluate.document import (
    DASH,
    Block,
    Cell,
    Figure,
    Figures,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_score,
)
from avibench.evaluate.leaderboard import Board, BoardBlock, BoardRuns, Ranked, Section
from avibench.evaluate.svg import Series, grouped_bars
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.level_metrics.aggregate import STAGE_NAMES


@dataclass(frozen=True, kw_only=True)
class Row:
    """One leaderboard line: a local run (named by its label) or a published result; its fields in the order of
    the leaderboard's JSON rows."""

    name: str
    source: str
    published: bool = False
    approximate: bool = False
    params: str | None
    profile: str | None = None
    coverage: str | None = None
    dataset: dict[str, str] = field(default_factory=lambda: {"kind": "official", "why": "published"})
    overall: float | None
    stages: dict[str, float | None]
    taxonomy: dict[str, float | None]
    incomplete: dict[str, Any] = field(default_factory=dict)
    """The run's ``summary.incomplete``: which of its numbers rest on incomplete tasks."""
    intervals: dict[str, tuple[float, float] | None] = field(default_factory=dict)


def run_row(label: str, doc: Mapping[str, Any]) -> Row:
    """A local run's row from its eval.json, named by its label."""
    summary = doc["summary"]
    meta = as_dict(doc.get("meta"))
    numbers = summary_numbers(summary)
    stages, taxonomy = numbers["stages"], numbers["taxonomy"]
    cov = entry_coverage(doc)
    return Row(
        name=label,
        source=run_origin(meta, label),
        params=None,
        overall=as_number(numbers["overall"]),
        stages={k: as_number(stages.get(k)) for k in STAGE_NAMES},
        taxonomy={k: as_number(taxonomy.get(k)) for k in TAXONOMY_KEYS},
        profile=str(summary.get("profile") or meta.get("profile") or "unknown"),
        coverage=f"{cov['status']} ({cov['tasks_completed']}/{cov['tasks_total']} tasks, "
        f"{cov['samples_completed']}/{cov['samples_total']} samples)",
        intervals={k: interval_of(summary, "aggregates", k) for k in (*STAGE_NAMES, "overall")},
        dataset=dataset_of(meta),
        incomplete=as_dict(summary.get("incomplete")),
    )


def published_rows(published: object) -> list[Row]:
    """A row per model of the paper's tables, those with an Overall (:meth:`AVIBench.published`) and those only
    its taxonomy table lists; the human reference is listed but not ranked."""
    return [
        Row(
            name=r["model"],
            source="published [SUMMARY]" if r["summary"] else "published",
            params=r["params"],
            overall=r["overall"],
            stages=PAPER.values(r, STAGE_NAMES),
            taxonomy=PAPER.values(r, TAXONOMY_KEYS),
            published=True,
            approximate=bool(r["approximate"]),
        )
        for r in PAPER.rows
    ]


def ranked(rows: list[Row]) -> list[tuple[int | None, Row]]:
    """Rows by Overall, highest first; rows without one last, by L4. Approximate rows (the human reference) get no rank."""

    def key(row: Row) -> tuple:
        l4 = row.taxonomy.get("l4_domain")
        return (row.overall is None, -(row.overall or 0.0), -(l4 or 0.0), row.published, row.name)

    ordered = sorted(rows, key=key)
    out, rank = [], 0
    for row in ordered:
        if not row.approximate and row.overall is not None:
            rank += 1
            out.append((rank, row))
        else:
            out.append((None, row))
    return out


def _cell(row: Row, key: str, value: float | None) -> str | Cell:
    """A score: ``~`` on approximate published numbers, the incomplete badge on a run's partial numbers."""
    if row.approximate and value is not None:
        return f"~{fmt_score(value)}"
    return number_cell(value, key, row.incomplete)


EMPTY_CELLS = (
    "A dash in a published row means the paper does not report that number (Qwen-Omni-Turbo and Baichuan-Omni "
    "appear only in its taxonomy table, NExTGPT only in its stage table); in a local run it means a task that "
    "number needs was not scored (see the run's coverage and report). An incomplete badge marks a run's number "
    "that rests on a task with missing, failed or unrefined answers, with their counts."
)
DATASET_NOTE = (
    "A local run is ranked only when it was scored on the official dataset: not generated by sample-data, and "
    "every task folder holding the paper's number of entries. The official files' hashes are not recorded yet "
    "(no public release to take them from), so a dataset edited without changing its counts is not caught."
)


def _stage_chart(section: Section) -> list[Block]:
    """Every model with an Overall: its four stages and Overall as grouped bars, CIs on local runs."""
    rows = [row for _, row in section.rows if row.overall is not None]
    if section.apart or not rows:
        return []
    keys = [*STAGE_NAMES, "overall"]
    labels = [*(AVIBENCH.stage(k).label for k in STAGE_NAMES), "Overall"]

    def value(row: Row, key: str) -> float | None:
        return row.overall if key == "overall" else row.stages.get(key)

    series = [
        Series(label, [value(r, key) for r in rows], [r.intervals.get(key) for r in rows])
        for key, label in zip(keys, labels, strict=True)
    ]
    names = [r.name if r.published else f"{r.name} (run)" for r in rows]
    title = "Stages and Overall per model"
    return [
        Heading("Stages per model"),
        Figures(
            [Figure(title, grouped_bars(names, series, label=title))],
            "Whiskers: 95% confidence intervals of local runs.",
        ),
    ]


LEAD = ("#", "Name", "Source", "Params", "Profile", "Coverage")


def _lead(rank: int | None, row: Row) -> list[str | Cell]:
    return [
        DASH if rank is None else str(rank),
        row.name,
        row.source,
        row.params or DASH,
        row.profile or DASH,
        row.coverage or DASH,
    ]


def _classes(table: Ranked) -> list[list[str]]:
    return [["published" if row.published else "local"] for _, row in table]


def _stage_table(section: Section) -> list[Block]:
    """Each model's four stages, its Overall and the Overall's 95% interval."""
    stage_labels = [AVIBENCH.stage(k).label for k in STAGE_NAMES]
    return [
        Heading("Stages"),
        Table(
            [*LEAD, *stage_labels, "Overall", "Overall 95% CI"],
            [
                _lead(rank, row)
                + [_cell(row, k, row.stages[k]) for k in STAGE_NAMES]
                + [_cell(row, "overall", row.overall), fmt_interval(row.intervals.get("overall"))]
                for rank, row in section.rows
            ],
            align="rllllw" + "r" * 6,
            css="filterable",
            row_classes=_classes(section.rows),
        ),
    ]


def _taxonomy_table(section: Section) -> list[Block]:
    """Each model's L1-L4."""
    return [
        Heading("Taxonomy (L1–L4)"),
        Table(
            [*LEAD, *TAXONOMY_LABELS.values()],
            [
                _lead(rank, row) + [_cell(row, k, row.taxonomy[k]) for k in TAXONOMY_KEYS]
                for rank, row in section.rows
            ],
            align="rllllw" + "r" * 4,
            css="filterable",
            row_classes=_classes(section.rows),
        ),
    ]


def _json_row(rank: int | None, row: Row) -> dict[str, Any]:
    """The row with its rank, the names of its incomplete numbers and its intervals as lists."""
    return {"rank": rank, **vars(row)} | {
        "incomplete": sorted(as_dict(row.incomplete.get("numbers"))),
        "intervals": {k: list(v) for k, v in row.intervals.items() if v is not None},
    }


def _intro(runs: BoardRuns) -> list[Block]:
    return [
        Paragraph(
            f"{len(runs.ranked)} local run(s) from {runs.output_dir} beside the published results of the paper, "
            "ranked by Overall (the mean of the four stage scores). Scores are on 0–100. Local runs are named by "
            "label. Published numbers come from the reference evaluator: compare them with runs scored with the "
            "reference profile. [SUMMARY] marks numbers known only from public summaries of the paper; ~ marks "
            "approximate numbers (human reference, not ranked). L2–L4 of local runs follow a reconstruction of "
            "the paper's formulas. Local runs show a 95% bootstrap confidence interval of their Overall."
        ),
        Paragraph(EMPTY_CELLS),
        Paragraph(
            DATASET_NOTE
            + (
                " Runs on other data are ranked here on request and marked in their source."
                if any(dataset["kind"] != "official" for _, dataset in runs.ranked)
                else ""
            )
        ),
    ]


BOARD = Board(
    blocks=(BoardBlock(_stage_table), BoardBlock(_taxonomy_table), BoardBlock(_stage_chart)),
    run_row=run_row,
    published_rows=published_rows,
    rank=ranked,
    intro=_intro,
    json_row=_json_row,
    json_head=lambda title: {"title": title, "ranked_by": "overall", "scale": "0-100"},
    stem="leaderboard",
    title="AVI-Bench leaderboard",
    filter_label="Filter names, sources, profiles…",
)
"""AVI-Bench's leaderboard: the stage table, the taxonomy table and the stage chart, ranked by Overall."""
