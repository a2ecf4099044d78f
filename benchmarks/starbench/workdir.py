"""The official runner's work directory for one model: ``<alias>/infer_results.jsonl`` per dataset.

Each line is the message meta of one run plus ``prediction``, ``is_correct``, ``model_response`` and
``unique_id`` (``<id>@<run>``). For rescoring only ``model_response`` and the presented options and gold are
trusted: the stored ``prediction`` and ``is_correct`` are ignored and the response is parsed again. A request
that raised is stored by the official runner as the response ``"ERROR: <exception>"``; the scorer recognises it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.items import Item, Response
from avibench.kits import records
from avibench.level_metrics.starbench import Run
from avibench.level_metrics.starbench_parse import is_error_response, parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE
from avibench.plugin import Problem
from avibench.store import atomic_write_text

RESULTS_FILE = "infer_results.jsonl"
ROW_FIELDS = ("id", "options", "answer", "rotate_id", "model_response")


def results_path(model_dir: Path | str, alias: str) -> Path:
    """Where the official runner keeps dataset ``alias`` of one model (``model_dir`` = ``<work-dir>/<model>``)."""
    return Path(model_dir) / alias / RESULTS_FILE


def official_row(item: Item, response: str) -> dict[str, Any]:
    """The line the official runner writes for ``item`` answered with ``response`` (parsed as it parses)."""
    choice = parse_choice(response, item.options, REFERENCE)
    meta = {
        "id": item.item_id,
        "task": item.meta["task"],
        "category": item.meta.get("category"),
        "sub-category": item.meta.get("sub-category"),
        "options": list(item.options),
        "answer": item.answer,
        **{k: v for k, v in item.meta.items() if k not in ("task", "category", "sub-category")},
    }
    return {
        **meta,
        "prediction": choice.token,
        "is_correct": choice.token == meta["answer_letter"],
        "model_response": response,
        "unique_id": item.key,
    }


def write_results(path: Path | str, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` as an official ``infer_results.jsonl`` (atomically)."""
    text = records.jsonl_text((dict(r) for r in rows), records.dumps_spaced)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)


def _row_problem(row: Any) -> tuple[str | None, str] | None:
    if not isinstance(row, dict):
        return None, "not a JSON object"
    for name in ROW_FIELDS:
        if name not in row:
            return name, "missing"
    if not isinstance(row["options"], list) or row["answer"] not in row["options"]:
        return "answer", "not one of the row's options"
    if not isinstance(row["rotate_id"], int) or isinstance(row["rotate_id"], bool):
        return "rotate_id", "not an integer"
    return None


def read_result_lines(path: Path | str) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """The usable rows of one ``infer_results.jsonl`` with their line numbers, and a problem (file, line, field)
    for each other line.

    A repeated ``unique_id`` keeps the first row (the official merge refuses such files).
    """
    rows: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    p = Path(path)
    if not p.is_file():
        return [], [Problem(str(p), "file not found")]

    def invalid(number: int, why: str) -> None:
        problems.append(Problem(str(p), f"invalid JSON: {why}", number + 1))

    for number, row in records.jsonl_rows(p, on_error=invalid):
        line_no = number + 1
        bad = _row_problem(row)
        if bad:
            problems.append(Problem(str(p), bad[1], line_no, bad[0]))
            continue
        key = row_key(row)
        if key in seen:
            problems.append(
                Problem(str(p), f"unique_id {key!r} repeats line {seen[key]}", line_no, "unique_id")
            )
            continue
        seen[key] = line_no
        rows.append((line_no, row))
    return rows, sorted(problems, key=lambda problem: problem.index or 0)


def read_results(path: Path | str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The usable rows of one ``infer_results.jsonl`` and a problem for each other line."""
    rows, problems = read_result_lines(path)
    return [row for _, row in rows], problems


def row_key(row: Mapping[str, Any]) -> str:
    """The run a row answers: its ``unique_id``, else ``<id>@<rotate_id>``."""
    return str(row.get("unique_id") or f"{row['id']}@{row['rotate_id']}")


def _order(value: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in str(value).split("-")) if value else ()


def run_from_row(row: Mapping[str, Any]) -> Run:
    """One official row as a run to score (its stored prediction is ignored)."""
    response = row.get("model_response")
    return Run(
        item_id=str(row["id"]),
        rotation=row["rotate_id"],
        options=tuple(row["options"]),
        answer=row["answer"],
        category=row.get("category"),
        sub_category=row.get("sub-category"),
        order=_order(row.get("shuffled_seg_order")),
        response=response if isinstance(response, str) else None,
    )


def run_from_item(item: Item, response: str | None = None, *, status: str = "answered") -> Run:
    """A run of ``item``: answered with ``response``, ``failed``, or ``missing``."""
    return Run(
        item_id=item.item_id,
        rotation=item.meta["rotate_id"],
        options=tuple(item.options),
        answer=item.answer,
        category=item.meta.get("category"),
        sub_category=item.meta.get("sub-category"),
        order=_order(item.meta.get("shuffled_seg_order")),
        status=status,  # type: ignore[arg-type]
        response=response,
    )


def run_from_response(response: Response) -> Run:
    """The run the pipeline's record of one question stands for (raw text, not the refined answer). A failed
    request with a reply on record (an official error row) is a run answered with its error string, as the
    official work directory holds it."""
    status = "answered" if response.raw is not None else response.status
    return run_from_item(response.item, response.raw, status=status)


def runs_from_rows(rows: Sequence[Mapping[str, Any]], items: Sequence[Item] | None = None) -> list[Run]:
    """Runs of the official rows; with ``items``, every run of theirs without a row is added as ``missing``."""
    runs = [run_from_row(r) for r in rows]
    if items is not None:
        present = {f"{r.item_id}@{r.rotation}" for r in runs}
        runs += [run_from_item(i, status="missing") for i in items if i.key not in present]
    return runs


def error_rows(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """``unique_id`` of the rows whose response is the official runner's error string."""
    return [str(r.get("unique_id")) for r in rows if is_error_response(r.get("model_response"))]
