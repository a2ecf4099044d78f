"""WorldSense as a benchmark plug-in: 3,172 audio-visual video questions, one task, scored as VLMEvalKit scores it.

Each question sends VLMEvalKit's prompt: its system text, the video with its soundtrack (how, infer's media
strategy says: the mp4, or ``frames:N``, the frame count recorded in the run's manifest), the separate audio track
for the ``audio`` template (VLMEvalKit's ``_audio`` settings), the frames template and the question with its
candidates. The reference profile is VLMEvalKit's exact-matching path (its default), with its judge fallback when
``--judge-model`` is given; the strict profile fixes its quirks. eval.json's top level is VLMEvalKit's rating.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.worldsense import layout, sample
from avibench.benchmarks.worldsense.judging import JUDGE, Ask, judge
from avibench.benchmarks.worldsense.options import eval_options as declared_options
from avibench.benchmarks.worldsense.predictions import NA_STRINGS, read_responses, write_tsv
from avibench.evaluate.document import Heading, Table, as_dict, fmt_score
from avibench.items import Item, Response
from avibench.kits.records import file_version
from avibench.kits.single_file import SingleFileBenchmark
from avibench.level_metrics.task_metrics import accuracy
from avibench.level_metrics.worldsense import (
    FIELDS,
    Matching,
    can_infer,
    candidate_choices,
    exact_letter,
    question_choices,
    rating,
    strict_letter,
)
from avibench.plugin import EvalRequest, Problem, Scored, ScoredView, Task

TASK = Task(layout.TASK, "WorldSense", "audio-visual", metric=accuracy)
#: What VLMEvalKit's scorer reads for a row without a prediction (``str`` of pandas' NaN).
NO_PREDICTION = "nan"


@cache
def matching() -> Matching:
    data = layout.protocol("matching")
    return Matching(
        prefixes=tuple(data["answer_prefixes"]),
        intended_prefixes=tuple(data["answer_prefixes_intended"]),
        reject=tuple(data["reject_to_answer"]),
        marks=data["marks"],
        verbose_answer=re.compile(data["verbose_answer_pattern"]),
        api_failure=data["api_failure_marker"],
    )


def prediction(response: Response) -> str:
    """The prediction VLMEvalKit's scorer reads: the reply, or "nan" for a row without one."""
    return response.raw if response.status == "answered" and response.raw is not None else NO_PREDICTION


