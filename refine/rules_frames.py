"""Rule refine for AVLG: frames ``{'frame_0': [...] | None, ..., 'frame_9': ...}``.

Boxes come out as normalised ``[x_min, y_min, x_max, y_max]`` floats in 0-1 (read by
:mod:`avibench.refine.boxes`), so the AVLG scorer's plain multiplication reads them right. ``None``/``null`` is
"no box" and ``[]`` stays ``[]``, as does a box that is not four numbers (the reference refine's convention; the
scoring profile decides what ``[]`` is worth). Frames come from dicts, lists of ten, frame lines and ranges,
tables, detection objects, or prose that names frames; prose that gives a frame another box than the structure,
a truncated answer or doubt return ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from avibench.refine import boxes as bx
from avibench.refine import text as tx
from avibench.refine.context import RefineContext
from avibench.refine.vocab import any_of

FRAMES = 10
_FRAME_KEY = re.compile(r"^\s*(?:frame)?[\s_#-]*(\d+)\s*$", re.I)
_SAME_AS = r"(?:the )?same (?:box )?as (?:in )?frame[\s_#-]*(\d+)"
_VALUE = (
    r"\[[^\[\]\n]*\]|\(\s*-?[\d.]+(?:\s*,\s*-?[\d.]+){3}\s*\)|None|null|no object|not visible|absent|n/a|no box|"
    + _SAME_AS
)
_FRAME_PAIR = re.compile(
    rf"frames?[\s_#-]*(\d+)(?:\s*(?:-|–|to|through)\s*(?:frame)?[\s_#-]*(\d+))?[*'\"`]*\s*(?:[:=]|->|→)\s*"
    rf"[*`]*\s*({_VALUE})",
    re.I,
)
_ALL_FRAMES = re.compile(
    r"\b(?:all|every|each)\s+(?:one\s+)?(?:of\s+the\s+)?(?:\w+\s+)?frames?\b|\bthroughout\b|\bacross\s+all\s+(?:the\s+)?"
    r"(?:\w+\s+)?frames\b|\bframes?[\s_]*0\s*(?:-|–|to|through)\s*(?:frame[\s_]*)?9\b",
    re.I,
)
_NOT_ALL = re.compile(any_of("not_all_frames"), re.I)


def _frame_of(key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    m = _FRAME_KEY.match(key) if isinstance(key, str) else None
    return int(m.group(1)) if m else None


def _frames_from_dict(value: Mapping[Any, Any]) -> dict[int, Any] | None:
    """``{frame_k: box}``, where a box may also be a detection object (``{"box_2d": [..], "label": ..}``)."""
    frames = {}
    for key, box in value.items():
        if (k := _frame_of(key)) is None:
            return None
        if isinstance(box, Mapping) and any(b in box for b in bx.BOX_KEYS):
            inner = box[next(b for b in bx.BOX_KEYS if b in box)]
            box = None if bx.no_box(inner) else bx.object_box(box) or inner
        frames[k] = box
    return frames


def _frames_from_objects(objects: list[Mapping[Any, Any]]) -> dict[int, Any] | None:
    """``[{"frame": 0, "bbox": [...]}, ...]``."""
    frames: dict[int, Any] = {}
    for obj in objects:
        k = next((_frame_of(obj[key]) for key in bx.FRAME_KEYS if key in obj), None)
        if k is None or k in frames:
            return None
        key = next((b for b in bx.BOX_KEYS if b in obj), None)
        empty = key is not None and bx.no_box(obj[key])
        frames[k] = None if empty else bx.object_box(obj) or obj.get(key or "", [])
    return frames


#: A table's frame cell: "3", "frame_3", "0-3", "0–3".
_TABLE_FRAMES = re.compile(r"(?:frames?[\s_#-]*)?(\d+)(?:\s*(?:-|–|—|to)\s*(?:frames?[\s_#-]*)?(\d+))?", re.I)


def _frames_from_table(text: str) -> dict[int, Any] | None:
    tables = tx.markdown_tables(text)
    if len(tables) != 1:
        return None
    header, *rows = tables[0]
    if (frame_col := next((i for i, h in enumerate(header) if "frame" in h.lower()), None)) is None:
        return None
    frames: dict[int, Any] = {}
    for row in rows:
        m = _TABLE_FRAMES.fullmatch(row[frame_col].strip(" *`")) if len(row) == len(header) else None
        box = bx.row_box(header, row, skip=frame_col) if m else None
        if m is None or box is None:
            return None
        if frames.keys() & (span := range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)):
            return None
        frames.update(dict.fromkeys(span, box))
    return frames


def _frames_from_pairs(text: str) -> dict[int, Any] | None:
    """``frame_3: [..]`` / ``frames 4-9: None`` / ``frame_1: same as frame_0`` pairs; ``None`` unless they
    account for every frame the text names (a frame whose box is in a form the pairs do not read must not
    become an empty frame)."""
    pairs = _FRAME_PAIR.findall(text)
    copies = len(re.findall(_SAME_AS, text, re.I))
    if len(pairs) < len(_FRAME_MENTION.findall(text)) - copies:
        return None
    frames: dict[int, Any] = {}
    for first, last, value, _ in pairs:
        if frames.keys() & (span := range(int(first), int(last or first) + 1)):
            return None
        frames.update(dict.fromkeys(span, value))
    for k, value in frames.items():
        if (same := re.fullmatch(_SAME_AS, value, re.I)) is not None:
            source = frames.get(int(same.group(1)))
            if source is None or re.fullmatch(_SAME_AS, source, re.I):
                return None  # a copy of a frame the answer does not give, or of a later copy
            frames[k] = source
    return frames or None


#: "barely moves", "does not change": stillness, which does not take a box away from any frame.
_STILL = re.compile(
    r"\b(?:barely|hardly|never|not|doesn't|does not|don't|do not|without)\s+(?:\w+\s+)?"
    r"(?:move|moves|moving|shift|shifts|change|changes)\b",
    re.I,
)


def _for_all(box: bx.Box | None, prose: str) -> dict[int, Any] | None:
    """One box (the prose's only one, or a lone detection object ``[{"bbox_2d": [..], "label": ..}]``) said to
    hold in every frame ("the dog stays at [..] in all ten frames")."""
    if box is None or not _ALL_FRAMES.search(prose) or _not_all(prose) or tx.HEDGE.search(prose):
        return None
    return dict.fromkeys(range(FRAMES), box)


def _not_all(text: str) -> bool:
    """The text limits or changes the box somewhere ("except frame 3", "moves right", "leaves the frame")."""
    still = _STILL.sub(" ", text)
    return _NOT_ALL.search(still) is not None or bx.ABSENT.search(still) is not None


#: No sounding object in any frame, said in words ("the sound comes from off-screen in every frame").
_NONE_ANYWHERE = re.compile(r"\b(?:all|every|each|any|none of the)\b[^.;\n]{0,30}\bframes?\b", re.I)


def _frames_empty(text: str) -> dict[int, Any] | None:
    """Every frame without a box, when the text gives no box and says nothing sounds in any frame."""
    aside_free = re.sub(r"\([^)]*\)", " ", text)  # "(or any other source)" is an aside, not a hedge
    if bx.prose_boxes(text) or tx.HEDGE.search(aside_free) or tx.DOUBT.search(text):
        return None
    if re.search(r"\d\.\d|\d\s*%|[\[(]\s*-?\d", text):
        return None  # numbers of a box the rules could not read are not "no box"
    if _NONE_ANYWHERE.search(text) and bx.ABSENT.search(text):
        return dict.fromkeys(range(FRAMES))
    return None


_NEXT_FRAME = r"(?:frames?[\s_#-]*)?\d+(?!\.\d|\d)"
#: A mention of frames: "frame 3", "frames 4-9", "frames 5 to 9", "Frames 0, 1, 2 and 7".
_FRAME_MENTION = re.compile(
    rf"\bframes?[\s_#-]*(\d+)(?!\.\d|\d)((?:\s*(?:,|&|\band\b)\s*{_NEXT_FRAME})*)"
    rf"(?:\s*(?:-|–|—|to|through|thru)\s*(?:frames?[\s_#-]*)?(\d+)(?!\.\d|\d))?",
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
    for one stretch or one frame given two different values refuse."""
    mentions = list(_FRAME_MENTION.finditer(text))
    if not mentions or bx.prose_boxes(text[: mentions[0].start()]):
        return None
    frames: dict[int, Any] = {}
    for m, after in zip(mentions, [*mentions[1:], None], strict=True):
        stretch = text[m.end() : after.start() if after else len(text)]
        boxes = bx.prose_boxes(stretch)
        numbers = _mentioned_frames(m)
        if len(boxes) > 1 or numbers is None:
            return None
        if boxes:
            value: Any = boxes[0].box
        elif re.search(r"\[[^\]]*\]", stretch):
            return None  # "[]" or a placeholder: the frame-pair reading keeps it as written
        elif _TIED_TO_NEXT.search(stretch) or not bx.ABSENT.search(_own_clause(stretch)):
            continue  # "has left the view after frame 6" is about the next mention, not this one
        else:
            value = None  # said in the mention's own clause; later ones are about other things
        for k in numbers:
            if k in frames and _numbers_of(frames[k]) != _numbers_of(value):
                return None
            frames[k] = value
    if need_box and all(v is None for v in frames.values()):
        return None
    return frames or None


#: A stretch that ends by relating itself to the next frame named ("... left the view after frame 6").
_TIED_TO_NEXT = re.compile(r"\b(?:after|before|until|till|since|by|from)\s*$", re.I)
#: "None if there is no sounding object": a condition restating the task, not a statement about a frame.
_CONDITION = re.compile(
    r"\b(?:none|null)\s+(?:if|when)\b[^.;\n]*|\b(?:if|when)\s+there\s+is\s+no\b[^.;\n]*", re.I
)


def _own_clause(stretch: str) -> str:
    """The clause a frame mention opens, without conditions that restate the task."""
    return _CONDITION.sub(" ", re.split(r"(?<=[.!?;])\s", stretch, maxsplit=1)[0])


def _numbers_of(value: Any) -> tuple[float, ...] | None:
    return value.numbers if isinstance(value, bx.Box) else None


#: A step of the model's plan ("Step 2. Find the horse in each frame."): what it set out to do, not a claim.
_INSTRUCTION = re.compile(
    r"^\W*(?:step\s*\d+\W*)?(?:find|locate|identify|output|detect|track|look|draw|give|list|box|mark|check)\b",
    re.I,
)


#: Words saying the sounding object cannot be seen ("not visible in any of the frames").
_UNSEEN = re.compile(any_of("unseen_words"), re.I)


def _said_nowhere(prose: str) -> bool:
    """A sentence saying no frame shows the sounding object, naming no frame numbers."""
    return any(
        _NONE_ANYWHERE.search(s) and _UNSEEN.search(s) and not re.search(r"\d", s)
        for s in tx.sentences(prose)
    )


def _refused(text: str) -> bool:
    """A refusal of the task; "in frames 3 and 4, where I can't place a reliable box" only says those
    frames have none."""
    return any(tx.REFUSAL.search(s) and not _FRAME_MENTION.search(s) for s in tx.sentences(text))


#: A line giving one frame its detections: "frame_3: [{"bbox_2d": [..], "label": "car"}]", "frame_5: []".
_FRAME_LINE = re.compile(r"^\W*frames?[\s_#-]*(\d+)\W*?\s*[:=]\s*(.+?)\s*$", re.I)


def _frames_from_object_lines(text: str) -> dict[int, Any] | None:
    """One detection list per frame line, each with at most one object; ``None`` unless every detection
    list in the text is on such a line."""
    frames: dict[int, Any] = {}
    for line in text.splitlines():
        if (m := _FRAME_LINE.match(line)) is None:
            continue
        k, value = int(m.group(1)), m.group(2)
        lists = tx.find_lists(value)
        if bx.no_box(value.strip(" *`")) or (len(lists) == 1 and lists[0] == []):
            box: Any = None if not lists else []
        elif len(lists) == 1 and len(lists[0]) == 1 and isinstance(lists[0][0], Mapping):
            if (box := bx.object_box(lists[0][0])) is None:
                return None
        else:
            return None
        if k in frames:
            return None
        frames[k] = box
    read = sum(v is not None and v != [] for v in frames.values())
    return frames if read and read == len(bx.object_lists(text)) else None


def _frames(text: str) -> dict[int, Any] | None:
    if objects := bx.object_lists(text):
        if len(objects) != 1:
            return _frames_from_object_lines(text)
        lone = bx.object_box(objects[0][0]) if len(objects[0]) == 1 else None
        return _frames_from_objects(objects[0]) or _for_all(lone, tx.outside_dicts(text))
    if spans := tx.dict_spans(text):
        value = bx.unwrap(spans[0][2])
        return _frames_from_dict(value) if len(spans) == 1 and isinstance(value, Mapping) else None
    lists = tx.find_lists(text)
    if len(lists) == 1 and len(lists[0]) == FRAMES and not all(tx.to_float(v) is not None for v in lists[0]):
        return dict(enumerate(lists[0]))
    if tx.markdown_tables(text):
        return _frames_from_table(text)
    boxes = bx.prose_boxes(text)
    lone = boxes[0].box if len(boxes) == 1 else None
    return (
        _frames_from_mentions(text) or _frames_from_pairs(text) or _for_all(lone, text) or _frames_empty(text)
    )


def _frames_differ(present: dict[int, bx.Box], prose: str) -> bool:
    """The prose beside the frames names a frame and gives it another box, or a box where the frames have
    none ("in frame_4 the cat is at [..]" beside ``'frame_4': None``)."""
    named = _frames_from_mentions(prose, need_box=False) or {}
    return any(_numbers_of(present.get(k)) != _numbers_of(v) for k, v in named.items())


def parse_avlg(raw: object, ctx: RefineContext) -> str | None:
    """The canonical frame-box dict for an AVLG sample (Python literal, ``None`` = no box), or ``None``."""
    if (text := tx.usable(raw)) is None or _refused(text):
        return None
    text = tx.strip_answer_prefix(tx.without_echo(text, ctx.prompt_text))
    if bx.truncated(text):
        return None  # the missing frames are unknown, not empty
    if not (found := _frames(text)):
        return None
    present: dict[int, bx.Box] = {}
    invalid: set[int] = set()
    for k, value in found.items():
        if not 0 <= k < FRAMES or bx.no_box(value):
            continue
        if (box := value if isinstance(value, bx.Box) else bx.read_box(value)) is None:
            invalid.add(k)  # kept as [] (the scoring profile decides whether [] means "no box")
        else:
            present[k] = box
    if invalid and not present and any(not isinstance(found[k], list | tuple) or found[k] for k in invalid):
        return None  # placeholders only (an echoed template): no answer to read
    if tx.dict_spans(text):
        outside = tx.outside_dicts(text)
        claims = " ".join(s for s in tx.sentences(outside) if not _INSTRUCTION.match(s))
        if bx.other_box_in_prose(list(present.values()), outside) or _frames_differ(present, outside):
            return None  # the prose gives a box the frames do not have, or gives a frame another box
        if present and _said_nowhere(claims):
            return None  # boxes, yet the prose says the object is in no frame
        if len(present) < FRAMES and _ALL_FRAMES.search(claims) and not _not_all(claims):
            return None  # frames without a box, yet the prose says the object is in every frame
    if tx.DOUBT.search(text) or re.search(r"\]\s*or\s+(?:none|null|\[)", text, re.I):
        return None  # doubt, or a frame given a box "or None"
    try:
        boxes = bx.normalise_all(list(present.values()), ctx, text)
        normalised = dict(zip(present, boxes, strict=True))
    except bx.Invalid:
        return None
    values = (
        "[]" if k in invalid else bx.format_box(normalised[k]) if k in normalised else "None"
        for k in range(FRAMES)
    )
    return "{" + ", ".join(f"'frame_{k}': {value}" for k, value in enumerate(values)) + "}"
