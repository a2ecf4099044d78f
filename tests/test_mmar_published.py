"""Published MMAR / MMAU numbers: complete rows, and MMAR totals consistent with their modality breakdowns."""

from __future__ import annotations

import pytest

from avibench.kits.published import published_table, published_tables
from avibench.level_metrics.mmar import MMAR_MODALITIES
from avibench.plugin import get_benchmark

MMAR = published_table("mmar")
MMAU = published_table("mmau")
MMAR_MODALITY_COUNTS = MMAR.facts["modality_counts"]


def test_mmar_rows_have_every_modality() -> None:
    assert sum(MMAR_MODALITY_COUNTS.values()) == 1000
    assert list(MMAR_MODALITY_COUNTS) == list(MMAR_MODALITIES)
    for row in MMAR.rows:
        breakdown = MMAR.values(row, MMAR_MODALITIES)
        assert all(0 <= v <= 100 for v in breakdown.values())


@pytest.mark.parametrize("row", MMAR.rows, ids=lambda r: r["model"])
def test_mmar_total_is_the_count_weighted_modality_mean(row) -> None:
    weighted = sum(row[m] * n for m, n in MMAR_MODALITY_COUNTS.items()) / 1000
    assert weighted == pytest.approx(row["total"], abs=0.06)


def test_headlines() -> None:
    assert max(MMAR.rows, key=lambda r: r["total"])["model"] == "Gemini 2.5 Pro"
    assert {r["model"]: r["total"] for r in MMAR.rows}["Random guess"] == 29.3
    assert [r for r in MMAU.rows if not r["verified"]] == [MMAU.rows[-1]]
    assert set(published_tables("mmar")) == {"leaderboard"} and set(published_tables("mmau")) == {"quoted"}


def test_mmau_rows_of_one_model_are_told_apart_by_edition() -> None:
    names = [row["model"] for row in get_benchmark("mmau").published()]
    assert len(names) == len(set(names))
    assert [n for n in names if n.startswith("Qwen2-Audio-Instruct")] == [
        "Qwen2-Audio-Instruct (README)",
        "Qwen2-Audio-Instruct (paper, earlier)",
    ]
    assert "Gemini 1.5 Pro" in names  # a row without an edition keeps its name
