"""VoiceBench as a benchmark plug-in: one task per subset, each scored by its official evaluator.

Every question is its spoken instruction alone (the official ``--modality audio``). Open subsets and sd-qa are
judged at eval time by the official judge (``--judge-model``, ``--judge-base-url``, ``--judge-concurrency``; key
from ``JUDGE_API_KEY`` or ``OPENAI_API_KEY``); the others are scored by rules. The default tasks are the nine of
the leaderboard's Overall (``alpacaeval_full``, not the 199-question ``alpacaeval``); ``--tasks all`` adds it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any, ClassVar

from avibench.benchmarks.voicebench import layout, pedant, predictions, sample
from avibench.benchmarks.voicebench.options import eval_options as declared_options
from avibench.benchmarks.voicebench.scoring import JUDGES, OPEN, Inputs, Readings, judge_messages
from avibench.contracts import RunPaths
from avibench.items import Item, Response
from avibench.kits.judged import judge_paragraph, judge_parts
from avibench.level_metrics.task_metrics import Aggregate, official
from avibench.level_metrics.voicebench import (
    BBH_GOLD,
    OVERALL,
    STRICT,
    SubsetMetric,
    official_dict,
    overall_of,
)
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredView, Task
from avibench.refine.voicebench import bbh_answer, mcq_choice

if TYPE_CHECKING:
    from avibench.level_metrics.task_metrics import Metric

TASKS = tuple(
    Task(s.name, s.title, s.evaluator, metric=SubsetMetric(s.name, s.evaluator, s.multi_split))
    for s in layout.SUBSETS
)


def _evaluator(item: Item) -> str:
    return layout.BY_NAME[item.task].evaluator


class VoiceBench(Benchmark):
    """VoiceBench (Chen et al., 2024): spoken instructions to voice assistants, ten subsets."""

    name: ClassVar[str] = "voicebench"
    title: ClassVar[str] = "VoiceBench"
    download_root: ClassVar[Path] = Path("data/voicebench")
    sample_root: ClassVar[Path] = Path("data/voicebench-sample")
    aggregates: ClassVar[Mapping[str, Aggregate]] = {
        "overall": official(overall_of, *OVERALL),
        "headline": official(overall_of, *OVERALL),  # the same number, under the name pages read
    }
    #: the official evaluators print full floats
    score_digits: ClassVar[int | None] = None
    #: an answer without a response is left out of every number (and makes its subset partial) in both profiles
    strict_drops_unanswered: ClassVar[bool] = True
    #: The readings of the eval being scored (set by :meth:`score_inputs`; none before one).
    _readings: Readings = Readings.of(Inputs())

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def default_tasks(self) -> tuple[Task, ...]:
        return tuple(t for t in TASKS if t.name in OVERALL)

    def expand(self, name: str) -> tuple[Task, ...] | None:
        return {"all": TASKS, "overall": self.default_tasks()}.get(name.lower())

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
            p for task in tasks if task in present for p in layout.validate(root, layout.BY_NAME[task.name])
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return sample.generate_all(Path(out), seed=seed, full_size=full_size)

    def passthrough(self, task: str) -> bool:
        return layout.BY_NAME[task].evaluator not in ("mcq", "bbh")  # the others are read whole

    def extract(self, item: Item, text: str) -> str | None:
        """The letter (MCQ) or verdict (BBH) the strict reading finds; ``None`` where it finds none."""
        evaluator = _evaluator(item)
        if evaluator == "mcq":
            return mcq_choice(text, word_boundaries=not STRICT.mcq_substring_templates)
        if evaluator == "bbh":
            verdict = bbh_answer(text, str(item.source["id"]), fix_typos=not STRICT.bbh_rules_as_written)
            forms = ("no", "yes") if str(item.answer).lower() in ("yes", "no") else ("(A)", "(B)")
            return None if verdict is None else forms[verdict]
        return text

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, _evaluator(item), rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, _evaluator(item), rng)

    def read(self, response: Response, profile: str) -> Any:
        """The answer's reading in ``profile`` (:mod:`avibench.benchmarks.voicebench.scoring`), made with the
        eval's judge replies before the core scores; ``None`` without an answer (or an MCQ/BBH answer the strict
        profile cannot read, which it scores wrong)."""
        if response.status != "answered" or response.raw is None:
            return None
        return self._readings.reading(response, profile)

    def item_value(self, answer: Any, item: Item) -> Any:
        """The value the subset's official dict is made from (see :mod:`avibench.level_metrics.voicebench`)."""
        evaluator = _evaluator(item)
        if evaluator in ("mcq", "bbh"):
            parsed, chosen = answer if answer is not None else (None, None)
            if evaluator == "bbh":
                return [parsed, chosen, BBH_GOLD[str(item.answer).lower()]]
            return [item.meta["split"], parsed, chosen, str(item.answer)]
        if evaluator == "harm":
            return answer  # whether it is a refusal
        if evaluator == "open":
            return list(answer or ())
        if not answer:
            return None
        return [list(part) for part in answer] if evaluator == "ifeval" else list(answer)

    def item_score(self, answer: Any, item: Item) -> float | None:
        """One question's score (0-1): the mean judge score over 5, the verdict, the choice against the gold one,
        every instruction followed strictly, a refusal; ``None`` where the profile scores no value."""
        value = self.item_value(answer, item)
        evaluator = _evaluator(item)
        if evaluator == "open":
            return fmean(value) / 5 if value else None
        if evaluator == "qa":
            return None if value is None or value[1] is None else float(value[1])
        if evaluator in ("mcq", "bbh"):
            return float(value[-2] == value[-1])
        if evaluator == "ifeval":
            return None if value is None else float(all(value[0]))
        return None if value is None else float(value)

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """The declared metric; sd-qa's knows the splits the eval asked (one without a verdict voids it)."""
        metric = super().metric_of(task, profile)
        if isinstance(metric, SubsetMetric) and metric.evaluator == "qa":
            return replace(metric, splits=self._readings.splits(task))
        return metric

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """Each selected subset's official dict (``None``: not scored) and ``overall``."""
        document: dict[str, Any] = {name: self._official_dict(name, view) for name in view.tasks}
        document["overall"] = view.numbers.get("overall")
        return document

    def _official_dict(self, name: str, view: ScoredView) -> dict[str, Any] | None:
        rows = view.rows.get(name)
        subset = layout.BY_NAME[name]
        inputs = self._readings.inputs
        if rows is None or (subset.evaluator in ("open", "qa") and name not in inputs.judging):
            return None
        if subset.evaluator == "qa":  # PEDANT reads every answer, the judge's verdicts only some
            values = [row.value for row in rows if row.value is not None]
            return official_dict(
                "qa", values, splits=self._readings.splits(name), pedant=inputs.pedant is not None
            )
        values = [row.value for row in rows if row.score is not None]
        return official_dict(subset.evaluator, values, multi_split=subset.multi_split)

    eval_options = staticmethod(declared_options)

    def evaluate(self, request: EvalRequest) -> Scored:
        """Judge the open subsets and sd-qa (each journaled on its own, never re-sent; the replies an official
        result file recorded are taken as they are), then score everything through the core."""
        recorded: dict[str, dict[str, list[str]]] = {}
        if request.predictions is not None:
            present = [t for t in request.tasks if t in self.available(request.data_root)]
            items = {t.name: self.load(request.data_root, t) for t in present}
            responses, recorded = predictions.read(request.predictions, items)
        else:
            responses = self.journal_inputs(request)[0]
        settings = OPEN.settings(request.options)
        judgings = judge_parts(
            {
                name: partial(
                    JUDGES[evaluator].judge_responses,
                    answers,
                    partial(judge_messages, evaluator),
                    request.paths.root,
                    settings,
                    name=name,
                    recorded=recorded.get(name),
                )
                for name, answers in responses.items()
                if (evaluator := layout.BY_NAME[name].evaluator) in JUDGES
            }
        )
        inputs = Inputs(responses=responses, judging=judgings.verdicts, unjudged=judgings.unjudged)
        if any(layout.BY_NAME[name].evaluator == "qa" for name in judgings.verdicts):
            inputs.pedant, inputs.pedant_problem = pedant.load()
        scored = self.score_inputs(inputs, request.profile, request.tasks, request.options)
        scored.errors = judgings.errors
        scored.notes += judgings.notes
        if inputs.judging:
            scored.document["meta"]["judge"] = OPEN.meta(settings, OPEN.template(), inputs.judging.values())
        return scored

    def score_inputs(
        self, inputs: Inputs, profile: str, tasks: Sequence[Task], options: Mapping[str, Any] | None = None
    ) -> Scored:
        """Read every answer of ``inputs`` in both profiles, then score through the core; coverage adds what only
        the readings know (judge failures, an IFEval check that cannot run, sd-qa without PEDANT)."""
        self._readings = Readings.of(inputs)
        scored = super().score(inputs.responses, profile=profile, options=options or {}, tasks=tasks)
        for name, entry in scored.document["coverage"].items():
            self._readings.annotate(entry, name, profile)
        scored.document["meta"] = {"voicebench": self._readings.meta()}
        return scored

    def model_files(self, options: Mapping[str, Any]) -> Sequence[Path]:
        """PEDANT's classifier and vectorizer (sd-qa's ``panda``), where configured."""
        return pedant.model_files()

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        """The task scores, then a note for each scored subset whose coverage gives a reason."""
        coverage = document.get("coverage", {}).items()
        notes = [
            f"note: {n}: {e['reason']}"
            for n, e in coverage
            if e.get("status") == "scored" and e.get("reason")
        ]
        return super().summary_lines(document) + notes

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        """The judge's settings and requests, where subsets were judged."""
        return judge_paragraph(document)

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        return predictions.write(responses, out)
