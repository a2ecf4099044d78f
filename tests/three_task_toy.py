"""A three-task benchmark on the kits: speech recognition scored by corpus WER, emotion classification scored by
macro F1 with its chance level, and a multiple-choice task asked once per option rotation. Its questions share
one metadata file, fingerprinted per task; its prompts are data (``three_task_toy_prompts.json``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, ClassVar

import jiwer

from avibench.errors import DatasetError
from avibench.items import Item, Part, Response
from avibench.kits import classification as cl
from avibench.kits import fields, media, records
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.task_metrics import accuracy, corpus_wer, macro_f1, mean_of_tasks
from avibench.plugin import Benchmark, Problem, Task

EMOTIONS = ("happy", "sad", "angry")
META = "meta.json"
PROMPTS = json.loads((Path(__file__).parent / "three_task_toy_prompts.json").read_text(encoding="utf-8"))
FIELDS = {"id": fields.text, "task": fields.one_of(("asr", "emotion", "order")), "audio": fields.text,
          "answer": fields.text, "choices": fields.strings}  # fmt: skip
SENTENCES = ("the cat sat down", "open the red door", "birds sing at dawn", "turn the music off")


class ThreeTaskToy(Benchmark):
    name, title, templates = "three-task-toy", "Three-task toy", ("official",)
    download_root, sample_root = Path("data/three-task-toy"), Path("data/three-task-toy-sample")
    aggregates: ClassVar = {"headline": mean_of_tasks("asr", "emotion", "order")}

    def tasks(self) -> tuple[Task, ...]:
        return (Task("asr", "Speech recognition", "speech", metric=corpus_wer),
                Task("emotion", "Emotion", "speech", metric=macro_f1),
                Task("order", "Which tone is first (rotated)", "audio", metric=accuracy))  # fmt: skip

    def available(self, root: Path) -> tuple[Task, ...]:
        return self.tasks() if (Path(root) / META).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / META,)

    def fingerprint(self, root: Path, tasks: list[Task]) -> str:
        return records.sliced_fingerprint(Path(root) / META, [t.name for t in tasks], lambda r: r.get("task"))

    def _rows(self, root: Path, task: str) -> list[tuple[int, dict]]:
        path = Path(root) / META
        rows = [(i, fields.require(path, i, r, FIELDS)) for i, r in records.read_rows(path)]
        return [(i, r) for i, r in rows if r["task"] == task]

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        items = []
        for i, r in self._rows(root, task.name):
            audio, common = Part.audio(Path(root) / r["audio"]), {"benchmark": self.name, "task": task.name}
            if task.name != "order":
                text = PROMPTS[task.name].format(labels=", ".join(EMOTIONS))
                items.append(Item(**common, item_id=r["id"], index=i, parts=(audio, Part.text(text)),
                                  answer=r["answer"], options=EMOTIONS if task.name == "emotion" else ()))  # fmt: skip
                continue
            gold = mc.gold_index(r["choices"], r["answer"])
            for variant, shown, _ in mc.rotations(r["choices"], gold):
                text = PROMPTS["order"].format(choices=mc.lettered(shown))
                items.append(Item(**common, item_id=r["id"], variant=variant, index=i, options=shown,
                                  parts=(audio, Part.text(text)), answer=r["answer"]))  # fmt: skip
        return items

    def validate(self, root: Path, tasks: list[Task]) -> list[Problem]:
        path = Path(root) / META
        try:
            return [p for i, row in records.read_rows(path) for p in fields.problems(path, i, row, FIELDS)]
        except DatasetError as exc:
            return [Problem(exc.path, exc.message, exc.index, exc.field)]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        rng, rows = random.Random(seed), []
        for k, sentence in enumerate(SENTENCES):
            media.write_audio(Path(out) / f"asr{k}.flac", media.tone_words(sentence, 0.05))
            rows.append(
                {"id": f"asr{k}", "task": "asr", "audio": f"asr{k}.flac", "answer": sentence, "choices": []}
            )
        for k in range(6):
            media.write_wav(Path(out) / f"emo{k}.wav", media.tone(300 + 100 * (k % 3), 0.2))
            rows.append({"id": f"emo{k}", "task": "emotion", "audio": f"emo{k}.wav", "answer": EMOTIONS[k % 3],
                         "choices": []})  # fmt: skip
        for k in range(3):
            low, high = (0.0, 0.3) if rng.random() < 0.5 else (0.3, 0.0)
            events = [(low, media.tone(300, 0.2)), (high, media.tone(900, 0.2))]
            media.write_audio(Path(out) / f"ord{k}.mp3", media.timeline(0.6, events))
            choices = ["the low tone", "the high tone", "both at once"]
            rows.append({"id": f"ord{k}", "task": "order", "audio": f"ord{k}.mp3", "choices": choices,
                         "answer": choices[0] if low == 0.0 else choices[1]})  # fmt: skip
        (Path(out) / META).write_text(json.dumps(rows, indent=1), encoding="utf-8")
        return {"asr": 4, "emotion": 6, "order": 9}

    def passthrough(self, task: str) -> bool:
        return task == "asr"

    def extract(self, item: Item, text: str) -> str | None:
        if item.task == "emotion":
            return cl.read_label(text, EMOTIONS)
        k = mc.strict_choice(text, item.options)
        return None if k is None else item.options[k]

    def read(self, response: Response, profile: str) -> Any:
        if response.item.task == "asr" and response.status == "answered":
            return cl.normalised(response.raw or "")
        return super().read(response, profile)

    def item_value(self, answer: Any, item: Item) -> Any:
        if item.task == "asr":
            words = len(item.answer.split())
            if answer is None:
                return (words, words)
            found = jiwer.process_words(item.answer, answer)
            return (found.substitutions + found.deletions + found.insertions, words)
        return cl.label_pair(item.answer, answer) if item.task == "emotion" else self.item_score(answer, item)

    def task_chance(self, task: Task, items: list[Item], profile: str) -> float | None:
        return cl.chance_f1([i.answer for i in items], EMOTIONS) if task.name == "emotion" else None

    def chance(self, item: Item) -> float | None:
        return 1.0 / len(item.options) if item.task == "order" else None

    def run_of(self, item: Item) -> str | None:
        return item.variant or None

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return rng.choice(item.options) if item.options else " ".join(rng.sample(item.answer.split(), 2))

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return f"({mc.LETTERS[item.options.index(item.answer)]})" if item.task == "order" else item.answer
