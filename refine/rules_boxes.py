"""Rule refine for boxes: AVL instances ``{"dog_1": "[x1, y1, x2, y2]"}`` and AVLG frames ``{'frame_0': [...] | None}``.

Boxes come out as normalised ``[x_min, y_min, x_max, y_max]`` floats in 0-1, whatever convention and scale
the model used (read by :mod:`avibench.refine.boxes`), so the AVL scorer's scale heuristic and the AVLG
scorer's plain multiplication both read them right. Recognised native formats: Gemini's ``box_2d``
(``[y_min, x_min, y_max, x_max]`` on the 0-1000 grid) and Qwen's ``bbox_2d`` (pixels of the image the model
saw). For AVLG, ``None``/``null`` is "no box" and ``[]`` stays ``[]``, as does a box that is not four numbers
(the reference refine's convention; the scoring profile decides what ``[]`` is worth). Swapped corners, a
truncated answer, a box without a name, or a name that could be two objects return ``None`` rather than a
guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from avibench.refine.boxes import (
    BOX_KEYS,
    LABEL_KEYS,
    YXYX,
    Box,
    Invalid,
    is_corner_dict,
    normalise_all,
    prose_boxes,
    read_box,
)
from avibench.refine.context import RefineContext
from avibench.refine.text import (
    DOUBT,
    HEDGE,
    REFUSAL,
    dict_spans,
    find_lists,
    markdown_tables,
    outside_dicts,
    strip_answer_prefix,
    to_float,
    usable,
)
from avibench.refine.vocab import classes_in, normalise_key

FRAMES = 10
_KEY_ID = re.compile(r"^\s*(.*?)[\s_#-]*(\d+)\s*$")
_FRAME_KEY = re.compile(r"^\s*(?:frame)?[\s_#-]*(\d+)\s*$", re.I)
_FRAME_KEYS = ("frame", "frame_id", "frame_index", "index")
_NO_BOX = frozenset(
    {"none", "null", "", "n/a", "na", "no box", "no object", "not visible", "absent", "-", "—", "–", "not present",
     "invisible", "no"}
)  # fmt: skip
#: Words before a dict that name the whole answer, not one object ("answer = {...}", "Result: {...}").
_WHOLE_ANSWER = frozenset(
    {"answer", "final answer", "result", "results", "output", "boxes", "bboxes", "bounding boxes", "detections",
     "json", "python", "response", "instances", "objects", "locations", "predictions", "bbox", "box",
     "bounding box", "coordinates", "location"}
)  # fmt: skip
#: A label of up to three words that opens a line, a bullet or a sentence and ends in ":" or "=".
_LABEL_BEFORE = re.compile(
    r"(?:^|[\n,;.]|[-*•]\s|\d[.)]\s)\s*(?:answer\s*[:=]\s*)?[*`'\"]*([A-Za-z][\w-]*(?: [\w-]+){0,2}?)[*`'\"]*\s*(?:\([^)]*\))?\s*"
    r"(?:[:=]|->|→|—|–|\s-)\s*[*`]*\s*$"
)
_SENTENCE_END = re.compile(r"[.!?;\n]\s*")


# --- shared -----------------------------------------------------------------------------------------------------


def _truncated(text: str) -> bool:
    """Unbalanced brackets: the answer was cut off (or is not a structure at all)."""
    return text.count("[") != text.count("]") or text.count("{") != text.count("}")


def _fmt(box: list[float]) -> str:
    return "[" + ", ".join(repr(float(v)) for v in box) + "]"


def _unwrap(value: Any) -> Any:
    """``{"answer": {...}}`` / ``{"objects": [...]}`` -> the inner value (a corner dict is not a wrapper)."""
    while isinstance(value, Mapping) and len(value) == 1 and not is_corner_dict(value):
        inner = next(iter(value.values()))
        objects = isinstance(inner, list) and inner and all(isinstance(x, Mapping) for x in inner)
        if is_corner_dict(inner) or not (isinstance(inner, Mapping) or objects):
            break
        value = inner
    return value


def _object_box(obj: Mapping[Any, Any]) -> Box | None:
    """The box of a ``{"label": ..., "bbox_2d": [...]}`` object, or of one with corner keys."""
    key = next((k for k in BOX_KEYS if k in obj), None)
    if key is None:
        return read_box({k: v for k, v in obj.items() if k not in LABEL_KEYS and k not in _FRAME_KEYS})
    box = read_box(obj[key])
    if box is not None and key == "box_2d" and box.order is None:
        box = Box(box.numbers, YXYX)
    return box


def _pixel_native(text: str) -> bool:
    """Qwen's grounding format (``bbox_2d``) gives pixels of the image the model saw."""
    return "bbox_2d" in text


