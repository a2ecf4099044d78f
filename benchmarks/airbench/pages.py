"""AIR-Bench's pages: the published rows, the report's per-task and per-category tables, and a leaderboard with
one table per part (Foundation accuracy in %, Chat judge scores on 1-10), each beside its published table."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any

from avibench.benchmarks.airbench.published import CHAT, FOUNDATION_BY_CATEGORY, FOUNDATION_BY_TASK
from avibench.contracts import RunPaths
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
    Block,
    Document,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_score,
    write_document,
)
from avibench.evaluate.run_files import load_eval
from avibench.level_metrics.airbench import CATEGORIES, FOUNDATION_TASKS
from avibench.level_metrics.airbench_chat import CHAT_CATEGORIES
from avibench.store import atomic_write_json

if TYPE_CHECKING:
    from avibench.plugin import Benchmark

SOURCE = "AIR-Bench README"
FOUNDATION_COLUMNS = (*CATEGORIES, "average")
CHAT_COLUMNS = ("speech", "sound", "music", "mixed", "average")


def published_rows() -> list[dict[str, Any]]:
    """One row per published model: ``tasks`` on 0-100 (Foundation %, Chat x 10), ``headline`` their mean, and
    the published columns of each part (``foundation`` in %, ``chat`` on 1-10); a headline of one part (the
    model published the other nowhere) is marked ``incomplete``."""
    rows = []
    for model in dict.fromkeys([*FOUNDATION_BY_TASK, *FOUNDATION_BY_CATEGORY, *CHAT]):
        foundation = dict(FOUNDATION_BY_CATEGORY.get(model, dict.fromkeys(FOUNDATION_COLUMNS)))
        if foundation["average"] is None and model in FOUNDATION_BY_TASK:
            foundation["average"] = FOUNDATION_BY_TASK[model]["average"]
        chat = CHAT.get(model, dict.fromkeys(CHAT_COLUMNS))
        tasks = {
            "foundation": foundation["average"],
            "chat": None if chat["average"] is None else 10 * chat["average"],
        }
        present = [v for v in tasks.values() if v is not None]
        unpublished = [part for part, v in tasks.items() if v is None]
        rows.append(
            {
                "model": model,
                "tasks": tasks,
                "headline": fmean(present) if present else None,
                "source": SOURCE,
                "foundation": foundation,
                "chat": chat,
                **({"incomplete": _one_part(unpublished)} if present and unpublished else {}),
            }
        )
    return rows


def _one_part(unpublished: list[str]) -> dict[str, Any]:
    """The mark of a published headline that rests on one part (the other was never published), in the shape of
    eval.json's ``summary.incomplete``, so the pages badge it as they badge a run's."""
    return {
        "tasks": {part: {"text": "not published"} for part in unpublished},
        "numbers": {"headline": {"tasks": unpublished}},
    }


def _by_profile(document: Mapping[str, Any], profile: str) -> dict[str, Any]:
    return as_dict(as_dict(as_dict(document.get("summary")).get("by_profile")).get(profile))


def report_blocks(document: Mapping[str, Any]) -> list[Block]:
    """Foundation per task and category, Chat per category, in both profiles; then the judge's settings."""
    reference, strict = _by_profile(document, "reference"), _by_profile(document, "strict")
    blocks: list[Block] = []
    if document.get("foundation") is not None:
        ref, stc = as_dict(reference.get("foundation")), as_dict(strict.get("foundation"))
        rows = [
            [
                t.label,
                t.category,
                fmt_score(as_dict(ref.get("tasks")).get(t.label)),
                fmt_score(as_dict(stc.get("tasks")).get(t.label)),
            ]
            for t in FOUNDATION_TASKS
        ]
        rows += [
            [
                f"{c} (mean)",
                "",
                fmt_score(as_dict(ref.get("categories")).get(c)),
                fmt_score(as_dict(stc.get("categories")).get(c)),
            ]
            for c in CATEGORIES
        ]
        blocks += [
            Heading("Foundation: accuracy (%) per task"),
            Table(["Task", "Category", "Reference", "Strict"], rows, "llrr"),
        ]
    chat = as_dict(document.get("chat"))
    if chat:
        categories = as_dict(chat.get("categories"))
        ref, stc = as_dict(reference.get("chat")), as_dict(strict.get("chat"))
        rows = []
        for name in CHAT_CATEGORIES:
            row = as_dict(categories.get(name))
            rows.append(
                [
                    name,
                    fmt_score(as_dict(ref.get("categories")).get(name)),
                    fmt_score(as_dict(stc.get("categories")).get(name)),
                    fmt_score(row.get("reference_score")),
                    fmt_score(_percent(row.get("win_rate"))),
                    str(row.get("n", "")),
                    str(row.get("judge_failures", "")),
                ]
            )
        for name in ("mixed", "average"):
            rows.append([name, fmt_score(ref.get(name)), fmt_score(stc.get(name)), "", "", "", ""])
        headers = [
            "Category",
            "Reference",
            "Strict",
            "Reference answer",
            "Win rate (%)",
            "Judged",
            "Judge failures",
        ]
        blocks += [Heading("Chat: judge score (1–10) per category"), Table(headers, rows)]
        judge = as_dict(as_dict(document.get("meta")).get("judge"))
        departures = judge.get("departures")
        departed = ", ".join(map(str, departures)) if isinstance(departures, list) and departures else "none"
        blocks.append(
            Paragraph(
                f"Judge: {judge.get('model')}, template {judge.get('template')} "
                f"(sha256 {judge.get('template_sha256')}), temperature {judge.get('temperature')}, "
                f"max tokens {judge.get('max_tokens')}, both answer orders; departures from the official judge: "
                f"{departed}. {judge.get('requests_sent')} requests sent by this eval, "
                f"{judge.get('replies_reused')} replies taken from the judge journal."
            )
        )
    return blocks


