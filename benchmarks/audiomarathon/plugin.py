"""AudioMarathon as a benchmark plug-in: ten long-audio tasks under their leaderboard abbreviations.

A data root holds one folder per task (``layout`` lists the official metadata file of each). Each question is asked
once, keyed by its audio path (RACE questions that share a passage get ``#k``), with the task's official system
prompt, user text and output-token limit. Refine reads answers with the strict extractor (ASR: the transcript) and
has no LLM fallback: the official limits leave 5 to 10 tokens for an answer, too few for a judge to recover what
the rules cannot read. The reference profile always re-extracts from the raw reply with each task's own script
rules, so ``eval`` scores a run whether or not refine ran. ``eval --predictions DIR`` rescores the official result
files (``<TASK>_results.json``, ``SED_results.jsonl``) from the metadata alone; ``export`` writes them.

The plug-in declares how each profile reads a response and the record a question contributes (``read``, ``record_of``), each
task's official score over those records as its metric, the headline (the mean of the task scores), each profile's
chance levels and the official benchmark block; the core scores a run with them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from statistics import fmean
from typing import Any, ClassVar

import numpy as np

from avibench.benchmarks.audiomarathon import layout, results
from avibench.contracts import RunPaths
from avibench.file_memo import file_key, items_per_version
from avibench.items import Item, Response
from avibench.kits.published import board_rows, published_table
from avibench.level_metrics.audiomarathon import (
    REFERENCE,
    MarathonProfile,
    Record,
    benchmark_block,
    cached_wer,
    chance_level,
    class_pairs,
    defined_classes,
    get_profile,
    pair_scores,
    score_task,
    task_score,
)
from avibench.level_metrics.task_metrics import Aggregate, Metric, official
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredView, Task
from avibench.refine.audiomarathon import official_extract, strict_extract

DROPPED_ON_ERROR = ("SCR", "ASR")
"""Tasks whose script skips a sample whose request failed; the others keep it with an empty prediction."""


def read(response: Response, profile: str | MarathonProfile = REFERENCE) -> str | None:
    """The prediction ``profile`` reads from ``response``; ``None`` where it has none: unanswered (strict), or left
    out (reference: never asked, or a failed request of a task whose script drops it).

    Strict reads the refine stage's answer when refine ran (``method`` set) and extracts from the raw reply itself
    otherwise; the reference always re-extracts from the raw reply as the scripts do, and reads a failed request
    as the empty prediction the other scripts keep."""
    profile = get_profile(profile)
    item = response.item
    if response.status == "answered":
        if not profile.official_extraction and response.method is not None:
            return response.refined
        if profile.official_extraction:
            return official_extract(item.task, response.raw or "", item.options)
        return strict_extract(item.task, response.raw, item.options)
    if profile.skip_unanswered and response.status == "failed" and item.task not in DROPPED_ON_ERROR:
        return ""
    return None


def record_of(item: Item, pred: str | None) -> Record:
    """The scoring record of ``item`` answered ``pred``."""
    return Record(
        str(item.answer), str(item.meta["gold"]), pred, item.options, str(item.meta.get("group", ""))
    )


def task_metric(task: str, profile: str) -> Callable[[Sequence[Any]], float | None]:
    """The task's official score (0-100) in ``profile`` from the record values of the questions it scored: the
    task metric the core scores, resamples and compares with (sklearn-free, equal to the scripts' score)."""

    def metric(values: Sequence[Any]) -> float | None:
        found = [_record(v) for v in values]
        return task_score(task, found, profile) if found else None

    def resample(values: Sequence[Sequence[Any]], draws: Any) -> list[float | None]:
        """The score of every row of ``draws``; a class the task has that a row does not draw is left out of that
        row's F1 (:func:`pair_scores`). A choice or classification task's score depends only on how often each
        (truth, guess) pair occurs: the rows' pair counts are one matrix product, scored together. ASR's WER is
        not: each item's records are built once, each row scored."""
        items = [[_record(v) for v in item] for item in values]
        if task == "ASR":
            rows = ([r for i in row for r in items[i]] for row in draws.tolist())
            return [task_score(task, found, profile) if found else None for found in rows]
        found = [class_pairs(task, item, profile) for item in items]
        pairs = sorted({pair for item in found for pair in item})
        column = {pair: j for j, pair in enumerate(pairs)}
        per_item = np.zeros((len(items), len(pairs)))
        for i, item in enumerate(found):
            for pair in item:
                per_item[i, column[pair]] += 1
        rows = np.asarray(draws) + len(items) * np.arange(len(draws))[:, None]
        drawn = np.bincount(rows.ravel(), minlength=len(draws) * len(items)).reshape(len(draws), len(items))
        counts = drawn.astype(float) @ per_item
        defined = defined_classes(task, [r for item in items for r in item], profile)
        scores = pair_scores(task, pairs, counts, profile, defined)
        return [score if row.any() else None for score, row in zip(scores, counts, strict=True)]

    metric.resample = resample  # type: ignore[attr-defined]  # what the bootstrap calls
    return metric


def _record(value: Mapping[str, Any]) -> Record:
    return Record(**{**value, "options": tuple(value["options"])})


def _task(name: str, title: str, group: str) -> Task:
    """A task whose metric is its reference score (:meth:`AudioMarathon.metric_of` gives each profile's)."""
    return Task(name, title, group, metric=task_metric(name, "reference"))


TASKS: tuple[Task, ...] = (
    _task("SER", "Speech entity recognition (SLUE-VoxPopuli NER)", "speech"),
    _task("SCR", "Speech content reasoning (RACE read aloud)", "speech"),
    _task("ASR", "Speech recognition (LibriSpeech-long), 100 - WER", "speech"),
    _task("SED", "Sound event detection (DESED)", "sound"),
    _task("MC", "Music genre classification (GTZAN)", "sound"),
    _task("ASC", "Acoustic scene classification (TAU)", "sound"),
    _task("SD", "Speech deepfake detection (HAD)", "speaker"),
    _task("ER", "Emotion recognition (VESUS)", "speaker"),
    _task("SAR", "Speaker age recognition (VoxCeleb)", "speaker"),
    _task("SGR", "Speaker gender recognition (VoxCeleb)", "speaker"),
)
GROUPS = ("speech", "sound", "speaker")
LISTED = ("ASR", "SD")
"""Tasks whose question list is a folder listing rather than one metadata file."""
#: Loaded items per version of a task's metadata file and root (see :meth:`AudioMarathon.load`).
_ITEMS: dict[tuple[Any, ...], tuple[Item, ...]] = {}


def _reference_records(responses: Sequence[Response]) -> list[Record]:
    """The records of ``responses`` the reference scores (it leaves out what it reads as ``None``)."""
    return [record_of(r.item, pred) for r in responses if (pred := read(r, "reference")) is not None]


def _as_replied(item: Item, letter: str) -> str:
    """How a compliant model writes a letter: lower case where the prompt asks for 'a' or 'b'."""
    return letter.lower() if item.task in ("SD", "SGR") else letter


class AudioMarathon(Benchmark):
    """AudioMarathon (2025): long-form audio understanding, 90-300 s clips."""

    name: ClassVar[str] = "audiomarathon"
    title: ClassVar[str] = "AudioMarathon"
    templates: ClassVar[tuple[str, ...]] = ("official",)
    download_root: ClassVar[Path] = Path("data/audiomarathon")
    sample_root: ClassVar[Path] = Path("data/audiomarathon-sample")
    aggregates: ClassVar[Mapping[str, Aggregate]] = {
        "headline": official(lambda scores: fmean(scores.values()), *(t.name for t in TASKS))
    }
    """The leaderboard's average: the unweighted mean of the scored tasks, as the official table computes it."""
    score_digits: ClassVar[int | None] = None
    """The scripts write full floats."""

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def expand(self, name: str) -> tuple[Task, ...] | None:
        group = name.strip().lower()
        return tuple(t for t in TASKS if t.group == group) if group in GROUPS else None

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        def present(task: str) -> bool:
            if task == "SD":
                return any((layout.data_path(root, task) / f).is_dir() for f in layout.HAD_FOLDERS)
            path = layout.data_path(root, task)
            return path.is_dir() if task == "ASR" else path.is_file()

        return tuple(t for t in TASKS if present(t.name))

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        if task.name == "ASR":
            return tuple(sorted(layout.data_path(root, "ASR").glob("*/*/*.txt")))
        if task.name == "SD":
            # its questions are the folders' listings: a folder's time changes when a clip is added or removed
            return tuple(layout.data_path(root, "SD") / label for label in layout.HAD_FOLDERS)
        return (layout.data_path(root, task.name),)

    def fingerprint(self, root: Path, tasks: Sequence[Task]) -> str:
        """The metadata files' hash, plus the question lists of the tasks defined by folder listings."""
        digest = hashlib.sha256(super().fingerprint(root, tasks).encode())
        for task in tasks:
            if task.name in LISTED and task in self.available(root):
                digest.update("\n".join(i.key for i in self.load(root, task)).encode())
        return digest.hexdigest()[:16]

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        """The task's questions from its metadata; the audio is not looked for (``validate-data`` checks it).
        A task is loaded once per version of its metadata file, or for HAD of its two folders, whose times change
        when a clip is added or removed (eval loads a task for scoring, completeness and per-sample rows);
        LibriSpeech, listed from many folders, is listed each time."""
        if task.name == "ASR":
            return layout.load_task(root, task.name, check_audio=False)
        path = layout.data_path(root, task.name)
        keyed, other = (path / "real", file_key(path / "fake")) if task.name == "SD" else (path, None)
        load = partial(layout.load_task, root, task.name, check_audio=False)
        return items_per_version(_ITEMS, keyed, (str(root), task.name, other), load)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.validate(root, [t.name for t in tasks])

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        from avibench.benchmarks.audiomarathon import sample  # the media kit: only sample-data needs it

        return sample.generate(out, full_size=full_size, seed=seed)

    # -- answers ----------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        """The option letter the reply states or names (ASR: the transcript), else ``None``."""
        return strict_extract(item.task, text, item.options)

    def random_answer(self, item: Item, rng: random.Random) -> str:
        """A uniformly random option letter (ASR: as many random made-up words as the transcript has)."""
        if item.task == "ASR":
            words = layout.data_file("audiomarathon/sample.yaml")["words"]
            return " ".join(rng.choice(words)[::-1] + "x" for _ in str(item.answer).split())
        return _as_replied(item, "ABCDE"[rng.randrange(len(item.options))])

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        """The correct answer as a compliant model would reply it."""
        return str(item.answer) if item.task == "ASR" else _as_replied(item, str(item.answer))

    # -- scoring: the declaration -------------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | None:
        """The profile's prediction (see :func:`read`); ``None``: unanswered, or left out by the reference."""
        return read(response, profile)

    def item_value(self, answer: str | None, item: Item) -> dict[str, Any]:
        """The question's scoring record (as JSON): what the task's official score is computed from."""
        return {**vars(record_of(item, answer)), "options": list(item.options)}

    def item_score(self, answer: str | None, item: Item) -> float:
        """The question's own score for the pages: right or wrong (ASR: 1 - its WER, floored at 0).

        The prediction is right when it is the correct option letter or, in the form the reference reads HAD,
        VoxCeleb age and gender answers (the label or option text), the ground truth itself, as the task's metric
        counts it."""
        if item.task == "ASR":
            return max(0.0, 1.0 - cached_wer(str(item.meta["gold"]), answer or "") / 100.0)
        return float(bool(answer) and answer in (str(item.answer), str(item.meta["gold"])))

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """Each task's official score (F1, 100 - WER...) in the profile, from its questions' records."""
        return task_metric(task, profile)

    def task_chance(self, task: Task, items: Sequence[Item], profile: str) -> float | None:
        """The profile's score of a uniform random guess among each question's options (ASR: 0)."""
        return chance_level(task.name, [record_of(i, None) for i in items], profile)

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The benchmark block: per task the script's block (``metric``, ``score``, ``n``, ``valid`` and the
        script's own keys), ``average`` (the mean of the task scores) and ``complete`` (all ten tasks scored)."""
        blocks = {
            task: score_task(
                task,
                [record_of(r.response.item, r.answer) for r in rows if r.score is not None],
                view.profile,
            )
            for task, rows in view.rows.items()
        }
        document = benchmark_block(blocks)
        if not blocks:
            document["average"] = None  # the mean of no task
        return document

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the official result files, or the run's journals (refine is optional: see the module doc); a
        selected task without either is covered as absent, saying which file it lacks."""
        predictions = request.predictions
        responses, absent = self.inputs(
            request, lambda task: results.result_path(predictions, task.name).name
        )
        return self.score(
            responses, profile=request.profile, options=request.options, tasks=request.tasks, absent=absent
        )

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """Responses from the official result files in folder ``path`` (one per task; absent tasks are left out)."""
        files = {t.name: results.result_path(path, t.name) for t in tasks}
        return {
            t.name: results.read_responses(files[t.name], t.name, self.load(root, t))
            for t in tasks
            if files[t.name].is_file()
        }

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The official result files. Both stages write the raw replies: the scripts store the raw response and
        their own extraction of it (which rescoring recomputes), never a refined answer."""
        return {
            task: results.write_results(out, task, rs, score_task(task, _reference_records(rs), "reference"))
            for task, rs in responses.items()
        }

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        return board_rows(
            published_table(self.name), headline="average", tasks={t.name: t.name for t in TASKS}
        )

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        from avibench.benchmarks.audiomarathon.efficiency import efficiency_blocks

        return efficiency_blocks(paths, [t.name for t in TASKS])