def _grid_native(text: str) -> bool:
    """Gemini's detection format (``box_2d``) is on the 0-1000 grid."""
    return re.search(r"\bbox_2d\b", text) is not None


def _doubts(text: str, names: list[str]) -> bool:
    """The answer doubts itself ("I am not certain", "maybe") or names one box as two objects ("violin / cello")."""
    return DOUBT.search(text) is not None or any(re.search(r"/|\bor\b", n) for n in names)


def _object_lists(text: str) -> list[list[Mapping[Any, Any]]]:
    found = []
    for value in find_lists(text):
        if value and all(isinstance(x, Mapping) for x in value):
            found.append(value)
    for _, _, value in dict_spans(text):
        inner = _unwrap(value)
        if isinstance(inner, list) and inner and all(isinstance(x, Mapping) for x in inner):
            found.append(inner)
    return found


def _label_before(segment: str) -> str | None:
    """The label a segment ends with ("**Dog**: ", "dog_1 = "), or ``None``."""
    m = _LABEL_BEFORE.search(segment)
    return m.group(1).strip() if m else None


# --- AVL --------------------------------------------------------------------------------------------------------

Instance = tuple[str, Box]


def _from_objects(objects: list[Mapping[Any, Any]]) -> list[Instance] | None:
    out: list[Instance] = []
    for obj in objects:
        name = next((obj[k] for k in LABEL_KEYS if isinstance(obj.get(k), str)), None)
        box = _object_box(obj)
        if name is None or box is None:
            return None
        out.append((name, box))
    return out


def _from_mapping(value: Mapping[Any, Any]) -> list[Instance] | None:
    """``{name: box | [box, ...] | {corners}}``."""
    out: list[Instance] = []
    for name, raw in value.items():
        if not isinstance(name, str) or name.strip().lower() in _WHOLE_ANSWER:
            return None
        many = isinstance(raw, list) and raw and all(isinstance(b, list | tuple | str | Mapping) for b in raw)
        for item in raw if many else [raw]:
            box = read_box(item)
            if box is None:
                return None
            out.append((name, box))
    return out


def _from_dicts(text: str) -> list[Instance] | None:
    """One dict of instances, or one box dict per object after its label ("dog_1: {"x1": ...}")."""
    spans = dict_spans(text)
    if len(spans) == 1:
        start, _, value = spans[0]
        value = _unwrap(value)
        label = _label_before(text[:start])
        if not is_corner_dict(value):
            return _from_mapping(value) if isinstance(value, Mapping) else None
        if label is None or label.lower() in _WHOLE_ANSWER:
            return None
        return [(label, read_box(value))]  # type: ignore[list-item]
    out: list[Instance] = []
    previous = 0
    for start, end, value in spans:
        label = _label_before(text[previous:start])
        box = read_box(value)
        if label is None or box is None or label.lower() in _WHOLE_ANSWER:
            return None
        out.append((label, box))
        previous = end
    return out


#: A last clause that names no object but points back at one: a pronoun, or a box label line ("BBox: ").
_REFERS_BACK = re.compile(
    r"\b(?:its|it|the object|this object)\b|^\W*(?:bbox|box|bounding box|coordinates|location)\W*$", re.I
)


