"""A model's official work directory as responses (``eval --predictions``) and back (``export``).

Reading: each row's ``model_response`` becomes the raw answer of the run its ``unique_id`` names; its stored
``prediction`` and ``is_correct`` are ignored (the scorer parses the response again). A row holding the official
runner's error string is a failed request that keeps its reply (the reference profile parses it, as the official
evaluator does). Only the metadata files are
read, never the audio. A row for a run the data does not have, or presenting other options or another gold
answer, means the work directory was made from other data: that is an error naming the file, line and field.

Writing: one row per asked run, as the official runner writes it; a failed request becomes the official
runner's error string (its own, when it came from such a row), which is what its work directory would hold (and what both profiles recognise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from avibench.benchmarks.starbench.workdir import (
    official_row,
    read_result_lines,
    results_path,
    row_key,
    write_results,
)
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.level_metrics.starbench_parse import ERROR_PREFIX, is_error_response

FAILED_RESPONSE = f"{ERROR_PREFIX}the request failed"


def _dataset_responses(path: Path, items: Sequence[Item]) -> list[Response]:
    rows, problems = read_result_lines(path)
    if problems:
        first = problems[0]
        raise DatasetError(first.path, f"line {first.index}: {first.message}", field=first.field)
    by_key = {item.key: item for item in items}
    answers: dict[str, str] = {}
    for line_no, row in rows:
        key = row_key(row)
        item = by_key.get(key)
        if item is None:
            raise DatasetError(
                path, f"line {line_no}: unique_id {key!r} is not a run of the data", field="unique_id"
            )
        if tuple(row["options"]) != item.options or row["answer"] != item.answer:
            raise DatasetError(
                path,
                f"line {line_no}: run {key!r} presents other options or another answer than the data "
                "(made from another data version?)",
                field="options",
            )
        response = row["model_response"]
        answers[key] = response if isinstance(response, str) else ""
    return [_response(item, answers.get(item.key)) for item in items]


def _response(item: Item, text: str | None) -> Response:
    if text is None:
        return Response(item, "missing")
    if is_error_response(text):
        return Response(item, "failed", raw=text, method="failed")
    return Response(item, "answered", raw=text)


def read_workdir(model_dir: Path, items: Mapping[str, Sequence[Item]]) -> dict[str, list[Response]]:
    """Responses of every dataset in ``items`` (alias -> its loaded runs) that has a results file."""
    return {
        alias: _dataset_responses(results_path(model_dir, alias), runs)
        for alias, runs in items.items()
        if results_path(model_dir, alias).is_file()
    }


def write_workdir(responses: Mapping[str, Sequence[Response]], out: Path) -> dict[str, Path]:
    """Write ``<out>/<alias>/infer_results.jsonl`` for every dataset; returns the files written."""
    written = {}
    for alias, rows in responses.items():
        path = results_path(out, alias)
        write_results(
            path,
            (
                official_row(r.item, FAILED_RESPONSE if r.raw is None else r.raw)
                for r in rows
                if r.status != "missing"
            ),
        )
        written[alias] = path
    return written
