"""MMAR and MMAU test-mini as benchmark plug-ins: one class, two layouts, one official scorer.

Both are single-task benchmarks (MMAR's task is ``MMAR``, MMAU's ``test-mini``) of audio multiple-choice questions.
eval.json's top level is the official scorer's breakdowns for the primary profile (``modality``/``category``/
``sub-category``/``total`` for MMAR; ``task``/``difficulty``/``sub-category``/``category``/``total`` for MMAU),
each cell ``{"accuracy": percent, "n": count}``. The reference profile behaves as the official scorer:

* the reference profile scores the raw answer by the official token-set match, a bag of words: word order is
  ignored (a distractor with the answer's words in another order scores correct), a letter-only answer is never
  correct, and reasoning that mentions a distractor's word is wrong; the strict one scores the option the strict
  extractor read (refine's answer), and an answer it could not read is wrong;
* the reference profile skips a question without an answer, so the denominator shrinks with every missing answer
  and a partial run looks complete; the strict one scores it wrong;
* the reference profile always reports the fixed breakdown groups, and one with no scored record prints 0%, which
  reads like a real score; the strict one gives it ``None``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.mmar import layout as layouts
from avibench.benchmarks.mmar import sample
from avibench.contracts import RunPaths
from avibench.errors import DatasetError
from avibench.evaluate.document import Figure, Figures, as_dict, as_number
from avibench.items import Item, Response
from avibench.kits import fields, records
from avibench.kits import multiple_choice as mc
from avibench.kits.pages import differ_note, officials, profile_breakdown
from avibench.kits.published import board_rows, published_table
from avibench.level_metrics.mmar import token_set_match
from avibench.level_metrics.task_metrics import accuracy
from avibench.plugin import PROFILES, Benchmark, EvalRequest, Problem, Scored, ScoredView, Task

#: The prediction key of older MMAR scorers and of MMAU's README, read only when no record has the current one.
LEGACY_PREDICTION_KEY = "model_prediction"
DIFFER = (
    "The two profiles score {answers} answers differently: {reference_only} are right only by the official "
    "token-set match (for example a distractor with the answer's words in another order), {strict_only} only by "
    "the strict extractor (for example an answer given as the option's letter)."
)
ORACLE_STYLES: tuple[str, ...] = (
    "{t}",
    "{t}.",
    "The answer is {t}.",
    "**Answer:** {t}",
    "Based on the audio, the answer is {t}.",
    "<think>I listened to the whole clip and compared it with each option.</think>\n{t}",
    "I choose {t}.",
)
LETTERED_STYLES: tuple[str, ...] = ("({l}) {t}", "{l}. {t}", "The answer is ({l}) {t}.")


class _MultipleChoiceAudio(Benchmark):
    """The shared plug-in of MMAR and MMAU; a subclass names its layout."""

    layout: ClassVar[layouts.Layout]
    templates: ClassVar[tuple[str, ...]] = layouts.TEMPLATES
    score_digits: ClassVar[int] = 4

    def tasks(self) -> tuple[Task, ...]:
        return (Task(self.layout.task, self.title, "audio", metric=accuracy),)

    def available(self, root: Path) -> tuple[Task, ...]:
        return self.tasks() if self.layout.meta_path(Path(root)).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (self.layout.meta_path(Path(root)),)

    def fingerprint(self, root: Path, tasks: Sequence[Task]) -> str:
        return records.file_version(self.layout.meta_path(Path(root))) or ""

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layouts.load(Path(root), self.layout, template or self.templates[0])

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        path = self.layout.meta_path(Path(root))
        if not path.is_file():
            names = " or ".join(self.layout.meta_files)
            return [Problem(str(path), f"not found: a {self.name} data root holds {names}")]
        return layouts.validate(Path(root), self.layout)

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {self.layout.task: sample.generate(Path(out), self.layout, seed=seed, full_size=full_size)}

    # -- answers ----------------------------------------------------------------------------------------

    def _chosen(self, item: Item, text: str | None) -> int | None:
        """The option a raw answer commits to, reading letters only if the template showed them."""
        letters = layouts.shown_letters(item.template or self.templates[0], len(item.options))
        return mc.strict_choice(text, item.options, letters)

    def extract(self, item: Item, text: str) -> str | None:
        index = self._chosen(item, text)
        return None if index is None else item.options[index]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        """A uniform guess among the question's choices, answered with the choice's text."""
        return mc.random_reply(item.options, rng, form="text")

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        """The gold answer phrased as models phrase answers, in a style drawn from ``rng`` among those that both
        the official token-set match and the strict extractor score correct (the bare answer at worst)."""
        right = lambda reply: all(  # noqa: E731
            self.item_score(self.read(Response(item, "answered", reply), p), item) == 1 for p in PROFILES
        )
        letters = layouts.shown_letters(item.template or self.templates[0], len(item.options))
        styles = ORACLE_STYLES + (LETTERED_STYLES if letters else ())
        return mc.oracle_reply(item.options.index(item.answer), item.options, rng, styles, right)

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | int | None:
        """The raw answer (reference); the index of the option chosen (strict), refine's where refine ran and the
        extractor's otherwise (``None``: unanswered or unread)."""
        if response.status != "answered":
            return None
        if profile == "reference":
            return response.raw
        return mc.strict_index(response, lambda raw: self._chosen(response.item, raw))

    def item_score(self, answer: str | int | None, item: Item) -> float:
        """A raw answer (reference) scores by the official token-set match, a chosen index (strict) by its option."""
        if answer is None:
            return 0.0
        if isinstance(answer, int):
            return float(item.options[answer] == item.answer)
        return float(token_set_match(str(item.answer), answer, item.options))

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """The official breakdowns, each group ``{"accuracy": percent, "n": count}``, and ``total``."""
        rows = view.rows.get(self.layout.task, ())
        return mc.accuracy_by(
            [row.response.item.meta for row in rows],
            [row.score for row in rows],
            self.layout.breakdowns,
            fixed=self.layout.breakdowns,
            empty_group_zero=view.profile == "reference",
        )

    # -- official prediction files ----------------------------------------------------------------------

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or an official prediction file (which needs no dataset and no audio)."""
        if request.predictions is not None:
            return self.rescore(request.predictions, request.profile, request.template or self.templates[0])
        scored = super().evaluate(request)
        version = records.file_version(self.layout.meta_path(Path(request.data_root)))
        if version is not None:
            meta = scored.document.setdefault("meta", {})
            meta["data_version"], meta["data_release"] = version, layouts.KNOWN_VERSIONS.get(version)
        return scored

    def rescore(self, path: Path, profile: str = "reference", template: str | None = None) -> Scored:
        """An official prediction file (a JSON list, or JSONL for a ``.jsonl`` file) scored in both profiles,
        ``profile`` at the top level; raises DatasetError naming the file, entry and field. Its records are the
        questions, asked in ``template`` (which letters the model was shown; the default, the recommended prompt,
        shows none). The document carries no per-question scores: their rows would load the questions from a
        dataset it does not need."""
        template = template or self.templates[0]
        rows = records.read_rows(path, otherwise="json")
        if not rows:
            raise DatasetError(path, "holds no records")
        # the fields the official scorer reads from every record (a record without one crashes it)
        read = ("answer", "choices", *(name for name, fixed in self.layout.breakdowns.items() if fixed))
        checks = {name: self.layout.fields[name] for name in read}
        for index, record in rows:
            fields.raise_first(layouts.record_problems(self.layout, path, index, record, checks))
        current, legacy, notes = self.layout.prediction_key, LEGACY_PREDICTION_KEY, []
        key = next((k for k in (current, legacy) if any(k in r for _, r in rows)), None)
        if key is None:
            raise DatasetError(path, f"no record has a prediction ({current!r}, or the older {legacy!r})")
        if key == legacy:
            notes.append(
                f"no record has {current!r}; read the older key {legacy!r} (the official scorer would skip all)"
            )
        responses = []
        for index, record in rows:
            if key in record and not isinstance(record[key], str):
                found = type(record[key]).__name__
                message = f"must be a string, found {found} (leave the key out for no answer)"
                raise DatasetError(path, message, index=index, field=key)
            item = layouts.as_item(self.layout, record, index, str(index), template)
            responses.append(Response(item, "answered" if key in record else "missing", record.get(key)))
        skipped = sum(key not in r for _, r in rows)
        if skipped:
            notes.append(f"{skipped} of {len(rows)} records have no {key!r} (the official scorer skips them)")
        task = self.layout.task
        scored = self.score({task: responses}, profile=profile, options={}, tasks=self.tasks())
        scored.document["coverage"][task]["notes"] = notes
        scored.document["meta"] = {"template": template, "predictions_key": key}
        return Scored(document=scored.document)

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The official evaluation input: each question's record in the official key order, with the raw answer
        under the prediction key (a question without an answer has no key: the official scorers skip it). Its
        scorer reads the model's own answer, so both stages write the raw answers (rescoring re-extracts the
        strict choice from them)."""
        rows = []
        for response in responses.get(self.layout.task, ()):
            item = response.item
            values = {**item.meta, "choices": list(item.options), "answer": item.answer}
            row = {name: values[name] for name in [*self.layout.fields, *item.meta] if name in values}
            if response.status == "answered" and response.raw is not None:
                row[self.layout.prediction_key] = response.raw
            rows.append(row)
        return {self.layout.task: records.replace_jsonl(Path(out) / f"{self.name}-predictions.jsonl", rows)}

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        return board_rows(published_table(self.name), headline="total", tasks={self.layout.task: "total"})

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        """Each official breakdown in both profiles, with a chart of the primary profile's main breakdown, and
        how many answers the profiles score differently."""
        from avibench.evaluate.svg import Series, grouped_bars

        ref, strict = officials(document)
        blocks = [
            block for field in self.layout.breakdowns for block in profile_breakdown(document, field, field)
        ]
        main = next(iter(self.layout.breakdowns))
        groups = list(as_dict(ref.get(main)))
        if groups:
            series = [
                Series(
                    name, [as_number(as_dict(as_dict(part.get(main)).get(g)).get("accuracy")) for g in groups]
                )
                for name, part in (("reference", ref), ("strict", strict))
            ]
            title = f"Accuracy (%) by {main}, both profiles"
            blocks.append(Figures([Figure(title, grouped_bars(groups, series, label=title))]))
        return blocks + differ_note(document, DIFFER)


class MMAR(_MultipleChoiceAudio):
    """MMAR: 1,000 audio reasoning questions over sound, music, speech and their mixtures."""

    name: ClassVar[str] = "mmar"
    title: ClassVar[str] = "MMAR"
    layout: ClassVar[layouts.Layout] = layouts.MMAR
    download_root: ClassVar[Path] = Path("data/mmar")
    sample_root: ClassVar[Path] = Path("data/mmar-sample")


class MMAU(_MultipleChoiceAudio):
    """MMAU test-mini: 1,000 audio understanding questions (sound, music, speech) with difficulty levels."""

    name: ClassVar[str] = "mmau"
    title: ClassVar[str] = "MMAU test-mini"
    layout: ClassVar[layouts.Layout] = layouts.MMAU
    download_root: ClassVar[Path] = Path("data/mmau")
    sample_root: ClassVar[Path] = Path("data/mmau-sample")