def _name_in(segment: str, ctx: RefineContext) -> str | None:
    """The object a stretch of prose before a box names: its closing label, else the one class named in its
    last sentence ("The guitar is at" -> guitar; "the person playing the guitar is at" -> None)."""
    label = _label_before(segment)
    if label is not None and label.lower() not in _WHOLE_ANSWER:
        return label
    clauses = [c for c in _SENTENCE_END.split(segment) if re.search(r"\w", c)]
    named = classes_in(clauses[-1], ctx.classes) if clauses else []
    if not named and clauses and _REFERS_BACK.search(clauses[-1]):
        named = classes_in(segment, ctx.classes)  # "The sounding object is the erhu. Its top-left corner ..."
    return named[0] if len(named) == 1 else None


def _from_prose(text: str, ctx: RefineContext) -> list[Instance] | None:
    """One box per named object in lines or sentences ("- **Dog**: [..]", "the dog spans from (x, y) to (x, y)")."""
    out: list[Instance] = []
    previous = 0
    for found in prose_boxes(text):
        segment = text[previous : found.start]
        if out and re.fullmatch(r"\s*(?:,|;|and|&)?\s*", segment):
            name: str | None = out[-1][0]  # "Cats: [..], [..]": one label for the boxes after it
        else:
            name = _name_in(segment, ctx)
        if name is None:
            return None
        out.append((name, found.box))
        previous = found.end
    return out or None


def _from_table(text: str) -> list[Instance] | None:
    """A markdown table with an object column and a box column (or four corner columns)."""
    tables = markdown_tables(text)
    if len(tables) != 1:
        return None
    header, *rows = tables[0]
    lowered = [h.lower() for h in header]
    name_col = next(
        (i for i, h in enumerate(lowered) if any(k in h for k in (*LABEL_KEYS, "instrument"))), None
    )
    if name_col is None:
        return None
    out: list[Instance] = []
    for row in rows:
        if len(row) != len(header):
            return None
        box = _row_box(header, row, skip=name_col)
        if not isinstance(box, Box):
            return None
        out.append((row[name_col], box))
    return out


def _instances(text: str, ctx: RefineContext) -> list[Instance] | None:
    """The instances of an answer, most structured reading first."""
    objects = _object_lists(text)
    if objects:
        return _from_objects(objects[0]) if len(objects) == 1 else None
    if dict_spans(text):
        return _from_dicts(text)
    if HEDGE.search(text):
        return None  # prose that hedges between places or objects
    return _from_table(text) if markdown_tables(text) else _from_prose(text, ctx)


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
    instances = _instances(text, ctx)
    if instances is None or _doubts(text, [name for name, _ in instances]):
        return None
    if _denied_in_prose([name for name, _ in instances], outside_dicts(text), ctx):
        return None
    if dict_spans(text) and _other_box_in_prose([box for _, box in instances], outside_dicts(text)):
        return None
    try:
        normalised = normalise_all(
            [box for _, box in instances], ctx, text, pixels=_pixel_native(text), grid=_grid_native(text)
        )
    except Invalid:
        return None
    keys = _avl_keys([name for name, _ in instances], ctx)
    if ctx.classes and any(key.rsplit("_", 1)[0] not in ctx.classes for key in keys):
        return None  # a name on no class ("drum", "plane" unmapped): left to the LLM rather than scored as written
    return json.dumps({k: _fmt(b) for k, b in zip(keys, normalised, strict=True)}, ensure_ascii=False)


# --- AVLG -------------------------------------------------------------------------------------------------------

_VALUE = r"\[[^\[\]\n]*\]|\(\s*-?[\d.]+(?:\s*,\s*-?[\d.]+){3}\s*\)|None|null|no object|not visible|absent|n/a|no box"
_FRAME_PAIR = re.compile(
    rf"frames?[\s_#-]*(\d+)(?:\s*(?:-|–|to|through)\s*(?:frame)?[\s_#-]*(\d+))?[*'\"`]*\s*(?:[:=]|->|→)\s*"
    rf"[*`]*\s*({_VALUE})",
    re.I,
)
_ALL_FRAMES = re.compile(
    r"\b(?:all|every|each)\s+(?:one\s+)?(?:of\s+the\s+)?(?:\w+\s+)?frames?\b|\bthroughout\b|\bacross\s+(?:all\s+)?(?:the\s+)?"
    r"(?:\w+\s+)?frames\b|\bframes?[\s_]*0\s*(?:-|–|to|through)\s*(?:frame[\s_]*)?9\b",
    re.I,
)
_NOT_ALL = re.compile(
    r"\b(?:except|but|not|only|until|after|before|moves?|moving|shifts?|changes?|disappears?|leaves|hidden|"
    r"partially|apart from|other than|no longer)\b",
    re.I,
)


