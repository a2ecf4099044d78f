"""MMAR and MMAU test-mini as benchmark plug-ins: one class, two layouts, one official scorer.

Both are single-task benchmarks (MMAR's task is ``MMAR``, MMAU's ``test-mini``) of audio multiple-choice questions.
The reference profile is the official token-set match on the raw answer; the strict one scores the option the
extractor chose (refine's answer). eval.json's top level is the official scorer's breakdowns for the primary
profile (``modality``/``category``/``sub-category``/``total`` for MMAR; ``task``/``difficulty``/``sub-category``/
``category``/``total`` for MMAU), each cell ``{"accuracy": percent, "n": count}``. The plug-in declares these (how
each profile reads and scores an answer, the task's accuracy, the official document); the core scores them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.mmar import layout as layouts
from avibench.benchmarks.mmar import sample
from avibench.benchmarks.mmar.predictions import read_predictions, write_predictions
from avibench.benchmarks.mmar.prompt import DEFAULT_TEMPLATE, template_ids
from avibench.benchmarks.mmar.scoring import chosen_index, extract
from avibench.contracts import RunPaths
from avibench.evaluate.document import (
    Figure,
    Figures,
    Paragraph,
    as_dict,
    as_number,
)
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.kits.pages import officials, profile_breakdown
from avibench.kits.published import board_rows, published_table
from avibench.level_metrics.mmar import PROFILES, token_set_match
from avibench.level_metrics.task_metrics import accuracy
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredView, Task


class _MultipleChoiceAudio(Benchmark):
    """The shared plug-in of MMAR and MMAU; a subclass names its layout and generator."""

    layout: ClassVar[layouts.Layout]
    generator: ClassVar[Callable[..., int]]
    """Writes the sample in the layout; returns the number of questions."""
    templates: ClassVar[tuple[str, ...]] = (
        DEFAULT_TEMPLATE,
        *(t for t in template_ids() if t != DEFAULT_TEMPLATE),
    )

    score_digits: ClassVar[int] = 4

    def _task(self) -> Task:
        return Task(self.layout.task, self.title, "audio", metric=accuracy)

    def tasks(self) -> tuple[Task, ...]:
        return (self._task(),)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (self._task(),) if self.layout.meta_path(Path(root)).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return layouts.data_files(Path(root), self.layout)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layouts.load(Path(root), self.layout, template or DEFAULT_TEMPLATE)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        path = self.layout.meta_path(Path(root))
        if not path.is_file():
            names = " or ".join(self.layout.meta_files)
            return [Problem(str(path), f"not found: a {self.name} data root holds {names}")]
        return layouts.validate(Path(root), self.layout)

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {self.layout.task: type(self).generator(Path(out), seed=seed, full_size=full_size)}

    def extract(self, item: Item, text: str) -> str | None:
        return extract(item, text)

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, rng)

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | int | None:
        """The official token-set match reads the raw answer; the strict profile the index of the option chosen,
        refine's where refine ran and the extractor's otherwise (``None``: unanswered or unread)."""
        if response.status != "answered":
            return None
        item = response.item
        if PROFILES[profile].token_set_match:
            return response.raw
        if response.method is not None:
            return item.options.index(response.refined) if response.refined in item.options else None
        return chosen_index(response.raw, item.options, item.template or DEFAULT_TEMPLATE)

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
        breakdowns = self.layout.breakdowns
        return mc.accuracy_by(
            [row.response.item.meta for row in rows],
            [row.score for row in rows],
            [b.field for b in breakdowns],
            fixed={b.field: b.fixed for b in breakdowns},
            empty_group_zero=PROFILES[view.profile].empty_group_zero,
        )

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or an official prediction file (which needs no dataset and no audio)."""
        if request.predictions is not None:
            return self.rescore(request.predictions, request.profile, request.template or DEFAULT_TEMPLATE)
        scored = super().evaluate(request)
        meta_path = self.layout.meta_path(Path(request.data_root))
        if meta_path.is_file():
            meta = scored.document.setdefault("meta", {})
            meta["data_version"] = layouts.fingerprint(meta_path)
            meta["data_release"] = layouts.known_version(meta_path)
        return scored

    def rescore(self, path: Path, profile: str = "reference", template: str = DEFAULT_TEMPLATE) -> Scored:
        """An official prediction file scored in both profiles, ``profile`` at the top level. Its records are the
        questions, asked in ``template`` (which letters the model was shown; the default, the recommended prompt,
        shows none). The document carries no per-question scores: their rows would load the questions from a
        dataset it does not need."""
        predictions = read_predictions(path, self.layout)
        task = self.layout.task
        responses = []
        for index, record in enumerate(predictions.records):
            item = Item(
                benchmark=self.name,
                task=task,
                item_id=str(index),
                parts=(),
                answer=record["answer"],
                index=index,
                options=tuple(record["choices"]),
                template=template,
                meta=record,
            )
            raw = predictions.prediction(record)
            responses.append(Response(item, "missing" if raw is None else "answered", raw))
        scored = self.score({task: responses}, profile=profile, options={}, tasks=self.tasks())
        scored.document["coverage"][task]["notes"] = list(predictions.notes)
        scored.document["meta"] = {"template": template, "predictions_key": predictions.key}
        return Scored(document=scored.document)

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The official evaluation input. Its scorer reads the model's own answer, so both stages write the raw
        answers (rescoring re-extracts the strict choice from them)."""
        task = self.layout.task
        rows = list(responses.get(task, ()))
        text = {r.item.key: r.raw for r in rows if r.status == "answered"}
        path = Path(out) / f"{self.name}-predictions.jsonl"
        return {task: write_predictions(path, [r.item for r in rows], text, self.layout)}

    def published(self) -> list[dict[str, Any]]:
        return board_rows(published_table(self.name), headline="total", tasks={self.layout.task: "total"})

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        """Each official breakdown in both profiles, with a chart of the primary profile's main breakdown, and
        how many answers the profiles score differently."""
        from avibench.evaluate.svg import Series, grouped_bars

        ref, strict = officials(document)
        blocks: list[Any] = []
        for breakdown in self.layout.breakdowns:
            blocks += profile_breakdown(document, breakdown.field, breakdown.field)
        main = self.layout.breakdowns[0].field
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
        differ = as_dict(as_dict(document.get("summary")).get("profiles_differ_on"))
        if differ:
            blocks.append(
                Paragraph(
                    f"The two profiles score {differ.get('answers', 0)} answers differently: "
                    f"{differ.get('reference_only', 0)} are right only by the official token-set match (for "
                    f"example a distractor with the answer's words in another order), {differ.get('strict_only', 0)} "
                    "only by the strict extractor (for example an answer given as the option's letter)."
                )
            )
        return blocks

    def fingerprint(self, root: Path, tasks: Sequence[Task]) -> str:
        return layouts.fingerprint(self.layout.meta_path(Path(root)))


class MMAR(_MultipleChoiceAudio):
    """MMAR: 1,000 audio reasoning questions over sound, music, speech and their mixtures."""

    name: ClassVar[str] = "mmar"
    title: ClassVar[str] = "MMAR"
    layout: ClassVar[layouts.Layout] = layouts.MMAR
    download_root: ClassVar[Path] = Path("data/mmar")
    sample_root: ClassVar[Path] = Path("data/mmar-sample")
    generator: ClassVar[Callable[..., int]] = staticmethod(sample.generate_mmar)


class MMAU(_MultipleChoiceAudio):
    """MMAU test-mini: 1,000 audio understanding questions (sound, music, speech) with difficulty levels."""

    name: ClassVar[str] = "mmau"
    title: ClassVar[str] = "MMAU test-mini"
    layout: ClassVar[layouts.Layout] = layouts.MMAU
    download_root: ClassVar[Path] = Path("data/mmau")
    sample_root: ClassVar[Path] = Path("data/mmau-sample")
    generator: ClassVar[Callable[..., int]] = staticmethod(sample.generate_mmau)
