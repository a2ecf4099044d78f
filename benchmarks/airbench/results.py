"""The official inference output files, for rescoring answers made elsewhere and exporting ours.

``Foundation_result_modelx.jsonl`` and ``Chat_result_modelx.jsonl`` hold one JSON object per line: the meta entry's
fields plus ``response``. Foundation rows always carry all four ``choice_*`` fields, ``null`` where the question has
fewer options.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.layout import (
    CHAT,
    FOUNDATION,
    OPTION_FIELDS,
    option_problems,
)
from avibench.errors import DatasetError
from avibench.items import Item
from avibench.kits import records

FOUNDATION_RESULT_FILE = "Foundation_result_modelx.jsonl"
CHAT_RESULT_FILE = "Chat_result_modelx.jsonl"
FOUNDATION_RESULT_FIELDS = (
    "path",
    "question",
    *OPTION_FIELDS,
    "answer_gt",
    "task_name",
    "dataset_name",
    "response",
    "uniq_id",
)
CHAT_RESULT_FIELDS = (
    "meta_info",
    "question",
    "answer_gt",
    "path",
    "task_name",
    "dataset_name",
    "response",
    "uniq_id",
)
RESULT_FIELDS = {FOUNDATION: FOUNDATION_RESULT_FIELDS, CHAT: CHAT_RESULT_FIELDS}


def result_row(item: Item, response: str | None) -> dict[str, Any]:
    """The official result row of a loaded item (its meta entry is ``item.source``) and the model's answer."""
    fields = FOUNDATION_RESULT_FIELDS if item.task == "foundation" else CHAT_RESULT_FIELDS
    entry = item.source
    return {f: response if f == "response" else entry.get(f) for f in fields}


def write_results(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """One JSON object per line, non-ASCII kept as is (as the official scripts write them)."""
    records.write_jsonl(path, rows)


def read_results(path: Path, section: str) -> list[dict[str, Any]]:
    """The rows of a result file of ``section`` (``Foundation`` or ``Chat``), as :func:`numbered_results` reads them."""
    return [row for _, row in numbered_results(path, section)]


def numbered_results(path: Path, section: str) -> list[tuple[int, dict[str, Any]]]:
    """The rows of a result file of ``section`` with their line numbers (entries are numbered from line 1).

    Every field the official writer puts in a row must be there; ``response`` may be ``null`` (no answer). A
    Foundation ``answer_gt`` must equal one of the choices (the official scorer aborts otherwise).
    """
    fields = RESULT_FIELDS[section]

    def invalid(number: int, why: str) -> None:
        raise DatasetError(path, f"is not JSON ({why})", index=number + 1)

    rows = []
    for line, row in records.jsonl_rows(path, on_error=invalid):
        number = line + 1
        if not isinstance(row, dict):
            raise DatasetError(path, "is not a JSON object", index=number)
        for field in fields:
            if field not in row:
                raise DatasetError(path, "is missing", index=number, field=field)
        if row["response"] is not None and not isinstance(row["response"], str):
            raise DatasetError(path, "must be a string or null", index=number, field="response")
        problems = option_problems(path, number, row) if section == FOUNDATION else []
        if problems:
            raise problems[0]
        rows.append((number, row))
    return rows
