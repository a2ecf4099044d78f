"""Reading boxes the way models write them, for the AVL and AVLG rules: values, conventions and scale.

A box value is four numbers (a list, a tuple, a string) or a dict with named corners (``x_min``/``y_min``/
``x_max``/``y_max``, ``x1``/``y1``/``x2``/``y2``, ``left``/``top``/``right``/``bottom``, or ``x``/``y``/
``width``/``height``). Numbers in a list follow the convention the answer states ("[x, y, width, height]",
"(y_min, x_min, y_max, x_max)", "center x, center y, w, h"), else the asked ``[x_min, y_min, x_max, y_max]``;
an answer that states two different conventions is refused. Every box becomes normalised ``[x_min, y_min,
x_max, y_max]`` with one scale for the whole answer, decided from its largest value and what it says about
pixels (see :func:`_divisors`).

The second half reads how box answers are laid out, for the AVL and AVLG rules alike: detection objects and
their keys, wrapper dicts, markdown table rows, "no box" values and words, and prose
boxes a structured answer does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from avibench.refine.context import RefineContext
from avibench.refine.text import dict_spans, find_lists, parse_literal, to_float
from avibench.refine.vocab import VOCABULARY, any_of

XYXY, YXYX, XYWH, CXCYWH = "xyxy", "yxyx", "xywh", "cxcywh"
NORMALISED_MAX = 1.5
GRID_MAX = 1000.0


_SEP = r"\s*(?:,|/|;|\band\b)\s*"
_X1, _Y1 = r"(?:x_?min|xmin|x1|x0|left)", r"(?:y_?min|ymin|y1|y0|top)"
_X2, _Y2 = r"(?:x_?max|xmax|x2|right)", r"(?:y_?max|ymax|y2|bottom)"
_W, _H = r"(?:w|width)", r"(?:h|height)"
_STATED = {
    XYWH: re.compile(
        rf"\b(?:x|{_X1}|top[- ]left x){_SEP}(?:y|{_Y1}|top[- ]left y){_SEP}{_W}{_SEP}{_H}\b", re.I
    ),
    CXCYWH: re.compile(
        rf"\b(?:cx|x_?c(?:enter)?|cent(?:er|re)[_ ]x){_SEP}(?:cy|y_?c(?:enter)?|cent(?:er|re)[_ ]y){_SEP}{_W}{_SEP}{_H}\b",
        re.I,
    ),
    YXYX: re.compile(rf"\b{_Y1}{_SEP}{_X1}{_SEP}{_Y2}{_SEP}{_X2}\b", re.I),
    XYXY: re.compile(rf"\b{_X1}{_SEP}{_Y1}{_SEP}{_X2}{_SEP}{_Y2}\b", re.I),
}
#: Words that describe a box as two corners: beside a stated width/height convention they contradict it.
_CORNER_WORDS = re.compile(
    r"\b(?:bottom|lower)[- ]right (?:corners?|points?|x|y)\b|\bx_?max\b|\by_?max\b|\bx2\b|\by2\b", re.I
)
_PIXEL = re.compile(r"\bpixels?\b|\bpx\b|\babsolute (?:pixel )?coordinates\b", re.I)
#: Box values said to be percentages of the image ("All coordinates below are percentages of the image").
_PERCENT_UNIT = re.compile(
    r"\b(?:coordinates|values|boxes|numbers)\b[^.\n]{0,30}\bpercent(?:age)?s?\b|"
    r"\bpercent(?:age)?s? of the (?:image|frame|picture)\b|\bin percent\b",
    re.I,
)
_GRID = re.compile(r"\b0\s*(?:-|–|to)\s*1000\b|\b1000\s*[x×]\s*1000\b|\bnormali[sz]ed to 1000\b", re.I)

_NUM = r"-?\d+(?:\.\d+)?"
_FOUR = rf"{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}\s*,\s*{_NUM}"
_POINT = rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)"
_AT = r"(?:\s+(?:is\s+)?(?:located\s+)?(?:at|is|of))?"
#: One named side or corner coordinate and its value ("left: 0.35", "x_min=12", "top 30%"); between them
#: commas, bullets or line breaks.
_NAMED = r"\s*(?:[=:]|\bis\b|\bof\b)?\s*(?P<{}>{}\s*%?)"
_GAP = r"[\s,;*•-]*"
#: A box written in prose: four numbers in brackets or parentheses, two corner points, four named sides, or a
#: centre with a width and height.
_PROSE_BOX = re.compile(
    rf"\[\s*(?P<list>{_FOUR})\s*\]|\(\s*(?P<tuple>{_FOUR})\s*\)"
    rf"|\b(?:bounding\s+)?box\b[^:\n\d]{{0,40}}:\s*(?P<bare>{_FOUR})(?![\d.])"
    rf"|(?<![\d.])(?P<p1>{_NUM}\s*%)\s*,\s*(?P<p2>{_NUM}\s*%)\s*,\s*(?P<p3>{_NUM}\s*%)\s*,\s*(?P<p4>{_NUM}\s*%)"
    rf"|\bfrom\s+(?:the\s+)?(?:point\s+)?{_POINT}\s*(?:at\s+the\s+top[- ]left\s+)?(?:to|-|–|until)\s*"
    rf"(?:the\s+)?(?:point\s+)?{_POINT}"
    rf"|\btop[- ]left(?:\s+corner)?{_AT}\s*:?\s*{_POINT}\s*(?:,|and|to|;)?\s*(?:the\s+|its\s+)?"
    rf"bottom[- ]right(?:\s+corner)?{_AT}\s*:?\s*{_POINT}"
    rf"|\b(?:left|x_?min|x1){_NAMED.format('l', _NUM)}{_GAP}(?:top|y_?min|y1){_NAMED.format('t', _NUM)}{_GAP}"
    rf"(?:right|x_?max|x2){_NAMED.format('r', _NUM)}{_GAP}(?:bottom|y_?max|y2){_NAMED.format('b', _NUM)}"
    rf"|\bx\s*(?:[=:]|from|between)?\s*(?P<x1>{_NUM}\s*%?)\s*(?:-|–|to|and)\s*(?P<x2>{_NUM}\s*%?){_GAP}(?:and\s+)?"
    rf"y\s*(?:[=:]|from|between)?\s*(?P<y1>{_NUM}\s*%?)\s*(?:-|–|to|and)\s*(?P<y2>{_NUM}\s*%?)"
    rf"|\bfrom\s+(?:about\s+|roughly\s+|around\s+)?(?P<w1>{_NUM}\s*%)\s+to\s+(?P<w2>{_NUM}\s*%)\s+of\s+the\s+"
    rf"(?:image\s+|frame\s+)?width[^.\d]{{0,30}}?\bfrom\s+(?:about\s+|roughly\s+|around\s+)?(?P<h1>{_NUM}\s*%)\s+to\s+"
    rf"(?P<h2>{_NUM}\s*%)\s+of\s+the\s+(?:image\s+|frame\s+)?height"
    rf"|\b(?:cx|x_?c(?:enter)?|cent(?:er|re)[ _]x){_NAMED.format('qx', _NUM)}{_GAP}(?:cy|y_?c(?:enter)?|cent(?:er|re)[ _]y)"
    rf"{_NAMED.format('qy', _NUM)}{_GAP}"
    rf"(?:w|width){_NAMED.format('qw', _NUM)}{_GAP}(?:h|height){_NAMED.format('qh', _NUM)}"
    rf"|\bcent(?:er|re)(?:ed|d)?(?:\s+(?:at|point|is|located|lies))*\s*[:=]?\s*\(\s*(?:cx\s*[=:]\s*)?(?P<cx>{_NUM})\s*,"
    rf"\s*(?:cy\s*[=:]\s*)?(?P<cy>{_NUM})\s*\)"
    rf"[^()\d]{{0,30}}?"
    rf"(?:with\s+)?(?:a\s+)?(?:w|width){_NAMED.format('w', _NUM)}{_GAP}(?:and\s+)?(?:a\s+)?"
    rf"(?:h|height){_NAMED.format('h', _NUM)}",
    re.I,
)


#: Keys that name an object, and keys that hold its box, in detection output (``{"label": ..., "bbox_2d": ...}``).
LABEL_KEYS = ("label", "class", "category", "name", "object", "cls", "instance")
BOX_KEYS = ("bbox_2d", "box_2d", "bbox", "box", "bounding_box", "coordinates", "bndbox")


class Invalid(Exception):
    """An answer whose boxes cannot be read without guessing."""


@dataclass(frozen=True)
class Box:
    """Four numbers and the order they are in (``None``: the order the answer states, else xyxy)."""

    numbers: tuple[float, float, float, float]
    order: str | None = None


def _four(values: Any) -> tuple[float, float, float, float] | None:
    if not isinstance(values, list | tuple) or len(values) != 4:
        return None
    nums = [to_float(v) for v in values]
    return None if None in nums else tuple(float(n) for n in nums if n is not None)  # type: ignore[return-value]


def read_box(value: Any) -> Box | None:
    """The box a value holds, or ``None`` when it is not four numbers or a named-corner dict."""
    if isinstance(value, str):
        text = value.strip()
        percents = re.fullmatch(
            rf"[\[(]?\s*({_NUM})\s*%\s*,\s*({_NUM})\s*%\s*,\s*({_NUM})\s*%\s*,\s*({_NUM})\s*%\s*[\])]?", text
        )
        if percents:
            return Box((*(float(v) / 100 for v in percents.groups()),))  # type: ignore[arg-type]
        parsed = parse_literal(text if text[:1] in "[(" else f"[{text}]")
        value = list(parsed) if isinstance(parsed, list | tuple) else None
    if isinstance(value, Mapping):
        keys = {str(k).strip().lower().replace("-", "_").replace(" ", "_"): v for k, v in value.items()}
        for corners, order in VOCABULARY["corner_keys"].items():
            names = corners.split()
            if set(names) <= keys.keys() and len(keys) <= 6:
                nums = _four([keys[n] for n in names])
                return None if nums is None else Box(nums, order)
        return None
    nums = _four(value)
    return None if nums is None else Box(nums)


def is_corner_dict(value: Any) -> bool:
    return isinstance(value, Mapping) and read_box(value) is not None


def stated_order(text: str) -> str:
    """The box convention the answer states, xyxy when it states none; :class:`Invalid` when it states two."""
    stated = {order for order, pattern in _STATED.items() if pattern.search(text)}
    if len(stated) > 1:
        raise Invalid(f"conventions {sorted(stated)} both stated")
    if stated & {XYWH, CXCYWH} and _CORNER_WORDS.search(text):
        raise Invalid("a width and height convention said to be two corners")
    return stated.pop() if stated else XYXY


def to_xyxy(box: Box, default_order: str) -> list[float]:
    a, b, c, d = box.numbers
    order = box.order or default_order
    if order == YXYX:
        return [b, a, d, c]
    if order == XYWH:
        return [a, b, a + c, b + d]
    if order == CXCYWH:
        return [a - c / 2, b - d / 2, a + c / 2, b + d / 2]
    return [a, b, c, d]


def _fits(boxes: list[list[float]], size: tuple[int, int] | None) -> bool:
    """Every box lies inside the image in pixels, so its numbers could be pixels as well as thousandths."""
    if size is None:
        return True  # any image at least this large: pixels cannot be ruled out
    width, height = size
    return all(
        0 <= x <= width and 0 <= y <= height for x1, y1, x2, y2 in boxes for x, y in ((x1, y1), (x2, y2))
    )


_SIZE = re.compile(
    r"\b(\d{2,5})\s*(?:[x×]|by)\s*(\d{2,5})\b(?=[^.\n]{0,25}\b(?:image|picture|photo|frame|resolution|pixels?|px)\b)"
    r"|\b(?:image|picture|photo|frame|resolution)\b[^.\d\n]{0,25}\b(\d{2,5})\s*(?:[x×]|by)\s*(\d{2,5})\b",
    re.I,
)


def _stated_sizes(text: str) -> set[tuple[int, int]]:
    """The image sizes an answer states ("the 640×480 image"): a stated size means its numbers are pixels."""
    return {
        (int(m.group(1) or m.group(3)), int(m.group(2) or m.group(4)))
        for m in _SIZE.finditer(text)
        if (m.group(1) or m.group(3)) != "1000"
    }


def _image_size(text: str, ctx: RefineContext) -> tuple[int, int] | None:
    """The size of the image the model saw: as the answer states it ("the 640×480 image") or as read from the
    image; :class:`Invalid` when the answer states another size than the image has, or two sizes."""
    stated = _stated_sizes(text)
    if len(stated) > 1 or (stated and ctx.image_size is not None and stated != {ctx.image_size}):
        raise Invalid(f"image sizes {sorted(stated)} stated beside {ctx.image_size}")
    return stated.pop() if stated else ctx.image_size


def _divisors(boxes: list[list[float]], ctx: RefineContext, text: str) -> tuple[float, float]:
    """The one scale (x and y divisors) of an answer's xyxy boxes.

    Up to 1.5 the boxes are already normalised. Up to 1000 they are on the 0-1000 grid (what the AVL scorer
    assumes too) when the answer says so or uses a grid-native format (Gemini's ``box_2d``), or when a box
    reaches past the image's pixels; whole numbers that would fit the image as pixels too, with no unit stated,
    are refused. A stated pixel unit or a pixel-native format (Qwen's grounding format, ``bbox_2d``, gives
    pixels of the image the model saw) means pixels, and so does anything above 1000; both need the size of the
    image the model saw. An answer that says both "pixel" and "0-1000" is refused.
    """
    peak = max((abs(v) for box in boxes for v in box), default=0.0)
    said_pixels = "bbox_2d" in text or bool(_PIXEL.search(text)) or bool(_stated_sizes(text))
    said_grid = re.search(r"\bbox_2d\b", text) is not None or bool(_GRID.search(text))
    said_percent = bool(_PERCENT_UNIT.search(text))
    if said_pixels + said_grid + said_percent > 1:
        raise Invalid("two units stated (pixels, the 0-1000 grid, percent)")
    if said_percent and NORMALISED_MAX < peak <= 100:
        return 100.0, 100.0
    if peak <= NORMALISED_MAX:
        return 1.0, 1.0
    if peak <= GRID_MAX and not said_pixels:
        if not said_grid and _fits(boxes, ctx.image_size):
            raise Invalid("whole numbers that fit both the image's pixels and the 0-1000 grid, unit unstated")
        return GRID_MAX, GRID_MAX
    size = _image_size(text, ctx)
    if size is None or said_grid:
        raise Invalid("pixel boxes without an image size")
    return float(size[0]), float(size[1])


def normalise_all(boxes: list[Box], ctx: RefineContext, text: str) -> list[list[float]]:
    """Every box as normalised xyxy, in the stated convention and one scale; :class:`Invalid` otherwise."""
    order = stated_order(text)
    corners = [to_xyxy(b, order) for b in boxes]
    w, h = _divisors(corners, ctx, text)
    out = []
    for x1, y1, x2, y2 in corners:
        if x2 < x1 or y2 < y1:
            raise Invalid("corners out of order")
        box = [round(v / d, 6) for v, d in zip((x1, y1, x2, y2), (w, h, w, h), strict=True)]
        if any(v < -0.05 or v > NORMALISED_MAX for v in box):
            raise Invalid("box outside the image")
        out.append(box)
    return out


#: Motion just before "from (x, y) to (x, y)": the two points are where an object goes, not its corners.
_TRAVELS = re.compile(any_of("travel_verbs") + r"[^.()\n]{0,25}$", re.I)
#: The named-value forms of ``_PROSE_BOX``: their groups in xyxy (or centre-size) order, and the order they give
#: their four values in (``None``: the order the answer states).
_NAMED_GROUPS: dict[tuple[str, ...], str | None] = {
    ("l", "t", "r", "b"): XYXY,
    ("x1", "y1", "x2", "y2"): XYXY,
    ("cx", "cy", "w", "h"): CXCYWH,
    ("qx", "qy", "qw", "qh"): CXCYWH,
    ("p1", "p2", "p3", "p4"): None,
    ("w1", "h1", "w2", "h2"): XYXY,
}


@dataclass(frozen=True)
class ProseBox:
    start: int
    end: int
    box: Box


def prose_boxes(text: str) -> list[ProseBox]:
    """Boxes written in running text, in order: ``[a, b, c, d]``, ``(a, b, c, d)``, "from (x, y) to (x, y)",
    "top-left (x, y) and bottom-right (x, y)" (the two-point forms are corners, whatever the stated order)."""
    found = []
    for m in _PROSE_BOX.finditer(text):
        if m.group(0)[:4].lower() == "from" and _TRAVELS.search(text[max(0, m.start() - 40) : m.start()]):
            continue  # "moves from (x, y) to (x, y)": a path, not a box
        if (flat := m.group("list") or m.group("tuple") or m.group("bare")) is not None:
            nums = _four([float(v) for v in re.findall(_NUM, flat)])
            order = None
        elif (names := next((n for n in _NAMED_GROUPS if m.group(n[0]) is not None), None)) is not None:
            values = [m.group(k) for k in names]
            if len({"%" in v for v in values}) > 1:
                continue  # some sides in percent, some not
            nums = _four([float(v.rstrip(" %")) / (100 if "%" in v else 1) for v in values])
            order = _NAMED_GROUPS[names]
        else:
            points = [g for g in m.groups()[2:] if g is not None]
            nums = _four([float(v) for v in points])
            order = XYXY
        if nums is not None:
            found.append(ProseBox(m.start(), m.end(), Box(nums, order)))
    return found


FRAME_KEYS = ("frame", "frame_id", "frame_index", "index")
NO_BOX = frozenset(VOCABULARY["no_box_values"])
#: A frame described as having no sounding object in it.
ABSENT = re.compile(any_of("absent_words"), re.I)


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
    if (key := next((k for k in BOX_KEYS if k in obj), None)) is None:
        return read_box({k: v for k, v in obj.items() if k not in LABEL_KEYS and k not in FRAME_KEYS})
    box = read_box(obj[key])
    if box is not None and key == "box_2d" and box.order is None:
        box = Box(box.numbers, YXYX)
    return box


def object_lists(text: str) -> list[list[Mapping[Any, Any]]]:
    """Lists of detection objects, bare or inside a wrapper dict."""
    candidates = [*find_lists(text), *(unwrap(value) for _, _, value in dict_spans(text))]
    return [v for v in candidates if isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v)]


def row_box(header: list[str], row: list[str], skip: int) -> Box | str | None:
    """The box a table row holds: a box cell, four corner cells named by the header, or a no-box cell
    (returned as written); ``None`` when the row is neither."""
    cells = {h.strip().lower(): c for i, (h, c) in enumerate(zip(header, row, strict=True)) if i != skip}
    named = read_box({h: to_float(c) if to_float(c) is not None else c for h, c in cells.items()})
    if named is not None:
        return named
    boxes = [b for b in (read_box(c) for c in cells.values() if c.strip() and c.strip()[:1] in "[(") if b]
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
