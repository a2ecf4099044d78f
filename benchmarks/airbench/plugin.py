"""AIR-Bench as a benchmark plug-in: two tasks, ``foundation`` (single choice) and ``chat`` (open questions, judged).

Foundation answers are read by the official letter rule or the strict extractor (refine adds the LLM fallback);
Chat answers pass through refine unchanged and are scored by a pairwise LLM judge at eval time. The data layout,
the eval document (the official scorers' output at the top level, the leaderboard views per profile) and when
Chat is ``partial``: docs/airbench.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache, partial
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from avibench.benchmarks.airbench import layout, pages, predictions, sample
from avibench.benchmarks.airbench.judging import JUDGE, by_order, chat_coverage, judge_chat
from avibench.benchmarks.airbench.layout import SECTIONS, foundation_prompt
from avibench.benchmarks.airbench.options import eval_options as declared_options
from avibench.contracts import RunPaths
from avibench.definitions import prompt_resource
from avibench.file_memo import items_per_version
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.kits.judged import judge_parts
from avibench.level_metrics.airbench import (
    PROFILES,
    Verdict,
    choose,
    foundation_average,
    foundation_block,
    leaderboard_view,
    strict_choice,
)
from avibench.level_metrics.airbench_chat import ORDERS, answer_score, chat_block, chat_metric
from avibench.level_metrics.task_metrics import Aggregate, Metric, mean_of_tasks
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredRow, ScoredView, Task

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


def _subset_verdict(row: ScoredRow) -> tuple[str, Verdict]:
    subset = row.response.item.meta["subset"]
    if row.response.status != "answered":
        return subset, "missing"
    if row.answer is None:
        return subset, "unparsed"
    return subset, "correct" if row.score else "wrong"


def leaderboard_views(official: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard views of one profile's official blocks: Foundation per task label and category (0-100),
    Chat per category with ``mixed`` and ``average`` (1-10); a part without a block has none."""
    views: dict[str, Any] = {}
    if official.get("foundation") is not None:
        views["foundation"] = leaderboard_view(official["foundation"])
    if (chat := official.get("chat")) is not None:
        categories = {c: v["score"] for c, v in chat["categories"].items()}
        views["chat"] = {"mixed": chat["mixed"], "average": chat["average"], "categories": categories}
    return views