def _frame_of(key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str):
        m = _FRAME_KEY.match(key)
        return int(m.group(1)) if m else None
    return None


def _frames_from_dict(value: Mapping[Any, Any]) -> dict[int, Any] | None:
    """``{frame_k: box}``, where a box may also be a detection object (``{"box_2d": [..], "label": ..}``)."""
    frames = {}
    for key, box in value.items():
        k = _frame_of(key)
        if k is None:
            return None
        if isinstance(box, Mapping) and any(b in box for b in BOX_KEYS):
            inner = box[next(b for b in BOX_KEYS if b in box)]
            box = None if _no_box(inner) else _object_box(box) or inner
        frames[k] = box
    return frames


def _frames_from_objects(objects: list[Mapping[Any, Any]]) -> dict[int, Any] | None:
    """``[{"frame": 0, "bbox": [...]}, ...]``."""
    frames: dict[int, Any] = {}
    for obj in objects:
        k = next((_frame_of(obj[key]) for key in _FRAME_KEYS if key in obj), None)
        if k is None or k in frames:
            return None
        key = next((b for b in BOX_KEYS if b in obj), None)
        empty = key is not None and _no_box(obj[key])
        frames[k] = None if empty else _object_box(obj) or obj.get(key or "", [])
    return frames


def _row_box(header: list[str], row: list[str], skip: int) -> Box | str | None:
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
    if not boxes and all(c.strip().lower() in _NO_BOX or _absent_cell(c) for c in cells.values()):
        return "None"
    return None


#: A table's frame cell: "3", "frame_3", "0-3", "0–3".
_TABLE_FRAMES = re.compile(r"(?:frames?[\s_#-]*)?(\d+)(?:\s*(?:-|–|—|to)\s*(?:frames?[\s_#-]*)?(\d+))?", re.I)


def _absent_cell(cell: str) -> bool:
    """A cell saying there is no box: "— (not visible)", "none (hidden)"."""
    return not re.search(r"\d", cell) and _ABSENT.search(cell) is not None


def _frames_from_table(text: str) -> dict[int, Any] | None:
    tables = markdown_tables(text)
    if len(tables) != 1:
        return None
    header, *rows = tables[0]
    frame_col = next((i for i, h in enumerate(header) if "frame" in h.lower()), None)
    if frame_col is None:
        return None
    frames: dict[int, Any] = {}
    for row in rows:
        m = _TABLE_FRAMES.fullmatch(row[frame_col].strip(" *`")) if len(row) == len(header) else None
        box = _row_box(header, row, skip=frame_col) if m else None
        if m is None or box is None:
            return None
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        for k in range(first, last + 1):
            if k in frames:
                return None
            frames[k] = box
    return frames


def _frames_from_pairs(text: str) -> dict[int, Any] | None:
    """``frame_3: [..]`` / ``frames 4-9: None`` pairs; ``None`` unless they account for every frame the text
    names (a frame whose box is in a form the pairs do not read must not become an empty frame)."""
    pairs = _FRAME_PAIR.findall(text)
    if len(pairs) < len(_FRAME_MENTION.findall(text)):
        return None
    frames: dict[int, Any] = {}
    for first, last, value in pairs:
        for k in range(int(first), int(last or first) + 1):
            if k in frames:
                return None
            frames[k] = value
    return frames or None


#: "barely moves", "does not change": stillness, which does not take a box away from any frame.
_STILL = re.compile(
    r"\b(?:barely|hardly|never|not|doesn't|does not|don't|do not|without)\s+(?:\w+\s+)?"
    r"(?:move|moves|moving|shift|shifts|change|changes)\b",
    re.I,
)


def _frames_for_all(text: str) -> dict[int, Any] | None:
    """One box said to hold in every frame ("the dog stays at [..] in all ten frames")."""
    boxes = prose_boxes(text)
    if len(boxes) != 1 or not _ALL_FRAMES.search(text) or _not_all(text) or HEDGE.search(text):
        return None
    return dict.fromkeys(range(FRAMES), boxes[0].box)


