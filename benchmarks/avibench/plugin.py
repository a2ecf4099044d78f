"""AVI-Bench as a benchmark plug-in: the official ``<stage>/<TASK>/data.json`` layout, its refine rules and scorers.

Each data.json entry is one :class:`~avibench.items.Item`: its images, audios, video and then its text, in that order
(the retrieval tasks' indices depend on it). A double-confirm pre-question is the ``pre`` variant of its formal
entry. Questions are keyed by their position in data.json, because AVI-Bench ids are not unique within a task.

Scoring is declared (:mod:`avibench.benchmarks.avibench.values`): a question's value is what the official scorer
reads of its entry, with the pre-questions that gate it and the numbers the scorer aggregates of it; each task's
metric totals its questions' numbers as the official scorer does, VSQA_I and VSQA_V pooled into VSQA; the core
does the rest. What a value needs beyond one
answer (pairing, gates, FENSE, image sizes, chance levels) is computed once before the core scores
(:mod:`avibench.benchmarks.avibench.scoring`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.avibench.baselines import candidates
from avibench.benchmarks.avibench.dataset import (
    Sample,
    available_tasks,
    file_key,
    load_task,
    memoised,
    task_dir,
)
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.benchmarks.avibench.options import eval_options as declared_options
from avibench.benchmarks.avibench.predictions import FileAnswers
from avibench.benchmarks.avibench.scoring import Context, Prepared, caption_text, prepare
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.benchmarks.avibench.values import (
    VSQA_HALVES,
    Reading,
    entry,
    gate_note,
    official_document,
    question_numbers,
    question_score,
    question_value,
    questions_numbers,
    task_metric,
)
from avibench.config import user_cache_dir
from avibench.errors import AvibenchError
from avibench.items import Item, Part, Response
from avibench.kits.published import board_rows, published_table
from avibench.level_metrics.aggregate import STAGE_NAMES
from avibench.level_metrics.common import Notes
from avibench.level_metrics.task_metrics import Metric
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredView, Task

PRE_VARIANT = "pre"
#: The chance levels' cache file in the user cache folder: they depend on the dataset only, so every output dir
#: shares them.
CHANCE_CACHE = "avibench-chance.json"
_ITEMS: dict[tuple[Any, ...], tuple[Item, ...]] = {}
PAPER_TASKS = AVIBENCH.paper_tasks()
#: The task folders, each declaring its paper-level task's official scorer (the core scores VSQA's two together).
TASKS = tuple(
    Task(s.name, s.title, s.group, metric=task_metric(s.paper_task, "reference")) for s in AVIBENCH.tasks
)
_BY_NAME = {t.name: t for t in TASKS}


def item_of(sample: Sample) -> Item:
    """The common item of one data.json entry."""
    parts = [
        *(Part.image(p) for p in sample.image_files),
        *(Part.audio(p) for p in sample.audio_files),
        *((Part.video(sample.video_file),) if sample.video_file else ()),
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
        options=tuple(map(str, sample.options)) if isinstance(sample.options, list) else (),
        meta={"id": sample.id, "subtask": sample.subtask},
        key_override=str(sample.index),
        source=sample,
    )


def readable_summary(summary: Mapping[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    """The core's summary with the primary profile's stages, Overall, L1-L4 (``taxonomy``) and how they were made
    (``taxonomy_note``) after its task scores, where AVI-Bench's eval.json has always kept them."""
    from avibench.benchmarks.avibench.table import summary_numbers, taxonomy_note

    numbers = summary_numbers(summary)
    shown = {**numbers, "taxonomy_note": taxonomy_note(summary, meta)}
    head = [k for k in ("scale", "profile", "tasks", "headline") if k in summary]
    return {
        **{k: summary[k] for k in head},
        **shown,
        **{k: v for k, v in summary.items() if k not in head and k not in shown},
    }


