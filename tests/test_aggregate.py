"""Aggregation against the published tables (spec 5, 6.3) and the taxonomy formulas' edge cases."""

from __future__ import annotations

import math

import pytest

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.level_metrics.aggregate import (
    aggregate,
    harmonic_mean,
    head_normalise,
    l1_task,
    l3_stage,
    l4_domain,
    overall_score,
    relative_difference,
    stage_gap,
    stage_scores,
)

# Model: (Perception, Understanding, Reasoning, Sensation, Overall) and (L1, L2, L3, L4), spec 6.3.
STAGES = {
    "Gemini-2.5-Pro": (54.58, 68.97, 69.06, 36.22, 57.21),
    "Gemini-2.5-Flash": (45.97, 43.79, 63.70, 30.63, 46.02),
    "Gemini-2.0-Flash": (44.27, 42.11, 64.03, 29.48, 44.97),
    "Qwen2.5-Omni": (42.81, 39.68, 58.26, 24.59, 41.33),
    "GPT-4o": (40.45, 48.60, 56.87, 16.81, 40.68),
    "Gemini-1.5-Pro": (41.69, 35.33, 61.19, 23.30, 40.38),
    "Human-Omni": (28.70, 18.14, 49.94, 16.82, 28.40),
    "Video-LLaMA2": (32.45, 16.32, 39.95, 20.34, 27.27),
    "NExTGPT": (7.52, 16.93, 14.86, 10.69, 12.50),
}
TAXONOMY = {
    "Gemini-2.5-Pro": (64.20, 62.80, 57.08, 32.97),
    "Gemini-2.5-Flash": (51.15, 48.58, 40.47, 27.72),
    "Gemini-2.0-Flash": (50.14, 49.21, 39.79, 27.12),
    "Qwen2.5-Omni": (46.92, 45.93, 37.61, 25.89),
    "GPT-4o": (48.64, 47.19, 41.93, 0.55),
    "Gemini-1.5-Pro": (46.07, 42.84, 32.67, 23.28),
    "Human-Omni": (32.26, 29.79, 19.62, 16.96),
    "Video-LLaMA2": (29.57, 24.99, 18.71, 16.99),
}


def _stages(model: str) -> dict[str, float]:
    p, u, r, s, _ = STAGES[model]
    return {"perception": p, "understanding": u, "reasoning": r, "sensation": s}


@pytest.mark.parametrize("model", list(STAGES))
def test_overall_reproduces_published(model: str) -> None:
    assert overall_score(_stages(model)) == pytest.approx(STAGES[model][4], abs=0.005 + 1e-9)


@pytest.mark.parametrize("model", list(TAXONOMY))
def test_l1_reproduces_published(model: str) -> None:
    assert l1_task(_stages(model)) == pytest.approx(TAXONOMY[model][0], abs=0.005 + 1e-9)


def test_l2_to_l4_closeness_to_published(record_property: pytest.RecordProperty) -> None:
    """L2–L4 need per-task scores the paper does not publish, so check what the stage tables allow:

    * L2: the factor L2/L1 = 2·min(A, V)/(A + V) implies the weaker modality's share min/max, recorded;
    * L3: from the published L2 and stages with the default gap form; must stay within the documented error;
    * L4: the harmonic mean of our L3 and the back-solved S_UD, i.e. how far our L3 error carries into L4.
    """
    implied_ratio, l3_deltas, l4_deltas = {}, {}, {}
    for model, (l1, l2, l3, l4) in TAXONOMY.items():
        factor = l2 / l1
        implied_ratio[model] = round(factor / (2 - factor), 3)
        ours_l3 = l3_stage(l2, _stages(model))
        assert ours_l3 is not None
        l3_deltas[model] = round(ours_l3 - l3, 2)
        s_ud = l4 * l3 / (2 * l3 - l4)
        assert l4_domain(l3, s_ud) == pytest.approx(l4, abs=1e-9)
        ours_l4 = l4_domain(ours_l3, s_ud)
        assert ours_l4 is not None
        l4_deltas[model] = round(ours_l4 - l4, 2)
    for name, value in (
        ("l2_implied_min_max_ratio", implied_ratio),
        ("l3_deltas", l3_deltas),
        ("l4_deltas", l4_deltas),
    ):
        record_property(name, value)
        print(f"{name}: {value}")
    assert all(0 < r <= 1 for r in implied_ratio.values())
    assert max(abs(d) for d in l3_deltas.values()) < 2.5
    assert math.sqrt(sum(d * d for d in l3_deltas.values()) / len(l3_deltas)) < 1.0
    assert max(abs(d) for d in l4_deltas.values()) < 1.0