def _percent(value: object) -> float | None:
    number = as_number(value)
    return None if number is None else 100 * number


def _local_rows(benchmark: Benchmark, output_dir: Path, options: BoardOptions) -> list[dict[str, Any]]:
    """Each selected run's primary-profile columns, shaped like the published rows."""
    rows = []
    for label in run_labels(output_dir, benchmark.name, options):
        document = load_eval(RunPaths(Path(output_dir), label, benchmark.name))
        summary = as_dict(document.get("summary"))
        view = _by_profile(document, str(summary.get("profile")))
        foundation, chat = as_dict(view.get("foundation")), as_dict(view.get("chat"))
        meta = as_dict(document.get("meta"))
        dataset = dataset_of(meta)
        rows.append(
            {
                "model": label,
                "tasks": as_dict(summary.get("tasks")),
                "origin": run_origin(meta, label, str(summary.get("profile"))),
                "dataset": dataset,
                "foundation": as_dict(foundation.get("categories"))
                | {"average": as_dict(summary.get("tasks")).get("foundation")},
                "chat": as_dict(chat.get("categories"))
                | {"mixed": chat.get("mixed"), "average": chat.get("average")},
            }
        )
    return rows


def _part_table(rows: list[dict[str, Any]], part: str, columns: tuple[str, ...]) -> tuple[Table, list[dict]]:
    """One part's table, best first (a row reporting only some columns, such as speech only, comes last)."""
    ranked = sorted(
        (r for r in rows if any(as_number(r[part].get(c)) is not None for c in columns)),
        key=lambda r: -(as_number(r["tasks"].get(part)) or -1.0),
    )
    table = Table(
        ["#", "Name", "Origin", *(c.capitalize() for c in columns)],
        [
            [
                str(i),
                r["model"],
                r.get("origin") or f"published ({r['source']})",
                *(fmt_score(r[part].get(c)) for c in columns),
            ]
            for i, r in enumerate(ranked, start=1)
        ],
        align="rll" + "r" * len(columns),
    )
    return table, [{"name": r["model"], "origin": r.get("origin", "published"), **r[part]} for r in ranked]


def write_leaderboard(
    benchmark: Benchmark, output_dir: Path, options: BoardOptions | None = None
) -> tuple[Path, ...]:
    """``leaderboard-airbench.{md,html,json}``: local runs beside the published Foundation and Chat tables;
    runs on other data than the official dataset in tables of their own unless ranked on request."""
    options = options or BoardOptions()
    runs, apart = split_runs(
        _local_rows(benchmark, output_dir, options), options, lambda r: r["dataset"]["kind"]
    )
    rows = runs + published_rows()
    foundation, foundation_json = _part_table(rows, "foundation", FOUNDATION_COLUMNS)
    chat, chat_json = _part_table(rows, "chat", CHAT_COLUMNS)
    doc = Document(f"{benchmark.title} leaderboard")
    doc.add(
        Paragraph(
            "Local runs in their primary profile beside the published results; a dash is not reported."
        ),
        Heading("Foundation: accuracy (%)"),
        Paragraph(
            "Average is the mean of the speech, sound and music means, as the published table computes it."
        ),
        foundation,
        Heading("Chat: judge score (1–10)"),
        Paragraph(
            "Mixed is the mean of speech-and-sound and speech-and-music; Average the mean of the four."
        ),
        chat,
    )
    other: dict[str, list[dict]] = {}
    if apart:
        doc.add(
            Heading(OTHER_DATA_HEADING),
            Paragraph(other_data_note([(r["model"], r["dataset"]) for r in apart])),
        )
        for part, columns in (("foundation", FOUNDATION_COLUMNS), ("chat", CHAT_COLUMNS)):
            table, other[part] = _part_table(apart, part, columns)
            doc.add(table)
    stem = Path(options.out or output_dir) / f"leaderboard-{benchmark.name}"
    paths = (stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json"))
    write_document(doc, paths[0], paths[1])
    atomic_write_json(
        paths[2],
        {"benchmark": benchmark.name, "foundation": foundation_json, "chat": chat_json, "other_data": other},
    )
    return paths
