"""AVL (spec 4.5, quirks 21, 31) and AVLG (spec 4.9, quirk 22)."""

from __future__ import annotations

import math

import pytest
from test_metrics_helpers import make_items

from avibench.level_metrics import REFERENCE, STRICT, avl, avlg

DOG = {"bbox": {"dog_1": [10, 20, 30, 40]}, "original_wh": [100, 100]}  # xyxy [10, 20, 40, 60]
PERFECT = "{'dog_1': [0.1, 0.2, 0.4, 0.6]}"


def test_perfect_sample_epsilon() -> None:
    # IoU 1 / (1 + 1e-5) = 0.9999900001 -> mIoU 0.99999; final 0.7 * 0.99999 + 0.3 * 1 -> 0.99999.
    items = make_items("AVL", [("0", DOG, PERFECT)])
    assert avl(items, profile=REFERENCE).value == {"mIoU": 0.99999, "Instance": 1.0, "Average": 0.99999}
    assert avl(items, profile=STRICT).value == {"mIoU": 1.0, "Instance": 1.0, "Average": 1.0}


@pytest.mark.parametrize(
    ("errors", "expected"),
    [([1, 0, 0, 0], 0.53788), ([1], 0.23841), ([2], 0.03597)],  # RMSE 0.5, 1, 2 -> 1 - tanh(RMSE)
)
def test_instance_curve(errors: list[int], expected: float) -> None:
    rows = []
    for i, missed in enumerate(errors):
        boxes = {f"dog_{k}": [10 * k, 10, 5, 5] for k in range(1, missed + 2)}
        # The prediction finds dog_1 only (a perfect box), so `missed` instances stay unmatched.
        rows.append((str(i), {"bbox": boxes, "original_wh": [100, 100]}, "{'dog_1': [0.1, 0.1, 0.15, 0.15]}"))
    assert avl(make_items("AVL", rows), profile=REFERENCE).value["Instance"] == expected


def test_parse_failure_instance_error() -> None:
    two_dogs = {"bbox": {"dog_1": [10, 20, 30, 40], "dog_2": [50, 50, 10, 10]}, "original_wh": [100, 100]}
    items = make_items("AVL", [("0", DOG, PERFECT), ("1", two_dogs, "I cannot see any dog")])
    reference = avl(items, profile=REFERENCE)
    # Reference: errors [0, 0] -> instance 1; mIoU (0.9999900001 + 0)/2; final 0.7 * 0.49999500005 + 0.3 -> 0.65.
    assert reference.value == {"mIoU": 0.5, "Instance": 1.0, "Average": 0.65}
    strict = avl(items, profile=STRICT)
    # Strict: errors [0, 2] -> RMSE sqrt(2); mIoU 0.5.
    instance = 1 - math.tanh(math.sqrt(2))
    assert strict.value == {
        "mIoU": 0.5,
        "Instance": round(instance, 5),
        "Average": round(0.35 + 0.3 * instance, 5),
    }


def test_scale_detection() -> None:
    rows = [
        ("0", DOG, "{'dog_1': [100, 200, 400, 600]}"),  # 0-1000 scale -> exact
        ("1", DOG, "{'dog_1': [10, 20, 40, 60]}"),  # small pixel box misread as thousandths -> no match
        (
            "2",
            {"bbox": {"dog_1": [1100, 200, 400, 400]}, "original_wh": [2000, 1000]},
            "{'dog_1': [1100, 200, 1500, 600]}",
        ),
        ("3", DOG, "{'dog_1': '0.1, 0.2, 0.4, 0.6'}"),  # a string box is read as a tuple
    ]
    score = avl(make_items("AVL", rows), profile=REFERENCE)
    eps = 1 / (1 + 1e-5)
    assert score.per_sample == [pytest.approx(eps), 0.0, pytest.approx(eps), pytest.approx(eps)]


def test_huge_box_matches_with_tiny_iou() -> None:
    score = avl(make_items("AVL", [("0", DOG, "{'dog_1': [0, 0, 1e6, 1e6]}")]), profile=REFERENCE)
    # 1200 px of GT inside a 1e12 px box: IoU 1.2e-9 > 0, so the instance counts as found.
    assert 0 < score.per_sample[0] < 1e-8
    assert score.value["Instance"] == 1.0


def test_greedy_not_optimal_matching() -> None:
    gt = {"bbox": {"dog_1": [0, 0, 10, 10], "dog_2": [5, 0, 10, 10]}, "original_wh": [100, 100]}
    pred = "{'dog_7': [0.05, 0.0, 0.15, 0.1], 'dog_8': [0.3, 0.3, 0.4, 0.4]}"
    # dog_1 takes dog_7 (IoU 50/150); dog_2 is then left with dog_8 (IoU 0). Optimal would give IoU 1.
    for profile in (REFERENCE, STRICT):
        score = avl(make_items("AVL", [("0", gt, pred)]), profile=profile)
        denominator = 2 + 1e-5 if profile is REFERENCE else 2
        assert score.per_sample[0] == pytest.approx((1 / 3) / denominator)


def test_class_names_case_and_suffix() -> None:
    items = make_items(
        "AVL",
        [
            (
                "0",
                {"bbox": {"Dog_1": [10, 20, 30, 40]}, "original_wh": [100, 100]},
                "{'dog': [0.1, 0.2, 0.4, 0.6]}",
            )
        ],
    )
    assert avl(items, profile=REFERENCE).value["Average"] == 0.99999