def test_l4_gpt4o_is_reachable() -> None:
    """GPT-4o's L4 of 0.55 with ASQA ≈ 0.4: the relative-to-mean Δ leaves a plausible VSQA/AVSQA split."""
    sensation, l3, l4, asqa = 16.81, 41.93, 0.55, 0.4
    s_ud = l4 * l3 / (2 * l3 - l4)
    factor = s_ud / sensation  # = 2·ASQA/(ASQA + VSQA)
    vsqa = 2 * asqa / factor - asqa
    avsqa = 3 * sensation - asqa - vsqa
    assert 0 <= avsqa <= 100 and 0 <= vsqa <= 100
    tasks = {"ASQA": asqa, "VSQA": vsqa, "AVSQA": avsqa}
    result = aggregate(tasks, benchmark=AVIBENCH)
    assert result.stages["sensation"] == pytest.approx(sensation)
    assert l4_domain(l3, (1 - 0.5 * relative_difference(asqa, vsqa)) * sensation) == pytest.approx(
        l4, abs=1e-6
    )


def test_l4_implied_prise_split() -> None:
    """S_UD = (1 - 0.5·Δ(ASQA, VSQA))·Sensation with the published anecdotes: Gemini-2.5-Pro's AVSQA 16.5 implies
    ASQA ≈ 29.5 and VSQA ≈ 62.7, which reproduce its published L4 from its published L3."""
    sensation = 36.22
    asqa, vsqa = 29.49, 3 * sensation - 16.5 - 29.49
    tasks = {"ASQA": asqa, "VSQA": vsqa, "AVSQA": 16.5}
    s_ud = (1 - 0.5 * relative_difference(asqa, vsqa)) * sensation
    assert l4_domain(57.08, s_ud) == pytest.approx(32.97, abs=0.01)
    assert stage_scores(tasks, benchmark=AVIBENCH)[0]["sensation"] == pytest.approx(sensation)


def test_spec_harmonic_vector() -> None:
    assert harmonic_mean(57.08, 23.18) == pytest.approx(32.97, abs=0.005)
    assert harmonic_mean(0, 0) == 0


def test_relative_difference_forms() -> None:
    assert relative_difference(0, 0) == 0
    assert relative_difference(30, 10) == pytest.approx(1.0)
    assert relative_difference(30, 10, form="relative_sum") == pytest.approx(0.5)
    # with alpha 0.5 the factor is 2·min/(A+V)
    a, v = 40.0, 25.0
    assert 1 - 0.5 * relative_difference(a, v) == pytest.approx(2 * min(a, v) / (a + v))


def test_head_normalise_and_gap() -> None:
    assert head_normalise(75, 50) == pytest.approx(50)
    assert head_normalise(40, 50) == 0
    assert head_normalise(100, 100) == 0
    assert stage_gap(50, 50, 40) == 0
    assert stage_gap(40, 60, 75) == pytest.approx(2 * 25 / 125)
    assert stage_gap(40, 60, 75, prerequisite="min", gap="relative_lead") == pytest.approx(35 / 75)


def _tasks(**overrides: float | None) -> dict[str, float | None]:
    base = dict.fromkeys(
        (
            "ASQA",
            "VSQA",
            "AVSQA",
            "AMIC",
            "VMIC",
            "AVL",
            "AVM",
            "AVR",
            "VAR",
            "AVC",
            "AVH",
            "VAH",
            "AVQA",
            "AVLG",
        ),
        50.0,
    )
    base.update(overrides)
    return base


def test_aggregate_balanced_scores() -> None:
    result = aggregate(_tasks(), benchmark=AVIBENCH)
    assert result.stages == dict.fromkeys(("perception", "understanding", "reasoning", "sensation"), 50.0)
    assert result.overall == 50.0
    assert result.taxonomy == {"l1_task": 50.0, "l2_modality": 50.0, "l3_stage": 50.0, "l4_domain": 50.0}
    assert result.notes == []


def test_aggregate_modality_gap_and_missing() -> None:
    result = aggregate(
        _tasks(AMIC=80.0, VAR=80.0, AVH=80.0, VMIC=20.0, AVR=20.0, VAH=20.0), benchmark=AVIBENCH
    )
    assert result.taxonomy["l2_modality"] == pytest.approx(result.taxonomy["l1_task"] * 2 * 20 / 100)
    missing = aggregate(_tasks(AVC=None, AVM=None, AVL=None, AMIC=None, VMIC=None), benchmark=AVIBENCH)
    assert missing.stages["understanding"] == 50.0
    assert missing.stages["perception"] is None
    assert missing.overall is None
    assert missing.taxonomy["l1_task"] is None
    assert any("AVC" in n for n in missing.notes)
    assert any("Perception has no scored task" in n for n in missing.notes)


def test_aggregate_head_normalised_option() -> None:
    tasks = _tasks(AVH=90.0, VAH=90.0, AVQA=90.0, AVLG=90.0)
    raw = aggregate(tasks, benchmark=AVIBENCH)
    chance = dict.fromkeys(tasks, 0.0) | {"AVH": 50.0, "VAH": 50.0}
    normalised = aggregate(tasks, chance=chance, l3_scores="head_normalised", benchmark=AVIBENCH)
    assert normalised.taxonomy["l2_modality"] == raw.taxonomy["l2_modality"]
    assert normalised.taxonomy["l3_stage"] != raw.taxonomy["l3_stage"]
    assert "no chance levels" in " ".join(
        aggregate(tasks, l3_scores="head_normalised", benchmark=AVIBENCH).notes
    )
