"""Daily-Omni as a benchmark plug-in: 1,197 audio-visual video questions, one task.

Each question sends the video with its soundtrack (how, infer's media strategy says: the mp4 as it is, or frames
plus the audio track) and the API tester's prompt. The reference profile is the API tester's ``print_statistics``
(``--dailyomni-rule local``: the local Qwen2.5-Omni script's reading and counting instead); the strict profile reads
the chosen option in its usual forms and scores every question, failures and missing videos as wrong.
eval.json's top level carries the printed figures under their printed names.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.dailyomni import layout, sample
from avibench.benchmarks.dailyomni.options import eval_options as declared_options
from avibench.benchmarks.dailyomni.predictions import (
    NOT_FOUND_REPLY,
    as_tester_saw,
    read_responses,
    write_records,
)
from avibench.evaluate.document import Heading, Table, as_dict, fmt_score
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.kits.published import board_rows, published_table
from avibench.kits.records import file_version
from avibench.kits.single_file import SingleFileBenchmark
from avibench.level_metrics.dailyomni import (
    GROUPS,
    LOCAL_DURATIONS,
    Record,
    RecordKind,
    api_tester_correct,
    local_correct,
    statistics,
    weight,
    weighted_accuracy,
)
from avibench.plugin import EvalRequest, Problem, Scored, ScoredView, Task

TASK = Task(layout.TASK, "Daily-Omni", "audio-visual", metric=weighted_accuracy)


def record_kind(response: Response) -> RecordKind:
    """How the official statistics count a response: answered, an API failure, a missing video, or a skip."""
    if response.status == "answered":
        return "answered"
    if response.status == "failed":
        return "failure"
    return "not_found" if response.raw == NOT_FOUND_REPLY else "skipped"


class DailyOmni(SingleFileBenchmark):
    """Daily-Omni (Lliar-liar/Daily-Omni): questions on 30 s and 60 s videos that need sight and sound."""

    name: ClassVar[str] = "dailyomni"
    title: ClassVar[str] = "Daily-Omni"
    templates: ClassVar[tuple[str, ...]] = layout.template_ids()
    download_root: ClassVar[Path] = Path("data/dailyomni")
    sample_root: ClassVar[Path] = Path("data/dailyomni-sample")
    single_task: ClassVar[Task] = TASK
    dataset_file: ClassVar[Path] = layout.DATASET
    official_count: ClassVar[int | None] = layout.OFFICIAL_COUNT
    #: every response gets a (correct, weight) value: the official denominator is no count of scored rows
    reference_drops_unanswered: ClassVar[bool] = False

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load(Path(root), template or self.templates[0])

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.problems(Path(root))

    def question_count(self, path: Path) -> int:
        return len(layout.entries(path))

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {layout.TASK: sample.generate(Path(out), seed=seed, full_size=full_size)}

    def extract(self, item: Item, text: str) -> str | None:
        """The letter of the option the reply commits to ("B", "(B)", "**B**", "Answer: B", "b", the option's
        text), or ``None`` ("Based on...", "B or C", "BC", a refusal)."""
        index = mc.strict_choice(text, sample.option_texts(item), lowercase_letters=True)
        return None if index is None else layout.LETTERS[index]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        gold = str(item.answer)
        return sample.oracle_answer(
            item,
            rng,
            lambda r: (
                api_tester_correct(r, gold) and local_correct(r, gold) and self.extract(item, r) == gold
            ),
        )

    def eval_options(self) -> list[Any]:
        return declared_options()

    # -- scoring: the declaration ----------------------------------------------------------------------

    def _rule(self) -> str:
        return str(self.options.get("dailyomni_rule") or "api")

    def read(self, response: Response, profile: str) -> Any:
        """Reference: ``(kind, reply)``, the official record's kind and its reply; strict: the letter read
        (``None`` for no reply, or a reply that commits to no option)."""
        if profile == "reference":
            return (record_kind(response), response.raw or "")
        return super().read(response, profile)

    def item_value(self, answer: Any, item: Item) -> Any:
        """``(correct, weight)``: weight is what the question adds to the denominator (strict: always 1)."""
        if isinstance(answer, tuple):
            kind, reply = answer
            return (float(kind == "answered" and self._correct(reply, item)), weight(kind, self._rule()))
        return (self.item_score(answer, item), 1)

    def item_score(self, answer: Any, item: Item) -> float:
        if isinstance(answer, tuple):
            kind, reply = answer
            return float(kind == "answered" and self._correct(reply, item))
        return float(answer is not None and answer == item.answer)

    def task_chance(self, task: Task, items: Sequence[Item], profile: str) -> float | None:
        """A uniform guess over each question's options (the denominator's kinds are the run's, not chance's)."""
        return 100.0 * sum(1.0 / len(i.options) for i in items) / len(items) if items else None

    def _correct(self, reply: str, item: Item) -> bool:
        check = local_correct if self._rule() == "local" else api_tester_correct
        return check(reply, str(item.answer))

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The printed figures: the API tester's (or the local script's) in reference, the same counts with every
        question in the denominator in strict."""
        rows = view.rows.get(layout.TASK, ())
        rule = self._rule() if view.profile == "reference" else "api"
        records = []
        for row in rows:
            meta = row.response.item.meta
            kind = record_kind(row.response) if view.profile == "reference" else "answered"
            records.append(
                Record(kind, bool(row.score), meta["qa_type"], meta["video_category"], meta["video_duration"])
            )
        groups = {
            "qa_type": sorted({r.qa_type for r in records}),
            "video_category": sorted({r.video_category for r in records}),
            "video_duration": list(LOCAL_DURATIONS),
        }
        doc = statistics(records, len(records), rule=rule, groups=groups)  # type: ignore[arg-type]
        doc["rule"] = rule if view.profile == "reference" else "strict"
        return doc

    # -- official files ----------------------------------------------------------------------------------

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        return {layout.TASK: read_responses(Path(path), self.load(root, TASK))[0]}

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or the API tester's records against qa.json under the data root."""
        if request.predictions is None:
            scored = super().evaluate(request)
        else:
            items = self.load(request.data_root, TASK)
            responses, notes = read_responses(Path(request.predictions), items)
            scored = self.score(
                {layout.TASK: responses},
                profile=request.profile,
                options=request.options,
                tasks=request.tasks,
            )
            if notes:
                scored.document["coverage"][layout.TASK]["notes"] = notes
        path = Path(request.data_root) / layout.DATASET
        if path.is_file():
            scored.document.setdefault("meta", {})["data_version"] = file_version(path)
        return scored

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The API tester's records, one per question (the shape ``eval --predictions`` reads back)."""
        rows = [as_tester_saw(r) for r in responses.get(layout.TASK, ())]
        return {layout.TASK: write_records(Path(out) / f"{self.name}-records.jsonl", rows)}

    def journal_inputs(self, request: EvalRequest) -> tuple[dict[str, list[Response]], dict[str, str]]:
        """The run's responses, a question whose video is missing counted as the tester's "video not found" skip
        (infer records it as a failed request)."""
        responses, absent = super().journal_inputs(request)
        return {task: [as_tester_saw(r) for r in rows] for task, rows in responses.items()}, absent

    def published(self) -> list[dict[str, Any]]:
        """The official README's leaderboard (omni models with visual and audio): its Avg is the headline."""
        return board_rows(published_table(self.name), headline="Avg", tasks={layout.TASK: "Avg"})

    def report_blocks(self, document: Mapping[str, Any], paths: Any) -> list[Any]:
        """Accuracy by QA type, video category and duration in both profiles."""
        by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
        ref = as_dict(as_dict(by_profile.get("reference")).get("official"))
        strict = as_dict(as_dict(by_profile.get("strict")).get("official"))
        blocks: list[Any] = []
        for _, title in GROUPS:
            groups = list(dict.fromkeys([*as_dict(ref.get(title)), *as_dict(strict.get(title))]))
            rows = []
            for group in groups:
                cells = [as_dict(as_dict(part.get(title)).get(group)) for part in (ref, strict)]
                n = next((c.get("total") for c in cells if c), "")
                rows.append([group, str(n), *(fmt_score(c.get("accuracy")) for c in cells)])
            if rows:
                blocks += [Heading(f"{title} (%)"), Table(["Group", "n", "Reference", "Strict"], rows)]
        return blocks
