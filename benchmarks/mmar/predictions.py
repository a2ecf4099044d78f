"""The official prediction files: the benchmark's own records plus one prediction key, rescored by the official
scripts (``answer_prediction`` for MMAR, ``model_output`` for MMAU).

A question without an answer is written without the key, which the official scorers skip, exactly as they would
skip it in a file of their own users. Reading accepts a JSON list, or JSONL for a ``.jsonl`` file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.benchmarks.mmar.layout import Layout, read_records, record_problems
from avibench.errors import DatasetError
from avibench.items import Item
from avibench.kits.records import dumps_spaced, jsonl_text
from avibench.store import atomic_write_text


@dataclass(frozen=True)
class PredictionFile:
    """A prediction file as read: its records, the key the predictions are under, and what the reader noticed."""

    path: Path
    records: list[dict[str, Any]]
    key: str
    notes: tuple[str, ...] = ()

    def prediction(self, record: Mapping[str, Any]) -> str | None:
        """The record's prediction, ``None`` when it has none (the official scorers skip such a record)."""
        return record.get(self.key)


def _scoring_fields(layout: Layout) -> dict[str, Any]:
    """The fields the official scorer reads from every record (a record without one crashes it)."""
    wanted = ("answer", "choices", *(b.field for b in layout.breakdowns if b.fixed))
    return {name: layout.fields[name] for name in wanted}


def read_predictions(path: Path, layout: Layout) -> PredictionFile:
    """Read and check an official prediction file; raises DatasetError naming the file, entry and field.

    The older key (:attr:`Layout.legacy_prediction_key`) is read only when no record has the current one, and a
    note says so: an official scorer of today would score nothing in such a file.
    """
    path = Path(path)
    records = read_records(path)
    if not records:
        raise DatasetError(path, "holds no records")
    for index, record in enumerate(records):
        problem = next(record_problems(layout, path, index, record, _scoring_fields(layout)), None)
        if problem is not None:
            raise DatasetError(problem.path, problem.message, index=problem.index, field=problem.field)
    key = layout.prediction_key
    notes: list[str] = []
    if not any(key in r for r in records):
        legacy = layout.legacy_prediction_key
        if not any(legacy in r for r in records):
            raise DatasetError(path, f"no record has a prediction ({key!r}, or the older {legacy!r})")
        notes.append(
            f"no record has {key!r}; read the older key {legacy!r} (the official scorer would skip all)"
        )
        key = legacy
    for index, record in enumerate(records):
        if key in record and not isinstance(record[key], str):
            message = (
                f"must be a string, found {type(record[key]).__name__} (leave the key out for no answer)"
            )
            raise DatasetError(path, message, index=index, field=key)
    skipped = sum(key not in r for r in records)
    if skipped:
        notes.append(f"{skipped} of {len(records)} records have no {key!r} (the official scorer skips them)")
    return PredictionFile(path, records, key, tuple(notes))


def official_record(item: Item, prediction: str | None, layout: Layout) -> dict[str, Any]:
    """The question's record in the official key order, with the prediction key when there is a prediction."""
    values = {**item.meta, "id": item.meta.get("id", item.item_id), "choices": list(item.options)}
    values["answer"] = item.answer
    record = {name: values[name] for name in layout.fields if name in values}
    record.update({k: v for k, v in item.meta.items() if k not in record})
    if prediction is not None:
        record[layout.prediction_key] = prediction
    return record


def write_predictions(
    path: Path, items: Sequence[Item], predictions: Mapping[str, str | None], layout: Layout
) -> Path:
    """Write an official prediction file (JSONL for a ``.jsonl`` path, else a JSON list); ``predictions`` maps
    item keys to raw answers (``None`` or absent: no answer)."""
    path = Path(path)
    records = [official_record(item, predictions.get(item.key), layout) for item in items]
    if path.suffix == ".jsonl":
        text = jsonl_text(records, dumps_spaced)
    else:
        text = json.dumps(records, ensure_ascii=False, indent=1) + "\n"
    atomic_write_text(path, text)
    return path
