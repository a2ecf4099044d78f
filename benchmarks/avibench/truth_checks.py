"""The ground-truth shape each AVI-Bench metric kind expects: ``check(gt, entry)`` returns a problem or ``None``."""

from __future__ import annotations

import math
from typing import Any

from avibench.benchmarks.avibench.dataset import PRE_PREFIX


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_box(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 4 and all(_is_number(v) for v in value)


def _is_count(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    return isinstance(value, str) and value.strip().isascii() and value.strip().isdigit()


def _check_size(gt: dict[str, Any]) -> str | None:
    wh = gt.get("original_wh")
    if wh is None:
        return None
    if not (isinstance(wh, list) and len(wh) == 2 and all(_is_number(v) and v > 0 for v in wh)):
        return "original_wh must be [W, H] with positive numbers"
    return None


def full_match(gt: Any, entry: dict[str, Any]) -> str | None:
    if gt is None and str(entry.get("id", "")).startswith(PRE_PREFIX):
        return None  # an invalid pre_ slot, skipped by the scorer
    if isinstance(gt, bool) or not isinstance(gt, str | int | float):
        return f"expected an answer string (or number), found {type(gt).__name__}"
    return None


def avsqa(gt: Any, entry: dict[str, Any]) -> str | None:
    if not isinstance(gt, str) or not gt.strip():
        return "expected a non-empty option string (several options separated by ';')"
    return None


def mic(gt: Any, entry: dict[str, Any]) -> str | None:
    if not isinstance(gt, dict) or not gt:
        return "expected a non-empty object {class: count}"
    bad = [k for k, v in gt.items() if not _is_count(v)]
    if bad:
        return f"count of {bad[0]!r} is not a non-negative integer"
    return None


def _boxes_of(gt: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The box table of an AVL/AVLG ground truth: wrapped {"bbox", "original_wh"} or the older flat form."""
    if not isinstance(gt, dict):
        return None, f"expected an object with bbox and original_wh, found {type(gt).__name__}"
    if "bbox" in gt:
        if not isinstance(gt["bbox"], dict):
            return None, "bbox must be an object"
        return gt["bbox"], _check_size(gt)
    return gt, None


def _gt_boxes(gt: Any, *, null_allowed: bool) -> str | None:
    """AVL boxes are all present; an AVLG frame may be null (the object is silent or absent there)."""
    boxes, error = _boxes_of(gt)
    if error:
        return error
    if not boxes:
        return "bbox is empty"
    for key, box in boxes.items():
        if not (_is_box(box) or (null_allowed and box is None)):
            return f"box {key!r} must be [x, y, w, h] numbers" + (" or null" if null_allowed else "")
    return None


def avl(gt: Any, entry: dict[str, Any]) -> str | None:
    return _gt_boxes(gt, null_allowed=False)


def avlg(gt: Any, entry: dict[str, Any]) -> str | None:
    return _gt_boxes(gt, null_allowed=True)


def retrieval(gt: Any, entry: dict[str, Any]) -> str | None:
    if not isinstance(gt, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in gt
    ):
        return "expected a list of non-negative integer indices"
    return None


def caption(gt: Any, entry: dict[str, Any]) -> str | None:
    refs = gt if isinstance(gt, list) else [gt]
    if not any(isinstance(r, str) and r.strip() for r in refs):
        return "expected a reference caption string or a list of them"
    return None
