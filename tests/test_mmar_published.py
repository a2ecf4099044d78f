"""Published MMAR / MMAU numbers: complete rows, and MMAR totals consistent with their modality breakdowns."""

from __future__ import annotations

import pytest

from avibench.benchmarks.mmar.published import MMAR_MODALITY_COUNTS, MMAR_PUBLISHED, MMAU_PUBLISHED, PUBLISHED
from avibench.level_metrics.mmar import MMAR_MODALITIES


def test_mmar_rows_have_every_modality() -> None:
    assert sum(MMAR_MODALITY_COUNTS.values()) == 1000
    for row in MMAR_PUBLISHED:
        assert list(row.groups) == list(MMAR_MODALITIES)
        assert all(0 <= v <= 100 for v in row.groups.values())


@pytest.mark.parametrize("row", MMAR_PUBLISHED, ids=lambda r: r.model)
def test_mmar_total_is_the_count_weighted_modality_mean(row) -> None:
    weighted = sum(row.groups[m] * n for m, n in MMAR_MODALITY_COUNTS.items()) / 1000
    assert weighted == pytest.approx(row.headline, abs=0.06)


def test_headlines() -> None:
    assert max(MMAR_PUBLISHED, key=lambda r: r.headline).model == "Gemini 2.5 Pro"
    assert {r.model: r.headline for r in MMAR_PUBLISHED}["Random guess"] == 29.3
    assert [r for r in MMAU_PUBLISHED if r.kind == "unverified"] == [MMAU_PUBLISHED[-1]]
    assert set(PUBLISHED) == {"mmar", "mmau"}