class AVIBench(Benchmark):
    """AVI-Bench (ICML 2026): 14 tasks in 15 folders over four stages."""

    name: ClassVar[str] = AVIBENCH.name
    title: ClassVar[str] = "AVI-Bench"
    templates: ClassVar[tuple[str, ...]] = ("official",)
    download_root: ClassVar[Path] = Path("data/levels")
    sample_root: ClassVar[Path] = Path("data/sample")

    score_digits: ClassVar[int] = 4
    #: the FENSE models AVC was scored with are in meta.fense, which every page states
    stated_options: ClassVar[frozenset[str]] = frozenset({"fense"})
    _eval_context: Context = Context()
    _run: Prepared
    _files: FileAnswers
    _last_value: tuple[Reading | None, Item | None, dict[str, Any]] = (None, None, {})

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def expand(self, name: str) -> tuple[Task, ...] | None:
        folders = AVIBENCH.folders_of(name.upper())
        if not folders or name.upper() in AVIBENCH.task_names:
            return None
        return tuple(_BY_NAME[f.name] for f in folders)

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(_BY_NAME[spec.name] for spec in available_tasks(root))

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
        """What the rules may know of a question: its options, question text, subtask and the media the model
        saw (never the ground truth)."""
        from avibench.refine.context import build_context

        sample = item.source
        text = sample.question.get("text")
        return build_context(
            sample.spec,
            question=text if isinstance(text, str) else "",
            options=sample.options,
            subtask=sample.subtask,
            prompt_text=sample.text,
            is_pre=sample.is_pre,
            n_candidates=len(candidates(sample)) or None,
            image=sample.images[0] if sample.images else None,
        )

    def extract(self, item: Item, text: str) -> str | None:
        from avibench.refine.rules import apply_rules

        return apply_rules(text, self._context(item))

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        from avibench.refine.llm_fallback import build_prompt

        return build_prompt(raw, self._context(item))

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return metric_kind(item.source.spec.metric).random_answer(item.source, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return metric_kind(item.source.spec.metric).oracle_answer(item.source, rng)

    # -- scoring: the declaration ---------------------------------------------------------------------------

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """The official scorer of a paper-level task in ``profile`` (VSQA over both folders)."""
        return task_metric(task, profile) if task in PAPER_TASKS else None

    def read(self, response: Response, profile: str) -> Reading | None:
        """The prediction the official scorer reads (refine's answer, or the prediction file's; in the reference
        profile VSQA's are paired by position across its two files, as the reference pools them)."""
        predict = self._run.readings[profile][response.item.task].get(response.item.index)
        return None if predict is None else Reading(profile, predict)

    def item_value(self, answer: Reading | None, item: Item) -> dict[str, Any]:
        """The entry as the official scorer reads it, with the pre-questions that gate it, its image size where
        its boxes need one and its caption's FENSE inputs (a strict question without an answer: no prediction)."""
        profile, predict = ("strict", None) if answer is None else answer
        run, task, index = self._run, item.task, item.index
        known = self._values(profile, task)
        value = None if known is None else known.get(index)
        if value is None or value["entries"][0]["predict"] is not predict:
            value = self._value(profile, task, item.source, predict)
            if metric_kind(item.source.spec.metric).records is not None:
                value["numbers"] = question_numbers(
                    value, profile, run.notes.setdefault((profile, task), Notes())
                )
        self._last_value = (answer, item, value)
        return value

    def _value(self, profile: str, task: str, sample: Sample, predict: str | None) -> dict[str, Any]:
        """A question's value without its numbers."""
        run, index = self._run, sample.index
        gating = [
            entry(run.samples[task][i], run.readings[profile][task].get(i))
            for i in run.gates[profile][task].get(index, ())
        ]
        pair = None if run.pairs is None else run.pairs.get((caption_text(predict) or "", index))
        value = question_value(sample, predict, gating, size=run.sizes.get(task, {}).get(index), fense=pair)
        if task in VSQA_HALVES:
            value["pooled_from"] = sorted(t for t in VSQA_HALVES if t in run.samples)
        return value

    def _values(self, profile: str, task: str) -> dict[int, dict[str, Any]] | None:
        """The values of a task folder's questions in ``profile``, by position, with their numbers read in one
        pass of the scorer (:func:`questions_numbers`): the questions the core values, every one in the strict
        profile and the answered ones in the reference profile. ``None`` for captions (no numbers)."""
        run = self._run
        if (profile, task) not in run.valued:
            samples = list(run.samples[task].values())
            readings = run.readings[profile][task]
            if metric_kind(AVIBENCH.task(task).metric).records is None:
                run.valued[(profile, task)] = None
            else:
                asked = [s for s in samples if profile == "strict" or readings.get(s.index) is not None]
                values = [self._value(profile, task, s, readings.get(s.index)) for s in asked]
                notes = run.notes.setdefault((profile, task), Notes())
                for value, numbers in zip(values, questions_numbers(values, profile, notes), strict=True):
                    value["numbers"] = numbers
                run.valued[(profile, task)] = {s.index: v for s, v in zip(asked, values, strict=True)}
        return run.valued[(profile, task)]

    def item_score(self, answer: Reading | None, item: Item) -> float | None:
        """The official scorer's own score of the entry (``None`` where it leaves it out: a pre-question, or a
        caption while FENSE is unavailable)."""
        if item.source.spec.metric == "caption" and self._run.pairs is None:
            return None
        last = self._last_value
        # the core values a question, then scores it: its value is not built twice
        value = last[2] if last[0] is answer and last[1] is item else self.item_value(answer, item)
        return question_score(value, "strict" if answer is None else answer.profile)

    def chance(self, item: Item) -> float | None:
        """The chance level of the entry's folder for a formal entry; a pre-question has none of its own."""
        return None if item.source.is_pre else self._run.chance[item.task] / 100

    def aggregate_scores(self, tasks: Mapping[str, float | None]) -> dict[str, float | None]:
        """Stages, Overall (also the headline) and L1-L4 from the paper-level task scores."""
        from avibench.level_metrics.aggregate import aggregate

        result = aggregate(tasks, benchmark=AVIBENCH)
        return {**result.stages, "overall": result.overall, **result.taxonomy, "headline": result.overall}

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
            "headline": every,
        }

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The reference evaluator's eval.json: stage -> task key -> its value (VSQA pooled when scored)."""
        return official_document(view)

    # -- scoring: what is computed once before the core scores ---------------------------------------------

    def score(
        self,
        responses: Mapping[str, Sequence[Response]],
        *,
        profile: str,
        options: Mapping[str, Any],
        tasks: Sequence[Task] = (),
    ) -> Scored:
        """The core's scoring, after what the values need beyond one answer is computed for the whole run."""
        from avibench.benchmarks.avibench.fense import ENV_MODE, FenseConfig

        try:
            fense = FenseConfig.from_env(options.get("fense"))
        except ValueError as exc:
            raise AvibenchError(f"{ENV_MODE}: {exc}") from None
        self._run = prepare(responses, self._eval_context, fense)
        return super().score(responses, profile=profile, options=options, tasks=tasks)

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """Official prediction files aligned with data.json (a file that cannot be read is an error and its task is
        not scored; what does not line up is noted in the task's coverage); VSQA's arrays are kept for pooling."""
        from avibench.benchmarks.avibench.predictions import file_answers, reference_file_path

        if not any(reference_file_path(path, AVIBENCH.task(t.name)) for t in tasks):
            raise AvibenchError(
                f"no prediction files for the selected tasks in {path} (expected <TASK>.json or tasks/<TASK>.json)"
            )
        self._files = file_answers(path, tasks, lambda t: self.load(root, t), self.available(root))
        self._eval_context = replace(self._eval_context, positional=self._files.positional)
        return self._files.responses

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals or official prediction files, then note what the scorer noted and state
        the FENSE models and the dataset's fingerprint."""
        from avibench.benchmarks.avibench.dataset import fingerprint

        self._files = FileAnswers()
        self._eval_context = Context(request.data_root, {}, user_cache_dir() / CHANCE_CACHE)
        try:
            scored = super().evaluate(request)
        finally:
            self._eval_context = Context()
        notes = dict(self._files.warnings)
        if self._run.pairs is None:  # FENSE unavailable: say why AVC has no score where its coverage is
            notes["AVC"] = [*notes.get("AVC", []), self._run.fense_meta["note"]]
            avc = scored.document["coverage"].get("AVC")
            if avc is not None and avc.get("status") == "not_scored":  # the cause, not the core's guess
                avc["reason"] = str(self._run.fense_meta["note"]).removeprefix("AVC is not scored: ")
        primary = request.profile
        for task in scored.document["coverage"]:
            if (noted := self._run.notes.get((primary, task))) is not None:
                notes[task] = [*notes.get(task, []), *noted.render()]
        for task, said in notes.items():
            if said and task in scored.document["coverage"]:
                scored.document["coverage"][task]["notes"] = said
        scored.errors.extend(self._files.errors)
        scored.document["meta"] = {
            "fense": self._run.fense_meta,
            "dataset_fingerprint": fingerprint(
                request.data_root, [AVIBENCH.task(t.name) for t in request.tasks]
            ),
        }
        summary = scored.document.get("summary")
        if isinstance(summary, dict):
            scored.document["summary"] = readable_summary(summary, scored.document["meta"])
        return scored

    def eval_options(self) -> list[Any]:
        return declared_options()

    def model_files(self, options: Mapping[str, Any]) -> Sequence[Path]:
        """The FENSE models AVC is scored with: the configured files (real), or the packaged sentence model
        (stand-in); none when FENSE is off or unavailable."""
        from avibench.benchmarks.avibench.fense import FenseConfig, stand_in_files

        try:
            fense = FenseConfig.from_env(options.get("fense"))
        except ValueError:
            return ()  # an unknown mode is reported where AVC is scored
        if fense.status == "real":
            return [p for p in (fense.sbert, fense.echecker, fense.bert) if p is not None]
        return stand_in_files() if fense.status == "stand-in" else ()

    def reported_task(self, task: str) -> str:
        return AVIBENCH.task(task).paper_task

    def has_chance(self, task: str) -> bool:
        """AVC's captions are scored by FENSE, with no answer space to guess from: no chance level."""
        return task not in {t.paper_task for t in AVIBENCH.tasks if t.metric == "caption"}

    def sample_note(self, values: Mapping[str, Any], profile: str) -> str | None:
        """The double-confirm pre-questions that gate the question, with their outcome in ``profile``."""
        value = values.get(profile)
        return gate_note(value, profile) if isinstance(value, Mapping) and value.get("entries") else None

    def published(self) -> list[dict[str, Any]]:
        """The paper's results, headline = Overall (the human reference included, as the paper lists it)."""
        return board_rows(
            published_table(self.name), headline="overall", groups={"stages": STAGE_NAMES}, scored_only=True
        )

    def report_page(self) -> Any:
        from avibench.benchmarks.avibench.report import REPORT_PAGE

        return REPORT_PAGE

    def leaderboard(self) -> Any:
        from avibench.benchmarks.avibench.leaderboard import BOARD

        return BOARD

    has_submission_format: ClassVar[bool] = True

    def submission_entry(
        self, document: Mapping[str, Any], label: str, fields: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        """The run's entry in the AVI-Bench leaderboard's ``results.json`` (schema v2) and the rules it breaks."""
        from avibench.benchmarks.avibench.submission import EntryFields, run_entry, validate_entry

        version = fields.get("benchmark_version") or published_table(self.name).facts["benchmark_version"]
        given = {**fields, "benchmark_version": version}
        entry = run_entry(document, label, EntryFields(**given))
        return entry, validate_entry(entry)

    def validate_submission(self, path: Path) -> tuple[int, list[str]]:
        from avibench.benchmarks.avibench.submission import read_results, validate_results

        results = read_results(path)
        problems = validate_results(results)
        return (0 if problems else len(results["entries"])), problems

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        from avibench.benchmarks.avibench.table import summary_table

        return summary_table(document).splitlines()

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        from avibench.benchmarks.avibench.predictions import write_reference

        return write_reference(responses, out, stage=stage)
