"""A model's official work directory, ``<alias>/infer_results.jsonl`` per dataset, as responses (``eval
--predictions``) and back (``export``).

Each line is the message meta of one run plus ``prediction``, ``is_correct``, ``model_response`` and
``unique_id`` (``<id>@<run>``). Only ``model_response`` is read back: the scorer parses it again. A row holding the
official runner's error string (``"ERROR: <exception>"``) is a failed request that keeps its reply, which the
reference profile parses as the official evaluator does; a failed request is exported as such a string. A row for
a run the data lacks, or with other options or gold, was made from other data: an error naming file, line, field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import fields, records
from avibench.level_metrics.starbench_parse import ERROR_PREFIX, is_error_response, parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE

RESULTS_FILE = "infer_results.jsonl"
FAILED_RESPONSE = f"{ERROR_PREFIX}the request failed"
ROW_FIELDS = {
    "id": fields.text,
    "options": fields.strings,
    "answer": fields.string,
    "rotate_id": fields.integer,
    "model_response": fields.optional_string,
}


def results_path(model_dir: Path | str, alias: str) -> Path:
    """Where the official runner keeps dataset ``alias`` of one model (``model_dir`` = ``<work-dir>/<model>``)."""
    return Path(model_dir) / alias / RESULTS_FILE


def official_row(item: Item, response: str) -> dict[str, Any]:
    """The line the official runner writes for ``item`` answered with ``response`` (parsed as it parses)."""
    token = parse_choice(response, item.options, REFERENCE).token
    return {
        "id": item.item_id,
        **{k: item.meta.get(k) for k in ("task", "category", "sub-category")},
        "options": list(item.options),
        "answer": item.answer,
        **{k: v for k, v in item.meta.items() if k not in ("task", "category", "sub-category")},
        "prediction": token,
        "is_correct": token == item.meta["answer_letter"],
        "model_response": response,
        "unique_id": item.key,
    }


def read_results(path: Path, items: Sequence[Item]) -> list[Response]:
    """The responses one ``infer_results.jsonl`` gives the runs ``items`` (a run without a row is missing)."""
    by_key = {item.key: item for item in items}
    answers: dict[str, str] = {}
    for entry, row in records.read_rows(path):
        fields.require(path, entry, row, ROW_FIELDS)
        key = str(row.get("unique_id") or f"{row['id']}@{row['rotate_id']}")
        line = f"line {entry + 1}: "
        item = by_key.get(key)
        if key in answers or item is None:
            why = "repeats an earlier line" if key in answers else "is not a run of the data"
            raise DatasetError(path, f"{line}unique_id {key!r} {why}", field="unique_id")
        if (tuple(row["options"]), row["answer"]) != (item.options, item.answer):
            why = "presents other options or another answer than the data (made from another data version?)"
            raise DatasetError(path, f"{line}run {key!r} {why}", field="options")
        answers[key] = row["model_response"] or ""
    return [_response(item, answers.get(item.key)) for item in items]


def _response(item: Item, text: str | None) -> Response:
    if text is None:
        return Response(item, "missing")
    if is_error_response(text):
        return Response(item, "failed", raw=text, method="failed")
    return Response(item, "answered", raw=text)


def write_workdir(responses: Mapping[str, Sequence[Response]], out: Path) -> dict[str, Path]:
    """Write ``<out>/<alias>/infer_results.jsonl`` for every dataset; returns the files written."""
    written = {}
    for alias, rows in responses.items():
        lines = [
            official_row(r.item, FAILED_RESPONSE if r.raw is None else r.raw)
            for r in rows
            if r.status != "missing"
        ]
        written[alias] = records.replace_jsonl(results_path(out, alias), lines)
    return written
