"""Helpers shared by the scorers: prediction cleaning, the reference's per-entry key, rounding, warnings.

Rounding matters to 1e-9: the reference rounds Python floats with ``round`` (correctly rounded) but numpy
scalars with numpy's rounding (scale, round half to even, unscale), and the two differ on rare values, so each
scorer says which one the reference applied.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.types import Item, TaskScore

END_OF_TEXT = "<|endoftext|>"
_NON_WORD = re.compile(r"[^\w\s]")
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)  # unclosed: to the end
PRE_PREFIX = "pre_"


def strip_punctuation_lower(text: str) -> str:
    """Lowercase, then delete every character that is neither a word character nor whitespace."""
    return _NON_WORD.sub("", text.lower())


def prediction_text(
    item: Item, *, clean: bool, notes: Notes, profile: ScoringProfile | None = None
) -> str | None:
    """The prediction as the reference's scorers read it: end-of-text markers removed, optionally cleaned; with
    a ``profile`` that drops them, reasoning blocks removed first."""
    raw = item.predict
    if raw is None:
        return None
    if not isinstance(raw, str):
        notes.add("prediction is not a string; scored as its printed form", item.index)
        raw = str(raw)
    if profile is not None and not profile.keep_reasoning_blocks:
        raw = _THINK.sub(" ", raw).strip()
    text = raw.replace(END_OF_TEXT, "")
    return strip_punctuation_lower(text) if clean else text


def entry_key(item: Item) -> str:
    """The reference's per-entry key ``task=<task>#id=<id>#pos=<index>``; double-confirm matches on it."""
    return f"task={item.task}#id={item.id}#pos={item.index}"


def key_id(key: str) -> str:
    """The id part of an entry key, as the reference cuts it (up to the next ``#``)."""
    return key.split("#id=")[1].split("#")[0]


def is_invalid_pre(item: Item) -> bool:
    """A pre-question slot without a question text or without a ground truth."""
    return str(item.id).startswith(PRE_PREFIX) and (item.question_text is None or item.answer is None)


def scored_items(items: Sequence[Item], profile: ScoringProfile) -> list[Item]:
    """The items a scorer iterates: the reference skips entries without a prediction, strict keeps them."""
    if profile.missing_counts_as_wrong:
        return list(items)
    return [item for item in items if item.predict is not None]


def records_of(record: Callable[..., Any]) -> Callable[..., list[Any]]:
    """A scorer's records from its reading of one entry, ``record(item, profile, notes, **needs)`` (``None``:
    left out): aligned with ``items``, ``None`` for an item the scorer does not iterate
    (:func:`scored_items`)."""

    def records(
        items: Sequence[Item], *, profile: ScoringProfile | str, notes: Notes | None = None, **needs: Any
    ) -> list[Any]:
        scoring = get_profile(profile)
        noted = Notes() if notes is None else notes
        considered = {id(item) for item in scored_items(items, scoring)}
        return [record(item, scoring, noted, **needs) if id(item) in considered else None for item in items]

    return records


def whole_task(
    of: Callable[..., Sequence[Any]],
    columns: Callable[[Sequence[Any]], Mapping[str, Column]],
    total: Callable[..., TaskScore],
    items: Sequence[Item],
    *,
    sample: Callable[[Any], float | None] = lambda record: record[0],
    **kw: Any,
) -> TaskScore:
    """A task's score from its items (``kw``: the profile and what ``of`` needs): the ``total`` (given
    ``notes=``) of the ``columns`` of the records ``of`` keeps, with each item's own ``sample`` score and the
    notes of both."""
    notes = Notes()
    records = of(items, notes=notes, **kw)
    result = total(column_stats(columns([r for r in records if r is not None])), notes=notes)
    result.per_sample = [None if r is None else sample(r) for r in records]
    return result


def python_round5(value: float) -> float:
    """``round(float(value), 5)``: what the reference applies to Python floats."""
    return round(float(value), 5)


def numpy_round5(value: Any) -> float:
    """Round the way ``round()`` treats a numpy float64 (numpy's own rounding), returned as a Python float."""
    return float(round(np.float64(value), 5))


def finite_or_zero(value: float) -> float:
    """A headline must be a number: NaN (the reference's value for an empty task) becomes 0."""
    return 0.0 if math.isnan(value) else float(value)


def mean(values: Iterable[float] | np.ndarray) -> float:
    """``numpy.mean`` as a Python float (NaN for no values, without numpy's warning)."""
    array = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=np.float64)
    if array.size == 0:
        return math.nan
    # numpy.mean's own arithmetic (its pairwise sum, then one division) without its per-call overhead, which
    # the bootstrap would pay thousands of times per task
    return float(np.add.reduce(array)) / array.size


Column = tuple[np.ndarray, np.ndarray]
"""One number of a task's records: the positions of the records it is read from (``intp``) and its values, in
their order. A scorer's total reads its columns' values; a bootstrap draw repeats each value as often as its
record was drawn (:class:`DrawnStats`)."""


def column(
    records: Sequence[Any],
    read: Callable[[Any], Any],
    *,
    dtype: Any = np.float64,
    where: Callable[[Any], bool] | None = None,
) -> Column:
    """The column of ``read(record)`` over the records ``where`` holds for (all when None)."""
    rows = [i for i, record in enumerate(records) if where is None or where(record)]
    return np.asarray(rows, dtype=np.intp), np.asarray([read(records[i]) for i in rows], dtype=dtype)


