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
from avibench.kits import fields, records
from avibench.refine.omnibench import official_letter
from avibench.store import atomic_write_text


def read_responses(path: Path, count: int) -> tuple[dict[int, str], list[str]]:
    """The replies of an inference output file by question index (a question absent from the mapping is
    invalid), and notes on what the reader left out; raises DatasetError naming file, entry and field."""
    text = records.read_text(path)
    positional = text.lstrip().startswith("[")
    rows = list(enumerate(records.parse_json(path, text))) if positional else records.jsonl_rows(path, text)
    if not rows:
        raise DatasetError(path, "holds no rows")
    replies: dict[int, str] = {}
    seen: set[int] = set()
    for entry, row in records.objects(path, rows):
        index = entry if positional else row.get("index")
        if fields.integer(index):
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
            continue
        response = row.get("response")
        if not isinstance(response, str):
            found = "missing" if response is None else type(response).__name__
            message = f"must be the model's reply as a string ({found})"
            raise DatasetError(path, message, index=entry, field="response")
        replies[index] = response
    notes = []
    empty = len(seen) - len(replies)
    if empty:
        notes.append(f"rows with an empty question: {empty} (invalid, as the official scorer counts them)")
    absent = count - len(seen)
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
