"""VAR / AVR retrieval.

Per sample: set F1 of predicted versus ground-truth indices (1 when both are empty), R@1 and R@3 over the
ranked prediction. Corpus: each mean is multiplied by a confidence factor (0.3 for a sample listing more than 6
indices) and a repeat penalty (identical predicted lists beyond 80 % repetition), then rounded;
``Average = ((R@1 + R@3) / 2 + F1) / 2`` is not rounded.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from avibench.level_metrics.common import (
    Column,
    Notes,
    Stats,
    column,
    prediction_text,
    records_of,
    whole_task,
)
from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.types import Item, TaskScore

MANY_INDICES = 6
LOW_CONFIDENCE = 0.3
REPEAT_TOLERANCE = 0.8
_DIGITS = re.compile(r"\d+")


def set_f1(predicted: Sequence[Any], truth: Sequence[Any]) -> float:
    """F1 between two index sets: 1 when both are empty, 0 when exactly one is."""
    predicted_set, truth_set = set(predicted), set(truth)
    if not predicted_set and not truth_set:
        return 1.0
    if not predicted_set or not truth_set:
        return 0.0
    precision = len(predicted_set & truth_set) / len(predicted_set)
    recall = len(predicted_set & truth_set) / len(truth_set)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _to_int(token: str, notes: Notes, index: int) -> int | None:
    try:
        return int(token)
    except ValueError:
        notes.add(
            f"index token {token[:20]!r} is not a usable integer (the reference would abort); token ignored",
            index,
        )
        return None


def ranked_indices(text: str, profile: ScoringProfile, notes: Notes, index: int) -> list[int]:
    """The predicted indices in the order R@k reads them (the profile's ``retrieval_*`` switches say how): the
    reference's ``list(set(sorted(ints)))`` is CPython's set-iteration order, deterministic for ints, so
    running the same expression reproduces it."""
    if profile.retrieval_isdigit_tokens:
        tokens = [t for t in text.replace("\n", " ").split(" ") if t.isdigit()]
    else:
        tokens = _DIGITS.findall(text)
    values = [v for v in (_to_int(t, notes, index) for t in tokens) if v is not None]
    if profile.retrieval_set_order:
        return list(set(sorted(values)))
    return list(dict.fromkeys(values))


def _truth(answer: Any) -> list[Hashable] | None:
    """The ground-truth index list; None when it is not a list of hashable values (the reference would abort)."""
    if not isinstance(answer, (list, tuple)):
        return None
    try:
        set(answer)
    except TypeError:
        return None
    return list(answer)


RetrievalRecord = tuple[float, float, float, "tuple[int, ...] | None"]
"""One sample's F1, hit at 1, hit at 3 and ranked indices (``None``: no prediction, scored 0)."""


def _record(item: Item, profile: ScoringProfile, notes: Notes) -> RetrievalRecord | None:
    truth = _truth(item.answer)
    if truth is None:
        notes.add(
            "ground truth is not a list of indices; sample left out (the reference would abort)",
            item.index,
        )
        return None
    text = prediction_text(item, clean=profile.retrieval_isdigit_tokens, notes=notes)
    if text is None:
        return (0.0, 0.0, 0.0, None)
    ranked = ranked_indices(text, profile, notes, item.index)
    return (
        set_f1(ranked, truth),
        1.0 if any(i in truth for i in ranked[:1]) else 0.0,
        1.0 if any(i in truth for i in ranked[:3]) else 0.0,
        tuple(ranked),
    )


retrieval_records = records_of(_record)
"""Each item's (F1, hit@1, hit@3, ranked indices), aligned with ``items`` (``None``: left out)."""


def retrieval(items: Sequence[Item], *, profile: ScoringProfile | str) -> TaskScore:
    """Retrieval score ``{"Recall@1", "Recall@3", "F1_score", "Average"}``."""
    total = functools.partial(retrieval_total, profile=profile)
    return whole_task(retrieval_records, retrieval_columns, total, items, profile=profile)


def retrieval_columns(records: Sequence[RetrievalRecord]) -> dict[str, Column]:
    """The samples' F1s and hits, and per answered sample its ranked list (numbered in order of first
    appearance: equal lists, equal numbers) and its confidence, as :func:`retrieval_total` reads them."""
    lists: dict[tuple[int, ...], int] = {}
    answered = {"where": lambda r: r[3] is not None}
    return {
        "f1": column(records, lambda r: r[0]),
        "hit1": column(records, lambda r: r[1]),
        "hit3": column(records, lambda r: r[2]),
        "list": column(
            records, lambda r: lists.setdefault(tuple(r[3]), len(lists)), dtype=np.intp, **answered
        ),
        "confidence": column(
            records, lambda r: LOW_CONFIDENCE if len(r[3]) > MANY_INDICES else 1, **answered
        ),
    }


def retrieval_total(stats: Stats, profile: ScoringProfile | str, notes: Notes | None = None) -> TaskScore:
    """The task's score from its samples' columns, in data.json order: the means, each times the confidence
    factor and the repeat penalty (a repeated list is one of the distinct lists only once)."""
    profile = get_profile(profile)
    notes = notes or Notes()
    samples = stats.count("f1")
    if not samples:
        notes.add("no prediction to score (the reference would abort with ZeroDivisionError); scored 0")
        zero = {"Recall@1": 0.0, "Recall@3": 0.0, "F1_score": 0.0, "Average": 0.0}
        return TaskScore(zero, 0.0, 0, notes.render())
    # Reference: the repeat rate and confidence use every scored sample; strict: the answered ones only.
    basis = stats.count("list") if profile.missing_counts_as_wrong else samples
    distinct = stats.distinct("list")  # the lists' numbers, each counted once
    repeat_rate = (basis - distinct) / basis if basis else 0.0
    penalty = 1 - (max(REPEAT_TOLERANCE, repeat_rate) - REPEAT_TOLERANCE)
    confidence = np.float64(stats.mean("confidence")) if stats.count("confidence") else np.float64(1)
    # numpy scalars on purpose: the reference rounds these with numpy's rounding.
    r1, r3, f1 = (
        round(np.float64(stats.mean(name)) * confidence * penalty, 5) for name in ("hit1", "hit3", "f1")
    )
    average = float(((r1 + r3) / 2 + f1) / 2)
    value = {"Recall@1": float(r1), "Recall@3": float(r3), "F1_score": float(f1), "Average": average}
    return TaskScore(value, average, samples, notes.render())
