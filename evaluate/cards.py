"""``avibench cards``: models side by side across benchmarks, from the cards ``avibench run`` wrote.

A row per card (``<output dir>/<label>/card.json``), a column per benchmark any card holds, each cell the
benchmark's headline in the chosen profile with the leaderboards' marks: ``incomplete`` when it rests on
incomplete tasks, ``<kind> data, not comparable`` when the run was not on the official data, and the row's
status (``not run``, ``failed``) where it has no number. Written as ``<output dir>/cards.{md,html,json}``.
A benchmark evaluated again after its card was written (its eval.json newer than card.json) is shown from that
eval.json, with a note, never with the card's earlier numbers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate.card import (
    CARD_NAMES,
    CARD_SCHEMA,
    CARD_SCHEMA_VERSION,
    TASKS_INSTEAD,
    BenchmarkOutcome,
    benchmark_row,
    card_status,
    headline_cell,
)
from avibench.evaluate.document import (
    DASH,
    Cell,
    Document,
    Paragraph,
    Table,
    as_dict,
    fmt_score,
    write_document,
)
from avibench.evaluate.run_files import read_json
from avibench.plugin import PROFILES, benchmark_names, get_benchmark
from avibench.run_options import output_dir_option
from avibench.store import atomic_write_json


def read_card(path: Path) -> dict[str, Any]:
    """A card.json; one that is unreadable or of another schema is a user error naming the file."""
    card = read_json(path)
    if not isinstance(card, dict) or card.get("schema") != CARD_SCHEMA:
        raise AvibenchError(f"{path}: not an avibench card (no schema {CARD_SCHEMA!r})")
    version = card.get("schema_version")
    if not isinstance(version, int) or version > CARD_SCHEMA_VERSION:
        raise AvibenchError(
            f"{path}: card schema version {version!r} is newer than this avibench reads ({CARD_SCHEMA_VERSION})"
        )
    if not isinstance(card.get("label"), str):
        raise AvibenchError(f"{path} field label: missing or not a string")
    rows = card.get("benchmarks")
    if not isinstance(rows, list):
        raise AvibenchError(f"{path} field benchmarks: missing or not a list")
    for index, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("benchmark"), str):
            raise AvibenchError(f"{path} entry {index} of benchmarks: not an object with a benchmark name")
    return card


def _modified(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def current_card(path: Path, card: dict[str, Any], output_dir: Path) -> dict[str, Any]:
    """The card with each row whose eval.json was written (or removed) after the card rebuilt from the run as it
    is now: an eval run again after ``avibench run`` must not be shown with the card's earlier numbers."""
    written = _modified(path)
    installed = set(benchmark_names())
    rows = []
    for row in card["benchmarks"]:
        name = row["benchmark"]
        paths = RunPaths(output_dir, card["label"], name)
        evaluated = _modified(paths.eval_json)
        stale = (evaluated is not None and written is not None and evaluated > written) or (
            evaluated is None and as_dict(row.get("links")).get("eval") is not None
        )
        if not stale or name not in installed:
            rows.append(row)
            continue
        click.echo(
            f"note: {paths.eval_json} {'is newer than' if evaluated else 'is gone since'} {path}: its row is "
            f"taken from the run as it is now (re-run 'avibench run --label {card['label']}' to refresh the card)",
            err=True,
        )
        stages = row.get("stages") if isinstance(row.get("stages"), dict) else {}
        data_root = row.get("data_root") if isinstance(row.get("data_root"), str) else None
        outcome = BenchmarkOutcome(name, data_root=data_root, stages=dict(stages))
        rows.append(benchmark_row(get_benchmark(name), paths, outcome))
    if all(new is old for new, old in zip(rows, card["benchmarks"], strict=True)):
        return card
    return {**card, "status": card_status(rows), "benchmarks": rows}


def find_cards(output_dir: Path, labels: tuple[str, ...] | None) -> list[dict[str, Any]]:
    """The selected labels' cards (every card under the output dir when none are named), each as the runs are now
    (see :func:`current_card`)."""
    found = {p.parent.name: p for p in sorted(Path(output_dir).glob(f"*/{CARD_NAMES[0]}"))}
    if labels is None:
        return [current_card(p, read_card(p), Path(output_dir)) for p in found.values()]
    unknown = [label for label in labels if label not in found]
    if unknown:
        raise AvibenchError(
            f"--labels: no card under {output_dir} for {', '.join(unknown)} "
            f"(cards: {', '.join(found) or 'none'}; 'avibench run' writes them)"
        )
    return [
        current_card(found[label], read_card(found[label]), Path(output_dir))
        for label in dict.fromkeys(labels)
    ]


