"""Rule refine for AVL: instances ``{"dog_1": "[x1, y1, x2, y2]"}``.

Boxes come out as normalised ``[x_min, y_min, x_max, y_max]`` floats in 0-1, whatever convention and scale
the model used (read by :mod:`avibench.refine.boxes`), so the AVL scorer's scale heuristic reads them right.
Recognised native formats: Gemini's ``box_2d`` (``[y_min, x_min, y_max, x_max]`` on the 0-1000 grid) and Qwen's
``bbox_2d`` (pixels of the image the model saw). Swapped corners, a truncated answer, a box without a name, a
name that could be two objects or that is on no class return ``None`` rather than a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from avibench.refine import boxes as bx
from avibench.refine import text as tx
from avibench.refine.context import RefineContext
from avibench.refine.vocab import VOCABULARY, any_of, classes_in, normalise_key

_KEY_ID = re.compile(r"^\s*(.*?)[\s_#-]*(\d+)\s*$")
_WHOLE_ANSWER = frozenset(VOCABULARY["whole_answer_labels"])
#: A label of up to three words that opens a line, a bullet or a sentence and ends in ":" or "=".
_LABEL_BEFORE = re.compile(
    r"(?:^|[\n,;.]|[-*•]\s|\d[.)]\s)\s*(?:answer\s*[:=]\s*)?[*`'\"]*([A-Za-z][\w-]*(?: [\w-]+){0,2}?)[*`'\"]*\s*(?:\([^)]*\))?\s*"
    r"(?:[:=]|->|→|—|–|\s-)\s*[*`]*\s*$"
)
_SENTENCE_END = re.compile(r"[.!?;\n]\s*")


#: Words that end a sentence before a colon without naming anything ("Its bounding box ..., is:").
_NO_LABEL = frozenset({"is", "are", "was", "were", "be", "as follows", "follows", "here", "below"})


def _label_before(segment: str) -> str | None:
    """The label of one object a segment ends with ("**Dog**: ", "dog_1 = "), or ``None`` (none, or one that
    names the whole answer)."""
    m = _LABEL_BEFORE.search(segment)
    return m.group(1).strip() if m and m.group(1).strip().lower() not in _NO_LABEL | _WHOLE_ANSWER else None


Instance = tuple[str, bx.Box]


def _from_objects(objects: list[Mapping[Any, Any]]) -> list[Instance] | None:
    out = [
        (next((o[k] for k in bx.LABEL_KEYS if isinstance(o.get(k), str)), None), bx.object_box(o))
        for o in objects
    ]
    return None if any(name is None or box is None for name, box in out) else out  # type: ignore[return-value]


def _from_mapping(value: Mapping[Any, Any]) -> list[Instance] | None:
    """``{name: box | [box, ...] | {corners}}``."""
    out: list[Instance] = []
    for name, raw in value.items():
        if not isinstance(name, str) or name.strip().lower() in _WHOLE_ANSWER:
            return None
        many = isinstance(raw, list) and raw and all(isinstance(b, list | tuple | str | Mapping) for b in raw)
        for item in raw if many else [raw]:
            # a box written in words: "center=(0.5, 0.62), w=0.7, h=0.46"
            written = bx.prose_boxes(item) if isinstance(item, str) else []
            if (box := bx.read_box(item) or (written[0].box if len(written) == 1 else None)) is None:
                return None
            out.append((name, box))
    return out


def _from_dicts(text: str) -> list[Instance] | None:
    """One dict of instances, or one box dict per object after its label ("dog_1: {"x1": ...}")."""
    spans = tx.dict_spans(text)
    if len(spans) == 1:
        start, _, value = spans[0]
        value = bx.unwrap(value)
        label = _label_before(text[:start])
        if not bx.is_corner_dict(value):
            return _from_mapping(value) if isinstance(value, Mapping) else None
        if label is None:
            return None
        return [(label, bx.read_box(value))]  # type: ignore[list-item]
    ends = [0, *(end for _, end, _ in spans[:-1])]  # each label lies between the previous dict and its own
    pairs = zip(ends, spans, strict=True)
    out = [(_label_before(text[end:start]), bx.read_box(value)) for end, (start, _, value) in pairs]
    return None if any(label is None or box is None for label, box in out) else out  # type: ignore[return-value]


#: A last clause that names no object but points back at one: a pronoun, or a box label line ("BBox: ").
_REFERS_BACK = re.compile(
    r"\b(?:its|it|the object|this object)\b|^\W*(?:bbox|box|bounding box|coordinates|location)\W*$", re.I
)


def _name_in(segment: str, ctx: RefineContext) -> str | None:
    """The object a stretch of prose before a box names: its closing label, else the one class named in its
    last sentence ("The guitar is at" -> guitar; "the person playing the guitar is at" -> None)."""
    label = _label_before(segment)
    if label is not None and not _REFERS_BACK.search(_unnoted(label)):
        return label
    clauses = [c for c in _SENTENCE_END.split(segment) if re.search(r"\w", c)]
    scope = clauses[-1] if clauses else ""
    named = classes_in(scope, ctx.classes)
    if not named and clauses and _REFERS_BACK.search(_unnoted(scope)):
        scope = segment  # "The sounding object is the erhu. Its top-left corner ..."
        named = classes_in(scope, ctx.classes)
    source = _SOURCE_NAMED.search(scope)
    if len(named) > 1 and source is not None:
        named = classes_in(source.group(1), ctx.classes)[:1]  # "the sound comes from the sax played by a man"
    return named[0] if len(named) == 1 else None


def _unnoted(label: str) -> str:
    """A label without its note in parentheses ("Bounding box (x, y, width, height)")."""
    return re.sub(r"\s*\([^)]*\)", "", label)


def _from_prose(text: str, ctx: RefineContext) -> list[Instance] | None:
    """One box per named object in lines or sentences ("- **Dog**: [..]", "the dog spans from (x, y) to (x, y)")."""
    out: list[Instance] = []
    previous = 0
    for found in bx.prose_boxes(text):
        segment = text[previous : found.start]
        if out and re.fullmatch(r"\s*(?:,|;|and|&)?\s*", segment):
            name: str | None = out[-1][0]  # "Cats: [..], [..]": one label for the boxes after it
        else:
            name = _name_in(segment, ctx)
        if name is None:
            return None
        out.append((name, found.box))
        previous = found.end
    return _restatements_dropped(out, ctx) or None


def _restatements_dropped(instances: list[Instance], ctx: RefineContext) -> list[Instance]:
    """The instances without a box given again for the same class ("- tuba: [..]" and then "Final answer:
    tuba_1 = [..]" with the same numbers), keeping the numbered name."""
    kept: dict[tuple[str, tuple[float, ...]], Instance] = {}
    for name, box in instances:
        m = _KEY_ID.match(name)
        key = (normalise_key(m.group(1) if m and m.group(1) else name, ctx.classes), box.numbers)
        if key not in kept or m:
            kept[key] = (name, box)
    return list(kept.values())


def _from_table(text: str) -> list[Instance] | None:
    """A markdown table with an object column and a box column (or four corner columns)."""
    tables = tx.markdown_tables(text)
    if len(tables) != 1:
        return None
    header, *rows = tables[0]
    name_col = next(
        (i for i, h in enumerate(header) if any(k in h.lower() for k in (*bx.LABEL_KEYS, "instrument"))), None
    )
    if name_col is None or any(len(row) != len(header) for row in rows):
        return None
    out = [(row[name_col], bx.row_box(header, row, skip=name_col)) for row in rows]
    return out if all(isinstance(box, bx.Box) for _, box in out) else None  # type: ignore[return-value]


def _instances(text: str, ctx: RefineContext) -> list[Instance] | None:
    """The instances of an answer, most structured reading first."""
    if objects := bx.object_lists(text):
        return _from_objects(objects[0]) if len(objects) == 1 else None
    if tx.dict_spans(text):
        return _from_dicts(text)
    if tx.HEDGE.search(text):
        return None  # prose that hedges between places or objects
    return _from_table(text) if tx.markdown_tables(text) else _from_prose(text, ctx)


def _avl_keys(names: list[str], ctx: RefineContext) -> list[str]:
    """``category_id`` keys on the class list; a missing id is the instance's position among all instances
    (the prompt's numbering: male_1, dog_2, dog_3, cat_4), a clashing one the next free number."""
    parsed = []
    for name in names:
        m = _KEY_ID.match(name)
        base, ident = (m.group(1), int(m.group(2))) if m and m.group(1) else (name, None)
        parsed.append((normalise_key(base, ctx.classes).replace(" ", "_"), ident))
    used = {f"{b}_{i}" for b, i in parsed if i is not None}
    seen: dict[str, None] = {}  # the keys so far, in order
    for position, (base, ident) in enumerate(parsed, start=1):
        key = f"{base}_{ident}" if ident is not None else None
        if key is None or key in seen:
            number = position
            while f"{base}_{number}" in seen or f"{base}_{number}" in used:
                number += 1
            key = f"{base}_{number}"
        seen[key] = None
    return list(seen)


def parse_avl(raw: object, ctx: RefineContext) -> str | None:
    """The canonical instance-box dict for an AVL sample, or ``None`` when the rules cannot tell."""
    if (text := tx.usable(raw)) is None or tx.REFUSAL.search(text):
        return None
    text = tx.strip_answer_prefix(text)
    if bx.truncated(text) or (instances := _instances(text, ctx)) is None:
        return None
    names, boxes = [name for name, _ in instances], [box for _, box in instances]
    prose = tx.outside_dicts(text)
    # doubt ("I am not certain", "maybe"), or one box named as two objects ("violin / cello")
    if tx.DOUBT.search(text) or any(re.search(r"/|\bor\b", n) for n in names):
        return None
    if _denied_in_prose(names, prose, ctx) or (tx.dict_spans(text) and bx.other_box_in_prose(boxes, prose)):
        return None
    try:
        normalised = bx.normalise_all(boxes, ctx, text)
    except bx.Invalid:
        return None
    keys = _avl_keys(names, ctx)
    if ctx.classes and any(key.rsplit("_", 1)[0] not in ctx.classes for key in keys):
        return None  # a name on no class ("drum", "plane" unmapped): left to the LLM rather than scored as written
    if _other_source_named({key.rsplit("_", 1)[0] for key in keys}, prose, ctx):
        return None
    out = {k: bx.format_box(b) for k, b in zip(keys, normalised, strict=True)}
    return json.dumps(out, ensure_ascii=False)


#: Prose naming the sound's source ("The sounding object is the piano", "the sound comes from the dog").
_SOURCE_NAMED = re.compile(any_of("source_named") + r"\s+([^.;\n]{1,40})", re.I)


def _other_source_named(boxed: set[str], prose: str, ctx: RefineContext) -> bool:
    """The prose names the sound's source as a class none of the boxes is ("The sounding object is the piano"
    beside ``{'violin_1': ...}``)."""
    named = (set(classes_in(m.group(1), ctx.classes)) for m in _SOURCE_NAMED.finditer(prose))
    return any(n and not n & boxed for n in named)


_NOT_SOUNDING = (
    r"([^.;\n()]{0,40}?)\b(?:is not|isn't|is never|not being|never|is silent|silent|makes no sound)\b"
)


def _denied_in_prose(names: list[str], prose: str, ctx: RefineContext) -> bool:
    """The prose beside the boxes says a boxed object is not sounding ("the ukulele ... is not being played"),
    not of another object named in between ("the dog (the cat is silent)")."""
    classes = {normalise_key(_KEY_ID.sub(r"\1", n) if _KEY_ID.match(n) else n, ctx.classes) for n in names}
    return any(
        not set(classes_in(m.group(1), ctx.classes)) - {c}
        for c in classes
        for m in re.finditer(rf"\b{re.escape(c)}s?\b{_NOT_SOUNDING}", prose, re.I)
    )
