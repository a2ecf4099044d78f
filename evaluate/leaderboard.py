"""The leaderboard: every local run of a benchmark beside its published results, one page per benchmark.

Every benchmark's page is made here, the same way: the selected runs (see :mod:`avibench.evaluate.board_runs`)
are read from their eval.json, runs on other data than the official dataset are set apart unless
``--include-unofficial`` ranks them, and the rest are ranked beside
:meth:`avibench.plugin.Benchmark.published`. The page is an introduction, a filter, the declared blocks over the
ranked rows, then a section "Runs on other data" with the same blocks over the runs set apart. Written as
``<out>/<stem>.{md,html,json}``.

What differs per benchmark is declared by the plug-in as a :class:`Board` (:meth:`Benchmark.leaderboard`): how a
run and a published result become a row, how rows are ranked, the introduction and the blocks (tables, charts)
drawn from the rows. :func:`headline_board` is the default: a headline, its interval and the task scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths
from avibench.evaluate.badges import number_cell
from avibench.evaluate.board_runs import (
    OTHER_DATA_HEADING,
    BoardOptions,
    dataset_of,
    other_data_note,
    run_labels,
    run_origin,
    split_runs,
)
from avibench.evaluate.document import (
    DASH,
    Block,
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

Ranked = Sequence[tuple[int | None, Any]]
"""Rows in page order, each with its rank (``None``: listed, not ranked)."""


@dataclass(frozen=True)
class BoardRuns:
    """What an introduction may say about the runs: where they were read and which are ranked."""

    output_dir: Path
    ranked: tuple[tuple[str, Mapping[str, str]], ...]
    """``(label, dataset)`` of each run ranked beside the published results."""


@dataclass(frozen=True)
class Section:
    """What a block draws: ``rows`` with their ranks; ``apart``: whether they are the runs on other data; and
    ``every_row``: the rows of both sections (for columns the two tables share)."""

    rows: Ranked
    apart: bool
    every_row: tuple[Any, ...]


@dataclass(frozen=True)
class BoardBlock:
    """One declared part of a leaderboard page, drawn once over the ranked rows and once over the runs on other
    data (return ``[]`` when ``section.apart`` for a part that only the ranking has, such as a chart).

    ``key``: where the leaderboard's JSON holds the block's own rows (``data``), for a board whose blocks rank
    rows of their own (AIR-Bench's parts); ``None``: the block adds nothing to the JSON."""

    render: Callable[[Section], list[Block]]
    key: str | None = None
    data: Callable[[Ranked], Any] | None = None


@dataclass(frozen=True)
class Board:
    """A benchmark's leaderboard, declared.

    ``run_row(label, document)``: a local run's row from its eval.json; ``published_rows(published)``: the
    published results' rows from :meth:`Benchmark.published` (a board may read more of its published table, as
    AVI-Bench's lists the models the paper gives no Overall); ``rank(rows)``: the rows in page order with their ranks; ``intro(runs)``: the
    paragraphs above the blocks; ``json_row(rank, row)``: a row in the JSON's ``rows`` and ``other_data`` lists
    (``None``: the JSON holds the blocks' ``key`` data instead); ``json_head(title)``: the JSON's first keys;
    ``stem``: the file name without suffix (``None``: ``leaderboard-<benchmark>``); ``title`` (``None``: the
    benchmark's title and "leaderboard"); ``filter_label``: the search box's placeholder (``None``: no filter);
    ``other_note(runs)``: what the section of runs on other data says about them (``(label, dataset)`` pairs);
    ``order_apart(rows)``: the order the runs on other data are listed in (default: by label)."""

    blocks: tuple[BoardBlock, ...]
    run_row: Callable[[str, Mapping[str, Any]], Any]
    published_rows: Callable[[list[dict[str, Any]]], list[Any]]
    rank: Callable[[list[Any]], Ranked]
    intro: Callable[[BoardRuns], list[Block]]
    json_row: Callable[[int | None, Any], dict[str, Any]] | None
    json_head: Callable[[str], dict[str, Any]]
    stem: str | None = None
    title: str | None = None
    filter_label: str | None = "Filter names and origins…"
    other_note: Callable[[Sequence[tuple[str, Mapping[str, str]]]], str] = other_data_note
    order_apart: Callable[[list[Any]], list[Any]] = list


def build_leaderboard(
    benchmark: Benchmark, output_dir: Path, options: BoardOptions | None = None
) -> tuple[Document, dict[str, Any]]:
    """The page and its JSON: the declared blocks over the ranked rows, then over the runs on other data."""
    options = options or BoardOptions()
    board = benchmark.leaderboard()
    runs = []
    for label in run_labels(output_dir, benchmark.name, options):
        document = load_eval(RunPaths(Path(output_dir), label, benchmark.name))
        runs.append((label, document, dataset_of(as_dict(document.get("meta")))))
    ranked_runs, apart = split_runs(runs, options, lambda run: run[2]["kind"])
    rows = board.rank(
        [board.run_row(label, document) for label, document, _ in ranked_runs]
        + board.published_rows(benchmark.published())
    )
    apart_rows = [
        (None, row) for row in board.order_apart([board.run_row(label, doc) for label, doc, _ in apart])
    ]
    every_row = tuple(row for _, row in [*rows, *apart_rows])
    page = Document(board.title or f"{benchmark.title or benchmark.name} leaderboard")
    page.add(
        *board.intro(BoardRuns(Path(output_dir), tuple((label, data) for label, _, data in ranked_runs)))
    )
    if board.filter_label:
        page.add(Filter(board.filter_label, (("local", "local runs"), ("published", "published"))))
    for block in board.blocks:
        page.add(*block.render(Section(rows, False, every_row)))
    if apart:
        page.add(
            Heading(OTHER_DATA_HEADING),
            Paragraph(board.other_note([(label, data) for label, _, data in apart])),
        )
        for block in board.blocks:
            page.add(*block.render(Section(apart_rows, True, every_row)))
    data = board.json_head(page.title)
    keyed = [block for block in board.blocks if block.key and block.data]
    if board.json_row is not None:
        data["rows"] = [board.json_row(rank, row) for rank, row in rows]
    data |= {block.key: block.data(rows) for block in keyed if block.key and block.data}
    if board.json_row is not None:
        data["other_data"] = [board.json_row(None, row) for _, row in apart_rows]
    else:
        data["other_data"] = (
            {block.key: block.data(apart_rows) for block in keyed if block.key and block.data}
            if apart
            else {}
        )
    return page, data


def write_leaderboard(
    benchmark: Benchmark, output_dir: Path, options: BoardOptions | None = None
) -> tuple[Path, Path, Path]:
    """Write the benchmark's leaderboard as ``<stem>.md``, ``.html`` and ``.json``; returns their paths."""
    page, data = build_leaderboard(benchmark, output_dir, options)
    stem = benchmark.leaderboard().stem or f"leaderboard-{benchmark.name}"
    out = Path((options and options.out) or output_dir)
    paths = (out / f"{stem}.md", out / f"{stem}.html", out / f"{stem}.json")
    write_document(page, paths[0], paths[1])
    atomic_write_json(paths[2], data)
    return paths


# --------------------------------------------------------------------------------------------------------------
# The default board: a headline, its interval and the task scores


def headline_run_row(label: str, document: Mapping[str, Any]) -> dict[str, Any]:
    """A local run's headline and task scores in its primary profile, named by its label."""
    summary, meta = as_dict(document.get("summary")), as_dict(document.get("meta"))
    return {
        "name": label,
        "origin": run_origin(meta, label, str(summary.get("profile"))),
        "headline": as_number(summary.get("headline")),
        "tasks": {k: as_number(v) for k, v in as_dict(summary.get("tasks")).items()},
        "interval": interval_of(summary, "aggregates", "headline"),
        "published": False,
        "dataset": dataset_of(meta),
        "incomplete": as_dict(summary.get("incomplete")),
    }


def headline_published_rows(published: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**row, "name": row["model"], "origin": f"published ({row.get('source', '')})", "interval": None}
        | {"published": True}
        for row in published
    ]


