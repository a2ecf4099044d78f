"""Writing a run's answers in the reference pipeline's format: ``tasks/<TASK>.json`` arrays aligned with data.json."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.items import Response
from avibench.store import atomic_write_text


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
