"""A yes/no audio QA benchmark declared on the plug-in interface: the worked example of docs/plugins.md.

Layout: ``<root>/yesno.jsonl``, one question a line: ``id``, ``category`` (``event``, ``attribute`` or
``temporal``: the three tasks), ``wordings`` (two phrasings of the question, each asked: variants ``w0``, ``w1``),
``answer`` (``yes``/``no``) and ``audio`` (a path under the root). Each task's metric is accuracy; the headline is
the mean over every question asked (micro). Everything else comes from the core.
"""

from __future__ import annotations

import json
import random
import re
import wave
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.level_metrics.task_metrics import Aggregate, accuracy, micro_mean
from avibench.plugin import Benchmark, Problem, Task

CATEGORIES = ("event", "attribute", "temporal")
FILE = "yesno.jsonl"
SAMPLE = [  # id, category, two wordings, answer, tone (Hz)
    ("q1", "event", ("Is a tone playing?", "Can you hear a tone?"), "yes", 440.0),
    ("q2", "event", ("Is a dog barking?", "Do you hear a dog bark?"), "no", 330.0),
    ("q3", "attribute", ("Is the tone high?", "Is the pitch high?"), "yes", 880.0),
    ("q4", "attribute", ("Is the tone steady?", "Does the pitch stay the same?"), "yes", 660.0),
    ("q5", "temporal", ("Does the tone stop halfway?", "Is there a pause in the middle?"), "no", 550.0),
    ("q6", "temporal", ("Does a second tone follow?", "Is there a later, second tone?"), "no", 220.0),
]


def _tone(path: Path, freq: float) -> None:
    rate = 8000
    pcm = (0.3 * np.sin(2 * np.pi * freq * np.arange(rate // 5) / rate) * 32767).astype("<i2")
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())


class ToyBench(Benchmark):
    name: ClassVar[str] = "toy"
    title: ClassVar[str] = "Toy yes/no audio QA"
    templates: ClassVar[tuple[str, ...]] = ("plain",)
    download_root: ClassVar[Path] = Path("data/toy")
    sample_root: ClassVar[Path] = Path("data/toy-sample")
    aggregates: ClassVar[dict[str, Aggregate]] = {"headline": micro_mean(*CATEGORIES)}

    def tasks(self) -> tuple[Task, ...]:
        return tuple(Task(c, f"Yes/no: {c}", "audio", metric=accuracy) for c in CATEGORIES)

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / FILE,)

    def available(self, root: Path) -> tuple[Task, ...]:
        present = {r["category"] for r in self._records(root)} if (Path(root) / FILE).is_file() else set()
        return tuple(t for t in self.tasks() if t.name in present)

    def _records(self, root: Path) -> list[dict]:
        path, records = Path(root) / FILE, []
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"invalid JSON ({exc.msg})", index=line_no) from None
            for field, ok in (
                ("answer", record.get("answer") in ("yes", "no")),
                ("category", record.get("category") in CATEGORIES),
            ):
                if not ok:
                    raise DatasetError(
                        path,
                        f"not one of the allowed values: {record.get(field)!r}",
                        index=line_no,
                        field=field,
                    )
            records.append(record)
        return records

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [
            Item(
                benchmark=self.name,
                task=task.name,
                item_id=record["id"],
                variant=f"w{k}",
                index=index,
                parts=(Part.audio(Path(root) / record["audio"]), Part.text(f"{wording} Answer yes or no.")),
                answer=record["answer"],
                options=("yes", "no"),
                max_tokens=16,
                template="plain",
            )
            for index, record in enumerate(self._records(root))
            if record["category"] == task.name
            for k, wording in enumerate(record["wordings"])
        ]

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        try:
            records = self._records(root)
        except DatasetError as exc:
            return [Problem(exc.path, exc.message, index=exc.index, field=exc.field)]
        return [
            Problem(str(Path(root) / FILE), "audio file not found", index=i + 1, field="audio")
            for i, r in enumerate(records)
            if not (Path(root) / r["audio"]).is_file()
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        lines = []
        for qid, category, wordings, answer, freq in SAMPLE:
            _tone(Path(out) / "audio" / f"{qid}.wav", freq)
            record = {"id": qid, "category": category, "wordings": wordings, "answer": answer}
            lines.append(json.dumps({**record, "audio": f"audio/{qid}.wav"}))
        (Path(out) / FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return {c: 2 * sum(s[1] == c for s in SAMPLE) for c in CATEGORIES}

    def extract(self, item: Item, text: str) -> str | None:
        said = set(re.findall(r"\b(yes|no)\b", text.lower()))
        return said.pop() if len(said) == 1 else None

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return rng.choice(["Yes.", "No."])

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return rng.choice([f"{item.answer.capitalize()}.", f"The answer is **{item.answer}**."])