def _best_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: -(r["headline"] if r["headline"] is not None else -1.0))


def best_headline_first(rows: list[dict[str, Any]]) -> Ranked:
    return list(enumerate(_best_first(rows), start=1))


def _headline_table(section: Section, *, headline: bool = True) -> list[Block]:
    """The board's rows; ``headline`` False (a benchmark without one) leaves out its two columns and the ranks."""
    rows = section.rows
    tasks = list(dict.fromkeys(t for row in section.every_row for t in row.get("tasks", {})))

    def cell(row: Mapping[str, Any], key: str, value: object) -> Cell:
        return number_cell(value, key, row.get("incomplete") or {})

    return [
        Table(
            ["#", "Name", "Origin", *(("Headline", "95% CI") if headline else ()), *tasks],
            [
                [
                    DASH if rank is None or not headline else str(rank),
                    r["name"],
                    r["origin"],
                    *((cell(r, "headline", r["headline"]), fmt_interval(r["interval"])) if headline else ()),
                    *(cell(r, f"tasks.{t}", r["tasks"].get(t)) for t in tasks),
                ]
                for rank, r in rows
            ],
            align="rll" + "r" * (len(tasks) + (2 if headline else 0)),
            css="filterable",
            row_classes=[["published" if r["published"] else "local"] for _, r in rows],
        )
    ]


