"""The benchmark plug-in interface: everything the stages need to know about a benchmark, behind one object.

The stages (infer, refine, eval, report) know no benchmark by name. A benchmark is a :class:`Benchmark` subclass
registered in the ``avibench.benchmarks`` entry-point group, so a third-party package can ship one::

    [project.entry-points."avibench.benchmarks"]
    mybench = "mypackage.bench:MyBenchmark"

A plug-in declares its tasks, loads its official on-disk layout into :class:`avibench.items.Item` objects (one per
question as asked, variants included), extracts canonical answers from raw ones (refine), scores
:class:`avibench.items.Response` objects in both profiles into an eval document whose top level is the official
scorer's own output, and brings its baselines, sample data, published numbers and report sections.
"""

from __future__ import annotations

import hashlib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, ClassVar

from avibench.contracts import RunPaths, journal_responses
from avibench.errors import AvibenchError
from avibench.items import Item, Response

ENTRY_POINT_GROUP = "avibench.benchmarks"
PROFILES: tuple[str, ...] = ("reference", "strict")
#: Written by ``sample-data`` at the root of a generated dataset, so a run can say it used sample data.
SAMPLE_MARKER = ".avibench-sample.json"
#: What ``eval`` records as ``meta.dataset.kind``: only ``official`` runs are ranked beside published results.
DATASET_KINDS = ("official", "sample", "other")


@dataclass(frozen=True)
class Task:
    """One task (subset) of a benchmark: its key everywhere (CLI, journals, eval.json), title and group."""

    name: str
    title: str = ""
    group: str = ""


@dataclass(frozen=True)
class Problem:
    """One problem found by ``validate-data``: where (file, entry, field) and what."""

    path: str
    message: str
    index: int | None = None
    field: str | None = None
    severity: str = "error"

    def __str__(self) -> str:
        where = self.path
        if self.index is not None:
            where += f" entry {self.index}"
        if self.field:
            where += f" field {self.field}"
        return f"{self.severity}: {where}: {self.message}"


@dataclass(frozen=True)
class EvalRequest:
    """What ``eval`` asks of a plug-in: the tasks, the primary profile, and where the answers are.

    ``predictions`` is an official-format predictions path (``eval --predictions``), else ``None`` and the
    answers come from the run's journals under ``paths``. ``options`` holds benchmark-specific settings from the
    command line (for example FENSE models for AVI-Bench).
    """

    data_root: Path
    tasks: tuple[Task, ...]
    profile: str
    paths: RunPaths
    predictions: Path | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    model: str | None = None


@dataclass
class Scored:
    """What a plug-in's scoring returns: the eval document body and what the driver reports.

    ``document`` holds the official scorer's output for the primary profile at its top level, plus ``summary``
    (``by_profile`` with both profiles on 0-100) and ``coverage`` (per task: counts and why it is not complete);
    the driver adds ``meta``. ``errors`` are problems that make the exit code non-zero (a broken prediction file, a
    scorer that raised). ``per_sample`` maps task -> key -> profile -> score (0-1, ``None`` = not scored).
    """

    document: dict[str, Any]
    errors: list[str] = field(default_factory=list)
    per_sample: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)


