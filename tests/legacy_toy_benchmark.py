"""A toy benchmark written against the older plug-in interface (its own ``score()``), kept as it was to show that
such third-party plug-ins keep working, with a deprecation notice; new plug-ins declare (``toy_benchmark.py``).

Layout: ``<root>/toy.jsonl``, one question a line (``id``, ``question``, ``choices``, ``answer`` (a choice's text),
``audio`` (a path under the root)). Every question is asked twice, a variant axis of 2: ``fwd`` lists the choices as
given and ``rev`` in reverse order. The official scorer (``reference``) is accuracy over every asked variant with
unanswered ones left out; ``strict`` credits a question only when both variants are right and counts missing or
unparsed answers as wrong.
"""

from __future__ import annotations

import json
import random
import re
import wave
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from avibench.errors import DatasetError
from avibench.items import Item, Part, Response
from avibench.plugin import Benchmark, Problem, Scored, Task

VARIANTS = ("fwd", "rev")
LETTERS = "ABCD"
TASK = Task("listen", "Which sound is it?", "audio")
QUESTIONS = [
    ("q1", "Is the tone high or low?", ["high", "low"], "high", 880.0),
    ("q2", "Is the tone high or low?", ["high", "low"], "low", 220.0),
    ("q3", "How many beeps?", ["one", "two", "three"], "one", 440.0),
    ("q4", "Which instrument?", ["flute", "drum", "voice"], "flute", 660.0),
]


def _tone(path: Path, freq: float) -> None:
    rate = 8000
    t = np.arange(int(rate * 0.2)) / rate
    pcm = (0.3 * np.sin(2 * np.pi * freq * t) * 32767).astype("<i2")
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())


class LegacyToyBench(Benchmark):
    name: ClassVar[str] = "legacy-toy"
    title: ClassVar[str] = "Toy audio multiple choice"
    templates: ClassVar[tuple[str, ...]] = ("lettered",)
    download_root: ClassVar[Path] = Path("data/toy")
    sample_root: ClassVar[Path] = Path("data/toy-sample")

    def tasks(self) -> tuple[Task, ...]:
        return (TASK,)

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / "toy.jsonl",)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (TASK,) if (Path(root) / "toy.jsonl").is_file() else ()

    def _records(self, root: Path) -> list[dict[str, Any]]:
        path = Path(root) / "toy.jsonl"
        records = []
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"invalid JSON ({exc.msg})", index=line_no) from None
            if record.get("answer") not in record.get("choices", []):
                raise DatasetError(path, "not one of the choices", index=line_no, field="answer")
            records.append(record)
        return records

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        items = []
        for index, record in enumerate(self._records(root)):
            for variant in VARIANTS:
                choices = record["choices"] if variant == "fwd" else record["choices"][::-1]
                listing = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(choices))
                text = f"{record['question']}\n{listing}\nAnswer with the letter."
                items.append(
                    Item(
                        benchmark=self.name,
                        task=task.name,
                        item_id=record["id"],
                        variant=variant,
                        index=index,
                        parts=(Part.audio(Path(root) / record["audio"]), Part.text(text)),
                        answer=record["answer"],
                        options=tuple(choices),
                        max_tokens=16,
                        template="lettered",
                    )
                )
        return items

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        try:
            records = self._records(root)
        except DatasetError as exc:
            return [Problem(exc.path, exc.message, index=exc.index, field=exc.field)]
        return [
            Problem(str(Path(root) / "toy.jsonl"), "audio file not found", index=i + 1, field="audio")
            for i, r in enumerate(records)
            if not (Path(root) / r["audio"]).is_file()
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        out = Path(out)
        lines = []
        for qid, question, choices, answer, freq in QUESTIONS:
            _tone(out / "audio" / f"{qid}.wav", freq)
            record = {
                "id": qid,
                "question": question,
                "choices": choices,
                "answer": answer,
                "audio": f"audio/{qid}.wav",
            }
            lines.append(json.dumps(record))
        (out / "toy.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return {TASK.name: len(QUESTIONS) * len(VARIANTS)}

    def extract(self, item: Item, text: str) -> str | None:
        letters = set(re.findall(r"\b([A-D])\b", text))
        named = {o for o in item.options if re.search(rf"\b{re.escape(o)}\b", text, re.I)}
        picks = {
            item.options[LETTERS.index(x)] for x in letters if LETTERS.index(x) < len(item.options)
        } | named
        return picks.pop() if len(picks) == 1 else None

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return f"Answer: {LETTERS[rng.randrange(len(item.options))]}"

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        letter = LETTERS[item.options.index(item.answer)]
        return rng.choice(
            [f"The answer is **{letter}**.", f"{letter}. {item.answer}", f"It sounds {item.answer}."]
        )

    def score(
        self, responses: Mapping[str, Sequence[Response]], *, profile: str, options: Mapping[str, Any]
    ) -> Scored:
        rows = list(responses.get(TASK.name, ()))
        reference_hits = [r.refined == r.item.answer for r in rows if r.refined is not None]
        reference = 100 * sum(reference_hits) / len(reference_hits) if reference_hits else None
        by_item: dict[str, list[bool]] = {}
        for r in rows:
            by_item.setdefault(r.item.item_id, []).append(r.refined == r.item.answer)
        strict = (
            100 * sum(all(v) and len(v) == len(VARIANTS) for v in by_item.values()) / max(1, len(by_item))
        )
        scores = {"reference": reference, "strict": strict}
        answered = sum(r.status == "answered" for r in rows)
        document = {
            "accuracy": scores[profile],
            "summary": {
                "profile": profile,
                "tasks": {TASK.name: scores[profile]},
                "headline": scores[profile],
                "by_profile": {p: {"tasks": {TASK.name: s}, "headline": s} for p, s in scores.items()},
            },
            "coverage": {
                TASK.name: {
                    "questions": len(rows),
                    "answered": answered,
                    "failed": sum(r.status == "failed" for r in rows),
                    "missing": sum(r.status == "missing" for r in rows),
                    "unparsed": sum(r.status == "answered" and r.refined is None for r in rows),
                    "scored": len(reference_hits),
                    "status": "scored" if answered == len(rows) else "partial",
                }
            },
        }
        return Scored(document=document)
