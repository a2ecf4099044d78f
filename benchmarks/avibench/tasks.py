"""AVI-Bench's task table: stages -> task folders, with each folder's facts in one place.

Every AVI-Bench module asks this table for task lists, stage membership, refine families and metric kinds
instead of repeating them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Literal

RefineFamily = Literal["qa", "mic", "avl", "avlg", "retrieval", "passthrough"]
MetricKind = Literal["full_match", "avsqa", "mic", "avl", "avlg", "retrieval", "caption"]
Modality = Literal["audio", "visual", "joint"]


@dataclass(frozen=True)
class StageSpec:
    """One stage of a benchmark.

    ``key`` is the dataset folder and the reference eval.json key (``understand``); ``name`` is the
    name used in summaries and the leaderboard (``understanding``).
    """

    key: str
    name: str
    label: str
    familiar: bool = True


@dataclass(frozen=True)
class TaskSpec:
    """One runnable task folder."""

    name: str
    stage: str
    paper_task: str
    family: RefineFamily
    metric: MetricKind
    modality: Modality
    double_confirm: bool
    paper_count: int
    title: str = ""
    candidates: Literal["audios", "images"] | None = None
    """Retrieval: which media of an entry are the candidates its answer indexes."""
    class_list_key: str | None = None
    """Counting and localisation: the prompt definitions' key of the class vocabulary the prompt names."""
    frames: int | None = None
    """Grounding over frames: how many frames an answer gives a box (or none) for."""

    @property
    def group(self) -> str:
        """The stage, as the plug-in interface's task group."""
        return self.stage

    @property
    def eval_key(self) -> str:
        """The reference eval.json key of this task (lowercase task name)."""
        return self.name.lower()


@dataclass(frozen=True)
class TaskTable:
    """A benchmark: its stages, in report order, and its task folders, in the reference's evaluation order."""

    name: str
    stages: tuple[StageSpec, ...]
    tasks: tuple[TaskSpec, ...]
    _by_name: dict[str, TaskSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {t.name: t for t in self.tasks})

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    def task(self, name: str) -> TaskSpec:
        """Look up a task folder by name, case-insensitively; raises KeyError naming the known tasks."""
        spec = self._by_name.get(name.upper())
        if spec is None:
            raise KeyError(f"unknown task {name!r}; known tasks: {', '.join(self.task_names)}")
        return spec

    def stage(self, key: str) -> StageSpec:
        for stage in self.stages:
            if key in (stage.key, stage.name):
                return stage
        raise KeyError(f"unknown stage {key!r}")

    def paper_tasks(self, stage_key: str | None = None) -> tuple[str, ...]:
        """Paper-level task names (VSQA_I and VSQA_V pool into VSQA), in registry order, without repeats."""
        names: list[str] = []
        for t in self.tasks:
            if (stage_key is None or t.stage == stage_key) and t.paper_task not in names:
                names.append(t.paper_task)
        return tuple(names)

    def folders_of(self, paper_task: str) -> tuple[TaskSpec, ...]:
        return tuple(t for t in self.tasks if t.paper_task == paper_task)

    def pooled(self) -> dict[str, tuple[str, ...]]:
        """Paper-level tasks scored over several folders (VSQA: images and videos), with their folder names."""
        groups = {p: tuple(t.name for t in self.folders_of(p)) for p in self.paper_tasks()}
        return {p: names for p, names in groups.items() if len(names) > 1}


def _load() -> TaskTable:
    """The table kept as data: ``prompts/avibench/tasks.json`` (stages, then one row of ``task_columns`` per
    folder)."""
    data = json.loads(
        resources.files("avibench.prompts").joinpath("avibench", "tasks.json").read_text("utf-8")
    )
    return TaskTable(
        name="avibench",
        stages=tuple(StageSpec(*row) for row in data["stages"]),
        tasks=tuple(TaskSpec(**dict(zip(data["task_columns"], row, strict=True))) for row in data["tasks"]),
    )


AVIBENCH = _load()