def _one_object_for_all(objects: list[Mapping[Any, Any]], prose: str) -> dict[int, Any] | None:
    """One detection object (``[{"bbox_2d": [..], "label": ..}]``) said to hold in every frame."""
    box = _object_box(objects[0]) if len(objects) == 1 else None
    if box is None or not _ALL_FRAMES.search(prose) or _not_all(prose) or HEDGE.search(prose):
        return None
    return dict.fromkeys(range(FRAMES), box)


def _not_all(text: str) -> bool:
    """The text limits or changes the box somewhere ("except frame 3", "moves right", "leaves the frame")."""
    still = _STILL.sub(" ", text)
    return _NOT_ALL.search(still) is not None or _ABSENT.search(still) is not None


#: No sounding object in any frame, said in words ("the sound comes from off-screen in every frame").
_NONE_ANYWHERE = re.compile(r"\b(?:all|every|each|any|none of the)\b[^.;\n]{0,30}\bframes?\b", re.I)


def _frames_empty(text: str) -> dict[int, Any] | None:
    """Every frame without a box, when the text gives no box and says nothing sounds in any frame."""
    if (
        prose_boxes(text)
        or HEDGE.search(text)
        or DOUBT.search(text)
        or re.search(r"\d\.\d|\d\s*%|[\[(]\s*-?\d", text)
    ):
        return None  # numbers of a box the rules could not read are not "no box"
    if _NONE_ANYWHERE.search(text) and _ABSENT.search(text):
        return dict.fromkeys(range(FRAMES))
    return None


_NEXT_FRAME = r"(?:frames?[\s_#-]*)?\d+(?!\.\d|\d)"
#: A mention of frames: "frame 3", "frames 4-9", "frames 5 to 9", "Frames 0, 1, 2 and 7".
_FRAME_MENTION = re.compile(
    rf"\bframes?[\s_#-]*(\d+)(?!\.\d|\d)((?:\s*(?:,|&|\band\b)\s*{_NEXT_FRAME})*)"
    rf"(?:\s*(?:-|–|—|to|through|thru)\s*(?:frames?[\s_#-]*)?(\d+)(?!\.\d|\d))?",
    re.I,
)
#: A frame described as having no sounding object in it.
_ABSENT = re.compile(
    r"\b(?:none|null|no (?:sounding )?(?:object|box|instrument|source)|not visible|invisible|off[- ](?:screen|stage|"
    r"camera)|out of (?:the )?(?:frame|shot|view|picture)|absent|not present|not in (?:the )?(?:frame|shot|view)|"
    r"hidden|occluded|gone|leaves|left the|walks off|disappear(?:s|ed)?|no longer)\b",
    re.I,
)


def _mentioned_frames(m: re.Match[str]) -> list[int] | None:
    listed = [int(m.group(1)), *(int(n) for n in re.findall(r"\d+", m.group(2) or ""))]
    if m.group(3) is None:
        return listed
    last = int(m.group(3))
    return list(range(listed[-1], last + 1)) if len(listed) == 1 and last >= listed[0] else None


def _frames_from_mentions(text: str, *, need_box: bool = True) -> dict[int, Any] | None:
    """Frames named in prose, each followed by its box or by words saying nothing sounds there ("In frame 0,
    the sax is from (x, y) to (x, y). ... In frames 5 to 9 it walks off stage"). A stretch that gives
    neither (narration, "starting in frame 2") assigns nothing; a box before the first mention, two boxes
    for one stretch or one frame given twice refuse."""
    mentions = list(_FRAME_MENTION.finditer(text))
    if not mentions or prose_boxes(text[: mentions[0].start()]):
        return None
    frames: dict[int, Any] = {}
    for m, after in zip(mentions, [*mentions[1:], None], strict=True):
        stretch = text[m.end() : after.start() if after else len(text)]
        boxes = prose_boxes(stretch)
        numbers = _mentioned_frames(m)
        if len(boxes) > 1 or numbers is None:
            return None
        if boxes:
            value: Any = boxes[0].box
        elif re.search(r"\[[^\]]*\]", stretch):
            return None  # "[]" or a placeholder: the frame-pair reading keeps it as written
        elif _ABSENT.search(stretch):
            value = None
        else:
            continue
        for k in numbers:
            if k in frames:
                return None
            frames[k] = value
    if need_box and all(v is None for v in frames.values()):
        return None
    return frames or None


