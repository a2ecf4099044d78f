"""Writes the sample benchmark: every registry task folder with its data.json and media.

The default size is 6-10 entries per folder. ``full_size`` writes the paper's exact per-task entry counts
(pre-questions included) by repeating the default samples under new ids, all pointing at the same small
media files, so the full-size dataset costs little more disk or time than the default one.
"""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from avibench.benchmarks.avibench.dataset import PRE_PREFIX, task_dir
from avibench.benchmarks.avibench.sample_data import (
    perception,
    reasoning,
    sensation,
    understanding,
)
from avibench.benchmarks.avibench.sample_data.entries import Group, TaskContext, sample_id
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskTable
from avibench.errors import AvibenchError

BUILDERS = {
    name: build
    for stage in (sensation, perception, understanding, reasoning)
    for name, build in stage.BUILDERS.items()
}


def renumbered(group: Group, new_id: str) -> Group:
    """A copy of ``group`` under another id (its pre-questions become ``pre_<new_id>``); media are shared."""
    return Group(
        [{**e, "id": new_id} for e in group.formal], [{**e, "id": PRE_PREFIX + new_id} for e in group.pre]
    )


def expand(groups: list[Group], target: int) -> list[Group]:
    """Repeat ``groups`` in order, under fresh ids, until their entries number exactly ``target``.

    A group is skipped when taking it would leave a remainder no combination of group sizes can fill, so
    the count comes out exact whatever the mix of sizes (pairs, repeated-id triples, single entries).
    """
    sizes = sorted({len(g) for g in groups})
    fillable = [True] + [False] * target
    for n in range(1, target + 1):
        fillable[n] = any(s <= n and fillable[n - s] for s in sizes)
    if not fillable[target]:
        raise ValueError(f"{target} entries cannot be made from groups of sizes {sizes}")
    out: list[Group] = []
    remaining, turn = target, 0
    while remaining:
        group = groups[turn % len(groups)]
        turn += 1
        if len(group) <= remaining and fillable[remaining - len(group)]:
            out.append(renumbered(group, sample_id(len(out))))
            remaining -= len(group)
    return out


def layout(groups: list[Group]) -> list[dict[str, Any]]:
    """The data.json array: each group's pre-questions come after the next group's formal entries.

    Pre-questions thus always follow their formal entry, but not always right after it, as in the
    reference data; the last group's pre-questions close the array.
    """
    entries: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for group in groups:
        entries.extend(group.formal)
        entries.extend(pending)
        pending = group.pre
    entries.extend(pending)
    return entries


def task_rng(seed: int, task: str) -> np.random.Generator:
    """Each task draws from its own stream, so one task's content does not depend on the others."""
    return np.random.default_rng([seed, zlib.crc32(task.encode())])


def generate(
    out: Path | str,
    *,
    seed: int = 0,
    full_size: bool = False,
    progress: bool = False,
    benchmark: TaskTable = AVIBENCH,
) -> dict[str, int]:
    """Write the sample dataset under ``out``; returns the number of entries per task folder.

    Each task folder is replaced if it exists. The same seed gives byte-identical files.
    """
    if seed < 0:
        raise AvibenchError(f"--seed must be a non-negative integer, got {seed}")
    root = Path(out)
    counts: dict[str, int] = {}
    for spec in tqdm(benchmark.tasks, desc="sample-data", unit="task", disable=not progress):
        folder = task_dir(root, spec)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        groups = BUILDERS[spec.name](TaskContext(spec, folder, task_rng(seed, spec.name)))
        if full_size:
            groups = expand(groups, spec.paper_count)
        entries = layout(groups)
        (folder / "data.json").write_text(
            json.dumps(entries, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        counts[spec.name] = len(entries)
    return counts
