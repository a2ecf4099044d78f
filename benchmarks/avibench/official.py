"""Whether an AVI-Bench dataset is the official one, so that only runs on it are ranked beside the paper.

A dataset is ``sample`` when ``sample-data`` generated it (its marker file), ``other`` when a selected task's
data.json holds another number of entries than the paper's count for that task, or when its hash differs from
the official file's, and ``official`` otherwise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from avibench.benchmarks.avibench.dataset import data_entries, task_dir
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec
from avibench.errors import DatasetError
from avibench.plugin import sample_dataset

#: SHA-256 of each task folder's official data.json. Empty until the official release can be hashed: until then
#: a dataset is recognised by its per-task entry counts only, so an edited file with the official counts passes.
OFFICIAL_FINGERPRINTS: dict[str, str] = {}


def _mismatch(root: Path, spec: TaskSpec) -> str | None:
    """Why one task folder is not the official one, or None when nothing tells it apart."""
    path = task_dir(root, spec) / "data.json"
    try:
        count = len(data_entries(path))
    except DatasetError as exc:
        return str(exc)
    if count != spec.paper_count:
        return f"{spec.name} has {count} entries, the official data {spec.paper_count}"
    expected = OFFICIAL_FINGERPRINTS.get(spec.name)
    if expected is not None and hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        return f"{spec.name}: data.json differs from the official file (SHA-256)"
    return None


def dataset_kind(root: Path, tasks: Sequence[str]) -> dict[str, str]:
    """``{"kind", "why"}`` of an AVI-Bench dataset root for the selected task folders (all when none)."""
    sample = sample_dataset(root)
    if sample is not None:
        return sample
    specs = [AVIBENCH.task(name) for name in tasks] or list(AVIBENCH.tasks)
    problems = [why for why in (_mismatch(Path(root), spec) for spec in specs) if why]
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        return {"kind": "other", "why": shown}
    checked = "entry counts" + (" and SHA-256" if OFFICIAL_FINGERPRINTS else "")
    return {
        "kind": "official",
        "why": f"the {checked} of {len(specs)} task folder(s) match the official data",
    }
