"""A task's metric as a function of its items' values, and how task scores combine into summary numbers. Pure.

A plug-in declares each task's metric (``Task(name, metric=accuracy)``) and its summary numbers
(``aggregates = {"headline": mean_of_tasks(...)}``); the core then scores, bootstraps and compares every benchmark
the same way. A metric takes the values of the questions a profile scored, in load order, and returns the task
score on 0-100 (``None`` when undefined, e.g. no values). What a value is depends on the metric:

* :func:`accuracy` (alias :func:`mean`): an item score in [0, 1];
* :func:`macro_f1`, :func:`weighted_f1`: a ``(gold, predicted)`` label pair (``predicted`` ``None`` when unread);
* :func:`corpus_wer`: an ``(errors, reference words)`` pair; the score is ``100 - WER`` (never below 0);
* :func:`recall_at`: the rank (1 = first) of the right candidate, ``None`` when it is not ranked at all;
* :func:`mean_iou`: an intersection-over-union in [0, 1].

A metric may score many resamples at once (``metric.resample(values, draws)``, see
:mod:`avibench.level_metrics.bootstrap`). One that is a function of sums over its questions gets that by saying so
(:func:`tallied`): each question's *tally* (counts by name) and the score from their totals; the bootstrap then
sums the tallies of a batch of resamples in one matrix product instead of calling the metric once per resample.
The eval document still comes from the metric itself.

An aggregate takes task scores (0-100) and the number of questions each was scored on and returns one number.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

Metric = Callable[[Sequence[Any]], float | None]
Tally = Mapping[Hashable, float]


RESAMPLE_BATCH = 128
"""Resamples :meth:`Tallies.resample` sums in one matrix product (bounds its memory)."""


@dataclass(frozen=True)
class Tallies:
    """A metric as sums: ``tally(value)`` is one question's counts by name, ``finish(totals)`` the score from the
    totals over the questions (a name no question counted is absent or 0)."""

    tally: Callable[[Any], Tally]
    finish: Callable[[Tally], float | None]

    def resample(self, values: Sequence[Sequence[Any]], draws: Any) -> list[float | None]:
        """The score of every row of ``draws`` (an array of item positions), for ``values`` one tuple per item:
        each item's tallies summed once, then how often each row draws each item times them, a batch of rows in
        one matrix product."""
        import numpy as np  # only the bootstrap resamples; scoring a task needs no numpy

        names: dict[Hashable, int] = {}
        per_item: list[dict[int, float]] = []
        for item in values:
            row: dict[int, float] = {}
            for value in item:
                for name, count in self.tally(value).items():
                    column = names.setdefault(name, len(names))
                    row[column] = row.get(column, 0.0) + count
            per_item.append(row)
        matrix = np.zeros((len(per_item), len(names)))
        for i, row in enumerate(per_item):
            for column, count in row.items():
                matrix[i, column] = count
        keys = list(names)
        scores: list[float | None] = []
        items = len(per_item)
        for start in range(0, len(draws), RESAMPLE_BATCH):
            batch = draws[start : start + RESAMPLE_BATCH]
            # every row's draw counts in one bincount: row r's positions offset by r * items
            offsets = (batch + items * np.arange(len(batch))[:, None]).ravel()
            drawn = np.bincount(offsets, minlength=len(batch) * items).reshape(len(batch), items)
            scores += [
                self.finish(dict(zip(keys, t.tolist(), strict=True))) for t in drawn.astype(float) @ matrix
            ]
        return scores

    def score(self, values: Sequence[Any]) -> float | None:
        """The score of ``values`` through the tallies (equal to the metric's, up to the order of float sums)."""
        totals: dict[Hashable, float] = {}
        for value in values:
            for name, count in self.tally(value).items():
                totals[name] = totals.get(name, 0.0) + count
        return self.finish(totals) if values else None


F = TypeVar("F", bound=Callable[..., Any])


def tallied(tally: Callable[[Any], Tally], finish: Callable[[Tally], float | None]) -> Callable[[F], F]:
    """Declare that a metric is ``finish`` of the summed ``tally`` of its values (see :class:`Tallies`)."""

    def mark(metric: F) -> F:
        tallies = Tallies(tally, finish)
        metric.tallies = tallies  # type: ignore[attr-defined]
        metric.resample = tallies.resample  # type: ignore[attr-defined]  # what the bootstrap calls
        return metric

    return mark


def tallies_of(metric: Any) -> Tallies | None:
    """A metric's tallies, where it declares them."""
    found = getattr(metric, "tallies", None)
    return found if isinstance(found, Tallies) else None


def _share(totals: Tally) -> float | None:
    n = totals.get("n", 0.0)
    return 100.0 * totals.get("sum", 0.0) / n if n else None


@tallied(lambda v: {"sum": float(v), "n": 1.0}, _share)
def accuracy(values: Sequence[Any]) -> float | None:
    """100 times the mean item score."""
    return 100.0 * sum(float(v) for v in values) / len(values) if values else None


mean = accuracy


def _label_tally(value: Any) -> Tally:
    """A ``(gold, predicted)`` pair's true positive, or false negative of its gold and false positive of its
    prediction."""
    gold, predicted = str(value[0]), None if value[1] is None else str(value[1])
    if predicted == gold:
        return {("tp", gold): 1.0}
    return {("fn", gold): 1.0, **({} if predicted is None else {("fp", predicted): 1.0})}


def _f1_from_totals(totals: Tally) -> dict[str, tuple[float, int]]:
    """Per gold label present (its support above 0): its F1 and its support, from label tallies."""
    gold = {name[1] for name, n in totals.items() if name[0] in ("tp", "fn") and n}  # type: ignore[index]
    out = {}
    for label in sorted(gold):
        tp, fn, fp = (totals.get((kind, label), 0.0) for kind in ("tp", "fn", "fp"))
        out[label] = (2 * tp / (2 * tp + fp + fn) if tp else 0.0, int(tp + fn))
    return out


def _macro_from_totals(totals: Tally) -> float | None:
    per_label = _f1_from_totals(totals)
    return 100.0 * sum(f for f, _ in per_label.values()) / len(per_label) if per_label else None


def _weighted_from_totals(totals: Tally) -> float | None:
    per_label = _f1_from_totals(totals)
    total = sum(n for _, n in per_label.values())
    return 100.0 * sum(f * n for f, n in per_label.values()) / total if total else None


def _f1_per_label(values: Sequence[Any]) -> dict[str, tuple[float, int]]:
    """Per gold label: its F1 and its support."""
    pairs = [(str(g), None if p is None else str(p)) for g, p in values]
    out = {}
    for label in sorted({g for g, _ in pairs}):
        tp = sum(g == label and p == label for g, p in pairs)
        fp = sum(g != label and p == label for g, p in pairs)
        fn = sum(g == label and p != label for g, p in pairs)
        out[label] = (2 * tp / (2 * tp + fp + fn) if tp else 0.0, tp + fn)
    return out


@tallied(_label_tally, _macro_from_totals)
def macro_f1(values: Sequence[Any]) -> float | None:
    """100 times the unweighted mean F1 over the gold labels present."""
    per_label = _f1_per_label(values)
    return 100.0 * sum(f for f, _ in per_label.values()) / len(per_label) if per_label else None


@tallied(_label_tally, _weighted_from_totals)
def weighted_f1(values: Sequence[Any]) -> float | None:
    """100 times the support-weighted mean F1 over the gold labels present."""
    per_label = _f1_per_label(values)
    total = sum(n for _, n in per_label.values())
    return 100.0 * sum(f * n for f, n in per_label.values()) / total if total else None


def _wer_score(totals: Tally) -> float | None:
    words = totals.get("words", 0.0)
    return max(0.0, 100.0 * (1 - totals.get("errors", 0.0) / words)) if words else None


@tallied(lambda v: {"errors": float(v[0]), "words": float(v[1])}, _wer_score)
def corpus_wer(values: Sequence[Any]) -> float | None:
    """``100 - WER`` where WER pools every utterance's errors over every utterance's reference words."""
    words = sum(int(w) for _, w in values)
    if not words:
        return None
    return max(0.0, 100.0 * (1 - sum(float(e) for e, _ in values) / words))


def recall_at(k: int) -> Metric:
    """The share (0-100) of items whose right candidate ranks within the first ``k``."""

    @tallied(lambda r: {"sum": float(r is not None and r <= k), "n": 1.0}, _share)
    def recall(values: Sequence[Any]) -> float | None:
        return 100.0 * sum(r is not None and r <= k for r in values) / len(values) if values else None

    recall.__name__ = f"recall_at_{k}"
    return recall


mean_iou = accuracy


# ---- how tasks combine -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Aggregate:
    """One summary number: the tasks it rests on and how their scores combine.

    ``combine`` maps each scored member to its ``(score, questions)`` (members without a score are left out, and
    the number is ``None`` when none is scored); ``digits`` rounds the result as the official table does."""

    members: tuple[str, ...]
    combine: Callable[[Mapping[str, tuple[float, int]]], float | None]
    digits: int | None = None

    def __call__(self, scores: Mapping[str, float | None], counts: Mapping[str, int]) -> float | None:
        scored = {
            m: (float(s), int(counts.get(m, 0))) for m in self.members if (s := scores.get(m)) is not None
        }
        value = self.combine(scored) if scored else None
        return value if value is None or self.digits is None else round(value, self.digits)


def _mean_of(scored: Mapping[str, tuple[float, int]]) -> float | None:
    return sum(s for s, _ in scored.values()) / len(scored)


def _micro(scored: Mapping[str, tuple[float, int]]) -> float | None:
    total = sum(n for _, n in scored.values())
    return sum(s * n for s, n in scored.values()) / total if total else None


def mean_of_tasks(*members: str, digits: int | None = None) -> Aggregate:
    """The unweighted mean of the member tasks' scores."""
    return Aggregate(tuple(members), _mean_of, digits)


def micro_mean(*members: str, digits: int | None = None) -> Aggregate:
    """The mean over every question of the member tasks (task scores weighted by their questions scored)."""
    return Aggregate(tuple(members), _micro, digits)


def official(
    formula: Callable[[Mapping[str, float]], float | None], *members: str, digits: int | None = None
) -> Aggregate:
    """A benchmark's own formula over the scored member tasks' scores (by name)."""
    return Aggregate(tuple(members), lambda scored: formula({m: s for m, (s, _) in scored.items()}), digits)


def aggregate_all(
    aggregates: Mapping[str, Aggregate], scores: Mapping[str, float | None], counts: Mapping[str, int]
) -> dict[str, float | None]:
    """Every summary number of ``aggregates``."""
    return {name: agg(scores, counts) for name, agg in aggregates.items()}
