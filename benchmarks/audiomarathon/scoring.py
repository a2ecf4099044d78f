"""AudioMarathon scoring: what each profile reads from a response, the record it scores, each task's metric over
those records and a question's own score. The plug-in declares these to the core, which scores a run with them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from avibench.items import Item, Response
from avibench.level_metrics.audiomarathon import (
    REFERENCE,
    MarathonProfile,
    Record,
    cached_wer,
    class_pairs,
    defined_classes,
    get_profile,
    pair_scores,
    task_score,
)
from avibench.refine.audiomarathon import official_extract, strict_extract

DROPPED_ON_ERROR = ("SCR", "ASR")
"""Tasks whose script skips a sample whose request failed; the others keep it with an empty prediction."""


def read(response: Response, profile: str | MarathonProfile = REFERENCE) -> str | None:
    """The prediction ``profile`` reads from ``response``; ``None`` where it has none: unanswered (strict), or left
    out (reference: never asked, or a failed request of a task whose script drops it).

    Strict reads the refine stage's answer when refine ran (``method`` set) and extracts from the raw reply itself
    otherwise; the reference always re-extracts from the raw reply as the scripts do, and reads a failed request
    as the empty prediction the other scripts keep."""
    profile = get_profile(profile)
    item = response.item
    if response.status == "answered":
        if not profile.official_extraction and response.method is not None:
            return response.refined
        if profile.official_extraction:
            return official_extract(item.task, response.raw or "", item.options)
        return strict_extract(item.task, response.raw, item.options)
    if profile.skip_unanswered and response.status == "failed" and item.task not in DROPPED_ON_ERROR:
        return ""
    return None


def record_of(item: Item, pred: str | None) -> Record:
    """The scoring record of ``item`` answered ``pred``."""
    return Record(
        answer=str(item.answer),
        gold=str(item.meta["gold"]),
        pred=pred,
        options=item.options,
        group=str(item.meta.get("group", "")),
    )


def record_value(record: Record) -> dict[str, Any]:
    """A record as the JSON value samples.jsonl keeps for the task metric."""
    return {
        "answer": record.answer,
        "gold": record.gold,
        "pred": record.pred,
        "options": list(record.options),
        "group": record.group,
    }


def task_metric(task: str, profile: str) -> Callable[[Sequence[Any]], float | None]:
    """The task's official score (0-100) in ``profile`` from the record values of the questions it scored: the
    task metric the core scores, resamples and compares with (sklearn-free, equal to the scripts' score)."""

    def metric(values: Sequence[Any]) -> float | None:
        found = [_record(v) for v in values]
        return task_score(task, found, profile) if found else None

    def resample(values: Sequence[Sequence[Any]], draws: Any) -> list[float | None]:
        """The score of every row of ``draws``; a class the task has that a row does not draw is left out of that
        row's F1 (:func:`pair_scores`). A choice or classification task's score depends only on how often each
        (truth, guess) pair occurs: the rows' pair counts are one matrix product, scored together. ASR's WER is
        not: each item's records are built once, each row scored."""
        items = [[_record(v) for v in item] for item in values]
        if task == "ASR":
            rows = ([r for i in row for r in items[i]] for row in draws.tolist())
            return [task_score(task, found, profile) if found else None for found in rows]
        found = [class_pairs(task, item, profile) for item in items]
        pairs = sorted({pair for item in found for pair in item})
        column = {pair: j for j, pair in enumerate(pairs)}
        per_item = np.zeros((len(items), len(pairs)))
        for i, item in enumerate(found):
            for pair in item:
                per_item[i, column[pair]] += 1
        drawn = np.stack([np.bincount(row, minlength=len(items)) for row in draws]).astype(float)
        counts = drawn @ per_item
        defined = defined_classes(task, [r for item in items for r in item], profile)
        scores = pair_scores(task, pairs, counts, profile, defined)
        return [score if row.any() else None for score, row in zip(scores, counts, strict=True)]

    metric.resample = resample  # type: ignore[attr-defined]  # what the bootstrap calls
    return metric


def _record(value: Mapping[str, Any]) -> Record:
    return Record(**{**value, "options": tuple(value["options"])})


def sample_score(task: str, record: Record) -> float:
    """One question's own score for the pages: right or wrong (ASR: 1 - its WER, floored at 0).

    The prediction is right when it is the correct option letter or, in the form the reference reads HAD, VoxCeleb
    age and gender answers (the label or option text), the ground truth itself, as the task's metric counts it."""
    if task == "ASR":
        return max(0.0, 1.0 - cached_wer(record.gold, record.pred or "") / 100.0)
    return float(bool(record.pred) and record.pred in (record.answer, record.gold))
