"""OmniBench as a benchmark plug-in: 1,142 image + audio multiple-choice questions, one task.

The reference profile reproduces the official ``calculate_metrics.py`` (current version): every reply and every
gold answer text parsed by the official letter parser, correct when the two letters (or two "N/A") agree, invalid
when a question has no reply. The strict profile compares the strict extractor's choice with the answer's
position. eval.json's top level is the official result for the primary profile (counts and fractions, by audio
type; strict adds the paper's eight task types). How the profiles differ:

* the gold letter: the reference profile's is what the official parser reads from the gold answer's *text*, so an
  answer such as "A man is answering" reads as A wherever it stands, and a short answer without a letter ("Two
  beeps, a circle") reads as nothing; the strict profile's is the letter of the option equal to the answer;
* the reply's letter: the official substring parser reads "A or B" and "not A, it is B" as B (the last letter), a
  hedge or a refusal as whatever letter or option text it contains, and "b" or "**B**" as nothing; the strict
  extractor leaves hedges, refusals and answers naming two options unparsed and reads bold and lowercase letters;
* a reply read as nothing ("N/A"): the script compares the two parses as strings, so it is correct whenever the
  gold answer also reads as nothing (the official script asserts this never happens, but its message reads a
  field the dataset lacks, so run without asserts it scores them correct); the strict profile counts it wrong.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.omnibench import layout, sample
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import fields, records
from avibench.kits import multiple_choice as mc
from avibench.kits.pages import differ_note, profile_breakdown
from avibench.kits.published import board_rows, published_table
from avibench.kits.single_file import SingleFileBenchmark
from avibench.level_metrics.omnibench import official_letter, official_result, verdict
from avibench.level_metrics.task_metrics import accuracy
from avibench.plugin import SAMPLE_MARKER, EvalRequest, Problem, Scored, ScoredView, Task, sample_dataset

PROFILES = ("reference", "strict")
DIFFER = (
    "{reference_only} answers are right by the official parser only (a gold answer read as another letter or as "
    "none, the last of several letters), {strict_only} by the strict extractor only (bold or lowercase letters, a "
    "reply naming the answer's text beside a letter)."
)
TASK = Task(layout.TASK, "OmniBench", "image+audio", metric=accuracy)
ORACLE_STYLES: tuple[str, ...] = (
    "{t}",
    "{l}",
    "({l}) {t}",
    "The answer is ({l}).",
    "**{l}**",
    "Answer: {l}",
    "The correct answer is {l}. {t}",
    "Based on the image and the audio, the answer is: {t}",
    "<think>I counted the shapes and the sounds.</think>\n({l})",
)


class OmniBench(SingleFileBenchmark):
    """OmniBench (multimodal-art-projection/OmniBench): questions that need both an image and an audio clip."""

    name: ClassVar[str] = "omnibench"
    title: ClassVar[str] = "OmniBench"
    templates: ClassVar[tuple[str, ...]] = layout.TEMPLATES
    download_root: ClassVar[Path] = Path("data/omnibench")
    sample_root: ClassVar[Path] = Path("data/omnibench-sample")
    single_task: ClassVar[Task] = TASK
    dataset_file: ClassVar[Path] = layout.DATASET
    score_digits: ClassVar[int] = 4
    #: the official scorer counts a question without a reply as invalid, never leaves it out
    reference_drops_unanswered: ClassVar[bool] = False

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load(Path(root), template or self.templates[0])

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.validate(Path(root))

    def dataset_kind(self, root: Path, tasks: Sequence[Task]) -> dict[str, str]:
        """Sample data by its marker; otherwise official only with the release's questions per audio type."""
        if (found := sample_dataset(root)) is not None:
            return found
        path = Path(root) / layout.DATASET
        rows = records.read_records(path) if path.is_file() else []
        counts = Counter(layout.audio_type(r) for r in rows if isinstance(r, dict) and "audio type" in r)
        release = published_table(self.name).facts["audio_type_counts"]
        if counts != Counter(release):
            why = f"{path} holds {dict(counts)} questions by audio type, the release {release}"
            return {"kind": "other", "why": why}
        return {"kind": "official", "why": f"the release's questions by audio type and no {SAMPLE_MARKER}"}

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {layout.TASK: sample.generate(Path(out), seed=seed, full_size=full_size)}

    # -- answers ----------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        index = mc.strict_choice(text, item.options, lowercase_letters=True)
        return None if index is None else item.options[index]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        """A uniform guess: one of the four letters, alone (both parsers read it)."""
        return mc.random_reply(item.options, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        """The gold answer phrased as models phrase answers, in a style drawn from ``rng`` among those that both
        the official parser (against the letter it reads from the answer text) and the strict extractor score
        correct; the answer text itself at worst (which the official parser always scores correct)."""
        gold = layout.gold_position(str(item.answer), item.options)
        if gold is None:
            return str(item.answer)
        right = lambda reply: all(  # noqa: E731
            self.item_score(self.read(Response(item, "answered", reply), p), item) == 1 for p in PROFILES
        )
        return mc.oracle_reply(gold, item.options, rng, ORACLE_STYLES, right, text=str(item.answer))

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | int | None:
        """The official parser's letter of the raw reply (``""``: it reads none, the official "N/A") in the
        reference profile; in the strict one the index of the option chosen, refine's where refine ran and the
        extractor's otherwise (``None``: unanswered, or unread by the strict extractor)."""
        if response.status != "answered" or response.raw is None:
            return None
        options = response.item.options
        if profile == "reference":
            return official_letter(response.raw, options) or ""
        return mc.strict_index(response, lambda raw: mc.strict_choice(raw, options, lowercase_letters=True))

    def item_score(self, answer: str | int | None, item: Item) -> float:
        """A letter (reference) is right when it is the one the official parser reads from the gold answer text
        (``""`` for both: two "N/A"); a chosen index (strict) when it is the answer's position."""
        if answer is None:
            return 0.0
        if isinstance(answer, int):
            return float(answer == layout.gold_position(str(item.answer), item.options))
        return float(answer == (official_letter(str(item.answer), item.options) or ""))

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The official result: counts and rates in total and by audio type (strict: also by task type)."""
        rows = view.rows.get(layout.TASK, ())
        replied = [row.response.status == "answered" and row.response.raw is not None for row in rows]
        verdicts = [verdict(answered, row.score) for answered, row in zip(replied, rows, strict=True)]
        metas = [row.response.item.meta for row in rows]
        task_types = [str(m["task type"]) for m in metas] if view.profile == "strict" else None
        return official_result(verdicts, [str(m["audio type"]) for m in metas], task_types)

    def score(self, responses: Mapping[str, Sequence[Response]], **how: Any) -> Scored:
        """The core's scoring, plus the replies each profile reads as no letter (``summary.unparsed``)."""
        scored = super().score(responses, **how)
        replied = [r for r in responses.get(layout.TASK, ()) if r.status == "answered" and r.raw is not None]
        scored.document["summary"]["unparsed"] = {
            name: sum(self.read(r, name) in (None, "") for r in replied) for name in PROFILES
        }
        return scored

    # -- official inference output ------------------------------------------------------------------------

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or an official inference output against the dataset under the data root.

        The inference demo appends one JSON object per line as each question finishes, so rows come in any order
        and a question whose request failed has no row; ``calculate_metrics.py`` reads a JSON list instead, row k
        for question k, and counts a row whose ``question`` is empty as invalid. Both are read: a JSONL file by
        each row's ``index``, a JSON list by position; a question without a row, or with an empty ``question``, is
        ``missing`` (invalid). Only ``response`` is scored: the current scorer parses again."""
        if request.predictions is None:
            scored = super().evaluate(request)
        else:
            items = self.load(request.data_root, TASK)
            replies, notes = _replies(Path(request.predictions), len(items))
            answers = [
                Response(i, "answered", replies[i.index]) if i.index in replies else Response(i, "missing")
                for i in items
            ]
            scored = self.score(
                {layout.TASK: answers}, profile=request.profile, options=request.options, tasks=request.tasks
            )
            scored.document["coverage"][layout.TASK]["notes"] = notes
            scored.document["meta"] = {"template": self.templates[0]}
        version = records.file_version(Path(request.data_root) / layout.DATASET)
        if version is not None:
            scored.document.setdefault("meta", {})["data_version"] = version
        return scored

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The inference demo's output, a row per answered question (its scorer parses the raw replies, so both
        stages write them). ``parsed_response`` and ``correct_answer`` are the official parser's letters ("N/A"
        where it finds none: the demo would draw a random letter, which no scorer reads)."""
        rows = []
        for response in responses.get(layout.TASK, ()):
            if response.status != "answered" or response.raw is None:
                continue
            item, reply = response.item, response.raw
            parsed = official_letter(reply, item.options) or "N/A"
            gold = official_letter(str(item.answer), item.options) or "N/A"
            row = {
                "index": item.index,
                "audio_type": item.source["audio type"],
                "question": item.source["question"],
                "options": layout.option_lines(item.options),
                "response": reply,
                "parsed_response": parsed,
                "correct_answer": gold,
                "is_correct": parsed == gold,
            }
            rows.append(row)
        return {layout.TASK: records.replace_jsonl(Path(out) / f"{self.name}-inference.jsonl", rows)}

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        return board_rows(published_table(self.name), headline="overall", tasks={layout.TASK: "overall"})

    def report_blocks(self, document: Mapping[str, Any], paths: Any) -> list[Any]:
        """Accuracy by audio type and by task type in both profiles, and how many answers they score differently."""
        blocks: list[Any] = []
        for key, title in (("stats_by_audio_type", "audio type"), ("stats_by_task_type", "task type")):
            blocks += profile_breakdown(
                document,
                key,
                title,
                percent=lambda cell: None if cell.get("Correct Rate") is None else 100 * cell["Correct Rate"],
                count=lambda cell: cell.get("total"),
            )
        return blocks + differ_note(document, DIFFER)


def _replies(path: Path, count: int) -> tuple[dict[int, str], list[str]]:
    """The replies of an inference output file by question index (a question absent from the mapping is
    invalid), and notes on what the reader left out; raises DatasetError naming file, entry and field."""
    text = records.read_text(path)
    positional = text.lstrip().startswith("[")
    rows = list(enumerate(records.parse_json(path, text))) if positional else records.jsonl_rows(path, text)
    if not rows:
        raise DatasetError(path, "holds no rows")
    replies: dict[int, str] = {}
    seen: set[int] = set()
    for entry, row in records.objects(path, rows):
        index = entry if positional else row.get("index")
        if fields.integer(index):
            raise DatasetError(
                path, "must be the question's line number (an integer)", index=entry, field="index"
            )
        if not 0 <= index < count:
            message = f"{index} is outside the dataset's {count} questions"
            raise DatasetError(path, message, index=entry, field="index")
        if index in seen:
            raise DatasetError(path, f"question {index} has a second row", index=entry, field="index")
        seen.add(index)
        if row.get("question") == "":
            continue
        response = row.get("response")
        if not isinstance(response, str):
            found = "missing" if response is None else type(response).__name__
            message = f"must be the model's reply as a string ({found})"
            raise DatasetError(path, message, index=entry, field="response")
        replies[index] = response
    notes = []
    empty = len(seen) - len(replies)
    if empty:
        notes.append(f"rows with an empty question: {empty} (invalid, as the official scorer counts them)")
    absent = count - len(seen)
    if absent:
        notes.append(
            f"questions without a row: {absent} of {count} (invalid, as the official scorer counts them)"
        )
    return replies, notes
