"""Rule refine for boxes: AVL instances ``{"dog_1": "[x1, y1, x2, y2]"}`` and AVLG frames ``{'frame_0': [...] | None}``.

Boxes come out as normalised ``[x_min, y_min, x_max, y_max]`` floats in 0-1, whatever scale the model used, so
the AVL scorer's scale heuristic and the AVLG scorer's plain multiplication both read them right. The scale is
decided once per answer from its largest value: up to 1.5 it is already normalised; up to 1000 it is the 0-1000
grid (what the AVL scorer assumes too) unless the answer says "pixel"; above that it is pixels, which needs the
image size (read from the sample's image, the one the model saw). Gemini's native ``box_2d`` (``[y_min, x_min,
y_max, x_max]`` on the 0-1000 grid) is recognised by its key. For AVLG, ``None``/``null`` is "no box" and ``[]`` stays ``[]``, as does a box that is not four numbers
(the reference refine's convention; the scoring profile decides what ``[]`` is worth). A box with its corners swapped (x_max < x_min,
perhaps ``[x, y, w, h]``) or a truncated answer returns ``None`` rather than a guess.
"""

from __future__ import annotations

import json
import re
from typing import Any

from avibench.refine.context import RefineContext
from avibench.refine.text import (
    REFUSAL,
    find_dicts,
    find_lists,
    parse_literal,
    strip_answer_prefix,
    to_float,
    usable,
)
from avibench.refine.vocab import normalise_key

FRAMES = 10
_NORMALISED_MAX = 1.5
_GRID_MAX = 1000.0
_KEY_ID = re.compile(r"^\s*(.*?)[\s_#-]*(\d+)\s*$")
_FRAME_KEY = re.compile(r"^\s*(?:frame)?[\s_#-]*(\d+)\s*$", re.I)
_LABEL_KEYS = ("label", "class", "category", "name", "object", "cls")
_BOX_KEYS = ("bbox", "box", "box_2d", "bounding_box", "coordinates", "bbox_2d")
_FRAME_PAIR = re.compile(
    r"frame[\s_#-]*(\d+)[*'\"]*\s*[:=]\s*[*]*\s*(\[[^\[\]\n]*\]|None|null|no object|not visible|absent|n/a)",
    re.I,
)
_NO_BOX = frozenset({"none", "null", "", "n/a", "na", "no box", "no object", "not visible", "absent"})
_PAIR = re.compile(r"['\"]?([A-Za-z][\w -]{0,40}?)['\"]?\s*[:=]\s*['\"]?(\[[^\[\]]*\]|None|null)", re.I)


class _Invalid(Exception):
    """An answer whose boxes cannot be read without guessing."""


def _numbers(value: Any) -> list[float] | None:
    """Four finite numbers from a list or a string such as ``"[0.1, 0.2, 0.3, 0.4]"``; ``None`` otherwise."""
    if isinstance(value, str):
        text = value.strip()
        parsed = parse_literal(text if text.startswith("[") else f"[{text}]")
        value = parsed if isinstance(parsed, list | tuple) else None
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    nums = [to_float(v) for v in value]
    return None if any(n is None for n in nums) else [float(n) for n in nums if n is not None]


class _Scaler:
    """Turns raw boxes of one answer into normalised xyxy, with one scale for the whole answer."""

    def __init__(self, boxes: list[list[float]], ctx: RefineContext, text: str):
        peak = max((abs(v) for box in boxes for v in box), default=0.0)
        self.size: tuple[int, int] | None = None
        if peak <= _NORMALISED_MAX:
            self.divisor = (1.0, 1.0)
        elif peak <= _GRID_MAX and not re.search(r"\bpixels?\b|\bpx\b", text, re.I):
            self.divisor = (_GRID_MAX, _GRID_MAX)
        else:
            size = ctx.image_size
            if size is None:
                raise _Invalid("pixel boxes without an image size")
            self.divisor = (float(size[0]), float(size[1]))

    def __call__(self, box: list[float]) -> list[float]:
        x1, y1, x2, y2 = box
        if x2 < x1 or y2 < y1:
            raise _Invalid("corners out of order")
        w, h = self.divisor
        out = [round(v / d, 6) for v, d in zip(box, (w, h, w, h), strict=True)]
        if any(v < -0.05 or v > _NORMALISED_MAX for v in out):
            raise _Invalid("box outside the image")
        return out


def _truncated(text: str) -> bool:
    """Unbalanced brackets: the answer was cut off (or is not a structure at all)."""
    return text.count("[") != text.count("]") or text.count("{") != text.count("}")


def _fmt(box: list[float]) -> str:
    return "[" + ", ".join(repr(float(v)) for v in box) + "]"


# --- AVL ------------------------------------------------------------------------------------------------------


