"""Directions and orders described in prose, mapped onto option wording (VSQA video, AVQA).

A direction is a sign vector ``(dx, dy)`` with y pointing down, read from "from the bottom left to the top
right", "moves up and to the right" or "travels leftwards". Options are read the same way ("Bottom-left to
top-right") or as a class of movement ("horizontal", "vertical", "inclined"). An order is a sequence of
option mentions linked by "followed by", "then", "before" (forwards) or "after", "preceded by" (backwards),
answered for a question about what comes first or last. Anything mixed, negated or unlinked gives ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from avibench.refine.text import HEDGE, NEGATION
from avibench.refine.vocab import VOCABULARY, any_of

Vector = tuple[int, int]

_X = {"left": -1, "right": 1, "centre": 0, "center": 0, "middle": 0}
_Y = {"top": -1, "upper": -1, "bottom": 1, "lower": 1, "centre": 0, "center": 0, "middle": 0}
_POSITION = r"(?:(?:top|upper|bottom|lower)[- ]?(?:left|right)|(?:left|right)|top|bottom|upper|lower|cent(?:er|re)|middle)"
_FROM_TO = re.compile(
    rf"\bfrom\s+(?:the\s+)?(?P<start>{_POSITION})\b(?:[\w\s-]{{0,30}}?)\s+(?:to|towards?|into|toward)\s+"
    rf"(?:the\s+)?(?P<end>{_POSITION})\b",
    re.I,
)
#: "starts near the bottom-left corner and ends near the top-right corner", "starts at the lower left and
#: travels diagonally up to the upper right"
_STARTS_ENDS = re.compile(
    rf"\bstart(?:s|ed|ing)?\s+(?:\w+\s+){{0,3}}?(?:the\s+)?(?P<start>{_POSITION})\b[\w\s,-]{{0,40}}?"
    rf"(?:\bend(?:s|ed|ing)?\s+(?:\w+\s+){{0,3}}?|\b(?:to|towards?|into)\s+)(?:the\s+)?(?P<end>{_POSITION})\b",
    re.I,
)
_STEP = VOCABULARY["movement_steps"]
_STEPS = re.compile(r"\bto the (?:left|right)\b|\b(?:up|down)(?:wards?)?\b|\b(?:left|right)wards?\b", re.I)
#: "speeds up", "upside down": not directions.
_PHRASAL = re.compile(any_of("not_directions"), re.I)
#: "moves right", "heading left": a side straight after a motion verb is a direction.
_VERB_SIDE = re.compile(
    r"\b(?:mov(?:es|ing|e)|travel(?:s|ling|ing)?|go(?:es|ing)?|slid(?:es|ing|e)|head(?:s|ing)?|drift(?:s|ing)?|"
    r"shift(?:s|ing)?|roll(?:s|ing)?)\s+(left|right)\b",
    re.I,
)
_MOTION = re.compile(any_of("motion_words"), re.I)
_STILL = re.compile(rf"{NEGATION}|\b(?:stationary|still|static|without)\b", re.I)
_CLASSES = VOCABULARY["movement_classes"]


def _point(name: str) -> Vector:
    words = re.findall(r"[a-z]+", name.lower())
    return next((_X[w] for w in words if w in _X), 0), next((_Y[w] for w in words if w in _Y), 0)


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _vectors(text: str) -> set[Vector]:
    """Every direction the text states ("from A to B" or step words), as sign vectors."""
    found: set[Vector] = set()
    for m in [*_FROM_TO.finditer(text), *_STARTS_ENDS.finditer(text)]:
        (x1, y1), (x2, y2) = _point(m.group("start")), _point(m.group("end"))
        found.add((_sign(x2 - x1), _sign(y2 - y1)))
    stripped = _PHRASAL.sub(" ", _STARTS_ENDS.sub(" ", _FROM_TO.sub(" ", text)))
    steps = [_STEP[s.lower()] for s in _STEPS.findall(stripped)]
    steps += [_STEP[f"to the {side.lower()}"] for side in _VERB_SIDE.findall(stripped)]
    if steps:
        step = (_sign(sum(s[0] for s in steps)), _sign(sum(s[1] for s in steps)))
        # "moves upward from the bottom right to the top left": the step is part of the path (every direction
        # the step has, the path has too)
        if not any(all(s == 0 or s == p for s, p in zip(step, path, strict=True)) for path in found):
            found.add(step)
    found.discard((0, 0))
    return found


def _kind(vector: Vector) -> str:
    return "d" if all(vector) else ("h" if vector[0] else "v")


#: Back-and-forth movement along one axis: a class of movement without a direction.
_OSCILLATION = re.compile(any_of("oscillation"), re.I)


def _by_class(options: Sequence[str], kind: str) -> list[str]:
    return [o for o in options if _CLASSES.get(o.strip().lower()) == kind]


def direction_answer(span: str, options: Sequence[str]) -> str | None:
    """The option a described movement matches, or ``None`` (no movement described, or several)."""
    if not (_MOTION.search(span) or _STARTS_ENDS.search(span)) or _STILL.search(span):
        return None
    swings = {"v" if "up" in m.group().lower() else "h" for m in _OSCILLATION.finditer(span)}
    span = _OSCILLATION.sub(" ", span)
    vectors = _vectors(span)
    classes = {_CLASSES[w] for w in re.findall(r"[a-z]+", span.lower()) if w in _CLASSES} | swings
    if swings and not vectors:
        matches = _by_class(options, swings.pop()) if len(classes) == 1 else []
        return matches[0] if len(matches) == 1 else None
    if len(vectors) != 1:
        return None
    vector = vectors.pop()
    if classes and classes != {_kind(vector)}:
        return None
    by_vector = [o for o in options if _vectors(f"from {o}") == {vector}]
    matches = by_vector or _by_class(options, _kind(vector))
    return matches[0] if len(matches) == 1 else None


def contradicts_direction(span: str, option: str) -> bool:
    """A class of movement ("vertical") named beside a stated direction of another class ("from left to
    right")."""
    wanted = _CLASSES.get(option.strip().lower())
    vectors = _vectors(span) if wanted else set()
    return len(vectors) == 1 and _kind(next(iter(vectors))) != wanted


_FORWARD = re.compile(any_of("order_forward"), re.I)
_BACKWARD = re.compile(r"\b(?:after(?! which)(?!wards?)|preceded by|following)\b", re.I)
_FIRST_Q = re.compile(r"\b(?:first|earliest|initially|earlier)\b", re.I)
_LAST_Q = re.compile(r"\b(?:last|latest|final|finally|later)\b", re.I)
#: "the instrument on the right of the first sounding one": the order names the reference, not the answer.
_RELATION_Q = re.compile(r"\b(?:left|right|middle|cent(?:er|re)|next to|beside)\b", re.I)
#: "opens with a burst of noise", "ends with the violin": the option just after names that end of the order.
_OPENS = re.compile(r"\b(?:opens|begins|starts|kicks off|leads off)\s+with\s+(?:\w+\s+){0,3}$")
_TOGETHER = re.compile(r"\b(?:simultaneous(?:ly)?|same time|together|at once)\b", re.I)
#: "the noise is heard at the very beginning", "the violin comes in last": said just after the option.
_AT_START = re.compile(r"\s*(?:\w+\s+){0,5}?(?:at (?:very )?(?:beginning|start)|first|opens)\b")
_AT_END = re.compile(r"\s*(?:\w+\s+){0,5}?(?:at (?:very )?end|last|closes)\b")
_CLOSES = re.compile(r"\b(?:ends|closes|finishes|concludes|wraps up)\s+with\s+(?:\w+\s+){0,3}$")


def order_answer(span: str, mentions: Sequence[tuple[str, int, int]], question: str) -> str | None:
    """For "which comes first / last" questions: the option at that end of the order the span describes.

    ``mentions`` are (option, start, end) in the span's text order, with positions in ``span``.
    """
    asks_first, asks_last = bool(_FIRST_Q.search(question)), bool(_LAST_Q.search(question))
    if asks_first == asks_last or len(mentions) < 2 or _RELATION_Q.search(question):
        return None
    if len({m[0] for m in mentions}) != len(mentions):
        return None
    if HEDGE.search(span) or _TOGETHER.search(span):
        return None
    ends = [
        m[0]
        for m in mentions
        if (_OPENS if asks_first else _CLOSES).search(span[: m[1]])
        or (_AT_START if asks_first else _AT_END).match(span[m[2] :])
    ]
    if ends:
        return ends[0] if len(ends) == 1 else None
    # every link between two mentions reads one way, forwards ("followed by") or backwards ("preceded by")
    links = {
        (bool(_FORWARD.search(span[end:start])), bool(_BACKWARD.search(span[end:start])))
        for (_, _, end), (_, start, _) in pairwise(mentions)
    }
    if links not in ({(True, False)}, {(False, True)}):
        return None
    order = [m[0] for m in mentions] if links == {(True, False)} else [m[0] for m in reversed(mentions)]
    return order[0] if asks_first else order[-1]


_COMES_LATER = re.compile(
    r"\w+\s+(?:\w+\s+){0,2}?(?:only\s+)?(?:starts?|comes?|begins?|enters?|joins?|follows?)\s+(?:in\s+)?"
    r"(?:after|later|afterwards|second)\b"
)
_LED_TO = re.compile(r"\b(?:followed by|then|after that|afterwards|later|joined by)\s+(?:\w+\s+){0,3}$")
_LED_FROM = re.compile(r"\b(?:preceded by|before that|earlier)\s+(?:\w+\s+){0,3}$")


def other_end(span: str, start: int, question: str) -> bool:
    """For "which comes first / last" questions: the option mentioned at ``start`` of the (normalised) span is
    said to come at the other end ("... followed by a burst of noise" when asked what comes first)."""
    asks_first, asks_last = bool(_FIRST_Q.search(question)), bool(_LAST_Q.search(question))
    if asks_first == asks_last or _RELATION_Q.search(question):
        return False
    if asks_first and _COMES_LATER.match(span[start:]):
        return True  # "the static noise only starts after it", "the piano joins later"
    return bool((_LED_TO if asks_first else _LED_FROM).search(span[:start]))
