"""Offline reference points: ``random`` (chance over each question's answer space) and ``oracle`` (the truth).

Both answer from the run's benchmark plug-in and are deterministic and independent of the order questions are
asked in: every answer comes from a random generator seeded by (seed, task, question key). ``oracle`` phrases the
ground truth the way real models answer, so refine and eval must get it back to 100%.
"""

from __future__ import annotations

import random
from typing import ClassVar

from avibench.infer.backends.base import Backend, BackendAnswer, InferRequest
from avibench.items import Item


def item_rng(seed: int, item: Item) -> random.Random:
    """A generator seeded by (seed, task, key) only, so answers do not depend on scheduling order."""
    return random.Random(f"{seed}:{item.task}:{item.key}")


class _BaselineBackend(Backend):
    """Answers from the benchmark plug-in's random or oracle answerer, without any network."""

    answerer: ClassVar[str]
    reads_media: ClassVar[bool] = False

    async def answer(self, item: Item, request: InferRequest) -> BackendAnswer:
        benchmark = self.settings.benchmark
        if benchmark is None:
            raise ValueError("the baselines answer from a benchmark plug-in; none was given")
        seed = request.seed if request.seed is not None else self.settings.seed
        text = getattr(benchmark, self.answerer)(item, item_rng(seed, item))
        return BackendAnswer(text=text)


class RandomBackend(_BaselineBackend):
    """Uniform chance over each question's answer space."""

    answerer = "random_answer"


class OracleBackend(_BaselineBackend):
    """The ground truth, phrased like a model's answer."""

    answerer = "oracle_answer"
