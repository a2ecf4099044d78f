"""OmniBench as a benchmark plug-in: 1,142 image + audio multiple-choice questions, one task.

The reference profile reproduces the official ``calculate_metrics.py`` (current version): every reply and every
gold answer text parsed by the official letter parser, correct when the two letters (or two "N/A") agree, invalid
when a question has no reply. The strict profile compares the strict extractor's choice with the answer's
position. eval.json's top level is the official result for the primary profile (counts and fractions, by audio
type; strict adds task types).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.omnibench import layout, sample
from avibench.benchmarks.omnibench.predictions import read_responses, write_responses
from avibench.benchmarks.omnibench.published import AUDIO_TYPE_COUNTS, PUBLISHED, SOURCE
from avibench.evaluate.document import Heading, Paragraph, Table, as_dict, fmt_score
from avibench.items import Item, Response
from avibench.level_metrics.omnibench import (
    PROFILES,
    STRICT,
    Record,
    profile_disagreements,
    score,
    unparsed,
    verdict,
)
from avibench.plugin import SAMPLE_MARKER, Benchmark, EvalRequest, Problem, Scored, Task, sample_dataset
from avibench.refine.omnibench import official_letter, strict_choice

TASK = Task(layout.TASK, "OmniBench", "image+audio")


def record_of(response: Response) -> Record:
    """The scoring record of one response; an answer refine has not seen (no method) is extracted here."""
    item = response.item
    answered = response.status == "answered" and response.raw is not None
    raw = response.raw if answered else None
    if not answered:
        chosen = None
    elif response.method is not None:
        chosen = item.options.index(response.refined) if response.refined in item.options else None
    else:
        chosen = strict_choice(raw, item.options)
    return Record(
        audio_type=str(item.meta["audio type"]),
        task_type=str(item.meta["task type"]),
        answered=answered,
        gold_index=layout.gold_position(str(item.answer), item.options),
        gold_parsed=official_letter(str(item.answer), item.options),
        official=None if raw is None else official_letter(raw, item.options),
        strict=chosen,
    )


def _headline(result: Mapping[str, Any]) -> float | None:
    accuracy = result["Accuracy"]
    return None if accuracy is None else round(100.0 * accuracy, 4)


class OmniBench(Benchmark):
    """OmniBench (multimodal-art-projection/OmniBench): questions that need both an image and an audio clip."""

    name: ClassVar[str] = "omnibench"
    title: ClassVar[str] = "OmniBench"
    templates: ClassVar[tuple[str, ...]] = layout.template_ids()
    download_root: ClassVar[Path] = Path("data/omnibench")
    sample_root: ClassVar[Path] = Path("data/omnibench-sample")

    def tasks(self) -> tuple[Task, ...]:
        return (TASK,)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (TASK,) if (Path(root) / layout.DATASET).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / layout.DATASET,)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return layout.load(Path(root), template or layout.DEFAULT_TEMPLATE)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        path = Path(root) / layout.DATASET
        if not path.is_file():
            return [Problem(str(path), f"not found: an OmniBench data root holds {layout.DATASET}")]
        return layout.validate(Path(root))

    def dataset_kind(self, root: Path, tasks: Sequence[Task]) -> dict[str, str]:
        """Sample data by its marker; otherwise official only with the release's questions per audio type."""
        found = sample_dataset(root)
        if found is not None:
            return found
        path = Path(root) / layout.DATASET
        records = layout.read_dataset(path) if path.is_file() else []
        counts = Counter(layout.audio_type(r) for r in records if isinstance(r, dict) and "audio type" in r)
        if counts != Counter(AUDIO_TYPE_COUNTS):
            why = f"{path} holds {dict(counts)} questions by audio type, the release {AUDIO_TYPE_COUNTS}"
            return {"kind": "other", "why": why}
        return {"kind": "official", "why": f"the release's questions by audio type and no {SAMPLE_MARKER}"}

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {layout.TASK: sample.generate(Path(out), seed=seed, full_size=full_size)}

    def extract(self, item: Item, text: str) -> str | None:
        """The chosen option's text, or ``None`` when the reply does not commit to one option."""
        index = strict_choice(text, item.options)
        return None if index is None else item.options[index]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, rng)

    # -- scoring ----------------------------------------------------------------------------------------

    def score(
        self, responses: Mapping[str, Sequence[Response]], *, profile: str, options: Mapping[str, Any]
    ) -> Scored:
        rows = list(responses.get(layout.TASK, ()))
        records = [record_of(r) for r in rows]
        results = {name: score(records, p) for name, p in PROFILES.items()}
        headlines = {name: _headline(result) for name, result in results.items()}
        answered = sum(r.answered for r in records)
        failed = sum(r.status == "failed" for r in rows)
        coverage = {
            "questions": len(rows),
            "answered": answered,
            "failed": failed,
            "missing": len(rows) - answered - failed,
            "unparsed": unparsed(records, STRICT),
            "unrefined": sum(r.status == "answered" and r.method is None for r in rows),
            "scored": len(rows),
            "status": "not_scored" if not rows else "scored" if answered == len(rows) else "partial",
            "reason": None
            if answered == len(rows)
            else f"{len(rows) - answered} questions have no answer: both profiles count them invalid, as the "
            "official scorer does",
        }
        templates = sorted({r.item.template for r in rows if r.item.template})
        document = {
            **results[profile],
            "summary": {
                "scale": "0-100",
                "profile": profile,
                "tasks": {layout.TASK: headlines[profile]},
                "headline": headlines[profile],
                "chance": {layout.TASK: 25.0} if rows else {},
                "by_profile": {
                    name: {"tasks": {layout.TASK: value}, "headline": value, "result": results[name]}
                    for name, value in headlines.items()
                },
                "profiles_differ_on": profile_disagreements(records),
                "unparsed": {name: unparsed(records, p) for name, p in PROFILES.items()},
            },
            "coverage": {layout.TASK: coverage},
            "meta": {"template": ", ".join(templates) or None},
        }
        per_sample = {
            layout.TASK: {
                row.item.key: {name: float(verdict(record, p) == "correct") for name, p in PROFILES.items()}
                for row, record in zip(rows, records, strict=True)
            }
        }
        return Scored(document=document, per_sample=per_sample)

    def _from_file(self, path: Path, root: Path) -> tuple[list[Response], list[str]]:
        items = self.load(root, TASK)
        replies, notes = read_responses(Path(path), len(items))
        responses = [
            Response(item, "answered", replies[item.index])
            if item.index in replies
            else Response(item, "missing")
            for item in items
        ]
        return responses, notes

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """The official inference output as responses; a question without a reply is ``missing``."""
        return {layout.TASK: self._from_file(path, root)[0]}

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score the run's journals, or an official inference output against the dataset under the data root."""
        if request.predictions is None:
            scored = super().evaluate(request)
        else:
            responses, notes = self._from_file(request.predictions, request.data_root)
            scored = self.score({layout.TASK: responses}, profile=request.profile, options=request.options)
            scored.document["coverage"][layout.TASK]["notes"] = notes
        path = Path(request.data_root) / layout.DATASET
        if path.is_file():
            scored.document["meta"]["data_version"] = layout.fingerprint(path)
        return scored

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The inference demo's output (its scorer parses the raw replies, so both stages write them)."""
        rows = list(responses.get(layout.TASK, ()))
        replies = {r.item.key: r.raw for r in rows if r.status == "answered" and r.raw is not None}
        path = Path(out) / f"{self.name}-inference.jsonl"
        return {layout.TASK: write_responses(path, [r.item for r in rows], replies)}

    def published(self) -> list[dict[str, Any]]:
        return [
            {"model": p.model, "headline": p.overall, "tasks": {layout.TASK: p.overall}, "source": SOURCE}
            for p in PUBLISHED
        ]

    def report_blocks(self, document: Mapping[str, Any], paths: Any) -> list[Any]:
        """Accuracy by audio type and by task type in both profiles, and how many answers they score differently."""
        by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
        ref = as_dict(as_dict(by_profile.get("reference")).get("result"))
        strict = as_dict(as_dict(by_profile.get("strict")).get("result"))
        blocks: list[Any] = []
        for key, title in (("stats_by_audio_type", "audio type"), ("stats_by_task_type", "task type")):
            groups = list(dict.fromkeys([*as_dict(ref.get(key)), *as_dict(strict.get(key))]))
            rows = []
            for group in groups:
                cells = [as_dict(as_dict(part.get(key)).get(group)) for part in (ref, strict)]
                rates = [c.get("Correct Rate") for c in cells]
                n = next((c.get("total") for c in cells if c), "")
                rows.append([group, str(n), *(fmt_score(None if r is None else 100 * r) for r in rates)])
            if rows:
                blocks += [
                    Heading(f"Accuracy (%) by {title}"),
                    Table(["Group", "n", "Reference", "Strict"], rows),
                ]
        differ = as_dict(as_dict(document.get("summary")).get("profiles_differ_on"))
        if differ:
            blocks.append(
                Paragraph(
                    f"{differ.get('reference_only', 0)} answers are right by the official parser only (a gold "
                    "answer read as another letter or as none, the last of several letters), "
                    f"{differ.get('strict_only', 0)} by the strict extractor only (bold or lowercase letters, a "
                    "reply naming the answer's text beside a letter)."
                )
            )
        return blocks
