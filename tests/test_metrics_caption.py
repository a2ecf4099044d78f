"""AVC FENSE wrapper (spec 4.8, quirk 24)."""

from __future__ import annotations

import pytest
from test_metrics_helpers import make_items

from avibench.benchmarks.avibench.fense import fense_summary
from avibench.level_metrics import REFERENCE, STRICT, caption


class RecordingFense:
    """A stand-in fense_fn: similarity 0.8 for every candidate, an error when the caption has the word 'bad'."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[list[str]]]] = []

    def __call__(self, candidates: list[str], mult_refs: list[list[str]]) -> dict:
        self.calls.append((candidates, mult_refs))
        return fense_summary([(0.8, 1.0 if "bad" in c else 0.0) for c in candidates])


def test_fense_summary() -> None:
    result = fense_summary([(0.8, 1.0), (0.5, 0.0)])
    # The first caption has a fluency error: fense_i = [0.8 * 0.1, 0.5] -> mean 0.29; fer 0.5; sim 0.65.
    assert result["fense_per_candidate"] == pytest.approx([0.08, 0.5])
    assert result["fense"] == pytest.approx(0.29)
    assert result["fer"] == 0.5 and result["sbert_sim"] == pytest.approx(0.65)
    assert fense_summary([])["fense"] == 0.0


def test_skipping_and_references() -> None:
    fense = RecordingFense()
    items = make_items(
        "AVC",
        [
            ("0", ["a dog barks", ""], "A dog barks."),
            ("1", "a man speaks", "<|endoftext|>"),  # empty after cleaning: skipped
            ("2", [], "anything"),  # no references: skipped
            ("3", None, "bad bad caption"),  # a non-list GT is printed: ["None"]
            ("4", ["x"], None),  # missing: skipped
        ],
    )
    score = caption(items, profile=REFERENCE, fense_fn=fense)
    assert fense.calls == [(["A dog barks.", "bad bad caption"], [["a dog barks"], ["None"]])]
    # fense_i = [0.8, 0.08] -> 0.44; sim 0.8; fer 0.5.
    assert score.value == {"fense": 0.44, "sbert_sim": 0.8, "fer": 0.5, "n_samples": 2, "average": 0.44}
    assert score.headline == 0.44 and score.scored == 2
    assert score.per_sample == [0.8, None, None, pytest.approx(0.08), None]


def test_strict_counts_empty_captions_as_zero() -> None:
    items = make_items("AVC", [("0", ["a dog"], "a dog"), ("1", ["a cat"], ""), ("2", ["x"], None)])
    score = caption(items, profile=STRICT, fense_fn=RecordingFense())
    # One real caption (0.8) and two zeros: 0.8 / 3 = 0.26667.
    assert score.value == {
        "fense": 0.26667,
        "sbert_sim": 0.26667,
        "fer": 0.0,
        "n_samples": 3,
        "average": 0.26667,
    }
    assert score.per_sample == [0.8, 0.0, 0.0]


def test_no_candidates() -> None:
    def never(candidates, refs):
        raise AssertionError("must not be called")

    items = make_items("AVC", [("0", ["a"], "")])
    assert caption(items, profile=REFERENCE, fense_fn=never).value == {
        "fense": 0.0,
        "sbert_sim": 0.0,
        "fer": 0.0,
        "n_samples": 0,
        "average": 0.0,
    }
    strict = caption(items, profile=STRICT, fense_fn=never)
    assert strict.value["n_samples"] == 1 and strict.headline == 0.0
