"""AIR-Bench's pages: the published rows, the report's per-task and per-category tables, and the leaderboard's
blocks: one table per part (Foundation accuracy in %, Chat judge scores on 1-10), each beside its published table."""

from __future__ import annotations

from collections.abc import Mapping
from functools import reduce
from statistics import fmean
from typing import Any

from avibench.evaluate.board_runs import dataset_of, run_origin
from avibench.evaluate.document import Block, Heading, Paragraph, Table, as_dict, as_number, fmt_score
from avibench.evaluate.leaderboard import Board, BoardBlock, Ranked, Section
from avibench.kits.judged import judge_paragraph
from avibench.kits.published import published_table
from avibench.level_metrics.airbench import CATEGORIES, FOUNDATION_TASKS
from avibench.level_metrics.airbench_chat import CHAT_CATEGORIES

FOUNDATION_COLUMNS = (*CATEGORIES, "average")
CHAT_COLUMNS = ("speech", "sound", "music", "mixed", "average")


def _by_model(table: str, columns: tuple[str, ...]) -> dict[str, dict[str, float | None]]:
    return {row["model"]: {c: row[c] for c in columns} for row in published_table("airbench", table).rows}


def published_rows() -> list[dict[str, Any]]:
    """One row per published model: ``tasks`` on 0-100 (Foundation %, Chat x 10), ``headline`` their mean, and
    the published columns of each part (``foundation`` in %, ``chat`` on 1-10). A headline of one part (the
    model published the other nowhere) is marked in the shape of eval.json's ``summary.incomplete``, so the pages
    badge it as they badge a run's."""
    by_task = _by_model("foundation_by_task", ("average",))
    by_category = _by_model("foundation_by_category", FOUNDATION_COLUMNS)
    chats = _by_model("chat", CHAT_COLUMNS)
    source = published_table("airbench").source.cite
    rows = []
    for model in dict.fromkeys([*by_task, *by_category, *chats]):
        foundation = dict(by_category.get(model, dict.fromkeys(FOUNDATION_COLUMNS)))
        if foundation["average"] is None and model in by_task:
            foundation["average"] = by_task[model]["average"]
        chat = chats.get(model, dict.fromkeys(CHAT_COLUMNS))
        tasks = {"foundation": foundation["average"], "chat": chat["average"] and 10 * chat["average"]}
        present = [v for v in tasks.values() if v is not None]
        unpublished = [part for part, v in tasks.items() if v is None]
        row = {
            "model": model,
            "tasks": tasks,
            "headline": fmean(present) if present else None,
            "source": source,
        }
        rows.append(row | {"foundation": foundation, "chat": chat})
        if present and unpublished:
            rows[-1]["incomplete"] = {
                "tasks": {part: {"text": "not published"} for part in unpublished},
                "numbers": {"headline": {"tasks": unpublished}},
            }
    return rows


def report_blocks(document: Mapping[str, Any]) -> list[Block]:
    """Foundation per task and category, Chat per category, in both profiles; then the judge's settings."""
    by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
    views = [as_dict(by_profile.get(p)) for p in ("reference", "strict")]  # empty where absent

    def both(*path: str) -> list[str]:
        """A value of both views, formatted: ``path`` is its keys."""
        return [fmt_score(reduce(lambda node, key: as_dict(node).get(key), path, v)) for v in views]

    blocks: list[Block] = []
    if document.get("foundation") is not None:
        rows = [[t.label, t.category, *both("foundation", "tasks", t.label)] for t in FOUNDATION_TASKS]
        rows += [[f"{c} (mean)", "", *both("foundation", "categories", c)] for c in CATEGORIES]
        blocks += [
            Heading("Foundation: accuracy (%) per task"),
            Table(["Task", "Category", "Reference", "Strict"], rows, "llrr"),
        ]
    categories = as_dict(as_dict(document.get("chat")).get("categories"))
    if document.get("chat"):
        rows = []
        for name in CHAT_CATEGORIES:
            row = as_dict(categories.get(name))
            win = as_number(row.get("win_rate"))
            scores = map(fmt_score, [row.get("reference_score"), None if win is None else 100 * win])
            counts = [str(row.get(k, "")) for k in ("n", "judge_failures")]
            rows.append([name, *both("chat", "categories", name), *scores, *counts])
        rows += [[name, *both("chat", name), "", "", "", ""] for name in ("mixed", "average")]
        headers = ["Category", "Reference", "Strict", "Reference answer", "Win rate (%)", "Judged"]
        blocks += [
            Heading("Chat: judge score (1–10) per category"),
            Table([*headers, "Judge failures"], rows),
        ]
        blocks += judge_paragraph(document, "both answer orders")
    return blocks


