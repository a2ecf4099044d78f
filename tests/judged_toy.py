"""An open-answer benchmark scored by an LLM judge, written on the kits (the example of docs/plugins.md): each
question about a tone clip is answered freely and the judge rates the answer 1-10 against the reference; the
score is the mean rating over ten (0-100). Its judge prompt is data (``judged_toy_judge.json``)."""

from __future__ import annotations

import random
from pathlib import Path
from statistics import fmean
from typing import Any

from avibench.items import Item, Part, Response
from avibench.kits import media, records
from avibench.kits.judged import Judge, Verdicts
from avibench.level_metrics.task_metrics import mean
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task

META = "questions.jsonl"
TASK = Task("open", "Open questions, judged 1-10", "audio", metric=mean)


def rating(reply: str) -> float | None:
    """The official reading: any number."""
    try:
        return float(reply)
    except ValueError:
        return None


def strict_rating(reply: str) -> float | None:
    """The strict reading: a whole number on the 1-10 scale asked for."""
    return float(reply) if reply.isdigit() and 1 <= int(reply) <= 10 else None


JUDGE = Judge(
    "judged-toy",
    Path(__file__).parent / "judged_toy_judge.json",
    parsers={"reference": rating, "strict": strict_rating},
    strip=True,
)


class JudgedToy(Benchmark):
    name, title, templates = "judged-toy", "Judged toy", ("plain",)
    download_root, sample_root = Path("data/judged-toy"), Path("data/judged-toy-sample")
    _verdicts = Verdicts()  # the judge replies of the eval being scored

    def tasks(self) -> tuple[Task, ...]:
        return (TASK,)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (TASK,) if (Path(root) / META).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / META,)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [
            Item(benchmark=self.name, task=TASK.name, item_id=r["id"], index=i, template="plain",
                 parts=(Part.audio(Path(root) / r["audio"]), Part.text(r["question"])), answer=r["reference"])
            for i, r in records.read_rows(Path(root) / META)
        ]  # fmt: skip

    def validate(self, root: Path, tasks: list[Task]) -> list[Problem]:
        return [] if self.available(root) else [Problem(str(Path(root) / META), "file not found")]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        rows = [{"id": f"q{k}", "audio": f"audio/q{k}.wav", "question": "What do you hear?",
                 "reference": f"A steady tone of {220 * (k + 1)} Hz."} for k in range(4)]  # fmt: skip
        for k, row in enumerate(rows):
            media.write_wav(Path(out) / row["audio"], media.tone(220 * (k + 1), 0.2))
        records.write_jsonl(Path(out) / META, rows)
        return {TASK.name: len(rows)}

    def passthrough(self, task: str) -> bool:
        return True

    def extract(self, item: Item, text: str) -> str | None:
        return text

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return rng.choice(["A tone.", "Silence.", "A dog barking."])

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return str(item.answer)

    def eval_options(self) -> list[Any]:
        return JUDGE.cli_options()

    def _messages(self, response: Response, variant: str) -> list[dict[str, str]]:
        text = JUDGE.protocol["user"].format(
            question=response.item.text, answer=response.raw, reference=response.item.answer
        )
        return [{"role": "user", "content": text}]

    def evaluate(self, request: EvalRequest) -> Scored:
        responses, absent = self.journal_inputs(request)
        settings, template = JUDGE.settings(request.options), JUDGE.template()
        answers = responses.get(TASK.name, ())
        self._verdicts = JUDGE.judge_responses(answers, self._messages, request.paths.root, settings)
        scored = self.score(
            responses, profile=request.profile, options=request.options, tasks=request.tasks, absent=absent
        )
        coverage = scored.document["coverage"]
        if TASK.name in coverage:
            coverage[TASK.name] = JUDGE.coverage(coverage[TASK.name], self._verdicts, request.profile)
        scored.document.setdefault("meta", {})["judge"] = JUDGE.meta(settings, template, [self._verdicts])
        return scored

    def read(self, response: Response, profile: str) -> Any:
        replies = self._verdicts.replies.get(response.item.key, [])
        return [JUDGE.read(r, profile) for r in replies if r is not None] or None

    def item_score(self, answer: Any, item: Item) -> float | None:
        ratings = [r for r in answer or () if r is not None]
        return fmean(ratings) / 10 if ratings else None
