"""VoiceBench as a benchmark plug-in: one task per subset, each scored by its official evaluator.

Every question is its spoken instruction alone (the official ``--modality audio``). Open subsets and sd-qa are
judged at eval time by the official judge (``--judge-model``, ``--judge-base-url``, ``--judge-concurrency``; key
from ``JUDGE_API_KEY`` or ``OPENAI_API_KEY``); the others are scored by rules. The default tasks are the nine of
the leaderboard's Overall (``alpacaeval_full``, not the 199-question ``alpacaeval``); ``--tasks all`` adds it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from avibench.benchmarks.voicebench import layout, predictions, sample
from avibench.contracts import journal_responses
from avibench.errors import AvibenchError
from avibench.items import Item, Response
from avibench.level_metrics.voicebench import OVERALL_PARTS, STRICT
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task
from avibench.refine.voicebench import bbh_answer, mcq_choice

if TYPE_CHECKING:
    from avibench.benchmarks.voicebench.judging import VoiceJudgeSettings
    from avibench.benchmarks.voicebench.scoring import Inputs

TASKS = tuple(Task(s.name, s.title, s.evaluator) for s in layout.SUBSETS)
OVERALL_TASKS = tuple(name for name, _, _ in OVERALL_PARTS)
PASSTHROUGH = ("open", "qa", "ifeval", "harm")


def _subset(item: Item) -> layout.Subset:
    return layout.BY_NAME[item.task]


class VoiceBench(Benchmark):
    """VoiceBench (Chen et al., 2024): spoken instructions to voice assistants, ten subsets."""

    name: ClassVar[str] = "voicebench"
    title: ClassVar[str] = "VoiceBench"
    download_root: ClassVar[Path] = Path("data/voicebench")
    sample_root: ClassVar[Path] = Path("data/voicebench-sample")

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def default_tasks(self) -> tuple[Task, ...]:
        return tuple(t for t in TASKS if t.name in OVERALL_TASKS)

    def expand(self, name: str) -> tuple[Task, ...] | None:
        if name.lower() == "all":
            return TASKS
        if name.lower() == "overall":
            return self.default_tasks()
        return None

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in TASKS if layout.BY_NAME[t.name].present_splits(root))

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        subset = layout.BY_NAME[task.name]
        return tuple(subset.split_path(root, s) for s in subset.present_splits(root))

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load(root, layout.BY_NAME[task.name])

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        present = self.available(root)
        if not present:
            return [
                Problem(str(root), "no VoiceBench subset folder with split files (<subset>/<split>.jsonl)")
            ]
        return [
            Problem(str(path), message, index, name)
            for task in tasks
            if task in present
            for path, index, name, message in layout.validate(root, layout.BY_NAME[task.name])
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return sample.generate_all(Path(out), seed=seed, full_size=full_size)

    # -- answers ----------------------------------------------------------------------------------------

    def passthrough(self, task: str) -> bool:
        return layout.BY_NAME[task].evaluator in PASSTHROUGH

    def extract(self, item: Item, text: str) -> str | None:
        """The letter (MCQ) or verdict (BBH) the strict reading finds; ``None`` where it finds none."""
        evaluator = _subset(item).evaluator
        if evaluator == "mcq":
            return mcq_choice(text, word_boundaries=not STRICT.mcq_substring_templates)
        if evaluator == "bbh":
            verdict = bbh_answer(text, str(item.source["id"]), fix_typos=not STRICT.bbh_rules_as_written)
            if verdict is None:
                return None
            if str(item.answer).lower() in ("yes", "no"):
                return "yes" if verdict else "no"
            return "(B)" if verdict else "(A)"
        return text

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, _subset(item).evaluator, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, _subset(item).evaluator, rng)

    # -- scoring ----------------------------------------------------------------------------------------

    def eval_options(self) -> list[Any]:
        from avibench.benchmarks.voicebench.judging import DEFAULT_JUDGE_MODEL, VoiceJudgeSettings

        return VoiceJudgeSettings.cli_options(DEFAULT_JUDGE_MODEL)

    def evaluate(self, request: EvalRequest) -> Scored:
        from avibench.benchmarks.voicebench.judging import DEFAULT_JUDGE_MODEL, SAMPLES, VoiceJudgeSettings
        from avibench.benchmarks.voicebench.scoring import Inputs, build_document

        inputs = Inputs()
        recorded = self._gather_responses(request, inputs)
        settings = VoiceJudgeSettings.from_options(request.options, DEFAULT_JUDGE_MODEL)
        errors, judge_stats = self._judge_open_subsets(request, inputs, recorded, settings)
        document, per_sample = build_document(inputs, request.profile, [t.name for t in request.tasks])
        if inputs.judging:
            document["meta"]["judge"] = {
                "model": settings.model,
                **settings.params(),
                "samples": SAMPLES,
                "template": "voicebench/judge.json",
                **judge_stats,
            }
        return Scored(document=document, errors=errors, per_sample=per_sample)

    def _gather_responses(self, request: EvalRequest, inputs: Inputs) -> dict[str, dict[str, list[str]]]:
        """Fill ``inputs`` with each task's responses (from ``--predictions`` or the run's journals) or why it has
        none; returns the judge replies the prediction files recorded (subset -> item key -> replies)."""
        present = [t for t in request.tasks if t in self.available(request.data_root)]
        for task in request.tasks:
            if task not in present:
                inputs.absent[task.name] = f"no {task.name}/<split>.jsonl under {request.data_root}"
        if request.predictions is not None:
            items = {t.name: self.load(request.data_root, t) for t in present}
            read = predictions.read(request.predictions, items)
            inputs.responses = read.responses
            for task in present:
                if task.name not in inputs.responses:
                    inputs.absent[task.name] = f"no output file for {task.name} in {request.predictions}"
            return read.recorded
        for task in present:
            if (
                request.paths.infer_journal(task.name).is_file()
                or request.paths.refine_journal(task.name).is_file()
            ):
                items = self.load(request.data_root, task)
                inputs.responses[task.name] = journal_responses(request.paths, task.name, items)
            else:
                inputs.absent[task.name] = f"no infer journal {request.paths.infer_journal(task.name)}"
        return {}

    def _judge_open_subsets(
        self,
        request: EvalRequest,
        inputs: Inputs,
        recorded: Mapping[str, dict[str, list[str]]],
        settings: VoiceJudgeSettings,
    ) -> tuple[list[str], dict[str, int]]:
        """Judge the open subsets and sd-qa into ``inputs``; (errors, judge request counts)."""
        from avibench.benchmarks.voicebench import pedant
        from avibench.benchmarks.voicebench.judging import judge

        errors: list[str] = []
        judge_stats = {"requests_sent": 0, "replies_reused": 0}
        for name, responses in inputs.responses.items():
            evaluator = layout.BY_NAME[name].evaluator
            if evaluator not in ("open", "qa"):
                continue
            try:
                judging = judge(responses, evaluator, request.paths.root, settings, recorded.get(name, {}))
            except AvibenchError as exc:
                inputs.unjudged[name] = str(exc)
                errors.append(f"{name} not scored: {exc}")
                continue
            inputs.judging[name] = judging
            judge_stats["requests_sent"] += judging.requests
            judge_stats["replies_reused"] += judging.reused
            if evaluator == "qa":
                inputs.pedant, inputs.pedant_problem = pedant.load()
        return errors, judge_stats

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        lines = super().summary_lines(document)
        coverage = document.get("coverage", {})
        lines += [
            f"note: {name}: {entry['reason']}"
            for name, entry in coverage.items()
            if entry.get("status") == "scored" and entry.get("reason")
        ]
        return lines

    def aggregate_scores(self, tasks: Mapping[str, float | None]) -> dict[str, float | None]:
        """The README's Overall: the mean of the nine leaderboard subsets on 0-100."""
        values = [tasks.get(name) for name in OVERALL_TASKS]
        if any(v is None for v in values):
            return {"overall": None}
        return {"overall": sum(values) / len(values)}  # type: ignore[arg-type]

    def aggregate_members(self) -> dict[str, tuple[str, ...]]:
        return {"overall": OVERALL_TASKS}

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        items = {t.name: self.load(root, t) for t in tasks if t in self.available(root)}
        return predictions.read(path, items).responses

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        return predictions.write(responses, out)
