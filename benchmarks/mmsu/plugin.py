"""MMSU (Wang et al., 2025) as a benchmark plug-in: 5,000 spoken-language questions with four options, one task.

The reference profile is dingdongwang/MMSU ``mmsu_evaluation.py`` (698fac8): the letter is the reply's first
character, else its second-to-last; any other reply, and one that is not a string, is left out of every number;
an empty reply or ``None`` is wrong; a letter is right when its option's text is ``answer_gt``. The strict profile
scores every question (unread and unanswered ones are wrong), reads letters in their usual forms and leaves hedges
and two-letter answers unread, and takes the gold answer by the option's position. eval.json's top level is the
official output (:mod:`avibench.level_metrics.mmsu`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench import definitions
from avibench.benchmarks.mmsu import layout, sample
from avibench.errors import DatasetError
from avibench.items import Item, Part, Response
from avibench.kits import fields, multiple_choice, records
from avibench.level_metrics.mmsu import official_document as official_numbers
from avibench.level_metrics.mmsu import reference_reading
from avibench.level_metrics.task_metrics import accuracy
from avibench.plugin import Benchmark, Problem, ScoredView, Task

CATALOGUE = definitions.template_catalogue("mmsu.yaml")
LETTERS = multiple_choice.LETTERS[:4]
OFFICIAL_RULES = ("first_character", "second_to_last")
TASK = Task("MMSU", "MMSU: spoken language understanding and reasoning", "audio", metric=accuracy)
SCORED_FIELDS = ("answer_gt", *layout.OPTIONS, "category", "sub-category")
ORACLE_STYLES = ("{l}", "{l}.", "{l}. {t}", "The answer is {l}.", "{l}) {t}")


def prompt(row: Mapping[str, Any], template: str) -> tuple[str, tuple[str, ...]]:
    """The user message and the options as shown (a null option as the official f-string shows it)."""
    spec = definitions.template_fields(CATALOGUE, template, "MMSU")
    shown = tuple(spec["null_option"] if row.get(k) is None else str(row[k]) for k in layout.OPTIONS)
    choices = multiple_choice.lettered(shown, line=spec["choice"])
    return spec["text"].format(question=row["question"], choices=choices), shown


class MMSU(Benchmark):
    """MMSU: 47 sub-tasks of perception and reasoning over semantics, phonology and paralinguistics."""

    name: ClassVar[str] = "mmsu"
    title: ClassVar[str] = "MMSU"
    templates: ClassVar[tuple[str, ...]] = definitions.template_ids(CATALOGUE)
    download_root: ClassVar[Path] = Path("data/mmsu")
    sample_root: ClassVar[Path] = Path("data/mmsu-sample")
    score_digits: ClassVar[int | None] = None  # the official scorer keeps full floats

    def tasks(self) -> tuple[Task, ...]:
        return (TASK,)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (TASK,) if layout.shards(root) else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return tuple(layout.shards(root))

    def fingerprint(self, root: Path, tasks: Sequence[Task]) -> str:
        """The questions' metadata; the audio, most of the shards' bytes, is not hashed (as no benchmark's is)."""
        return records.slice_digest(row for _, _, row in layout.rows(root))[:16]

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        template = template or self.templates[0]
        clips = {shard: layout.clip_paths(root, shard) for shard in layout.shards(root)}
        items = []
        for shard, k, row in layout.rows(root):
            fields.require(shard, k, row, layout.REQUIRED, layout.OPTIONAL)
            gold = layout.gold_position(row)
            if gold is None:
                raise DatasetError(
                    shard, f"{row['answer_gt']!r} is none of the options", index=k, field="answer_gt"
                )
            text, shown = prompt(row, template)
            meta = {f: row.get(f) for f in ("task_name", "category", "sub-category", *layout.EXTRA)}
            parts = (Part.audio(clips[shard][k]), Part.text(text))
            items.append(
                Item(
                    self.name,
                    task.name,
                    str(row["id"]),
                    parts,
                    LETTERS[gold],
                    index=len(items),
                    options=shown,
                    template=template,
                    meta=meta,
                    source=row,
                )
            )
        return items

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        if not layout.shards(root):
            return [Problem(str(Path(root) / "data"), "no train-*.parquet shards (the hub's layout)")]
        return list(layout.problems(root))

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {TASK.name: sample.generate(Path(out), seed=seed, full_size=full_size)}

    # -- answers ----------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        """The strict reading: the letter of the option the reply commits to (``None``: a hedge, two letters).

        An option the dataset leaves null is shown as ``None`` but is no answer's text: a reply "None" (or "none of
        them") is unread, while its letter still reads as that option."""
        texts = tuple(
            "" if item.source[k] is None else t for k, t in zip(layout.OPTIONS, item.options, strict=True)
        )
        index = multiple_choice.strict_choice(text, texts, LETTERS, lowercase_letters=True)
        return None if index is None else LETTERS[index]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return multiple_choice.random_reply(item.options, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        gold = LETTERS.index(item.answer)
        right = lambda reply: all(  # noqa: E731
            self.item_score(self.read(Response(item, "answered", reply), p), item) == 1
            for p in ("reference", "strict")
        )
        return multiple_choice.oracle_reply(gold, item.options, rng, ORACLE_STYLES, right)

    # -- scoring: the declaration -------------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | int | None:
        """Reference: the chosen option's text as recorded (``""`` for a null option or an empty reply; ``None``:
        left out); strict: the chosen option's index (``None``: unread or unanswered)."""
        if response.status != "answered":
            return None
        item = response.item
        if profile == "reference":
            index = multiple_choice.official_choice(response.raw, item.options, OFFICIAL_RULES, LETTERS)
            reading = reference_reading(response.raw, None if index is None else LETTERS[index])
            if not reading:
                return reading  # left out, or counted wrong
            return item.source[layout.OPTIONS[LETTERS.index(reading)]] or ""
        letter = super().read(response, profile)
        return None if letter is None else LETTERS.index(letter)

    def item_score(self, answer: str | int | None, item: Item) -> float:
        if isinstance(answer, int):
            return float(LETTERS[answer] == item.answer)
        return float(answer is not None and answer == item.source["answer_gt"])

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        rows = view.rows.get(TASK.name, ())
        return official_numbers([r.response.item.meta for r in rows], [r.score for r in rows])

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """mmsu_inference.py's output: one JSON object per line, the dataset's columns but ``audio``, and
        ``response`` (absent: an empty reply, as the official scorer reads it; not a string: a failure)."""
        items = {item.item_id: item for item in self.load(root, TASK)}
        answers: dict[str, Response] = {}
        rows = records.objects(path, records.jsonl_rows(path))
        if not rows:
            raise DatasetError(
                path, "holds no rows (one JSON object per line: the dataset's columns and response)"
            )
        for line, row in rows:
            item = items.get(str(row.get("id")))
            if item is None or str(item.item_id) in answers:
                why = "is not a question of the dataset" if item is None else "is answered twice"
                raise DatasetError(path, f"id {row.get('id')!r} {why}", index=line, field="id")
            for name in SCORED_FIELDS:  # what the official scorer reads of a row must be the dataset's
                if row.get(name, item.source[name]) != item.source[name]:
                    raise DatasetError(path, "differs from the dataset's", index=line, field=name)
            reply = row.get("response", "")
            answers[item.item_id] = Response(
                item,
                "answered" if isinstance(reply, str) else "failed",
                reply if isinstance(reply, str) else None,
            )
        return {TASK.name: [answers.get(i.item_id, Response(i, "missing")) for i in items.values()]}

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """mmsu_inference.py's output, the shape ``eval --predictions`` reads back: each asked question's dataset
        columns but ``audio``, and ``response``, the raw reply (the official scorer reads it: both stages alike;
        ``null`` for a failed request). Questions never asked have no row."""
        rows = [
            {**r.item.source, "response": r.raw if r.status == "answered" else None}
            for r in responses.get(TASK.name, ())
            if r.status in ("answered", "failed")
        ]
        if not rows:
            return {}
        return {TASK.name: records.write_jsonl(Path(out) / f"{self.name}-predictions.jsonl", rows)}
