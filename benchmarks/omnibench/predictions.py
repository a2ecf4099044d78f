"""The official inference output: read for rescoring (``eval --predictions``), written by ``export``.

The inference demo appends one JSON object per line as each question finishes (``index``, ``audio_type``,
``question``, ``options``, ``response``, ``parsed_response``, ``correct_answer``, ``is_correct``), so rows come in
any order and a question whose request failed has no row. ``calculate_metrics.py`` reads a JSON list instead,
row k for question k, and counts a row whose ``question`` is empty as invalid. Both are read here: a JSONL file by
each row's ``index``, a JSON list by position (as the script does); a question without a row, or with an empty
``question``, is invalid. Only ``response`` is scored; the parse fields the demo stored are not read (the current
scorer parses again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.benchmarks.omnibench.layout import option_lines
from avibench.errors import DatasetError
from avibench.items import Item
from avibench.kits import records
from avibench.refine.omnibench import official_letter
from avibench.store import atomic_write_text


def _rows(path: Path) -> tuple[list[tuple[int, Any]], bool]:
    """The file's rows with their entry numbers, and whether the file is a JSON list (rows by position)."""
    text = records.read_text(path)
    if text.lstrip().startswith("["):
        return list(enumerate(records.parse_json(path, text))), True
    return records.jsonl_rows(path, text), False


def read_responses(path: Path, count: int) -> tuple[dict[int, str], list[str]]:
    """The replies of an inference output file by question index (a question absent from the mapping is
    invalid), and notes on what the reader left out; raises DatasetError naming file, entry and field."""
    path = Path(path)
    rows, positional = _rows(path)
    if not rows:
        raise DatasetError(path, "holds no rows")
    replies: dict[int, str] = {}
    notes: list[str] = []
    seen: set[int] = set()
    empty = 0
    for entry, row in rows:
        if not isinstance(row, dict):
            raise DatasetError(path, f"must be a JSON object, found {type(row).__name__}", index=entry)
        if positional:
            index = entry
        else:
            index = row.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                raise DatasetError(
                    path, "must be the question's line number (an integer)", index=entry, field="index"
                )
        if not 0 <= index < count:
            message = f"{index} is outside the dataset's {count} questions"
            raise DatasetError(path, message, index=entry, field="index")
        if index in seen:
            raise DatasetError(path, f"question {index} has a second row", index=entry, field="index")
        seen.add(index)
        if row.get("question") == "":
            empty += 1
            continue
        response = row.get("response")
        if not isinstance(response, str):
            found = "missing" if response is None else type(response).__name__
            raise DatasetError(
                path, f"must be the model's reply as a string ({found})", index=entry, field="response"
            )
        replies[index] = response
    if empty:
        notes.append(f"rows with an empty question: {empty} (invalid, as the official scorer counts them)")
    absent = count - len(replies) - empty
    if absent:
        notes.append(
            f"questions without a row: {absent} of {count} (invalid, as the official scorer counts them)"
        )
    return replies, notes


def official_row(item: Item, response: str) -> dict[str, Any]:
    """One row as the inference demo writes it. ``parsed_response`` and ``correct_answer`` are the official
    parser's letters ("N/A" where it finds none: the demo would draw a random letter, which no scorer reads)."""
    parsed = official_letter(response, item.options) or "N/A"
    gold = official_letter(str(item.answer), item.options) or "N/A"
    return {
        "index": item.index,
        "audio_type": item.source["audio type"],
        "question": item.source["question"],
        "options": option_lines(item.options),
        "response": response,
        "parsed_response": parsed,
        "correct_answer": gold,
        "is_correct": parsed == gold,
    }


def write_responses(path: Path, items: Sequence[Item], replies: Mapping[str, str]) -> Path:
    """Write the inference output as the demo does: a row per answered question (``replies`` by item key); a
    question without a reply gets no row."""
    rows = [official_row(item, replies[item.key]) for item in items if item.key in replies]
    atomic_write_text(Path(path), records.jsonl_text(rows, records.dumps_spaced))
    return Path(path)