def _headline_chart(section: Section) -> list[Block]:
    charted = [r for _, r in section.rows if r["headline"] is not None]
    if section.apart or not charted:
        return []
    names = [r["name"] if r["published"] else f"{r['name']} (run)" for r in charted]
    series = Series("headline", [r["headline"] for r in charted], [r["interval"] for r in charted])
    title = "Headline per model"
    return [Figures([Figure(title, grouped_bars(names, [series], label=title))])]


def _headline_intro(runs: BoardRuns, *, headline: bool = True, errors: bool = False) -> list[Block]:
    """What the board's numbers are; ``errors``: error rates (lower is better), ``headline`` False: no number over
    the tasks, so nothing is ranked."""
    scale = (
        "Error rates in percent (lower is better); local runs, named by label, in their primary profile. "
        if errors
        else "Scores on 0–100; local runs, named by label, in their primary profile"
        + (" with a 95% bootstrap confidence interval of their headline. " if headline else ". ")
    )
    return [
        Paragraph(
            scale
            + "A dash is a task not scored in that run, or not reported by that publication; an incomplete "
            "badge a number that rests on a task with missing, failed or unrefined answers. "
            + (
                "Only runs on the official data are ranked; runs on a generated sample or other "
                "data are listed apart unless --include-unofficial ranks them, marked."
                if headline
                else "The benchmark has no number over its tasks, so rows are not ranked; runs on a generated "
                "sample or other data are listed apart unless --include-unofficial lists them here, marked."
            )
        )
    ]


def _runs_apart(runs: Sequence[tuple[str, Mapping[str, str]]]) -> str:
    return "; ".join(f"{label}: {dataset['kind']} ({dataset['why']})" for label, dataset in runs)


def _headline_json(rank: int | None, row: Mapping[str, Any]) -> dict[str, Any]:
    return {**row, "incomplete": sorted(as_dict(as_dict(row.get("incomplete")).get("numbers")))}


def headline_board(benchmark_name: str, *, headline: bool = True, errors: bool = False) -> Board:
    """The default leaderboard: one table of headline, interval and task scores, and a chart of headlines;
    ``headline`` False (a benchmark without one): the task scores alone, unranked; ``errors``: error rates."""
    return Board(
        blocks=(BoardBlock(partial(_headline_table, headline=headline)), BoardBlock(_headline_chart)),
        run_row=headline_run_row,
        published_rows=headline_published_rows,
        rank=best_headline_first,
        intro=partial(_headline_intro, headline=headline, errors=errors),
        json_row=_headline_json,
        json_head=lambda title: {"benchmark": benchmark_name},
        other_note=_runs_apart,
        order_apart=_best_first,
    )
