"""AVI-Bench's declared values reproduce the official scorers exactly: on double-confirm layouts the reference
gets wrong in its own way (a pre-question before its formal entry, ids that repeat, an invalid pre-question, a
pre-question without its formal entry, answers missing), each question's score from its value alone is the
scorer's per-entry score, and the task metric over the scored questions' values is the scorer's task score. A
bootstrap draw of every question twice scores like the questions themselves."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from avibench.benchmarks.avibench.dataset import Sample, sample_from_entry
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.benchmarks.avibench.values import (
    gates,
    official_score,
    question_score,
    question_value,
    task_metric,
)
from avibench.level_metrics.aggregate import rounded
from avibench.level_metrics.profile import get_profile
from avibench.level_metrics.types import Item

#: (id, answer, question text or None): formal entries and pre-questions in an order the reference mishandles.
LAYOUT = [
    ("pre_a", "yes", "q"),  # before its formal entry: the reference ignores it
    ("a", "yes", "q"),
    ("b", "no", "q"),
    ("b", "yes", "q"),  # a repeated id: the reference zeroes only the first one recorded
    ("pre_b", "yes", "q"),
    ("c", "yes", "q"),
    ("pre_c", "yes", None),  # invalid: no question text
    ("pre_c", "no", "q"),  # skipped with it where the reference skips by id
    ("pre_z", "yes", "q"),  # no formal entry
    ("d", "no", "q"),
    ("pre_d", "yes", "q"),
]


def _samples(task: str) -> list[Sample]:
    spec = AVIBENCH.task(task)
    options = "options_yes_no" if spec.metric == "full_match" else "avsqa_options_list_object"
    entries = [
        {
            "id": eid,
            "task": task,
            "subtask": None,
            "input": {"question": {"prompt": None, "text": text, "options": options}},
            "output": {"question_answer": answer},
        }
        for eid, answer, text in LAYOUT
    ]
    path = Path("data.json")
    return [sample_from_entry(spec, Path("."), path, i, e) for i, e in enumerate(entries)]


def _direct(samples: list[Sample], predicts: list[str | None], profile: str) -> Any:
    items = [
        Item(s.index, s.id, s.answer, p, s.options, s.question.get("text"), s.task)
        for s, p in zip(samples, predicts, strict=True)
    ]
    return metric_kind(samples[0].spec.metric).score(items, profile=profile)


def _values(samples: list[Sample], predicts: list[str | None], profile: str) -> list[dict[str, Any]]:
    by_index = {s.index: s for s in samples}
    reads = dict(enumerate(predicts))
    gating = gates(samples, reads, get_profile(profile))
    return [
        question_value(
            s,
            reads[s.index],
            [question_value(by_index[i], reads[i])["entries"][0] for i in gating.get(s.index, ())],
        )
        for s in samples
    ]


@pytest.mark.parametrize("task", ["ASQA", "AVSQA"])
@pytest.mark.parametrize("profile", ["reference", "strict"])
@pytest.mark.parametrize("seed", range(12))
def test_values_reproduce_the_official_scorer(task: str, profile: str, seed: int) -> None:
    rng = random.Random(seed)
    samples = _samples(task)
    predicts = [rng.choice([None, "yes", "no", "yes; no", "Yes"]) for _ in samples]
    direct = _direct(samples, predicts, profile)
    values = _values(samples, predicts, profile)
    scores = [question_score(v, profile) for v in values]
    assert scores == [None if s is None else round(s, 6) for s in direct.per_sample]
    kept = [v for v, s in zip(values, scores, strict=True) if s is not None]
    if not kept:
        return
    assert official_score(task, kept, profile).value == direct.value
    metric = task_metric(task, profile)
    assert metric(kept) == rounded(direct.headline * 100)
    assert metric(kept + kept) == metric(kept)  # each question drawn twice, each copy gated by its own pair
