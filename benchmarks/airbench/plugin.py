"""AIR-Bench as a benchmark plug-in: two tasks, ``foundation`` (single choice) and ``chat`` (open questions, judged).

A data root holds ``Foundation/Foundation_meta.json`` and/or ``Chat/Chat_meta.json`` (either alone is valid; the
other part is reported as absent). Foundation items are keyed by ``uniq_id`` and asked with the ``air-official``
prompt (or ``air-clean``: only the real options); refine reads the chosen option's text with the strict
extractor, then the LLM fallback. Chat answers pass through refine unchanged and are scored by a pairwise LLM
judge at eval time (``--judge-model``, ``--judge-base-url``, ``--judge-concurrency``; key from ``JUDGE_API_KEY``
or ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from avibench.benchmarks.airbench import layout, predictions, sample
from avibench.benchmarks.airbench.options import eval_options as declared_options
from avibench.benchmarks.airbench.prompt import DEFAULT_TEMPLATE, foundation_prompt, foundation_templates
from avibench.benchmarks.airbench.scoring import (
    PARTS,
    chat_coverage,
    chat_official,
    foundation_official,
    leaderboard_views,
    subset,
)
from avibench.contracts import RunPaths, latest_read_only
from avibench.definitions import prompt_resource
from avibench.errors import AvibenchError
from avibench.file_memo import items_per_version
from avibench.items import Item, Response
from avibench.level_metrics.airbench import PROFILES, choose, foundation_average, gold_index, strict_choice
from avibench.level_metrics.airbench_chat import ORDERS, answer_score, chat_metric
from avibench.level_metrics.task_metrics import Aggregate, Metric, mean_of_tasks
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredView, Task

if TYPE_CHECKING:
    from avibench.kits.judged import JudgeSettings, JudgeTemplate, Verdicts

#: The leaderboard average of the Foundation tasks (0-100), the mean of the speech, sound and music means of the
#: task accuracies (of the categories present).
FOUNDATION = Task(
    "foundation",
    "Foundation: 19 single-choice tasks over speech, sound and music",
    "foundation",
    metric=foundation_average,
)
#: Ten times the average judge score (the mean of speech, sound, music and mixed, over those present); the
#: metric declared here is the reference profile's (:meth:`AIRBench.metric_of` gives each profile its own).
CHAT = Task(
    "chat",
    "Chat: open questions scored by a pairwise LLM judge",
    "chat",
    metric=chat_metric(PROFILES["reference"]),
)
SECTIONS = {FOUNDATION.name: layout.FOUNDATION_SECTION, CHAT.name: layout.CHAT_SECTION}
#: Loaded items per version of a task's metadata file, root and template (see :meth:`AIRBench.load`).
_ITEMS: dict[tuple[Any, ...], tuple[Item, ...]] = {}

#: The refine LLM sees the question with only its real options, whichever template the model was asked with.
CLEAN_TEMPLATE = "air-clean"
SAMPLE_PER_SUBSET = 2
#: Questions per Foundation subset and per Chat folder at full size (about 19k and 2k, as published).
FULL_PER_SUBSET = {FOUNDATION.name: 760, CHAT.name: 200}


@cache
def _refine_template() -> str:
    return prompt_resource("airbench", "refine.txt")


class AIRBench(Benchmark):
    """AIR-Bench (ACL 2024): Foundation and Chat."""

    name: ClassVar[str] = "airbench"
    title: ClassVar[str] = "AIR-Bench"
    templates: ClassVar[tuple[str, ...]] = tuple(foundation_templates())
    download_root: ClassVar[Path] = Path("data/airbench")
    sample_root: ClassVar[Path] = Path("data/airbench-sample")
    #: The headline is the mean of the parts scored: a convenience for ranking runs, not a published quantity
    #: (the official leaderboards rank each part on its own).
    aggregates: ClassVar[dict[str, Aggregate]] = {"headline": mean_of_tasks(FOUNDATION.name, CHAT.name)}
    #: The official scorers print full precision.
    score_digits: ClassVar[int | None] = None
    #: The judge replies of the eval being scored, by item key and order (set by :meth:`evaluate`).
    _replies: Mapping[str, Mapping[str, str | None]] = MappingProxyType({})

    def tasks(self) -> tuple[Task, ...]:
        return (FOUNDATION, CHAT)

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks() if SECTIONS[t.name].meta_path(root).is_file())

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (SECTIONS[task.name].meta_path(root),)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        """The task's items; audio is not checked here (``validate-data`` does; infer records a missing file).
        Built once per version of the task's metadata file (eval loads a task for scoring, completeness and
        per-sample rows)."""
        chosen = template or DEFAULT_TEMPLATE
        return items_per_version(
            _ITEMS,
            SECTIONS[task.name].meta_path(root),
            (str(root), task.name, chosen),
            lambda: (
                layout.load_foundation(root, chosen, check_audio=False)
                if task.name == FOUNDATION.name
                else layout.load_chat(root, check_audio=False)
            ),
        )

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        present = self.available(root)
        if not present:
            return [Problem(str(p.path), p.message) for p in layout.validate(root)]
        return [
            Problem(p.path, p.message, p.index, p.field)
            for task in tasks
            if task in present
            for p in layout.validate_section(SECTIONS[task.name], root)
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        for task in self.tasks():
            per_subset = FULL_PER_SUBSET[task.name] if full_size else SAMPLE_PER_SUBSET
            sample.generate(
                out, per_subset=per_subset, seed=seed, foundation=task is FOUNDATION, chat=task is CHAT
            )
        return {t.name: len(self.load(out, t)) for t in self.tasks()}

    # -- answers ----------------------------------------------------------------------------------------

    def passthrough(self, task: str) -> bool:
        return task == CHAT.name

    def extract(self, item: Item, text: str) -> str | None:
        """The text of the option a Foundation answer chooses (strict extractor), else ``None``."""
        chosen = strict_choice(text, item.options)
        return None if chosen is None else item.options[chosen]

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        if item.task != FOUNDATION.name:
            return None
        question = foundation_prompt(item.source["question"], item.options, CLEAN_TEMPLATE)
        return _refine_template().format(question=question, response=raw)

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, rng)

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> Any:
        """A Foundation answer as the index of the option the profile reads (``None``: unanswered or unread): the
        official letter rule on the raw answer (which may name a letter past the real options), or refine's option
        where it resolved one and else the strict extractor. A Chat answer as its judge replies by order (none when
        it was never judged), with its ``task_name`` and the ``profile`` (whose parser reads them)."""
        if response.status != "answered":
            return None
        item = response.item
        if item.task == CHAT.name:
            return {
                "profile": profile,
                "task_name": item.meta["task_name"],
                "replies": self._replies.get(item.key, {}),
            }
        if PROFILES[profile].first_or_penultimate:
            return choose(response.raw or "", item.options, PROFILES[profile])
        if response.refined is not None:
            return gold_index(item.options, response.refined)
        return strict_choice(response.raw or "", item.options)

    def item_score(self, answer: Any, item: Item) -> float | None:
        """1 or 0 for a Foundation answer; a Chat answer's judge score over ten (``None``: its judgements give too
        few scores, so the profile leaves it out). ``None`` answers reach here only in the strict profile, which
        scores an unanswered or unread question 0."""
        if answer is None:
            return 0.0
        if item.task == CHAT.name:
            return answer_score(answer["replies"], PROFILES[answer["profile"]])
        return float(answer == gold_index(item.options, item.answer))

    def item_value(self, answer: Any, item: Item) -> Any:
        """A Foundation question's ``(subset, score)``; a Chat question's ``task_name`` and judge replies
        (``None`` replies: unanswered)."""
        if item.task == CHAT.name:
            return {
                "task_name": item.meta["task_name"],
                "replies": None if answer is None else answer["replies"],
            }
        return (subset(item.meta), self.item_score(answer, item))

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """Chat's metric reads the judge replies with the profile's parser and combines them its way."""
        if task == CHAT.name:
            return chat_metric(PROFILES[profile])
        return super().metric_of(task, profile)

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The official blocks of the parts scored, ``null`` for the others."""
        profile = PROFILES[view.profile]
        blocks: dict[str, Any] = dict.fromkeys(PARTS)
        if FOUNDATION.name in view.rows:
            blocks[FOUNDATION.name] = foundation_official(view.rows[FOUNDATION.name], profile)
        if CHAT.name in view.rows:
            blocks[CHAT.name] = chat_official(view.rows[CHAT.name], profile)
        return blocks

    # -- scoring: the judge and the files -------------------------------------------------------------------

    def _inputs(self, request: EvalRequest) -> tuple[dict[str, list[Response]], dict[str, str]]:
        """The responses of every selected task that has some, and why the others have none."""
        absent: dict[str, str] = {}
        if request.predictions is not None:
            responses = self.read_predictions(request.predictions, request.data_root, request.tasks)
            for task in request.tasks:
                if task.name not in responses:
                    name = predictions.TASK_FILES[task.name][1]
                    absent[task.name] = f"no {name} in {request.predictions}"
            return responses, absent
        return self.journal_inputs(request)

    def eval_options(self) -> list[Any]:
        return declared_options()

    def evaluate(self, request: EvalRequest) -> Scored:
        """Judge the Chat answers (from the judge journal where already judged), then score through the core;
        Chat's coverage adds the judge's account, and a part the core could not score (no data, no answers, no
        judge) keeps a coverage entry saying why."""
        from avibench.benchmarks.airbench.judging import JUDGE
        from avibench.kits.judged import NOT_JUDGED, not_judged_line

        template = JUDGE.template(request.options.get("judge_template"))
        responses, absent = self._inputs(request)
        settings = JUDGE.settings(request.options)
        judging, unjudged, configured = self._judge(responses, request, settings, template)
        errors = [] if unjudged is None or not configured else [f"chat not scored: {unjudged}"]
        notes = [] if unjudged is None or configured else [not_judged_line([CHAT.name], unjudged)]
        if judging is not None and judging.failed:
            errors.append(f"chat: {judging.failed} judge requests failed ({judging.first_error})")
        judged = {k: v for k, v in responses.items() if k != CHAT.name or judging is not None}
        scored = self.score(judged, profile=request.profile, options=request.options, tasks=request.tasks)
        document = scored.document
        for view in document["summary"]["by_profile"].values():
            view.update(leaderboard_views(view["official"]))
        coverage = document["coverage"]
        if judging is not None:
            primary = PROFILES[request.profile]
            coverage[CHAT.name] = chat_coverage(coverage[CHAT.name], document[CHAT.name], judging, primary)
        elif unjudged is not None:
            absent[CHAT.name] = unjudged if configured else f"{NOT_JUDGED}{unjudged}"
        for part in PARTS:
            if part not in coverage:
                status = "not scored" if part in responses else "absent"
                coverage[part] = {"status": status, "reason": absent.get(part, "not selected")}
        document["meta"] = {"template": self._template_used(request)}
        if CHAT.name in responses:
            verdicts = [] if judging is None else [judging]
            document["meta"]["judge"] = JUDGE.meta(settings, template, verdicts, orders=list(ORDERS))
        return Scored(
            document=document, errors=errors, per_sample=scored.per_sample, values=scored.values, notes=notes
        )

    def _judge(
        self,
        responses: Mapping[str, Sequence[Response]],
        request: EvalRequest,
        settings: JudgeSettings,
        template: JudgeTemplate,
    ) -> tuple[Verdicts | None, str | None, bool]:
        """The Chat judgements (``None``: no Chat answers, or the judge could not run), why the judge could not
        run, and whether it was configured (``False``: no judge key, so Chat is not judged rather than failed);
        the replies are kept for :meth:`read`. Every answered Chat question is judged in both orders."""
        from avibench.benchmarks.airbench.judging import JUDGE, judge_messages, replies_by_order
        from avibench.kits.judged import JudgeNotConfigured

        self._replies = {}
        if CHAT.name not in responses:
            return None, None, True

        def messages(response: Response, order: str) -> list[dict[str, str]]:
            return judge_messages(response.item, response.raw or "", order, template)

        try:
            judging = JUDGE.judge_responses(
                responses[CHAT.name], messages, request.paths.root, settings, variants=ORDERS
            )
        except JudgeNotConfigured as exc:
            return None, str(exc), False
        except AvibenchError as exc:
            return None, str(exc), True
        self._replies = replies_by_order(judging.replies)
        return judging, None, True

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        """The task scores, then why a part that was scored is partial (judge failures quote the judge)."""
        lines = super().summary_lines(document)
        coverage = document.get("coverage") or {}
        for part in (FOUNDATION.name, CHAT.name):
            cover = coverage.get(part) or {}
            if cover.get("status") == "partial" and cover.get("reason"):
                lines.append(f"{part}: partial: {cover['reason']}")
        return lines

    @staticmethod
    def _template_used(request: EvalRequest) -> str | None:
        """The Foundation prompt template recorded by infer (``None`` for official result files)."""
        if request.predictions is not None:
            return None
        found = {
            r.get("params", {}).get("template")
            for r in latest_read_only(request.paths.infer_journal(FOUNDATION.name)).values()
        }
        found.discard(None)
        return ",".join(sorted(found)) or None

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        files = predictions.prediction_files(path)
        return {
            t.name: predictions.responses_from_results(files[t.name], t.name, self.load(root, t), root)
            for t in tasks
            if t.name in files
        }

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        return predictions.write_predictions(responses, out, stage=stage)

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        from avibench.benchmarks.airbench.pages import published_rows

        return published_rows()

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        from avibench.benchmarks.airbench.pages import report_blocks

        return report_blocks(document)

    def leaderboard(self) -> Any:
        from avibench.benchmarks.airbench.pages import BOARD

        return BOARD
