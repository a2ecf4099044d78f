"""AVI-Bench as a benchmark plug-in: the official ``<stage>/<TASK>/data.json`` layout, its refine rules and scorers.

Each data.json entry is one :class:`~avibench.items.Item`: its images, audios, video and then its text, in that order
(the retrieval tasks' indices depend on it). A double-confirm pre-question is the ``pre`` variant of its formal
entry. Questions are keyed by their position in data.json, because AVI-Bench ids are not unique within a task.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.avibench.dataset import (
    Sample,
    available_tasks,
    file_key,
    load_task,
    memoised,
    task_dir,
)
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.config import user_cache_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.items import Item, Part, Response
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task

PRE_VARIANT = "pre"
#: The chance levels' cache file in the user cache folder: they depend on the dataset only, so every output dir
#: shares them.
CHANCE_CACHE = "avibench-chance.json"
_ITEMS: dict[tuple[Any, ...], tuple[Item, ...]] = {}


def item_of(sample: Sample) -> Item:
    """The common item of one data.json entry."""
    parts = [
        *(Part.image(p) for p in sample.images),
        *(Part.audio(p) for p in sample.audios),
        *((Part.video(sample.video),) if sample.video else ()),
        Part.text(sample.text),
    ]
    return Item(
        benchmark=AVIBENCH.name,
        task=sample.task,
        item_id=sample.formal_id,
        variant=PRE_VARIANT if sample.is_pre else "",
        index=sample.index,
        parts=tuple(parts),
        answer=sample.answer,
        options=tuple(str(o) for o in sample.options) if isinstance(sample.options, list) else (),
        meta={"id": sample.id, "subtask": sample.subtask},
        key_override=str(sample.index),
        source=sample,
    )


class AVIBench(Benchmark):
    """AVI-Bench (ICML 2026): 14 tasks in 15 folders over four stages."""

    name: ClassVar[str] = AVIBENCH.name
    title: ClassVar[str] = "AVI-Bench"
    templates: ClassVar[tuple[str, ...]] = ("official",)
    download_root: ClassVar[Path] = Path("data/levels")
    sample_root: ClassVar[Path] = Path("data/sample")

    def tasks(self) -> tuple[Task, ...]:
        return AVIBENCH.tasks  # type: ignore[return-value]

    def expand(self, name: str) -> tuple[Task, ...] | None:
        folders = AVIBENCH.folders_of(name.upper())
        return folders if folders and name.upper() not in AVIBENCH.task_names else None  # type: ignore[return-value]

    def available(self, root: Path) -> tuple[Task, ...]:
        return available_tasks(root)  # type: ignore[return-value]

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (task_dir(root, AVIBENCH.task(task.name)) / "data.json",)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        spec = AVIBENCH.task(task.name)
        folder = task_dir(root, spec)
        key = file_key(folder / "data.json")
        items = memoised(
            _ITEMS,
            None if key is None else (*key, str(folder), spec),
            lambda: tuple(item_of(s) for s in load_task(root, spec)),
        )
        return list(items)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        from avibench.benchmarks.avibench.validate import validate_dataset

        return validate_dataset(root, tuple(AVIBENCH.task(t.name) for t in tasks))

    def dataset_kind(self, root: Path, tasks: Sequence[Task]) -> dict[str, str]:
        from avibench.benchmarks.avibench.official import dataset_kind

        return dataset_kind(root, [t.name for t in tasks])

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        from avibench.benchmarks.avibench.sample_data import generate

        return generate(out, seed=seed, full_size=full_size)

    # -- answers ----------------------------------------------------------------------------------------

    def passthrough(self, task: str) -> bool:
        return AVIBENCH.task(task).family == "passthrough"

    @staticmethod
    def _context(item: Item) -> Any:
        from avibench.refine.context import context_for

        return context_for(item.source)

    def extract(self, item: Item, text: str) -> str | None:
        from avibench.refine.rules import apply_rules

        return apply_rules(text, self._context(item))

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        from avibench.refine.llm_fallback import build_prompt

        return build_prompt(raw, self._context(item))

    def random_answer(self, item: Item, rng: random.Random) -> str:
        from avibench.benchmarks.avibench.metric_kinds import metric_kind

        return metric_kind(item.source.spec.metric).random_answer(item.source, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        from avibench.benchmarks.avibench.metric_kinds import metric_kind

        return metric_kind(item.source.spec.metric).oracle_answer(item.source, rng)

    # -- scoring ----------------------------------------------------------------------------------------

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score with the AVI-Bench scorer, which reads the refine journals (or reference files) itself.

        The reference pools VSQA_I and VSQA_V by concatenating their prediction files, so the scorer needs the
        files as they are, not only one response per entry.
        """
        from avibench.benchmarks.avibench.fense import ENV_MODE, FenseConfig
        from avibench.benchmarks.avibench.predictions import reference_file_path
        from avibench.benchmarks.avibench.scoring import evaluate

        predictions = request.predictions
        specs = tuple(AVIBENCH.task(t.name) for t in request.tasks)
        if predictions is not None and not any(reference_file_path(predictions, spec) for spec in specs):
            raise AvibenchError(
                f"no prediction files for the selected tasks in {predictions} "
                "(expected <TASK>.json or tasks/<TASK>.json)"
            )
        try:
            fense = request.options.get("fense_config") or FenseConfig.from_env(request.options.get("fense"))
        except ValueError as exc:
            raise AvibenchError(f"{ENV_MODE}: {exc}") from None
        result = evaluate(
            data_root=request.data_root,
            specs=specs,
            source="predictions" if predictions is not None else "refine",
            source_dir=predictions if predictions is not None else request.paths.root,
            profile=request.profile,
            fense=fense,
            model=request.model,
            label=request.paths.label,
            fense_fn=request.options.get("fense_fn"),
            chance_cache=user_cache_dir() / CHANCE_CACHE,
        )
        return Scored(document=result.document, errors=result.errors, per_sample=result.per_sample)

    def eval_options(self) -> list[Any]:
        import click

        from avibench.benchmarks.avibench.fense import FENSE_MODES

        return [
            click.Option(
                ["--fense"],
                type=click.Choice(FENSE_MODES),
                default=None,
                help="FENSE models for AVC: real (configured local files), stand-in (packaged, not comparable) "
                "or off. Default: the FENSE mode set in the environment (README), else real.",
            )
        ]

    def reported_task(self, task: str) -> str:
        return AVIBENCH.task(task).paper_task

    def aggregate_scores(self, tasks: Mapping[str, float | None]) -> dict[str, float | None]:
        """Stages, Overall and L1-L4 exactly as eval.json computes them."""
        from avibench.level_metrics.aggregate import aggregate

        result = aggregate(tasks, benchmark=AVIBENCH)
        return {**result.stages, "overall": result.overall, **result.taxonomy}

    def aggregate_members(self) -> dict[str, tuple[str, ...]]:
        every = AVIBENCH.paper_tasks()
        stages = {stage.name: AVIBENCH.paper_tasks(stage.key) for stage in AVIBENCH.stages}
        familiar = tuple(t for stage in AVIBENCH.stages if stage.familiar for t in stages[stage.name])
        return {
            **stages,
            "overall": every,
            "l1_task": familiar,
            "l2_modality": familiar,
            "l3_stage": familiar,
            "l4_domain": every,
        }

    def published(self) -> list[dict[str, Any]]:
        """The paper's results, headline = Overall (the human reference included, as the paper lists it)."""
        from avibench.benchmarks.avibench.published import PAPER_URL, PUBLISHED

        return [
            {
                "model": r.model,
                "headline": r.overall,
                "tasks": {},
                "stages": r.stages or {},
                "source": PAPER_URL,
            }
            for r in PUBLISHED
            if r.overall is not None
        ]

    def build_report(self, paths: RunPaths, options: Any = None) -> Any:
        from avibench.benchmarks.avibench.report import build_report

        return build_report(paths, options)

    def write_leaderboard(self, output_dir: Path, options: Any = None) -> tuple[Path, ...]:
        from avibench.benchmarks.avibench.leaderboard import write_leaderboard

        return write_leaderboard(output_dir, options)

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        from avibench.benchmarks.avibench.table import summary_table

        return summary_table(document).splitlines()

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        from avibench.benchmarks.avibench.export import write_reference

        return write_reference(responses, out, stage=stage)
