"""How box answers are laid out, for the AVL and AVLG rules alike: detection objects and their keys, wrapper
dicts, markdown table rows, "no box" values and words, the native box formats, and prose boxes a structured
answer does not hold. The boxes themselves are read by :mod:`avibench.refine.boxes`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from avibench.refine.boxes import (
    BOX_KEYS,
    LABEL_KEYS,
    YXYX,
    Box,
    is_corner_dict,
    prose_boxes,
    read_box,
)
from avibench.refine.text import (
    dict_spans,
    find_lists,
    to_float,
)
from avibench.refine.vocab import VOCABULARY

FRAME_KEYS = ("frame", "frame_id", "frame_index", "index")
NO_BOX = frozenset(VOCABULARY["no_box_values"])
#: A frame described as having no sounding object in it.
ABSENT = re.compile(
    r"\b(?:none|null|no (?:sounding )?(?:object|box|instrument|source)|not visible|invisible|off[- ](?:screen|stage|"
    r"camera)|out of (?:the )?(?:frame|shot|view|picture)|absent|not present|not in (?:the )?(?:frame|shot|view)|"
    r"hidden|occluded|gone|leaves|left the|walks off|disappear(?:s|ed)?|no longer|not (?:playing|sounding)|silent)\b",
    re.I,
)


def truncated(text: str) -> bool:
    """Unbalanced brackets: the answer was cut off (or is not a structure at all)."""
    return text.count("[") != text.count("]") or text.count("{") != text.count("}")


def format_box(box: list[float]) -> str:
    return "[" + ", ".join(repr(float(v)) for v in box) + "]"


def unwrap(value: Any) -> Any:
    """``{"answer": {...}}`` / ``{"objects": [...]}`` -> the inner value (a corner dict is not a wrapper)."""
    while isinstance(value, Mapping) and len(value) == 1 and not is_corner_dict(value):
        inner = next(iter(value.values()))
        objects = isinstance(inner, list) and inner and all(isinstance(x, Mapping) for x in inner)
        if is_corner_dict(inner) or not (isinstance(inner, Mapping) or objects):
            break
        value = inner
    return value


def object_box(obj: Mapping[Any, Any]) -> Box | None:
    """The box of a ``{"label": ..., "bbox_2d": [...]}`` object, or of one with corner keys."""
    key = next((k for k in BOX_KEYS if k in obj), None)
    if key is None:
        return read_box({k: v for k, v in obj.items() if k not in LABEL_KEYS and k not in FRAME_KEYS})
    box = read_box(obj[key])
    if box is not None and key == "box_2d" and box.order is None:
        box = Box(box.numbers, YXYX)
    return box


def pixel_native(text: str) -> bool:
    """Qwen's grounding format (``bbox_2d``) gives pixels of the image the model saw."""
    return "bbox_2d" in text


def grid_native(text: str) -> bool:
    """Gemini's detection format (``box_2d``) is on the 0-1000 grid."""
    return re.search(r"\bbox_2d\b", text) is not None


def object_lists(text: str) -> list[list[Mapping[Any, Any]]]:
    found = []
    for value in find_lists(text):
        if value and all(isinstance(x, Mapping) for x in value):
            found.append(value)
    for _, _, value in dict_spans(text):
        inner = unwrap(value)
        if isinstance(inner, list) and inner and all(isinstance(x, Mapping) for x in inner):
            found.append(inner)
    return found


def row_box(header: list[str], row: list[str], skip: int) -> Box | str | None:
    """The box a table row holds: a box cell, four corner cells named by the header, or a no-box cell
    (returned as written); ``None`` when the row is neither."""
    cells = {h.strip().lower(): c for i, (h, c) in enumerate(zip(header, row, strict=True)) if i != skip}
    named = read_box({h: to_float(c) if to_float(c) is not None else c for h, c in cells.items()})
    if named is not None:
        return named
    values = [c for c in cells.values() if c.strip()]
    boxes = [b for b in (read_box(c) for c in values if c.strip()[:1] in "[(") if b is not None]
    if len(boxes) == 1:
        return boxes[0]
    if not boxes and all(c.strip().lower() in NO_BOX or _absent_cell(c) for c in cells.values()):
        return "None"
    return None


def _absent_cell(cell: str) -> bool:
    """A cell saying there is no box: "— (not visible)", "none (hidden)"."""
    return not re.search(r"\d", cell) and ABSENT.search(cell) is not None


def no_box(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in NO_BOX)


def other_box_in_prose(boxes: list[Box], prose: str) -> bool:
    """The prose beside the structured answer gives a box that is none of its boxes ("The cat is at [..]"
    before a dict that puts it elsewhere)."""
    given = {box.numbers for box in boxes}
    return any(found.box.numbers not in given for found in prose_boxes(prose))
