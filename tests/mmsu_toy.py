"""An MMSU-shaped benchmark on the kits: four-option audio questions in sub-tasks under two categories, an
official letter rule, accuracy per sub-task, per category and pooled. The whole plug-in; its prompt is data
(``mmsu_toy_prompt.txt``)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import ClassVar

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, media, records
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.task_metrics import accuracy, micro_mean
from avibench.plugin import Benchmark, Problem, ScoredView, Task

CATEGORIES = {"perception": ("pitch", "loudness"), "reasoning": ("counting",)}
SUB_TASKS = tuple(s for subs in CATEGORIES.values() for s in subs)
META = "question/mmsu.jsonl"
PROMPT = (Path(__file__).parent / "mmsu_toy_prompt.txt").read_text(encoding="utf-8")
FIELDS = {
    "id": fields.text,
    "sub-task": fields.one_of(SUB_TASKS),
    "category": fields.one_of(tuple(CATEGORIES)),
    "audio_path": fields.text,
    "question": fields.text,
    "choices": fields.choices,
    "answer_gt": fields.one_of(mc.LETTERS[:4]),
}
OFFICIAL_RULES = ("answer_prefix", "bracketed", "first_character")


class MMSUToy(Benchmark):
    name, title, templates = "mmsu-toy", "MMSU-shaped toy", ("official",)
    download_root, sample_root = Path("data/mmsu-toy"), Path("data/mmsu-toy-sample")
    aggregates: ClassVar = {
        "headline": micro_mean(*SUB_TASKS),
        **{c: micro_mean(*s) for c, s in CATEGORIES.items()},
    }

    def tasks(self) -> tuple[Task, ...]:
        return tuple(Task(s, s.title(), c, metric=accuracy) for c, subs in CATEGORIES.items() for s in subs)

    def available(self, root: Path) -> tuple[Task, ...]:
        return self.tasks() if (Path(root) / META).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / META,)

    def fingerprint(self, root: Path, tasks: list[Task]) -> str:
        return records.sliced_fingerprint(
            Path(root) / META, [t.name for t in tasks], lambda r: r.get("sub-task")
        )

    def _rows(self, root: Path) -> list[tuple[int, dict]]:
        path = Path(root) / META
        return [(i, fields.require(path, i, row, FIELDS)) for i, row in records.read_rows(path)]

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [
            Item(benchmark=self.name, task=task.name, item_id=r["id"], index=i, template="official",
                 parts=(Part.audio(Path(root) / r["audio_path"]),
                        Part.text(PROMPT.format(question=r["question"], choices=mc.lettered(r["choices"])))),
                 options=tuple(r["choices"]), meta={"category": r["category"], "sub-task": r["sub-task"]},
                 answer=r["choices"][mc.gold_index(r["choices"], r["answer_gt"], by="letter")])
            for i, r in self._rows(root) if r["sub-task"] == task.name
        ]  # fmt: skip

    def validate(self, root: Path, tasks: list[Task]) -> list[Problem]:
        path = Path(root) / META
        try:
            rows = records.read_rows(path)
        except DatasetError as exc:
            return [Problem(exc.path, exc.message, exc.index, exc.field)]
        found = [p for i, row in rows for p in fields.problems(path, i, row, FIELDS)]
        missing = [Problem(str(path), "audio file not found", i, "audio_path") for i, row in rows
                   if not found and not (Path(root) / row["audio_path"]).is_file()]  # fmt: skip
        return found + missing

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        rng, rows = random.Random(seed), []
        for k in range(12):
            sub, n = SUB_TASKS[k % 3], rng.randint(1, 4)
            clip = f"audio/q{k}.wav"
            media.write_wav(
                Path(out) / clip,
                media.timeline(2 * n * 0.1, [(2 * j * 0.1, media.tone(440, 0.1)) for j in range(n)]),
            )
            choices = [*[str(c) for c in rng.sample(range(1, 6), 4) if c != n][:3], str(n)]
            rng.shuffle(choices)
            category = next(c for c, subs in CATEGORIES.items() if sub in subs)
            rows.append({"id": f"q{k}", "sub-task": sub, "category": category, "audio_path": clip,
                         "question": "How many tones sound?", "choices": choices,
                         "answer_gt": mc.LETTERS[choices.index(str(n))]})  # fmt: skip
        records.write_jsonl(Path(out) / META, rows)
        return {s: sum(r["sub-task"] == s for r in rows) for s in SUB_TASKS}

    def extract(self, item: Item, text: str) -> str | None:
        k = mc.strict_choice(text, item.options)
        return None if k is None else item.options[k]

    def read(self, response, profile: str) -> str | None:
        if response.status != "answered" or profile == "strict":
            return super().read(response, profile)
        k = mc.official_choice(response.raw or "", response.item.options, OFFICIAL_RULES)
        return None if k is None else response.item.options[k]

    def official_document(self, view: ScoredView) -> dict:
        rows = [row for task in SUB_TASKS for row in view.rows.get(task, ())]
        metas, scores = [r.response.item.meta for r in rows], [r.score for r in rows]
        return mc.accuracy_by(metas, scores, ("sub-task", "category"))

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return mc.random_reply(item.options, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return f"Answer: {mc.LETTERS[item.options.index(item.answer)]}"