class WorldSense(SingleFileBenchmark):
    """WorldSense (JaaackHongggg/WorldSense, scored by open-compass/VLMEvalKit): omni-modal video understanding."""

    name: ClassVar[str] = "worldsense"
    title: ClassVar[str] = "WorldSense"
    templates: ClassVar[tuple[str, ...]] = layout.TEMPLATES
    download_root: ClassVar[Path] = Path("data/worldsense")
    sample_root: ClassVar[Path] = Path("data/worldsense-sample")
    single_task: ClassVar[Task] = TASK
    dataset_file: ClassVar[Path] = layout.DATASET
    official_count: ClassVar[int | None] = layout.OFFICIAL_COUNT
    #: VLMEvalKit's rating is a fraction to three decimals: a percentage to one
    score_digits: ClassVar[int] = 1
    #: every row counts in VLMEvalKit's rating, a row without a prediction too
    reference_drops_unanswered: ClassVar[bool] = False
    #: the judge's letters of this eval, by (profile, item key)
    _judged: Mapping[tuple[str, str], str | None] = {}

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load(Path(root), template or self.templates[0])

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.problems(Path(root))

    def question_count(self, path: Path) -> int:
        return len(layout.rows(path))

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {layout.TASK: sample.generate(Path(out), seed=seed, full_size=full_size)}

    def extract(self, item: Item, text: str) -> str | None:
        """The strict reading: prefixes deleted in any case, the first A-D standing alone; ``None`` for a
        refusal, a failure message, no lone letter, or a reply VLMEvalKit's reader takes for no prediction
        ("N/A", "None", "NA": not the letter A)."""
        if text.strip() in NA_STRINGS:
            return None
        return strict_letter(text, matching())

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        gold = str(item.answer)
        return sample.oracle_answer(
            item, rng, lambda r: exact_letter(r, matching()) == gold and strict_letter(r, matching()) == gold
        )

    def eval_options(self) -> list[Any]:
        return declared_options()

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> Any:
        """Reference: VLMEvalKit's letter (exact matching, then ``can_infer`` on the options its question field
        holds, then the judge's letter; else Z). Strict: the strict reading (refine's where it ran), then the
        judge's letter with the candidates shown; ``None`` when neither reads one."""
        key = response.item.key
        if profile == "reference":
            pred = prediction(response)
            return (
                exact_letter(pred, matching())
                or can_infer(pred, question_choices(response.item.meta["question"]), matching())
                or self._judged.get(("reference", key))
                or "Z"
            )
        letter = super().read(response, profile)
        if letter is None and response.status == "answered":
            judged = self._judged.get(("strict", key))
            return judged if judged in ("A", "B", "C", "D") else None
        return letter

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """VLMEvalKit's rating: per duration bucket and overall, the fractions per category (``None``: empty)."""
        categories = layout.protocol("categories")
        rows = [
            {**{k: row.response.item.meta[k] for k in (*FIELDS, "duration")}, "score": row.score}
            for row in view.rows.get(layout.TASK, ())
            if row.score is not None
        ]
        return rating(rows, categories, categories["durations"])

    # -- eval ----------------------------------------------------------------------------------------------

    def _asks(self, responses: Sequence[Response]) -> list[Ask]:
        """The answers each profile's reading leaves to the judge."""
        asks = []
        for response in responses:
            item = response.item
            pred = prediction(response)
            choices = question_choices(item.meta["question"])
            if not exact_letter(pred, matching()) and not can_infer(pred, choices, matching()):
                asks.append(Ask(item, choices, pred, "reference"))
            if response.status == "answered" and super().read(response, "strict") is None:
                asks.append(Ask(item, candidate_choices(item.options), pred, "strict"))
        return asks

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or VLMEvalKit's inference output (.xlsx/.tsv), with the judge fallback when
        a judge model is given."""
        notes: list[str] = []
        absent: dict[str, str] = {}
        if request.predictions is None:
            responses, absent = self.journal_inputs(request)
        else:
            found, notes = read_responses(Path(request.predictions), self.load(request.data_root, TASK))
            responses = {layout.TASK: found}
        self._judged = {}
        judge_meta = None
        if request.options.get("judge_model"):
            settings = JUDGE.settings(request.options)
            asks = self._asks(responses.get(layout.TASK, ()))
            self._judged, verdicts = judge(asks, request.paths.root, settings, matching())
            judge_meta = JUDGE.meta(settings, JUDGE.template(), [verdicts], asked=len(asks))
            if failure := verdicts.failure():
                notes.append(f"{failure} (scored as Z until then)")
        scored = self.score(
            responses, profile=request.profile, options=request.options, tasks=request.tasks, absent=absent
        )
        if notes and layout.TASK in scored.document.get("coverage", {}):
            scored.document["coverage"][layout.TASK]["notes"] = notes
        meta = scored.document.setdefault("meta", {})
        meta["judge"] = judge_meta or {"model": None, "why": "exact matching (VLMEvalKit's default)"}
        path = Path(request.data_root) / layout.DATASET
        if path.is_file():
            meta["data_version"] = file_version(path)
        return scored

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        return {layout.TASK: read_responses(Path(path), self.load(root, TASK))[0]}

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """VLMEvalKit's inference output as TSV (its PRED_FORMAT=tsv), which ``eval --predictions`` reads back."""
        rows = list(responses.get(layout.TASK, ()))
        return {layout.TASK: write_tsv(Path(out) / f"{self.name}_WorldSense.tsv", rows)}

    def report_blocks(self, document: Mapping[str, Any], paths: Any) -> list[Any]:
        """Accuracy per duration bucket and per task domain, in both profiles."""
        by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
        ref = as_dict(as_dict(by_profile.get("reference")).get("official"))
        strict = as_dict(as_dict(by_profile.get("strict")).get("official"))
        durations = [d for d in ref if d != "overall"] + ["overall"]

        def pct(part: Mapping[str, Any], *keys: str) -> str:
            value: Any = part
            for key in keys:
                value = as_dict(value).get(key)
            return fmt_score(None if value is None else 100 * value)

        rows = [[d, pct(ref, d, "overall"), pct(strict, d, "overall")] for d in durations if d in ref]
        domains = list(as_dict(as_dict(ref.get("overall")).get("task_domain")))
        task_rows = [
            [t, pct(ref, "overall", "task_domain", t), pct(strict, "overall", "task_domain", t)]
            for t in domains
        ]
        blocks: list[Any] = []
        if rows:
            blocks += [Heading("Accuracy (%) by duration"), Table(["Duration", "Reference", "Strict"], rows)]
        if task_rows:
            blocks += [
                Heading("Accuracy (%) by task domain"),
                Table(["Task domain", "Reference", "Strict"], task_rows),
            ]
        return blocks
