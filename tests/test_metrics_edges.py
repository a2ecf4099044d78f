"""Edge cases shared by every metric, in both profiles (empty predictions, out-of-range boxes)."""

from __future__ import annotations

import pytest
from test_metrics_helpers import make_items

from avibench.benchmarks.avibench.fense import fense_summary
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.level_metrics import REFERENCE, STRICT, caption

DOG = {"bbox": {"dog_1": [10, 20, 30, 40]}, "original_wh": [100, 100]}
FRAMES = {"bbox": {"frame_0": [10, 20, 30, 40], "frame_1": None}, "original_wh": [100, 100]}


@pytest.mark.parametrize(
    ("metric", "task", "answer", "reference", "strict"),
    [
        ("full_match", "AVQA", "yes", 0.0, 0.0),
        ("avsqa", "AVSQA", "cube", 0.0, 0.0),
        # MIC: "" does not parse -> semantic 0 -> counting forced to 0.
        ("mic", "AMIC", {"dog": "1"}, 0.0, 0.0),
        # AVL: parse failure -> IoU 0, class F1 0 -> average 0 in both (the instance term is gated off).
        ("avl", "AVL", DOG, 0.0, 0.0),
        # AVLG: "" reads as {} in the reference: the null frame counts as "no box" (1), the box frame 0 -> 0.5;
        # strict gives an unreadable answer no credit.
        ("avlg", "AVLG", FRAMES, 0.5, 0.0),
        # Retrieval with a non-empty GT: F1 0, R@k 0.
        ("retrieval", "VAR", [1], 0.0, 0.0),
    ],
)
def test_empty_prediction(metric: str, task: str, answer, reference: float, strict: float) -> None:
    items = make_items(task, [("0", answer, "")])
    kind = metric_kind(metric)
    named = {"task": task} if "task" in kind.needs else {}
    assert kind.score(items, profile=REFERENCE, **named).headline == reference
    assert kind.score(items, profile=STRICT, **named).headline == strict
    assert kind.score(items, profile=REFERENCE, **named).scored == 1


def test_empty_caption_skipped_or_zero() -> None:
    def fense(candidates, refs):
        return fense_summary([(1.0, 0.0)] * len(candidates))

    items = make_items("AVC", [("0", ["a dog"], ""), ("1", ["a dog"], "a dog")])
    assert caption(items, profile=REFERENCE, fense_fn=fense).value["fense"] == 1.0
    assert caption(items, profile=STRICT, fense_fn=fense).value["fense"] == 0.5


def test_empty_ground_truth_retrieval_both_profiles() -> None:
    items = make_items("AVR", [("0", [], "none"), ("1", [], "[4]")])
    for profile in (REFERENCE, STRICT):
        # Both empty -> F1 1; one empty -> 0.
        assert metric_kind("retrieval").score(items, profile=profile).value["F1_score"] == 0.5


@pytest.mark.parametrize("profile", [REFERENCE, STRICT])
def test_boxes_out_of_range(profile) -> None:
    # [-0.2, -0.2, 1.2, 1.2] scales to [-20, -20, 120, 120] (area 19600) around the 1200 px GT box:
    # IoU 1200 / 19600, which still counts as a match.
    items = make_items("AVL", [("0", DOG, "{'dog_1': [-0.2, -0.2, 1.2, 1.2]}")])
    score = metric_kind("avl").score(items, profile=profile)
    denominator = 1 + 1e-5 if profile is REFERENCE else 1
    assert score.per_sample[0] == pytest.approx(1200 / 19600 / denominator)
    assert score.value["Instance"] == 1.0
    # AVLG has no clipping either: a box past the border is compared as is.
    frames = make_items("AVLG", [("0", FRAMES, "{'frame_0': [0.1, 0.2, 1.4, 1.6]}")])
    # Pred [10, 20, 140, 160] (18200 px) contains the GT: IoU 1200/18200; frame_1 missing -> 1.
    assert metric_kind("avlg").score(frames, profile=profile).per_sample[0] == pytest.approx(
        (1200 / 18200 + 1) / 2
    )


@pytest.mark.parametrize("profile", [REFERENCE, STRICT])
def test_superscript_ground_truth_label(profile) -> None:
    # "²".isdigit() holds but \d does not match it: only an exact "²" scores.
    items = make_items("ASQA", [("0", "²", "²"), ("1", "²", "2")])
    assert metric_kind("full_match").score(items, profile=profile).per_sample == [1.0, 0.0]