def _instances(text: str) -> list[tuple[str, Any, bool]] | None:
    """(name, raw box, is Gemini box_2d) triples from a dict, a list of label/box objects, or ``name: [..]`` lines."""
    dicts = find_dicts(text)
    lists = [v for v in find_lists(text) if v and all(isinstance(x, dict) for x in v)]
    if lists and (not dicts or text.lstrip().startswith("[")):
        out = []
        for obj in (x for lst in lists for x in lst):
            name = next((obj[k] for k in _LABEL_KEYS if isinstance(obj.get(k), str)), None)
            key = next((k for k in _BOX_KEYS if k in obj), None)
            if name is None or key is None:
                return None
            out.append((name, obj[key], key == "box_2d"))
        return out
    if len(dicts) == 1:
        value = dicts[0]
        if len(value) == 1 and isinstance(next(iter(value.values())), dict):
            value = next(iter(value.values()))
        out = []
        for name, box in value.items():
            if not isinstance(name, str):
                return None
            if isinstance(box, list) and box and all(isinstance(b, list | tuple | str) for b in box):
                out.extend((name, b, False) for b in box)
            else:
                out.append((name, box, False))
        return out
    if dicts:
        return None
    pairs = _PAIR.findall(text)
    return [(name, box, False) for name, box in pairs] if pairs else None


def _avl_keys(names: list[str], ctx: RefineContext) -> list[str]:
    """``category_id`` keys on the class list; a missing id is the instance's position among all instances
    (the prompt's numbering: male_1, dog_2, dog_3, cat_4), a clashing one the next free number."""
    keys: list[str] = []
    parsed = []
    for name in names:
        m = _KEY_ID.match(name)
        base, ident = (m.group(1), int(m.group(2))) if m and m.group(1) else (name, None)
        parsed.append((normalise_key(base, ctx.classes).replace(" ", "_"), ident))
    used = {f"{b}_{i}" for b, i in parsed if i is not None}
    seen: set[str] = set()
    for position, (base, ident) in enumerate(parsed, start=1):
        key = f"{base}_{ident}" if ident is not None else None
        if key is None or key in seen:
            number = position
            while f"{base}_{number}" in seen or f"{base}_{number}" in used:
                number += 1
            key = f"{base}_{number}"
        seen.add(key)
        keys.append(key)
    return keys


def parse_avl(raw: object, ctx: RefineContext) -> str | None:
    """The canonical instance-box dict for an AVL sample, or ``None`` when the rules cannot tell."""
    text = usable(raw)
    if text is None or REFUSAL.search(text):
        return None
    text = strip_answer_prefix(text)
    if _truncated(text):
        return None
    found = _instances(text)
    if found is None:
        return None
    boxes = []
    for _, box, native in found:
        nums = _numbers(box)
        if nums is None:
            return None
        boxes.append([nums[1], nums[0], nums[3], nums[2]] if native else nums)
    try:
        scale = _Scaler(boxes, ctx, text)
        normalised = [scale(b) for b in boxes]
    except _Invalid:
        return None
    keys = _avl_keys([name for name, _, _ in found], ctx)
    return json.dumps({k: _fmt(b) for k, b in zip(keys, normalised, strict=True)}, ensure_ascii=False)


# --- AVLG -----------------------------------------------------------------------------------------------------


def _frame_of(key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str):
        m = _FRAME_KEY.match(key)
        return int(m.group(1)) if m else None
    return None


def _frames(text: str) -> dict[int, Any] | None:
    dicts = find_dicts(text)
    if len(dicts) == 1:
        value = dicts[0]
        if len(value) == 1 and isinstance(next(iter(value.values())), dict):
            value = next(iter(value.values()))
        frames = {}
        for key, box in value.items():
            k = _frame_of(key)
            if k is None:
                return None
            frames[k] = box
        return frames
    if dicts:
        return None
    lists = find_lists(text)
    if len(lists) == 1 and len(lists[0]) == FRAMES and not all(to_float(v) is not None for v in lists[0]):
        return dict(enumerate(lists[0]))
    pairs = re.findall(_FRAME_PAIR, text)
    return {int(k): box for k, box in pairs} or None


def _no_box(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _NO_BOX)


def parse_avlg(raw: object, ctx: RefineContext) -> str | None:
    """The canonical frame-box dict for an AVLG sample (Python literal, ``None`` = no box), or ``None``."""
    text = usable(raw)
    if text is None or REFUSAL.search(text):
        return None
    text = strip_answer_prefix(text)
    if _truncated(text):
        return None  # the missing frames are unknown, not empty
    found = _frames(text)
    if not found:
        return None
    boxes: dict[int, list[float] | None] = {}
    invalid: set[int] = set()
    for k, value in found.items():
        if not 0 <= k < FRAMES:
            continue
        if _no_box(value):
            boxes[k] = None
            continue
        if isinstance(value, list | tuple) and not value:
            invalid.add(k)  # kept as [] (the scoring profile decides whether [] means "no box")
            continue
        nums = _numbers(value)
        if nums is None:
            invalid.add(k)
        else:
            boxes[k] = nums
    present = {k: b for k, b in boxes.items() if b is not None}
    if invalid and not present and any(not isinstance(found[k], list | tuple) or found[k] for k in invalid):
        return None  # placeholders only (an echoed template): no answer to read
    try:
        scale = _Scaler(list(present.values()), ctx, text)
        normalised = {k: scale(b) for k, b in present.items()}
    except _Invalid:
        return None
    parts = []
    for k in range(FRAMES):
        box = normalised.get(k)
        value = "[]" if k in invalid else (_fmt(box) if box is not None else "None")
        parts.append(f"'frame_{k}': {value}")
    return "{" + ", ".join(parts) + "}"
