"""Predictions for one task folder, aligned with its ``data.json``.

Two sources give the same thing, a list with one ``str | None`` per dataset entry:

* the refine journal ``<run>/refine/<TASK>.jsonl`` (latest record per index wins; a record must carry the id of
  the entry at its index, otherwise the journal was made from another dataset);
* reference-format files ``DIR/<TASK>.json`` (or ``DIR/tasks/<TASK>.json``): a JSON array aligned by position
  with data.json whose elements are ``{task, subtask, id, predict}`` or null.

A file that cannot be used raises :class:`PredictionFileError` naming the file, the element and the field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.dataset import Sample
from avibench.benchmarks.avibench.tasks import TaskSpec
from avibench.errors import DatasetError
from avibench.store import latest_by_index

FAILED = "failed"
UNPARSED = "unparsed"


class PredictionFileError(DatasetError):
    """A prediction file or journal that cannot be scored (its task is reported as not scored)."""


@dataclass(frozen=True)
class TaskPredictions:
    """One task's predictions, aligned with its dataset entries.

    ``file_predicts`` keeps a reference-format file's predicts in file order and length: the reference pools
    VSQA_I and VSQA_V by concatenating the two files, so a file that is shorter or longer than its data.json
    shifts every VSQA_V prediction, and the reference profile reproduces that.
    """

    task: str
    path: Path
    predicts: tuple[str | None, ...]
    file_predicts: tuple[str | None, ...] | None = None
    failed: int = 0
    unparsed: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def present(self) -> int:
        return sum(p is not None for p in self.predicts)


def refine_journal_path(run_dir: Path, spec: TaskSpec) -> Path:
    return Path(run_dir) / "refine" / f"{spec.name}.jsonl"


def infer_journal_path(run_dir: Path, spec: TaskSpec) -> Path:
    return Path(run_dir) / "infer" / f"{spec.name}.jsonl"


def reference_file_path(pred_dir: Path, spec: TaskSpec) -> Path | None:
    """``DIR/<TASK>.json``, else the reference pipeline's own layout ``DIR/tasks/<TASK>.json``."""
    for candidate in (Path(pred_dir) / f"{spec.name}.json", Path(pred_dir) / "tasks" / f"{spec.name}.json"):
        if candidate.is_file():
            return candidate
    return None


def _infer_failures(path: Path) -> set[int]:
    """Indices whose latest infer record failed (error set, no usable answer); unreadable lines are skipped."""
    failed: set[int] = set()
    for index, record in latest_by_index(path).items():
        predict = record.get("predict")
        if record.get("error") is not None or not (isinstance(predict, str) and predict):
            failed.add(index)
    return failed


def from_refine_journal(run_dir: Path, spec: TaskSpec, samples: Sequence[Sample]) -> TaskPredictions | None:
    """Predictions from a refine journal; ``None`` when the task has no journal."""
    path = refine_journal_path(run_dir, spec)
    if not path.is_file():
        return None
    latest = latest_by_index(path)
    predicts: list[str | None] = [None] * len(samples)
    failed: set[int] = set()
    unparsed = 0
    for index, record in sorted(latest.items()):
        if not 0 <= index < len(samples):
            raise PredictionFileError(
                path, f"index {index} is outside data.json ({len(samples)} entries)", field="index"
            )
        expected = samples[index].id
        if str(record.get("id")) != expected:
            raise PredictionFileError(
                path,
                f"record for index {index} has id {record.get('id')!r} but data.json entry {index} has id "
                f"{expected!r}; the journal was made from another dataset (re-run refine)",
                field="id",
            )
        predict = record.get("predict")
        if predict is not None and not isinstance(predict, str):
            raise PredictionFileError(
                path, f"record for index {index}: expected a string or null", field="predict"
            )
        method = record.get("method")
        if method == FAILED:
            failed.add(index)
            continue
        if method == UNPARSED:
            unparsed += 1
        predicts[index] = predict
    never_refined = _infer_failures(infer_journal_path(run_dir, spec)) - set(latest)
    failed |= {i for i in never_refined if 0 <= i < len(samples)}
    return TaskPredictions(
        task=spec.name, path=path, predicts=tuple(predicts), failed=len(failed), unparsed=unparsed
    )


def _read_array(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise PredictionFileError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise PredictionFileError(
            path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except OSError as exc:
        raise PredictionFileError(path, f"cannot read: {exc.strerror}") from None
    if not isinstance(data, list):
        raise PredictionFileError(
            path, f"expected a JSON array aligned with data.json, found {type(data).__name__}"
        )
    return data


def from_reference_file(pred_dir: Path, spec: TaskSpec, samples: Sequence[Sample]) -> TaskPredictions | None:
    """Predictions from a reference-format file; ``None`` when the task has no file."""
    path = reference_file_path(pred_dir, spec)
    if path is None:
        return None
    elements = _read_array(path)
    file_predicts: list[str | None] = []
    warnings: list[str] = []
    mismatched: list[int] = []
    for i, element in enumerate(elements):
        if element is None:
            file_predicts.append(None)
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
        file_predicts.append(predict)
        if i < len(samples) and "id" in element and str(element["id"]) != samples[i].id:
            mismatched.append(i)
    if len(elements) != len(samples):
        warnings.append(
            f"{path.name} has {len(elements)} elements but data.json has {len(samples)} entries; "
            f"predictions are paired by position (first {min(len(elements), len(samples))})"
        )
    if mismatched:
        warnings.append(
            f"{len(mismatched)} element(s) carry an id different from the data.json entry at the same position "
            f"(first at element {mismatched[0]}); predictions are paired by position"
        )
    predicts = (file_predicts + [None] * len(samples))[: len(samples)]
    return TaskPredictions(
        task=spec.name,
        path=path,
        predicts=tuple(predicts),
        file_predicts=tuple(file_predicts),
        warnings=tuple(warnings),
    )
