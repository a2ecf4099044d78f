"""Official prediction files: read as responses aligned with each task's ``data.json`` (``eval --predictions``), and
written from a run's answers (``export``).

A reference-format file ``DIR/<TASK>.json`` (or ``DIR/tasks/<TASK>.json``) is a JSON array aligned by position
with data.json whose elements are ``{task, subtask, id, predict}`` or null. A file that cannot be used raises
:class:`PredictionFileError` naming the file, the element and the field; its task is then not scored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec
from avibench.benchmarks.avibench.values import VSQA_HALVES
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import records
from avibench.store import atomic_write_text


class PredictionFileError(DatasetError):
    """A prediction file or journal that cannot be scored (its task is reported as not scored)."""


def reference_file_path(pred_dir: Path, spec: TaskSpec) -> Path | None:
    """``DIR/<TASK>.json``, else the reference pipeline's own layout ``DIR/tasks/<TASK>.json``."""
    for candidate in (Path(pred_dir) / f"{spec.name}.json", Path(pred_dir) / "tasks" / f"{spec.name}.json"):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class TaskFile:
    """One task's prediction file: the predicts paired with its entries, the array as the file holds it (the
    reference pools VSQA_I and VSQA_V by concatenating their files, so a file of the wrong length shifts every
    VSQA_V prediction) and what does not line up."""

    predicts: tuple[str | None, ...]
    array: tuple[str | None, ...]
    warnings: tuple[str, ...] = ()


def read_file(path: Path, ids: Sequence[str]) -> TaskFile:
    """A reference-format file paired by position with the data.json entries of ``ids``."""
    elements = records.read_json(path)
    if not isinstance(elements, list):
        raise PredictionFileError(
            path, f"expected a JSON array aligned with data.json, found {type(elements).__name__}"
        )
    array: list[str | None] = []
    mismatched: list[int] = []
    for i, element in enumerate(elements):
        if element is None:
            array.append(None)
            continue
        if not isinstance(element, dict):
            raise PredictionFileError(
                path, f"expected an object or null, found {type(element).__name__}", index=i
            )
        predict = element.get("predict")
        if predict is not None and not isinstance(predict, str):
            raise PredictionFileError(
                path, f"expected a string or null, found {type(predict).__name__}", index=i, field="predict"
            )
        array.append(predict)
        if i < len(ids) and "id" in element and str(element["id"]) != ids[i]:
            mismatched.append(i)
    warnings = []
    if len(elements) != len(ids):
        warnings.append(
            f"{path.name} has {len(elements)} elements but data.json has {len(ids)} entries; "
            f"predictions are paired by position (first {min(len(elements), len(ids))})"
        )
    if mismatched:
        warnings.append(
            f"{len(mismatched)} element(s) carry an id different from the data.json entry at the same position "
            f"(first at element {mismatched[0]}); predictions are paired by position"
        )
    predicts = (array + [None] * len(ids))[: len(ids)]
    return TaskFile(tuple(predicts), tuple(array), tuple(warnings))


@dataclass
class FileAnswers:
    """The answers of a folder of prediction files: responses per task, VSQA's arrays for positional pooling
    (when both of its files are there), each task's warnings, and the files that could not be read."""

    responses: dict[str, list[Response]] = field(default_factory=dict)
    positional: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def _response(item: Item, predict: str | None) -> Response:
    """A file's prediction as a response: answered with it (as refined), or missing."""
    if predict is None:
        return Response(item, "missing")
    return Response(item, "answered", raw=predict, refined=predict, method="passthrough", recorded=predict)


def file_answers(
    pred_dir: Path, tasks: Sequence[Any], load: Callable[[Any], list[Item]], present: Collection[Any]
) -> FileAnswers:
    """The selected tasks' prediction files under ``pred_dir``; a task without a file, or without data (not in
    ``present``: its file cannot be lined up with entries), is left out, as eval's completeness then says."""
    out = FileAnswers()
    for task in tasks:
        spec = AVIBENCH.task(task.name)
        path = reference_file_path(pred_dir, spec)
        if path is None or task not in present:
            continue
        items = load(task)
        try:
            found = read_file(path, [str(i.meta["id"]) for i in items])
        except DatasetError as exc:
            out.errors.append(f"{spec.name}: broken prediction file: {exc}")
            continue
        out.responses[spec.name] = [_response(i, p) for i, p in zip(items, found.predicts, strict=True)]
        out.warnings[spec.name] = list(found.warnings)
        if spec.name in VSQA_HALVES:
            out.positional[spec.name] = found.array
    if set(out.positional) != set(VSQA_HALVES):
        out.positional = {}
    elif (first := VSQA_HALVES[0]) and len(out.positional[first]) != len(out.responses[first]):
        out.warnings[VSQA_HALVES[1]].append(
            f"{first} predictions have {len(out.positional[first])} elements for {len(out.responses[first])} "
            "entries: pooled by position as the reference does, so every VSQA_V prediction is shifted (reference "
            "profile)"
        )
    return out


def reference_slot(response: Response, stage: str) -> dict[str, Any] | None:
    """``{task, subtask, id, predict}`` for an answered entry, else null.

    ``stage="refine"`` writes what the reference evaluator reads (the refined answer, or for an unparsed answer
    the text the refine stage kept); an answer not refined yet is left null. ``stage="infer"`` writes the raw answer.
    """
    if response.status != "answered":
        return None
    predict = response.raw if stage == "infer" else response.recorded
    if predict is None:
        return None
    sample = response.item.source
    return {"task": sample.task, "subtask": sample.subtask, "id": sample.id, "predict": predict}


def write_reference(responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str) -> dict[str, Path]:
    """Write ``out/tasks/<TASK>.json`` for every task given; returns the files written."""
    written: dict[str, Path] = {}
    for task, task_responses in responses.items():
        array = [reference_slot(r, stage) for r in task_responses]
        path = Path(out) / "tasks" / f"{task}.json"
        atomic_write_text(path, json.dumps(array, indent=4, ensure_ascii=False) + "\n")
        written[task] = path
    return written