def _frames(text: str) -> dict[int, Any] | None:
    objects = _object_lists(text)
    if objects:
        if len(objects) != 1:
            return None
        return _frames_from_objects(objects[0]) or _one_object_for_all(objects[0], outside_dicts(text))
    spans = dict_spans(text)
    if spans:
        value = _unwrap(spans[0][2])
        return _frames_from_dict(value) if len(spans) == 1 and isinstance(value, Mapping) else None
    lists = find_lists(text)
    if len(lists) == 1 and len(lists[0]) == FRAMES and not all(to_float(v) is not None for v in lists[0]):
        return dict(enumerate(lists[0]))
    if markdown_tables(text):
        return _frames_from_table(text)
    return (
        _frames_from_mentions(text)
        or _frames_from_pairs(text)
        or _frames_for_all(text)
        or _frames_empty(text)
    )


_NOT_SOUNDING = r"[^.;\n]{0,40}?\b(?:is not|isn't|is never|not being|never|is silent|silent|makes no sound)\b"


def _denied_in_prose(names: list[str], prose: str, ctx: RefineContext) -> bool:
    """The prose beside the boxes says a boxed object is not sounding ("the ukulele ... is not being played")."""
    classes = {normalise_key(_KEY_ID.sub(r"\1", n) if _KEY_ID.match(n) else n, ctx.classes) for n in names}
    return any(re.search(rf"\b{re.escape(c)}s?\b{_NOT_SOUNDING}", prose, re.I) for c in classes)


def _other_box_in_prose(boxes: list[Box], prose: str) -> bool:
    """The prose beside the structured answer gives a box that is none of its boxes ("The cat is at [..]"
    before a dict that puts it elsewhere)."""
    given = {box.numbers for box in boxes}
    return any(found.box.numbers not in given for found in prose_boxes(prose))


def _frames_differ(present: dict[int, Box], prose: str) -> bool:
    """The prose beside the frames names a frame and gives it another box, or a box where the frames have
    none ("in frame_4 the cat is at [..]" beside ``'frame_4': None``)."""
    named = _frames_from_mentions(prose, need_box=False) or {}
    return any(
        (present[k].numbers if k in present else None) != (v.numbers if isinstance(v, Box) else None)
        for k, v in named.items()
    )


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
    present: dict[int, Box] = {}
    invalid: set[int] = set()
    for k, value in found.items():
        if not 0 <= k < FRAMES or _no_box(value):
            continue
        box = value if isinstance(value, Box) else read_box(value)
        if box is None:
            invalid.add(k)  # kept as [] (the scoring profile decides whether [] means "no box")
        else:
            present[k] = box
    if invalid and not present and any(not isinstance(found[k], list | tuple) or found[k] for k in invalid):
        return None  # placeholders only (an echoed template): no answer to read
    outside = outside_dicts(text)
    if dict_spans(text) and (
        _other_box_in_prose(list(present.values()), outside) or _frames_differ(present, outside)
    ):
        return None  # the prose gives a box the frames do not have, or gives a frame another box
    if dict_spans(text) and len(present) < FRAMES and _ALL_FRAMES.search(outside) and not _not_all(outside):
        return None  # frames without a box, yet the prose says the object is in every frame
    if DOUBT.search(text):
        return None
    try:
        boxes = normalise_all(
            list(present.values()), ctx, text, pixels=_pixel_native(text), grid=_grid_native(text)
        )
        normalised = dict(zip(present, boxes, strict=True))
    except Invalid:
        return None
    parts = []
    for k in range(FRAMES):
        box = normalised.get(k)
        value = "[]" if k in invalid else (_fmt(box) if box is not None else "None")
        parts.append(f"'frame_{k}': {value}")
    return "{" + ", ".join(parts) + "}"
