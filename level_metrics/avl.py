"""AVL: audio-visual localisation of every sounding instance.

Per sample, ground-truth instances are matched greedily (in ground-truth order) to unused predicted boxes of
the same class by best IoU; the sample IoU is the matched IoU sum over the instance count. The task score is
``0.7 * mIoU + 0.3 * (1 - tanh(RMSE of missed-instance counts))``; the instance term is 0 when the mean class
F1 is 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from avibench.level_metrics.boxes import (
    UNPARSED,
    iou_xyxy,
    is_number_box,
    literal,
    read_box_truth,
    semantic_type,
    xywh_to_xyxy,
)
from avibench.level_metrics.common import (
    Column,
    Notes,
    Stats,
    column,
    finite_or_zero,
    numpy_round5,
    prediction_text,
    python_round5,
    records_of,
    whole_task,
)
from avibench.level_metrics.profile import ScoringProfile
from avibench.level_metrics.types import Item, TaskScore

IOU_WEIGHT = 0.7
INSTANCE_WEIGHT = 0.3
EPSILON = 0.00001
THOUSANDTHS_LIMIT = 1001
NORMALISED_LIMIT = 1.5


def predicted_box(raw: Any) -> list[float] | None:
    """A predicted box as 4 floats: strings are read as Python literals first; anything else gives None."""
    if isinstance(raw, str):
        raw = literal(raw)  # UNPARSED is not iterable: None below
    try:
        box = [float(v) for v in raw]
    except Exception:
        return None
    return box if len(box) == 4 else None


def to_pixels(box: list[float], width: float, height: float) -> list[float]:
    """Scale detection: 0-1000 values (max in (1.5, 1001]) become thousandths; normalised boxes are scaled to the
    image; anything still above 1.5 is taken as pixels."""
    largest = max(abs(v) for v in box)
    if NORMALISED_LIMIT < largest <= THOUSANDTHS_LIMIT:
        box = [v / 1000.0 for v in box]
        largest = max(abs(v) for v in box)
    x1, y1, x2, y2 = box
    if largest > NORMALISED_LIMIT:
        return [x1, y1, x2, y2]
    return [x1 * width, y1 * height, x2 * width, y2 * height]


def _class_f1(truth: set[str], predicted: set[str]) -> float:
    denominator = len(truth) + len(predicted)
    return 2 * len(truth & predicted) / denominator if denominator else 0.0


def _match(
    boxes: Mapping[Any, Any],
    prediction: dict[Any, Any],
    size: tuple[float, float],
    notes: Notes,
    index: int,
) -> tuple[float, int]:
    """Greedy matching; returns (sum of matched IoUs, number of matched instances)."""
    used: set[Any] = set()
    total: float = 0
    matched = 0
    for truth_key, truth_box in boxes.items():
        truth_class = semantic_type(truth_key, notes, index)
        truth_xyxy = xywh_to_xyxy(truth_box)
        best_iou: float = 0
        best_key = None
        for key, raw in prediction.items():
            if semantic_type(key, notes, index) != truth_class or key in used:
                continue
            box = predicted_box(raw)
            if box is None:
                continue
            iou = iou_xyxy(to_pixels(box, *size), truth_xyxy)
            if iou > best_iou:
                best_iou, best_key = iou, key
        if best_iou > 0 and best_key:
            used.add(best_key)
            matched += 1
            total += best_iou
    return total, matched


AvlRecord = tuple[float, float, int]


def _record(
    item: Item,
    profile: ScoringProfile,
    notes: Notes,
    image_sizes: Mapping[int, tuple[int, int]] | None = None,
) -> AvlRecord | None:
    truth = read_box_truth(item.answer, (image_sizes or {}).get(item.index))
    usable = (
        truth is not None
        and truth.size is not None
        and all(is_number_box(box) for box in truth.boxes.values())
        and (truth.wrapped or not profile.avl_label_error_scores_zero)
    )
    if not usable:
        if profile.avl_label_error_scores_zero:
            notes.add(
                "ground truth unusable (not the {bbox, original_wh} form, or a box that is not 4 numbers); "
                "sample scored 0 as the reference scores it",
                item.index,
            )
            return (0.0, 0.0, 0)
        notes.add("ground truth without usable boxes or image size; sample left out", item.index)
        return None
    assert truth is not None and truth.size is not None
    count = len(truth.boxes)
    if not count and not profile.avl_iou_epsilon:
        notes.add("ground truth without boxes; sample left out", item.index)
        return None
    text = prediction_text(item, clean=False, notes=notes)
    prediction = UNPARSED if text is None else literal(text)
    if not isinstance(prediction, dict):
        return (0.0, 0.0, 0 if profile.avl_parse_failure_error_zero else count)
    total, matched = _match(truth.boxes, prediction, truth.size, notes, item.index)
    sample_iou = total / (count + EPSILON) if profile.avl_iou_epsilon else total / count
    truth_classes = {semantic_type(key, notes, item.index) for key in truth.boxes}
    predicted_classes = {semantic_type(key, notes, item.index) for key in prediction}
    if not truth_classes and not predicted_classes:
        notes.add("no class on either side: class F1 taken as 0 (the reference would abort)", item.index)
    return (sample_iou, _class_f1(truth_classes, predicted_classes), count - matched)


avl_records = records_of(_record)
"""Each item's (IoU, class F1, missed instances), aligned with ``items`` (``None``: left out)."""


def avl(
    items: Sequence[Item],
    *,
    profile: ScoringProfile | str,
    image_sizes: Mapping[int, tuple[int, int]] | None = None,
) -> TaskScore:
    """AVL score ``{"mIoU", "Instance", "Average"}``; image sizes (by item index) back up a missing original_wh."""
    return whole_task(avl_records, avl_columns, avl_total, items, profile=profile, image_sizes=image_sizes)


def avl_columns(records: Sequence[AvlRecord]) -> dict[str, Column]:
    """The samples' IoUs, class F1s and missed instances, as :func:`avl_total` reads them."""
    return {
        "iou": column(records, lambda r: r[0]),
        "class_f1": column(records, lambda r: r[1]),
        "missed": column(records, lambda r: r[2], dtype=np.int64),
    }


def avl_total(stats: Stats, notes: Notes | None = None) -> TaskScore:
    """The task's score from its samples' columns, in data.json order (mIoU is a float mean)."""
    notes = notes or Notes()
    miou = stats.mean("iou")
    rmse = float(np.sqrt(stats.mean_square("missed"))) if stats.count("missed") else math.nan
    # The reference's instance term is a numpy float, so it and the final score get numpy's rounding.
    numpy_instance = rmse >= 0 and stats.mean("class_f1") != 0
    instance = float(1 - np.tanh(1 * np.float64(rmse))) if numpy_instance else 0.0
    final = IOU_WEIGHT * miou + INSTANCE_WEIGHT * instance
    round_numpy = numpy_round5 if numpy_instance else python_round5
    value = {"mIoU": python_round5(miou), "Instance": round_numpy(instance), "Average": round_numpy(final)}
    if math.isnan(value["Average"]):
        notes.add("no sample to score: the reference writes NaN; headline 0")
    return TaskScore(value, finite_or_zero(value["Average"]), stats.count("iou"), notes.render())
