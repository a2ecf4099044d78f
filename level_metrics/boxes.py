"""Box helpers shared by AVL and AVLG: IoU, class names of box keys, and reading box ground truth."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from avibench.level_metrics.common import Notes

UNPARSED = object()
_INSTANCE_SUFFIX = re.compile(r"\d+$")
_NUMBER = (int, float)


@functools.lru_cache(maxsize=8192)
def literal(text: str) -> Any:
    """``ast.literal_eval(text)``, or UNPARSED when it fails for any reason (syntax, nesting, size).

    Every answer is read once per profile, again for the official document and by the chance estimate, and
    compiling is most of the cost of scoring boxes: the parse is kept per text and shared, so callers only read it
    (copying it for each would cost as much as most of the scoring).
    """
    try:
        return ast.literal_eval(text)
    except Exception:
        return UNPARSED


def iou_xyxy(first: list[Any], second: list[Any]) -> float:
    """IoU of two ``[x1, y1, x2, y2]`` boxes; 0 when the union is 0.

    The operations and their operand order follow the reference exactly, because NaN and inverted boxes make the
    result depend on them.
    """
    left = max(first[0], second[0])
    top = max(first[1], second[1])
    right = min(first[2], second[2])
    bottom = min(first[3], second[3])
    overlap = max(0, right - left) * max(0, bottom - top)
    area_first = (first[2] - first[0]) * (first[3] - first[1])
    area_second = (second[2] - second[0]) * (second[3] - second[1])
    union = area_first + area_second - overlap
    if union == 0:
        return 0.0
    return overlap / float(union)


def xywh_to_xyxy(box: Any) -> list[Any]:
    return [box[0], box[1], box[0] + box[2], box[1] + box[3]]


def semantic_type(key: Any, notes: Notes, index: int) -> str:
    """The class of an instance key: lowercased, a trailing ``_<digits>`` removed (``Dog_2`` -> ``dog``)."""
    if not isinstance(key, str):
        notes.add("non-string box key read as its printed form (the reference would abort)", index)
        key = str(key)
    if "_" in key:
        head, tail = key.rsplit("_", 1)
        if _INSTANCE_SUFFIX.match(tail):
            return head.lower()
    return key.lower()


@dataclass(frozen=True)
class BoxTruth:
    """Ground-truth boxes of one entry; ``wrapped``: it had the reference's ``{"bbox", "original_wh"}`` form
    with a usable size."""

    boxes: Mapping[Any, Any]
    size: tuple[float, float] | None
    wrapped: bool


def _size(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, _NUMBER) for v in value):
        return value[0], value[1]
    return None


def read_box_truth(answer: Any, image_size: tuple[int, int] | None) -> BoxTruth | None:
    """Boxes and image size from a wrapped or a flat ground truth; None when there is no box mapping.

    The size comes from ``original_wh`` when present, else from ``image_size`` (the image itself).
    """
    if not isinstance(answer, Mapping):
        return None
    size = _size(answer.get("original_wh"))
    boxes = answer["bbox"] if "bbox" in answer else {k: v for k, v in answer.items() if k != "original_wh"}
    if not isinstance(boxes, Mapping):
        return None
    wrapped = "bbox" in answer and size is not None
    if size is None and image_size is not None:
        size = _size(tuple(image_size))
    return BoxTruth(boxes, size, wrapped)


def is_number_box(box: Any) -> bool:
    """A ground-truth box the reference can convert: indexable, with numbers at positions 0-3."""
    try:
        return all(isinstance(box[i], _NUMBER) for i in range(4))
    except Exception:
        return False
