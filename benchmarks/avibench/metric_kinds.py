"""AVI-Bench's metric kinds: everything the benchmark knows about one metric, in one object.

A task's ``metric`` names its kind. The kind brings its pure scorer (``level_metrics``), the extra inputs that scorer
needs, its chance level, the ground-truth shape check ``validate-data`` applies, and the random and oracle answers of
the offline baselines. A new metric is added here and nowhere else.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from avibench.benchmarks.avibench import baselines, truth_checks
from avibench.benchmarks.avibench.dataset import Sample
from avibench.level_metrics import chance
from avibench.level_metrics.avl import avl, avl_columns, avl_records, avl_total
from avibench.level_metrics.avlg import avlg, avlg_columns, avlg_records, avlg_total
from avibench.level_metrics.caption import caption
from avibench.level_metrics.common import Column, DrawnStats, Stats
from avibench.level_metrics.full_match import (
    accuracy_columns,
    accuracy_headlines,
    accuracy_total,
    avsqa,
    avsqa_records,
    full_match,
    full_match_records,
)
from avibench.level_metrics.multi_instance import mic_columns, mic_records, mic_total, multi_instance
from avibench.level_metrics.profile import ScoringProfile
from avibench.level_metrics.retrieval import retrieval, retrieval_columns, retrieval_records, retrieval_total
from avibench.level_metrics.types import TaskScore

Answerer = Callable[[Sample, random.Random], str]


@dataclass(frozen=True)
class Records:
    """A scorer in three parts: ``of`` gives each entry's record, the numbers the task score aggregates (``None``:
    left out; keywords: ``profile``, ``notes`` and the kind's ``needs``); ``columns`` lays the kept records out, in
    data.json order, as ``total`` reads them; ``total`` is the task score from the columns' values, with the
    profile; ``sample`` is an entry's own score from its record. ``order_free``: the total does not depend on the
    records' order (sums of 0/1). ``headlines``, where a kind has it: the total's headline on every draw of a
    bootstrap at once, equal to ``total`` on each draw's statistics."""

    of: Callable[..., list[Any]]
    columns: Callable[[Sequence[Any]], dict[str, Column]]
    total: Callable[[Stats, ScoringProfile], TaskScore]
    sample: Callable[[Any], float]
    order_free: bool = False
    headlines: Callable[[DrawnStats], list[float]] | None = None


def _first(record: Any) -> float:
    return float(record[0])


def _itself(record: Any) -> float:
    return float(record)


def _accuracy(of: Callable[..., list[Any]]) -> Records:
    """The records of an accuracy: each entry's 0/1, whatever their order."""
    return Records(
        of,
        accuracy_columns,
        _profile_free(accuracy_total),
        _itself,
        order_free=True,
        headlines=accuracy_headlines,
    )


def _profile_free(
    total: Callable[[Stats], TaskScore],
) -> Callable[[Stats, ScoringProfile], TaskScore]:
    """A total that reads no profile switch, in the profile-taking shape."""
    return lambda columns, _profile: total(columns)


@dataclass(frozen=True)
class MetricKind:
    """One metric kind. ``needs`` names the scorer's extra inputs: ``task`` (the task folder's name),
    ``image_sizes`` (image sizes for boxes whose ground truth does not record them), ``fense_fn`` (the loaded
    FENSE scorer)."""

    name: str
    score: Callable[..., TaskScore]
    chance: Callable[..., float]
    check_truth: Callable[[Any, dict[str, Any]], str | None]
    random_answer: Answerer
    oracle_answer: Answerer
    needs: frozenset[str] = frozenset()
    records: Records | None = None
    """The scorer's two halves (``None``: captions, whose total needs FENSE on every caption written)."""


METRIC_KINDS: dict[str, MetricKind] = {
    kind.name: kind
    for kind in (
        MetricKind(
            "full_match",
            full_match,
            chance.full_match_chance,
            truth_checks.full_match,
            baselines.random_option,
            baselines.oracle_option,
            records=_accuracy(full_match_records),
        ),
        MetricKind(
            "avsqa",
            avsqa,
            chance.avsqa_chance,
            truth_checks.avsqa,
            baselines.random_avsqa,
            baselines.oracle_avsqa,
            records=_accuracy(avsqa_records),
        ),
        MetricKind(
            "mic",
            multi_instance,
            chance.mic_chance,
            truth_checks.mic,
            baselines.random_mic,
            baselines.oracle_mic,
            frozenset({"task"}),
            records=Records(mic_records, mic_columns, _profile_free(mic_total), _first),
        ),
        MetricKind(
            "avl",
            avl,
            chance.avl_chance,
            truth_checks.avl,
            baselines.random_avl,
            baselines.oracle_avl,
            frozenset({"image_sizes"}),
            records=Records(avl_records, avl_columns, _profile_free(avl_total), _first),
        ),
        MetricKind(
            "avlg",
            avlg,
            chance.avlg_chance,
            truth_checks.avlg,
            baselines.random_avlg,
            baselines.oracle_avlg,
            frozenset({"image_sizes"}),
            records=Records(avlg_records, avlg_columns, _profile_free(avlg_total), _itself),
        ),
        MetricKind(
            "retrieval",
            retrieval,
            chance.retrieval_chance,
            truth_checks.retrieval,
            baselines.random_retrieval,
            baselines.oracle_retrieval,
            records=Records(retrieval_records, retrieval_columns, retrieval_total, _first),
        ),
        MetricKind(
            "caption",
            caption,
            chance.caption_chance,
            truth_checks.caption,
            baselines.random_caption,
            baselines.oracle_caption,
            frozenset({"fense_fn"}),
        ),
    )
}


def metric_kind(name: str) -> MetricKind:
    try:
        return METRIC_KINDS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known metrics: {', '.join(METRIC_KINDS)}") from None
