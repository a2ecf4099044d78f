"""MMAR and MMAU test-mini as benchmark plug-ins: one class, two layouts, one official scorer.

Both are single-task benchmarks (MMAR's task is ``MMAR``, MMAU's ``test-mini``) of audio multiple-choice questions.
The reference profile is the official token-set match on the raw answer; the strict one scores the option the
extractor chose (refine's answer). eval.json's top level is the official scorer's breakdowns for the primary
profile (``modality``/``category``/``sub-category``/``total`` for MMAR; ``task``/``difficulty``/``sub-category``/
``category``/``total`` for MMAU), each cell ``{"accuracy": percent, "n": count}``.
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
from avibench.benchmarks.mmar.published import PUBLISHED
from avibench.benchmarks.mmar.scoring import extract, file_records, response_record
from avibench.contracts import RunPaths
from avibench.evaluate.document import (
    Figure,
    Figures,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_score,
)
from avibench.items import Item, Response
from avibench.level_metrics.mmar import (
    PROFILES,
    Record,
    chance_level,
    is_correct,
    profile_disagreements,
    score,
)
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task


def _headline(result: Mapping[str, Any]) -> float | None:
    accuracy = result["total"]["accuracy"]
    return None if accuracy is None else round(float(accuracy), 4)


def _verdict(record: Record, profile: Any) -> float | None:
    correct = is_correct(record, profile)
    return None if correct is None else float(correct)


class _MultipleChoiceAudio(Benchmark):
    """The shared plug-in of MMAR and MMAU; a subclass names its layout and generator."""

    layout: ClassVar[layouts.Layout]
    generator: ClassVar[Callable[..., int]]
    """Writes the sample in the layout; returns the number of questions."""
    templates: ClassVar[tuple[str, ...]] = (
        DEFAULT_TEMPLATE,
        *(t for t in template_ids() if t != DEFAULT_TEMPLATE),
    )

    def _task(self) -> Task:
        return Task(self.layout.task, self.title, "audio")

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

    # -- scoring ----------------------------------------------------------------------------------------

    def _document(
        self, records: Sequence[Record], coverage: dict[str, Any], profile: str, meta: dict
    ) -> Scored:
        results = {name: score(records, self.layout.breakdowns, p) for name, p in PROFILES.items()}
        headlines = {name: _headline(result) for name, result in results.items()}
        differ = profile_disagreements(records)
        task = self.layout.task
        document = {
            **results[profile],
            "summary": {
                "scale": "0-100",
                "profile": profile,
                "tasks": {task: headlines[profile]},
                "headline": headlines[profile],
                "chance": {task: round(chance_level(r.choices for r in records), 4)} if records else {},
                "by_profile": {
                    name: {"tasks": {task: value}, "headline": value, "breakdowns": results[name]}
                    for name, value in headlines.items()
                },
                "profiles_differ_on": {
                    "answers": differ.total,
                    "reference_only": differ.reference_only,
                    "strict_only": differ.strict_only,
                },
            },
            "coverage": {task: coverage},
            "meta": meta,
        }
        return Scored(document=document)

    def score(
        self, responses: Mapping[str, Sequence[Response]], *, profile: str, options: Mapping[str, Any]
    ) -> Scored:
        task = self.layout.task
        rows = list(responses.get(task, ()))
        records = [response_record(r, self.layout) for r in rows]
        answered = sum(r.status == "answered" for r in rows)
        failed = sum(r.status == "failed" for r in rows)
        missing = sum(r.status == "missing" for r in rows)
        unrefined = sum(r.status == "answered" and r.method is None for r in rows)
        coverage = {
            "questions": len(rows),
            "answered": answered,
            "failed": failed,
            "missing": missing,
            "unparsed": sum(r.status == "answered" and r.method == "unparsed" for r in rows),
            "unrefined": unrefined,
            "scored": answered,
            "status": "not_scored" if not rows else "scored" if answered == len(rows) else "partial",
            "reason": None
            if answered == len(rows)
            else f"{failed} failed and {missing} never asked: the reference profile leaves them out, strict counts "
            "them wrong",
        }
        templates = sorted({r.item.template for r in rows if r.item.template})
        scored = self._document(records, coverage, profile, {"template": ", ".join(templates) or None})
        scored.per_sample = {
            task: {
                row.item.key: {name: _verdict(record, p) for name, p in PROFILES.items()}
                for row, record in zip(rows, records, strict=True)
            }
        }
        return scored

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or an official prediction file (which needs no dataset and no audio)."""
        scored = super().evaluate(request) if request.predictions is None else self._rescore(request)
        meta_path = self.layout.meta_path(Path(request.data_root))
        if request.predictions is None and meta_path.is_file():
            scored.document["meta"]["data_version"] = layouts.fingerprint(meta_path)
            scored.document["meta"]["data_release"] = layouts.known_version(meta_path)
        return scored

    def _rescore(self, request: EvalRequest) -> Scored:
        predictions = read_predictions(request.predictions, self.layout)
        template = request.template or DEFAULT_TEMPLATE
        records = file_records(predictions, self.layout, template)
        answered = sum(r.prediction is not None for r in records)
        coverage = {
            "questions": len(records),
            "answered": answered,
            "failed": 0,
            "missing": len(records) - answered,
            "unparsed": 0,
            "scored": answered,
            "status": "scored" if answered == len(records) else "partial",
            "reason": None,
            "notes": list(predictions.notes),
        }
        meta = {"template": template, "predictions_key": predictions.key}
        return self._document(records, coverage, request.profile, meta)

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
        return [
            {
                "model": p.model,
                "headline": p.total,
                "tasks": {self.layout.task: p.total},
                "source": p.source + (f"; {p.note}" if p.note else ""),
            }
            for p in PUBLISHED[self.name]
        ]

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        """Each official breakdown in both profiles, with a chart of the primary profile's main breakdown, and
        how many answers the profiles score differently."""
        from avibench.evaluate.svg import Series, grouped_bars

        by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
        ref = as_dict(as_dict(by_profile.get("reference")).get("breakdowns"))
        strict = as_dict(as_dict(by_profile.get("strict")).get("breakdowns"))
        blocks: list[Any] = []
        for breakdown in self.layout.breakdowns:
            groups = list(
                dict.fromkeys([*as_dict(ref.get(breakdown.field)), *as_dict(strict.get(breakdown.field))])
            )
            rows = [
                [
                    group,
                    str(as_dict(as_dict(ref.get(breakdown.field)).get(group)).get("n", "")),
                    fmt_score(as_dict(as_dict(ref.get(breakdown.field)).get(group)).get("accuracy")),
                    fmt_score(as_dict(as_dict(strict.get(breakdown.field)).get(group)).get("accuracy")),
                ]
                for group in groups
            ]
            blocks += [
                Heading(f"Accuracy (%) by {breakdown.field}"),
                Table(["Group", "n", "Reference", "Strict"], rows),
            ]
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
