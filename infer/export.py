"""Writing a run's answers in the reference pipeline's format: ``tasks/<TASK>.json`` arrays aligned with data.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from avibench.dataset import load_task
from avibench.infer.journal import check_journal, is_done, journal_path
from avibench.registry import TaskSpec
from avibench.store import atomic_write_text, latest_by_index


def reference_array(data_root: Path, spec: TaskSpec, run_dir: Path) -> list[dict[str, Any] | None]:
    """One slot per data.json entry: ``{task, subtask, id, predict}`` for a done sample, else null."""
    samples = load_task(data_root, spec)
    path = journal_path(run_dir, spec.name)
    latest = latest_by_index(path)
    check_journal(path, samples, latest)
    array: list[dict[str, Any] | None] = []
    for sample in samples:
        record = latest.get(sample.index)
        if is_done(record):
            array.append(
                {
                    "task": sample.task,
                    "subtask": sample.subtask,
                    "id": sample.id,
                    "predict": record["predict"],
                }
            )
        else:
            array.append(None)
    return array


def export_reference(
    data_root: Path, specs: tuple[TaskSpec, ...], run_dir: Path, out_dir: Path
) -> dict[str, int]:
    """Write ``out_dir/tasks/<TASK>.json`` for every task with a journal; returns answers written per task."""
    written: dict[str, int] = {}
    for spec in specs:
        if not journal_path(run_dir, spec.name).is_file():
            continue
        array = reference_array(data_root, spec, run_dir)
        atomic_write_text(
            out_dir / "tasks" / f"{spec.name}.json", json.dumps(array, indent=4, ensure_ascii=False) + "\n"
        )
        written[spec.name] = sum(1 for slot in array if slot is not None)
    return written