def run_row(label: str, document: Mapping[str, Any]) -> dict[str, Any]:
    """A selected run's primary-profile columns, shaped like the published rows."""
    summary = as_dict(document.get("summary"))
    view = as_dict(as_dict(summary.get("by_profile")).get(str(summary.get("profile"))))
    foundation, chat = as_dict(view.get("foundation")), as_dict(view.get("chat"))
    meta, tasks = as_dict(document.get("meta")), as_dict(summary.get("tasks"))
    return {
        "model": label,
        "tasks": tasks,
        "origin": run_origin(meta, label, str(summary.get("profile"))),
        "dataset": dataset_of(meta),
        "foundation": as_dict(foundation.get("categories")) | {"average": tasks.get("foundation")},
        "chat": as_dict(chat.get("categories")) | {k: chat.get(k) for k in ("mixed", "average")},
    }


def _ranked_part(rows: Ranked, part: str, columns: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rows reporting the part, best first (a row reporting only some columns, such as speech only, last)."""
    return sorted(
        (r for _, r in rows if any(as_number(r[part].get(c)) is not None for c in columns)),
        key=lambda r: -(as_number(r["tasks"].get(part)) or -1.0),
    )


def _part_block(part: str, columns: tuple[str, ...], heading: str, note: str) -> BoardBlock:
    """One part's table, ranked on its own; the heading and note above the ranked table only."""

    def render(section: Section) -> list[Block]:
        def cells(rank: int, r: Mapping[str, Any]) -> list[str]:
            origin = r.get("origin") or f"published ({r['source']})"
            return [str(rank), r["model"], origin, *(fmt_score(r[part].get(c)) for c in columns)]

        ranked = enumerate(_ranked_part(section.rows, part, columns), start=1)
        headers = ["#", "Name", "Origin", *(c.capitalize() for c in columns)]
        table = Table(headers, [cells(i, r) for i, r in ranked], align="rll" + "r" * len(columns))
        return [table] if section.apart else [Heading(heading), Paragraph(note), table]

    def data(rows: Ranked) -> list[dict[str, Any]]:
        return [
            {"name": r["model"], "origin": r.get("origin", "published"), **r[part]}
            for r in _ranked_part(rows, part, columns)
        ]

    return BoardBlock(render, key=part, data=data)


BOARD = Board(
    blocks=(
        _part_block(
            "foundation",
            FOUNDATION_COLUMNS,
            "Foundation: accuracy (%)",
            "Average is the mean of the speech, sound and music means, as the published table computes it.",
        ),
        _part_block(
            "chat",
            CHAT_COLUMNS,
            "Chat: judge score (1–10)",
            "Mixed is the mean of speech-and-sound and speech-and-music; Average the mean of the four.",
        ),
    ),
    run_row=run_row,
    published_rows=lambda published: published,
    rank=lambda rows: [(None, row) for row in rows],
    intro=lambda runs: [
        Paragraph("Local runs in their primary profile beside the published results; a dash is not reported.")
    ],
    json_row=None,
    json_head=lambda title: {"benchmark": "airbench"},
    filter_label=None,
)
