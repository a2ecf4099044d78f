"""A bootstrap's statistics of every draw at once are, bit for bit, those of each draw's columns with every record
repeated as often as it was drawn: counts, pairwise means (float values row by row, whole numbers as one product),
means of squares and distinct values, with draws that leave a column empty."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avibench.level_metrics.common import Column, DrawnStats, column_stats


def _columns(rng: np.random.Generator, records: int) -> dict[str, Column]:
    every = np.arange(records, dtype=np.intp)
    some = np.flatnonzero(rng.random(records) < 0.6).astype(np.intp)
    return {
        "float": (every, rng.random(records) * rng.choice([1e-3, 1.0, 7e4])),
        "ones": (every, rng.integers(0, 2, records).astype(np.float64)),
        "counts": (some, rng.integers(-4, 9, len(some)).astype(np.int64)),
        "tenths": (some, rng.integers(0, 10, len(some)) / 10),
        "huge": (every, np.full(records, 2.0**52) + rng.integers(0, 3, records)),
        "lists": (some, rng.integers(0, max(1, records // 3), len(some)).astype(np.intp)),
        "none": (np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)),
    }


def _repeated(columns: dict[str, Column], counts: np.ndarray) -> dict[str, Column]:
    out = {}
    for name, (rows, values) in columns.items():
        picked = np.repeat(values, counts[rows])
        out[name] = (np.arange(len(picked), dtype=np.intp), picked)
    return out


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("seed", range(6))
def test_every_draw_reads_what_its_repeated_columns_give(seed: int) -> None:
    rng = np.random.default_rng(seed)
    records = int(rng.integers(1, 400))
    columns = _columns(rng, records)
    times = rng.integers(0, 3, size=(40, records))
    times[0] = 0  # a draw of nothing
    times[1] = 0
    times[1, 0] = 5  # one record drawn five times
    drawn = DrawnStats(columns, times)
    for row, stats in enumerate(drawn.rows()):
        expected = column_stats(_repeated(columns, times[row]))
        for name in columns:
            assert stats.count(name) == expected.count(name), (row, name)
            assert _same(stats.mean(name), expected.mean(name)), (row, name)
            assert _same(stats.mean_square(name), expected.mean_square(name)), (row, name)
        for name in ("lists", "none"):
            assert stats.distinct(name) == expected.distinct(name), (row, name)
