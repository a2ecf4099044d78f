"""AVI-Bench's task table: stages -> task folders, with each folder's facts in one place.

Every AVI-Bench module asks this table for task lists, stage membership, refine families and metric kinds
instead of repeating them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

    def tasks_in_stage(self, stage_key: str) -> tuple[TaskSpec, ...]:
        return tuple(t for t in self.tasks if t.stage == stage_key)

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

    def select(self, names: str | list[str] | tuple[str, ...] | None) -> tuple[TaskSpec, ...]:
        """Tasks named in a comma/space separated string or a list; ``None``/empty means all.

        A paper-level name such as ``VSQA`` selects both of its folders.
        """
        if not names:
            return self.tasks
        if isinstance(names, str):
            names = names.replace(",", " ").split()
        wanted: list[TaskSpec] = []
        for raw in names:
            key = raw.strip().upper()
            if not key:
                continue
            folders = self.folders_of(key) if key not in self._by_name else (self._by_name[key],)
            if not folders:
                raise KeyError(f"unknown task {raw!r}; known tasks: {', '.join(self.task_names)}")
            wanted.extend(f for f in folders if f not in wanted)
        order = {t.name: i for i, t in enumerate(self.tasks)}
        return tuple(sorted(wanted, key=lambda t: order[t.name]))


def _t(name, stage, family, metric, modality, count, title, *, paper=None, dc=False, **facts) -> TaskSpec:
    return TaskSpec(
        name=name,
        stage=stage,
        paper_task=paper or name,
        family=family,
        metric=metric,
        modality=modality,
        double_confirm=dc,
        paper_count=count,
        title=title,
        **facts,
    )


AVIBENCH = TaskTable(
    name="avibench",
    stages=(
        StageSpec("perception", "perception", "Perception"),
        StageSpec("understand", "understanding", "Understanding"),
        StageSpec("reasoning", "reasoning", "Reasoning"),
        StageSpec("sensation", "sensation", "Sensation (PriSe)", familiar=False),
    ),
    # The reference evaluator's task order, which is also the order of eval.json.
    tasks=(
        _t("ASQA", "sensation", "qa", "full_match", "audio", 502, "Audio sensation QA", dc=True),
        _t(
            "VSQA_I",
            "sensation",
            "qa",
            "full_match",
            "visual",
            620,
            "Visual sensation QA (images)",
            paper="VSQA",
            dc=True,
        ),
        _t(
            "VSQA_V",
            "sensation",
            "qa",
            "full_match",
            "visual",
            580,
            "Visual sensation QA (videos)",
            paper="VSQA",
            dc=True,
        ),
        _t("AVSQA", "sensation", "qa", "avsqa", "joint", 388, "Audio-visual sensation QA", dc=True),
        _t(
            "AMIC",
            "perception",
            "mic",
            "mic",
            "audio",
            518,
            "Audio multi-instance counting",
            class_list_key="amic_cls_list",
        ),
        _t(
            "VMIC",
            "perception",
            "mic",
            "mic",
            "visual",
            521,
            "Visual multi-instance counting",
            class_list_key="vmic_cls_list",
        ),
        _t(
            "AVL",
            "perception",
            "avl",
            "avl",
            "joint",
            205,
            "Audio-visual localisation",
            class_list_key="avl_cls_list",
        ),
        _t("AVM", "perception", "passthrough", "full_match", "joint", 250, "Audio-visual matching"),
        _t(
            "AVR",
            "understand",
            "retrieval",
            "retrieval",
            "visual",
            264,
            "Audio-to-visual retrieval",
            candidates="images",
        ),
        _t(
            "VAR",
            "understand",
            "retrieval",
            "retrieval",
            "audio",
            264,
            "Visual-to-audio retrieval",
            candidates="audios",
        ),
        _t("AVC", "understand", "passthrough", "caption", "joint", 280, "Audio-visual captioning"),
        _t(
            "AVH",
            "reasoning",
            "passthrough",
            "full_match",
            "audio",
            250,
            "Audio-visual hallucination (audio)",
        ),
        _t(
            "VAH",
            "reasoning",
            "passthrough",
            "full_match",
            "visual",
            250,
            "Audio-visual hallucination (visual)",
        ),
        _t("AVQA", "reasoning", "qa", "full_match", "joint", 469, "Audio-visual question answering"),
        _t(
            "AVLG",
            "reasoning",
            "avlg",
            "avlg",
            "joint",
            503,
            "Audio-visual localisation and grounding",
            frames=10,
        ),
    ),
)