def side_by_side(cards: list[dict[str, Any]], profile: str) -> dict[str, Any]:
    """cards.json: the benchmarks (first seen first) and a row per model with its cell per benchmark."""
    titles: dict[str, str] = {}
    for card in cards:
        for row in card.get("benchmarks") or ():
            titles.setdefault(str(row["benchmark"]), str(row.get("title") or row["benchmark"]))
    rows = []
    for card in cards:
        by_name = {str(r["benchmark"]): r for r in card.get("benchmarks") or ()}
        cells = {}
        for name in titles:
            row = by_name.get(name)
            if row is None:
                cells[name] = None
                continue
            cell = headline_cell(row, profile)
            cells[name] = {
                "headline": as_dict(row.get("headline")).get(profile),
                "tasks": cell.text if row.get("headline_name") == TASKS_INSTEAD else None,
                "status": row.get("status"),
                "marks": [m for m in cell.badge.split("; ") if m],
                "link": f"{card['label']}/{as_dict(row.get('links'))['report']}"
                if "report" in as_dict(row.get("links"))
                else None,
            }
        rows.append(
            {"label": card["label"], "model": card.get("model"), "status": card.get("status"), "cells": cells}
        )
    return {"profile": profile, "benchmarks": titles, "rows": rows}


def _cell(cell: dict[str, Any] | None) -> Cell:
    if cell is None:
        return Cell(DASH, "not in card")
    if cell.get("tasks"):  # a benchmark without a headline: each task
        return Cell(cell["tasks"], "; ".join(cell["marks"]), "", cell["link"] or "", wrap=True)
    if cell["headline"] is None:
        return Cell(DASH, str(cell["status"]))
    return Cell(fmt_score(cell["headline"]), "; ".join(cell["marks"]), "", cell["link"] or "")


def cards_document(table: dict[str, Any]) -> Document:
    """cards.md and cards.html: a row per model, a column per benchmark."""
    names = list(table["benchmarks"])
    doc = Document("Models across benchmarks")
    doc.add(
        Paragraph(
            f"Each benchmark's headline on 0–100 (each task where a benchmark has none, as the ASR suite's error "
            f"rates, lower is better), {table['profile']} profile, from the models' cards. An "
            "incomplete badge marks a number that rests on missing, failed, unrefined or unscored questions; a "
            "data badge a run on a generated sample or other data, not comparable with published numbers; "
            "'not run' a benchmark the run could not take (its card says why); 'not in card' one it was not "
            "asked for. Each number links to its report."
        ),
        Table(
            ["Model", "Status", *(table["benchmarks"][n] for n in names)],
            [
                [row["label"], str(row["status"]), *(_cell(row["cells"][n]) for n in names)]
                for row in table["rows"]
            ],
            align="ll" + "r" * len(names),
            css="many",  # a column per benchmark: set closer, so that every column fits a 1,366 px window
        ),
    )
    return doc


def write_cards(output_dir: Path, labels: tuple[str, ...] | None, profile: str) -> tuple[Path, ...]:
    cards = find_cards(output_dir, labels)
    if not cards:
        raise AvibenchError(f"no card under {output_dir}: write one with 'avibench run --model M'")
    table = side_by_side(cards, profile)
    stem = Path(output_dir) / "cards"
    paths = (stem.with_suffix(".md"), stem.with_suffix(".html"), stem.with_suffix(".json"))
    write_document(cards_document(table), paths[0], paths[1])
    atomic_write_json(paths[2], table)
    return paths


@click.command(name="cards")
@output_dir_option
@click.option(
    "--labels", default=None, metavar="A,B", help="The runs to show, in order (default: every card)."
)
@click.option("--profile", type=click.Choice(PROFILES), default=PROFILES[0], show_default=True)
def cards(output_dir: Path | None, labels: str | None, profile: str) -> None:
    """Set models side by side across benchmarks from their cards (cards.md/.html/.json in the output dir)."""
    chosen = tuple(x.strip() for x in labels.split(",") if x.strip()) if labels else None
    for path in write_cards(output_dir or default_output_dir(), chosen, profile):
        click.echo(f"wrote {path}")
