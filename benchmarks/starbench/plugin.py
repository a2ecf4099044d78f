"""STAR-Bench as a benchmark plug-in: the official ``meta_info/`` layout, its rotations, parser and AA/ACR scoring.

Every dataset alias (``pc``, ``pc_sp``, ``pc_nsp``, ``tr``, ``tr_cap``, ``tr_uncut``, ``sr``, ``sr_ch``) is a task;
the official groups (``starbench_default``, the default tasks, and ``starbench_all``, ...) and ``+``-joined lists
select several. Each item is asked once per run (rotated options, or permuted clips for the temporal datasets),
keyed ``id@k`` as the official runner keys it. ``sr_ch`` sends the two ears of the binaural recording as two clips
(:class:`~avibench.items.Part` with ``channel``); the backend encodes each channel in memory per request, so nothing
is ever written beside the data.

Refine records the strict parser's choice as the option's text; there is no LLM fallback, because the official
parser is rule-based and both profiles parse the raw answer themselves when scoring.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.starbench import layout, report, sample
from avibench.benchmarks.starbench.predictions import read_workdir, write_workdir
from avibench.benchmarks.starbench.published import DATA_VERSION, PUBLISHED
from avibench.benchmarks.starbench.scoring import score_responses
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.items import Item, Response
from avibench.level_metrics.starbench_parse import LETTERS, parse_choice
from avibench.level_metrics.starbench_profile import STRICT
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task

GROUP_TITLES = {"pc": "perception", "tr": "temporal reasoning", "sr": "spatial reasoning"}
TITLES = {
    "pc": "Foundational perception (all)",
    "pc_sp": "Foundational perception, spatial",
    "pc_nsp": "Foundational perception, non-spatial",
    "tr": "Temporal reasoning",
    "tr_cap": "Temporal reasoning with the scene's caption",
    "tr_uncut": "Temporal reasoning with the uncut recording",
    "sr": "Spatial reasoning",
    "sr_ch": "Spatial reasoning, binaural channels as two clips",
}
#: Report order: perception, temporal, spatial (the paper's order).
TASKS: tuple[Task, ...] = tuple(
    Task(alias, TITLES[alias], GROUP_TITLES[layout.DATASETS[alias].family])
    for alias in ("pc", "pc_sp", "pc_nsp", "tr", "tr_cap", "tr_uncut", "sr", "sr_ch")
)
BY_NAME = {t.name: t for t in TASKS}


class STARBench(Benchmark):
    """STAR-Bench (InternLM): spatial-temporal audio reasoning, scored as AA and ACR over rotated runs."""

    name: ClassVar[str] = layout.BENCHMARK
    title: ClassVar[str] = "STAR-Bench"
    templates: ClassVar[tuple[str, ...]] = ("official",)
    download_root: ClassVar[Path] = Path("data/starbench")
    sample_root: ClassVar[Path] = Path("data/starbench-sample")

    # -- tasks ------------------------------------------------------------------------------------------

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def default_tasks(self) -> tuple[Task, ...]:
        return self.expand(layout.DEFAULT_GROUP) or ()

    def expand(self, name: str) -> tuple[Task, ...] | None:
        """Aliases, the official group names and ``+``-joined lists of them."""
        try:
            return tuple(BY_NAME[a] for a in layout.resolve_datasets([name]))
        except ValueError as exc:
            raise AvibenchError(str(exc)) from None

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in TASKS if (Path(root) / layout.DATASETS[t.name].meta_file).is_file())

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / layout.DATASETS[task.name].meta_file,)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load_items(root, task.name)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.validate(root, [t.name for t in tasks])

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        """The sample; returns the questions (runs) each dataset asks."""
        sample.generate(out, seed=seed, full_size=full_size)
        return {t.name: len(self.load(out, t)) for t in TASKS}

    # -- answers ----------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        """The text of the option the strict parser finds (``None`` when it finds none)."""
        letter = parse_choice(text, item.options, STRICT).letter
        return None if letter is None else item.options[LETTERS.index(letter)]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, rng)

    # -- scoring ----------------------------------------------------------------------------------------

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score, and list the selected datasets that have no answers at all in ``coverage``."""
        scored = super().evaluate(request)
        coverage = scored.document["coverage"]
        source = "no infer_results.jsonl" if request.predictions is not None else "no infer journal"
        for task in request.tasks:
            coverage.setdefault(task.name, {"status": "not_scored", "reason": source})
        return scored

    def score(
        self, responses: Mapping[str, Sequence[Response]], *, profile: str, options: Mapping[str, Any]
    ) -> Scored:
        return score_responses(responses, profile)

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """One model's official work directory: ``<alias>/infer_results.jsonl`` per dataset."""
        found = [t for t in tasks if (Path(path) / t.name).is_dir()]
        responses = read_workdir(Path(path), {t.name: self.load(root, t) for t in found})
        if not responses:
            names = ", ".join(t.name for t in tasks)
            raise AvibenchError(
                f"{path}: no <dataset>/infer_results.jsonl for the selected datasets ({names})"
            )
        return responses

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The official work directory; both stages write the raw answers (the official file holds them)."""
        return write_workdir(responses, out)

    # -- pages ------------------------------------------------------------------------------------------

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        return report.summary_lines(document)

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        return report.report_blocks(document)

    def published(self) -> list[dict[str, Any]]:
        """The paper's table (data v0.5); its MA does not say whether it is AA or ACR."""
        columns = {"pc": "perception", "tr": "temporal", "sr": "spatial"}
        return [
            {
                "model": f"{p.model} ({DATA_VERSION})",
                "tasks": {alias: getattr(p, field) for alias, field in columns.items()},
                "headline": p.ma,
                "source": f"STAR-Bench paper, data {DATA_VERSION}; MA as printed, AA or ACR not stated",
            }
            for p in PUBLISHED
        ]