class Benchmark(ABC):
    """A benchmark plug-in. Subclasses set the class attributes and implement the abstract methods."""

    #: The name used by ``--benchmark`` and in output folders.
    name: ClassVar[str]
    #: A human title for reports.
    title: ClassVar[str] = ""
    #: Prompt template ids this benchmark ships; the first is the default (the official one).
    templates: ClassVar[tuple[str, ...]] = ("official",)
    #: Where the real dataset is looked for (relative to the working folder) when no --data-root is given.
    download_root: ClassVar[Path]
    #: Where ``sample-data`` writes the generated sample benchmark by default.
    sample_root: ClassVar[Path]

    # -- tasks ------------------------------------------------------------------------------------------

    @abstractmethod
    def tasks(self) -> tuple[Task, ...]:
        """Every task, in report order."""

    def default_tasks(self) -> tuple[Task, ...]:
        """The tasks a run takes when none are named (all of them unless the benchmark says otherwise)."""
        return self.tasks()

    def select(self, names: str | Sequence[str] | None) -> tuple[Task, ...]:
        """Tasks named in a comma/space separated string or a list, in report order; empty means the default."""
        if not names:
            return self.default_tasks()
        if isinstance(names, str):
            names = names.replace(",", " ").split()
        by_name = {t.name.upper(): t for t in self.tasks()}
        wanted: list[Task] = []
        for raw in names:
            found = self.expand(raw.strip())
            if found is None:
                task = by_name.get(raw.strip().upper())
                if task is None:
                    known = ", ".join(t.name for t in self.tasks())
                    raise AvibenchError(
                        f"unknown task {raw!r} for benchmark {self.name}; known tasks: {known}"
                    )
                found = (task,)
            wanted.extend(t for t in found if t not in wanted)
        order = {t.name: i for i, t in enumerate(self.tasks())}
        return tuple(sorted(wanted, key=lambda t: order[t.name]))

    def expand(self, name: str) -> tuple[Task, ...] | None:
        """The tasks a group name stands for (``None``: not a group). Override to declare groups."""
        return None

    def task(self, name: str) -> Task:
        return self.select([name])[0]

    # -- data -------------------------------------------------------------------------------------------

    def default_data_root(self, env_root: str | None = None) -> Path:
        """``$DATA_ROOT`` if set, else the download folder if present, else the generated sample."""
        if env_root:
            return Path(env_root)
        return self.download_root if self.download_root.is_dir() else self.sample_root

    @abstractmethod
    def available(self, root: Path) -> tuple[Task, ...]:
        """The tasks whose data is present under ``root``."""

    @abstractmethod
    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        """Every question of one task as asked (all variants), in a fixed order; raises DatasetError."""

    @abstractmethod
    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        """Every problem of the selected tasks' data, each naming file, entry and field."""

    def fingerprint(self, root: Path, tasks: Sequence[Task]) -> str:
        """A short hash of the files that define the selected tasks' questions (for provenance)."""
        digest = hashlib.sha256()
        for task in tasks:
            digest.update(task.name.encode())
            for path in self.data_files(root, task):
                if path.is_file():
                    digest.update(hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()[:16]

    def dataset_kind(self, root: Path, tasks: Sequence[Task]) -> dict[str, str]:
        """``{"kind": "official"|"sample"|"other", "why": ...}``: whether a run on ``root`` is comparable with
        published results. The default knows only the sample marker; a plug-in that knows its official files
        (counts, hashes) overrides it to recognise every other dataset too."""
        if (Path(root) / SAMPLE_MARKER).is_file():
            return {"kind": "sample", "why": f"generated by 'avibench sample-data' ({SAMPLE_MARKER} present)"}
        return {"kind": "official", "why": f"no {SAMPLE_MARKER}; {self.name} checks nothing further"}

    @abstractmethod
    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        """The metadata files a task is loaded from (hashed for the data version)."""

    @abstractmethod
    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        """Write the synthetic sample benchmark in the official layout; returns questions written per task."""

    # -- answers ----------------------------------------------------------------------------------------

    def passthrough(self, task: str) -> bool:
        """Whether a task's raw answers are scored as they are (no extraction)."""
        return False

    @abstractmethod
    def extract(self, item: Item, text: str) -> str | None:
        """The canonical answer in ``text`` by rules, or ``None`` when the rules cannot tell (never a guess)."""

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        """The LLM fallback's prompt for an answer the rules left, or ``None`` when the task has no fallback."""
        return None

    @abstractmethod
    def random_answer(self, item: Item, rng: random.Random) -> str:
        """A uniform guess over the question's answer space, phrased as an answer."""

    @abstractmethod
    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        """The ground truth phrased the way real models answer (refine and eval must get it back to 100%)."""

    # -- scoring ----------------------------------------------------------------------------------------

    def evaluate(self, request: EvalRequest) -> Scored:
        """Gather the responses (journals or official predictions) and score them.

        Tasks without data are skipped here and reported by :meth:`score` through ``coverage``.
        """
        if request.predictions is not None:
            responses = self.read_predictions(request.predictions, request.data_root, request.tasks)
        else:
            responses = {
                task.name: journal_responses(request.paths, task.name, self.load(request.data_root, task))
                for task in request.tasks
                if request.paths.refine_journal(task.name).is_file()
                or request.paths.infer_journal(task.name).is_file()
            }
        return self.score(responses, profile=request.profile, options=request.options)

    def score(
        self, responses: Mapping[str, Sequence[Response]], *, profile: str, options: Mapping[str, Any]
    ) -> Scored:
        """Score every selected task's responses in both profiles; ``profile`` is the one at the top level.

        ``responses`` maps each selected task to one response per loaded item, in load order. ``options`` holds
        benchmark-specific eval settings passed through from the command line (for example FENSE models).
        A plug-in implements this, or overrides :meth:`evaluate` when its scorer reads its files itself.
        """
        raise NotImplementedError(f"benchmark {self.name} implements neither score() nor evaluate()")

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """Responses from the official pipeline's output format (``eval --predictions``); raises DatasetError."""
        raise AvibenchError(f"benchmark {self.name} cannot rescore official prediction files")

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """Write responses in the official pipeline's output format (``export --format reference``)."""
        raise AvibenchError(f"benchmark {self.name} has no official prediction format to export")

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        """The few lines ``eval`` prints (default: task scores of the primary profile)."""
        summary = document.get("summary", {})
        tasks = summary.get("tasks", {})
        lines = [f"{'task':<16}{'score':>9}"]
        lines += [f"{name:<16}{'-' if v is None else f'{v:.2f}':>9}" for name, v in tasks.items()]
        if summary.get("headline") is not None:
            lines.append(f"{'headline':<16}{summary['headline']:>9.2f}")
        return lines

    def reported_task(self, task: str) -> str:
        """The task a folder's items are reported under (AVI-Bench pools VSQA_I and VSQA_V into VSQA)."""
        return task

    def run_of(self, item: Item) -> str | None:
        """Which repeated run of the benchmark an item belongs to (a rotation, a repeat), for run-to-run spread.

        ``None`` (the default) means the benchmark is asked once; the variants of an item are then only grouped,
        never compared with each other.
        """
        return None

    def aggregate_scores(self, tasks: Mapping[str, float | None]) -> dict[str, float | None]:
        """The benchmark's summary numbers (0-100) from its reported task scores, for confidence intervals.

        The default is the unweighted mean of the scored tasks, named ``headline``; a benchmark whose headline
        is computed otherwise (stages, weights, a taxonomy) overrides this with its own formula.
        """
        scored = [v for v in tasks.values() if v is not None]
        return {"headline": sum(scored) / len(scored) if scored else None}

    def aggregate_members(self) -> dict[str, tuple[str, ...]]:
        """For each name of :meth:`aggregate_scores`, the reported tasks it rests on (for incomplete badges)."""
        return {"headline": tuple(dict.fromkeys(self.reported_task(t.name) for t in self.tasks()))}

    def published(self) -> list[dict[str, Any]]:
        """Published results as rows of ``{"model", "tasks": {...}, "headline", "source"}``."""
        return []

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        """Benchmark-specific report sections (document-model blocks) added after the scores."""
        return []

    def build_report(self, paths: RunPaths, options: Any = None) -> Any:
        """The run report as a document (default: the generic report with :meth:`report_blocks`).

        ``options`` is an :class:`avibench.evaluate.sections.ReportOptions` (prices, published models shown).
        """
        from avibench.evaluate.report import build_report

        return build_report(self, paths, options)

    def write_leaderboard(self, output_dir: Path, options: Any = None) -> tuple[Path, ...]:
        """Write the benchmark's leaderboard pages; returns their paths.

        ``options`` is an :class:`avibench.evaluate.board_runs.BoardOptions` (runs selected, whether runs on
        other data are ranked)."""
        from avibench.evaluate.leaderboard import write_leaderboard

        return write_leaderboard(self, output_dir, options)


def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def benchmark_names() -> list[str]:
    return sorted(_entry_points())


@cache
def get_benchmark(name: str) -> Benchmark:
    """The installed benchmark plug-in called ``name``; an unknown name lists the installed ones."""
    ep = _entry_points().get(name.strip().lower())
    if ep is None:
        known = ", ".join(benchmark_names()) or "none installed"
        raise AvibenchError(f"unknown benchmark {name!r}; installed benchmarks: {known}")
    cls = ep.load()
    if not (isinstance(cls, type) and issubclass(cls, Benchmark)):
        raise AvibenchError(f"benchmark {name!r} ({ep.value}) is not an avibench.plugin.Benchmark subclass")
    return cls()