class AIRBench(Benchmark):
    """AIR-Bench (ACL 2024): Foundation and Chat."""

    name: ClassVar[str] = "airbench"
    title: ClassVar[str] = "AIR-Bench"
    templates: ClassVar[tuple[str, ...]] = tuple(layout.foundation_templates())
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
        chosen = template or layout.DEFAULT_TEMPLATE
        section = SECTIONS[task.name]
        return items_per_version(
            _ITEMS,
            section.meta_path(root),
            (str(root), task.name, chosen),
            lambda: layout.load(section, root, chosen, check_audio=False),
        )

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        present = self.available(root)
        if not present:
            paths = " nor ".join(str(s.meta_path(Path("."))) for s in SECTIONS.values())
            return [Problem(str(root), f"holds neither {paths}")]
        return [
            Problem(p.path, p.message, p.index, p.field)
            for task in tasks
            if task in present
            for p in layout.checked(SECTIONS[task.name], root)[1]
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        for task in self.tasks():
            per_subset = FULL_PER_SUBSET[task.name] if full_size else SAMPLE_PER_SUBSET
            sample.generate(out, per_subset, seed, foundation=task is FOUNDATION, chat=task is CHAT)
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

    random_answer = staticmethod(sample.random_answer)
    oracle_answer = staticmethod(sample.oracle_answer)

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
            return mc.gold_index(item.options, response.refined)
        return strict_choice(response.raw or "", item.options)

    def item_score(self, answer: Any, item: Item) -> float | None:
        """1 or 0 for a Foundation answer; a Chat answer's judge score over ten (``None``: its judgements give too
        few scores, so the profile leaves it out). ``None`` answers reach here only in the strict profile, which
        scores an unanswered or unread question 0."""
        if answer is None:
            return 0.0
        if item.task == CHAT.name:
            return answer_score(answer["replies"], PROFILES[answer["profile"]])
        return float(answer == mc.gold_index(item.options, item.answer))

    def item_value(self, answer: Any, item: Item) -> Any:
        """A Foundation question's ``(subset, score)``; a Chat question's ``task_name`` and judge replies
        (``None`` replies: unanswered)."""
        if item.task == CHAT.name:
            return {
                "task_name": item.meta["task_name"],
                "replies": None if answer is None else answer["replies"],
            }
        return (item.meta["subset"], self.item_score(answer, item))

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """Chat's metric reads the judge replies with the profile's parser and combines them its way."""
        if task == CHAT.name:
            return chat_metric(PROFILES[profile])
        return super().metric_of(task, profile)

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The official blocks of the parts scored (``fail_num``: the answers the profile cannot read; Chat: each
        answer's judgements as read, unanswered ones apart), ``null`` for the others."""
        profile = PROFILES[view.profile]
        blocks: dict[str, Any] = dict.fromkeys(SECTIONS)
        if FOUNDATION.name in view.rows:
            blocks[FOUNDATION.name] = foundation_block(
                map(_subset_verdict, view.rows[FOUNDATION.name]), profile
            )
        if CHAT.name in view.rows:
            values = [self.item_value(row.answer, row.response.item) for row in view.rows[CHAT.name]]
            blocks[CHAT.name] = chat_block(values, profile)
        return blocks

    # -- scoring: the judge and the files -------------------------------------------------------------------

    eval_options = staticmethod(declared_options)

    def evaluate(self, request: EvalRequest) -> Scored:
        """Judge the Chat answers (from the judge journal where already judged), then score through the core;
        Chat's coverage adds the judge's account, and a part the core could not score (no data, no answers, no
        judge) keeps a coverage entry saying why. Without a judge key Chat is not judged (a note), rather than
        failed (an error)."""
        template = JUDGE.template(request.options.get("judge_template"))
        settings = JUDGE.settings(request.options)
        responses, absent = self.inputs(request, lambda task: SECTIONS[task.name].result_file)
        chat = responses.get(CHAT.name)
        judgings = judge_parts(
            {}
            if chat is None
            else {CHAT.name: partial(judge_chat, chat, request.paths.root, settings, template)}
        )
        absent |= judgings.unjudged
        judging = judgings.verdicts.get(CHAT.name)
        self._replies = by_order(judging)
        if judging is not None and judging.failed:
            judgings.errors.append(f"chat: {judging.failed} judge requests failed ({judging.first_error})")
        judged = {k: v for k, v in responses.items() if k not in judgings.unjudged}
        scored = self.score(judged, profile=request.profile, options=request.options, tasks=request.tasks)
        document = scored.document
        for view in document["summary"]["by_profile"].values():
            view.update(leaderboard_views(view["official"]))
        coverage = document["coverage"]
        if judging is not None:
            primary = PROFILES[request.profile]
            coverage[CHAT.name] = chat_coverage(coverage[CHAT.name], document[CHAT.name], judging, primary)
        for part in SECTIONS:
            if part not in coverage:
                status = "not scored" if part in responses else "absent"
                coverage[part] = {"status": status, "reason": absent.get(part, "not selected")}
        if chat is not None:
            judge = JUDGE.meta(settings, template, judgings.verdicts.values(), orders=list(ORDERS))
            document["meta"] = {"judge": judge}
        return replace(scored, errors=judgings.errors, notes=judgings.notes)

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        """The task scores, then why a part that was scored is partial (judge failures quote the judge)."""
        lines = super().summary_lines(document)
        coverage = document.get("coverage") or {}
        for part in SECTIONS:
            cover = coverage.get(part) or {}
            if cover.get("status") == "partial" and cover.get("reason"):
                lines.append(f"{part}: partial: {cover['reason']}")
        return lines

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        files = predictions.prediction_files(path)
        return {
            t.name: predictions.responses_from_results(files[t.name], t.name, self.load(root, t), root)
            for t in tasks
            if t.name in files
        }

    write_predictions = staticmethod(predictions.write_predictions)

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        return pages.published_rows()

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        return pages.report_blocks(document)

    def leaderboard(self) -> Any:
        return pages.BOARD
