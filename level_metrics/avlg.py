"""AVLG: grounding one sounding object across 10 frames.

Predictions are normalised ``[x1, y1, x2, y2]`` boxes per frame key; a frame whose ground truth is null scores 1
only when the prediction has no box there. There is no scale detection, unlike AVL.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from avibench.level_metrics.boxes import UNPARSED, iou_xyxy, literal, read_box_truth, xywh_to_xyxy
from avibench.level_metrics.common import (
    Column,
    Notes,
    Stats,
    column,
    finite_or_zero,
    prediction_text,
    python_round5,
    records_of,
    whole_task,
)
from avibench.level_metrics.profile import ScoringProfile
from avibench.level_metrics.types import Item, TaskScore

_NUMBER = (int, float)


def _prediction(text: str, profile: ScoringProfile) -> dict[Any, Any] | None:
    """The frame dict of a prediction; ``None`` when it cannot be read or is not a dict."""
    text = text.replace("```json", "").replace("```", "").strip()
    parsed = literal(text)
    if parsed is UNPARSED and profile.avlg_parse_json_literals:
        try:
            parsed = json.loads(text)
        except Exception:
            parsed = UNPARSED
    return parsed if isinstance(parsed, dict) else None


def _frame_iou(predicted: Any, truth_box: Any, size: tuple[float, float]) -> float:
    """IoU of a normalised predicted box against a pixel ``[x, y, w, h]`` box; 0 when either is malformed."""
    width, height = size
    try:
        values = [predicted[i] for i in range(4)]
        # Non-numbers (strings, lists) would only fail later in the reference, after a costly repetition.
        if not all(isinstance(v, _NUMBER) for v in values):
            return 0.0
        box = [values[0] * width, values[1] * height, values[2] * width, values[3] * height]
        return iou_xyxy(xywh_to_xyxy(truth_box), box)
    except Exception:
        return 0.0


def _is_no_box(value: Any, profile: ScoringProfile) -> bool:
    empty = isinstance(value, (list, tuple)) and len(value) == 0
    return value is None or (empty and not profile.avlg_empty_list_is_box)


def _sample(
    item: Item,
    profile: ScoringProfile,
    notes: Notes,
    image_sizes: Mapping[int, tuple[int, int]] | None = None,
) -> float | None:
    truth = read_box_truth(item.answer, (image_sizes or {}).get(item.index))
    if truth is None or truth.size is None or not truth.boxes:
        notes.add(
            "ground truth without frames or image size; sample left out (the reference would abort)",
            item.index,
        )
        return None
    if not truth.wrapped:
        notes.add(
            "flat or size-less ground truth scored with the image size (the reference would abort)",
            item.index,
        )
    text = prediction_text(item, clean=False, notes=notes, profile=profile)
    prediction = None if text is None else _prediction(text, profile)
    if text is None or (prediction is None and not profile.avlg_unreadable_null_frames_correct):
        return 0.0
    prediction = prediction or {}
    total: float = 0
    for key, truth_box in truth.boxes.items():
        predicted = prediction.get(key)
        if truth_box is None:
            total += 1 if _is_no_box(predicted, profile) else 0
        elif not _is_no_box(predicted, profile):
            total += _frame_iou(predicted, truth_box, truth.size)
    return total / len(truth.boxes)


avlg_records = records_of(_sample)
"""Each item's mean per-frame IoU, aligned with ``items`` (``None``: left out)."""


def avlg(
    items: Sequence[Item],
    *,
    profile: ScoringProfile | str,
    image_sizes: Mapping[int, tuple[int, int]] | None = None,
) -> TaskScore:
    """Mean over samples of the mean per-frame IoU (a float rounded to 5 decimals)."""
    return whole_task(
        avlg_records, avlg_columns, avlg_total, items, sample=float, profile=profile, image_sizes=image_sizes
    )


def avlg_columns(scores: Sequence[float]) -> dict[str, Column]:
    """The samples' scores, as :func:`avlg_total` reads them."""
    return {"score": column(scores, float)}


def avlg_total(stats: Stats, notes: Notes | None = None) -> TaskScore:
    """The task's score from its samples' scores, in data.json order (a float mean)."""
    notes = notes or Notes()
    value = python_round5(stats.mean("score"))
    if math.isnan(value):
        notes.add("no sample to score: the reference writes NaN; headline 0")
    return TaskScore(value, finite_or_zero(value), stats.count("score"), notes.render())