def test_flat_ground_truth() -> None:
    flat = {"dog_1": [10, 20, 30, 40]}
    items = make_items("AVL", [("0", flat, PERFECT)])
    reference = avl(items, profile=REFERENCE, image_sizes={0: (100, 100)})
    assert reference.value == {
        "mIoU": 0.0,
        "Instance": 0.0,
        "Average": 0.0,
    }  # the reference's label-error path
    assert reference.warnings
    strict = avl(items, profile=STRICT, image_sizes={0: (100, 100)})
    assert strict.value["Average"] == 1.0
    assert avl(items, profile=STRICT).scored == 0  # no size anywhere: left out, with a warning


def test_numeric_box_key_does_not_abort() -> None:
    items = make_items("AVL", [("0", DOG, "{1: [0.1, 0.2, 0.4, 0.6], 'dog_1': [0.1, 0.2, 0.4, 0.6]}")])
    for profile in (REFERENCE, STRICT):
        score = avl(items, profile=profile)
        assert score.per_sample[0] == pytest.approx(1 / (1 + 1e-5) if profile is REFERENCE else 1.0)
        assert any("non-string box key" in w for w in score.warnings)


def test_empty_ground_truth_and_prediction() -> None:
    empty = {"bbox": {}, "original_wh": [100, 100]}
    items = make_items("AVL", [("0", empty, "{}"), ("1", DOG, PERFECT)])
    reference = avl(items, profile=REFERENCE)
    # Sample 0: IoU 0, error 0, class F1 0 (the reference would abort in sklearn). mIoU 0.49999500005 -> 0.5.
    assert reference.value["mIoU"] == 0.5 and reference.warnings
    assert avl(items, profile=STRICT).scored == 1


def test_missing_prediction() -> None:
    items = make_items("AVL", [("0", DOG, PERFECT), ("1", DOG, None)])
    assert avl(items, profile=REFERENCE).scored == 1
    strict = avl(items, profile=STRICT)
    assert strict.scored == 2 and strict.value["mIoU"] == 0.5


def test_no_items_gives_nan_value_but_finite_headline() -> None:
    score = avl([], profile=REFERENCE)
    assert math.isnan(score.value["Average"]) and score.headline == 0.0


FRAMES = {"bbox": {"frame_0": [10, 20, 30, 40], "frame_1": None}, "original_wh": [100, 100]}


@pytest.mark.parametrize(
    ("pred", "reference", "strict"),
    [
        ("{'frame_0': [0.1, 0.2, 0.4, 0.6], 'frame_1': None}", 1.0, 1.0),
        ("{'frame_0': [0.1, 0.2, 0.4, 0.6]}", 1.0, 1.0),  # a missing key is "no box" too
        ("{'frame_0': [0.1, 0.2, 0.4, 0.6], 'frame_1': []}", 0.5, 1.0),  # [] is a box in the reference
        (
            '{"frame_0": [0.1, 0.2, 0.4, 0.6], "frame_1": null}',
            0.5,
            1.0,
        ),  # JSON null: unreadable in the reference
        ("```json\n{'frame_0': [0.1, 0.2, 0.4, 0.6], 'frame_1': None}\n```", 1.0, 1.0),
        ("{'frame_0': [10, 20, 40, 60], 'frame_1': None}", 0.5, 0.5),  # no scale detection: pixels miss
        ("{'frame_0': '0.1, 0.2, 0.4, 0.6', 'frame_1': None}", 0.5, 0.5),  # a string is not a box here
        (
            "[[0.1, 0.2, 0.4, 0.6]]",
            0.5,
            0.0,
        ),  # not a dict: no box anywhere in the reference, no credit in strict
        ("I don't know.", 0.5, 0.0),  # unreadable: the reference credits the null frame
    ],
)
def test_avlg_frames(pred: str, reference: float, strict: float) -> None:
    items = make_items("AVLG", [("0", FRAMES, pred)])
    assert avlg(items, profile=REFERENCE).value == reference
    assert avlg(items, profile=STRICT).value == strict


def test_avlg_flat_ground_truth_uses_image_size() -> None:
    flat = {"frame_0": [10, 20, 30, 40], "frame_1": None}
    items = make_items("AVLG", [("0", flat, "{'frame_0': [0.1, 0.2, 0.4, 0.6], 'frame_1': None}")])
    for profile in (REFERENCE, STRICT):
        score = avlg(items, profile=profile, image_sizes={0: (100, 100)})
        assert score.value == 1.0 and score.warnings  # the reference would abort with KeyError
        assert avlg(items, profile=profile).scored == 0


def test_avlg_empty_frames_and_missing() -> None:
    empty = {"bbox": {}, "original_wh": [100, 100]}
    items = make_items(
        "AVLG", [("0", empty, "{}"), ("1", FRAMES, None), ("2", FRAMES, "{'frame_0': [0.1, 0.2, 0.4, 0.6]}")]
    )
    reference = avlg(items, profile=REFERENCE)
    assert (reference.value, reference.scored) == (1.0, 1)
    assert any("ZeroDivisionError" in w or "without frames" in w for w in reference.warnings)
    strict = avlg(items, profile=STRICT)
    assert (strict.value, strict.scored) == (0.5, 2)


def test_class_f1_gates_the_instance_term() -> None:
    # A cat box for a dog: IoU 0, one missed instance, class F1 0 -> the instance term is forced to 0
    # (without the gate it would be 1 - tanh(1) = 0.23841).
    items = make_items("AVL", [("0", DOG, "{'cat_1': [0.1, 0.2, 0.4, 0.6]}")])
    for profile in (REFERENCE, STRICT):
        assert avl(items, profile=profile).value == {"mIoU": 0.0, "Instance": 0.0, "Average": 0.0}