class Stats(Protocol):
    """What a task's total reads of its columns (:data:`Column`): each column's number of values, their mean
    (:func:`mean`, so numpy's pairwise sum), the mean of their squares and how many distinct values it holds.
    :func:`column_stats` reads them from the columns once; :class:`DrawnStats` from every row of a bootstrap's
    draws at once, each row's as the columns with each record repeated as often as it was drawn would give."""

    def count(self, name: str) -> int: ...

    def mean(self, name: str) -> float: ...

    def mean_square(self, name: str) -> float: ...

    def distinct(self, name: str) -> int: ...


class _ColumnStats:
    """:class:`Stats` of each record's values once."""

    def __init__(self, columns: Mapping[str, Column]) -> None:
        self._values = {name: values for name, (_, values) in columns.items()}

    def count(self, name: str) -> int:
        return len(self._values[name])

    def mean(self, name: str) -> float:
        return mean(self._values[name])

    def mean_square(self, name: str) -> float:
        return mean(np.square(self._values[name]))

    def distinct(self, name: str) -> int:
        return int(np.count_nonzero(np.bincount(self._values[name])))


def column_stats(columns: Mapping[str, Column]) -> Stats:
    """The columns' :class:`Stats`, each record's values once."""
    return _ColumnStats(columns)


class DrawnStats:
    """The columns' :class:`Stats` on every row of ``times`` (how often each record is drawn), one row of
    ``rows()`` per draw. Each statistic is computed for every row at once when a total first reads it, bit for bit
    what it would read of the row's columns with each record repeated as often as it was drawn (a thousand
    totals of a task read them, and repeating every column for every draw took most of their time)."""

    def __init__(self, columns: Mapping[str, Column], times: np.ndarray) -> None:
        self._columns, self._times = columns, times
        self._computed: dict[tuple[str, str], list[Any]] = {}

    def rows(self) -> Iterator[Stats]:
        return (_DrawnRow(self, row) for row in range(len(self._times)))

    def stat(self, kind: str, name: str) -> list[Any]:
        """One statistic of one column on every row (``kind``: a :class:`Stats` method's name)."""
        key = (kind, name)
        if key not in self._computed:
            positions, values = self._columns[name]
            counts = self._times[:, positions]
            if kind == "count":
                result = counts.sum(axis=1)
            elif kind == "distinct":
                result = _drawn_distinct(values, counts)
            else:
                result = _drawn_means(np.square(values) if kind == "mean_square" else values, counts)
            self._computed[key] = result.tolist()
        return self._computed[key]


class _DrawnRow:
    """One draw's :class:`Stats`."""

    def __init__(self, drawn: DrawnStats, row: int) -> None:
        self._drawn, self._row = drawn, row

    def count(self, name: str) -> int:
        return self._drawn.stat("count", name)[self._row]

    def mean(self, name: str) -> float:
        return self._drawn.stat("mean", name)[self._row]

    def mean_square(self, name: str) -> float:
        return self._drawn.stat("mean_square", name)[self._row]

    def distinct(self, name: str) -> int:
        return self._drawn.stat("distinct", name)[self._row]


def _drawn_means(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per row of ``counts``, :func:`mean` of ``values`` each repeated its count times (NaN for none). Whole
    numbers small enough that every partial sum is exact have one sum in any order, so all rows' sums are one
    product; other values are summed row by row, with the pairwise sum :func:`mean` applies."""
    floats = np.asarray(values, dtype=np.float64)
    lengths = counts.sum(axis=1)
    if _exact_sums(floats, int(lengths.max(initial=0))):
        sums = counts @ floats
    else:
        sums = np.asarray([np.add.reduce(floats.repeat(row)) for row in counts], dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / lengths


def _exact_sums(values: np.ndarray, terms: int) -> bool:
    """Whether any sum of up to ``terms`` of ``values`` is exact in floats: whole numbers whose largest
    possible sum stays within float precision (2**53)."""
    if not values.size:
        return True
    largest = float(np.abs(values).max())
    return bool(np.isfinite(largest) and (values == np.floor(values)).all() and largest * terms < 2**53)


def _drawn_distinct(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per row of ``counts``, how many distinct ``values`` (numbers from 0) its drawn records hold."""
    if not values.size:
        return np.zeros(len(counts), dtype=np.intp)
    width = int(values.max()) + 1
    numbered = values[None, :] + width * np.arange(len(counts))[:, None]
    present = np.bincount(numbered[counts > 0], minlength=len(counts) * width)
    return np.count_nonzero(present.reshape(len(counts), width), axis=1)


class Notes:
    """Collects warnings, one line per kind, naming the entries (data.json positions) it concerns."""

    _SHOWN = 5

    def __init__(self) -> None:
        self._entries: dict[str, list[int]] = {}

    def add(self, message: str, index: int | None = None) -> None:
        positions = self._entries.setdefault(message, [])
        if index is not None and index not in positions[-1:]:
            positions.append(index)

    def render(self) -> list[str]:
        return [self._line(message, positions) for message, positions in self._entries.items()]

    def _line(self, message: str, positions: list[int]) -> str:
        if not positions:
            return message
        shown = ", ".join(str(p) for p in positions[: self._SHOWN])
        more = f" and {len(positions) - self._SHOWN} more" if len(positions) > self._SHOWN else ""
        return f"{message} (entries {shown}{more})"
