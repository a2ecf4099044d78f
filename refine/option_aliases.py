"""What models write instead of an option's own words ("rotating" for "Rotation", "stationary" for "No
movement", "the second clip" for "last"), as patterns over normalised text.

An alias counts as a mention of its option only when the option is offered and the alias is not itself the
wording of another offered option (the "the middle one" option keeps "middle" from meaning "center"). Every
alias is a paraphrase a careful reader would map without doubt; anything that could mean two options (a
"guitar" that is electric, "moderately rough") is left out or fenced off with a lookaround, so the rules
refuse rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from avibench.refine.vocab import SHAPE_WORDS

#: Normalised option text -> regular expressions over normalised answer text that also name it.
#: Normalised text is lowercase words separated by single spaces, articles dropped, clause punctuation as "|".
OPTION_ALIASES: dict[str, tuple[str, ...]] = {
    # VSQA video, what_movement_3d
    "rotation": (r"rotat(?:es|ing|e|ed)", r"spin(?:s|ning)?", r"revolv(?:es|ing)"),
    "shrinking": (r"shrinks?", r"shrank", r"gets? smaller", r"getting smaller", r"becom(?:es|ing) smaller"),
    "enlarging": (
        r"enlarges?",
        r"grow(?:s|ing)? (?:larger|bigger)",
        r"gets? (?:larger|bigger)",
        r"getting (?:larger|bigger)",
        r"becom(?:es|ing) (?:larger|bigger)",
        r"expand(?:s|ing)?",
    ),
    "translation": (r"translat(?:es|ing)",),
    # VSQA video, what_movement_2d ("no movenment" normalises to this) and spacial_change
    "no movement": (
        r"(?:doesnt|does not|did not|didnt) move",
        r"(?:is|was) not moving",
        r"(?:isnt|wasnt) moving",
        r"stationary",
        r"motionless",
        r"(?:stays|remains|stands|stay|remain) (?:still|static|in place|put)",
        r"no motion",
    ),
    # VSQA image: get_from_space_hard, get_lines_direction, get_from_space_easy_*
    "top left": (r"upper left",),
    "top right": (r"upper right",),
    "bottom left": (r"lower left",),
    "bottom right": (r"lower right",),
    "top center": (r"upper (?:center|middle)", r"top middle"),
    "bottom center": (r"lower (?:center|middle)", r"bottom middle"),
    "horizontal": (r"horizontally",),
    "vertical": (r"vertically",),
    "inclined": (r"diagonal(?:ly)?", r"slanted", r"oblique(?:ly)?", r"tilted"),
    "top one": (r"one (?:on|at) top", r"top (?:square|object|shape|circle)"),
    "bottom one": (r"one (?:on|at) bottom", r"bottom (?:square|object|shape|circle)"),
    "left one": (r"one on left", r"left (?:square|object|shape|circle)"),
    "right one": (r"one on right", r"right (?:square|object|shape|circle)"),
    "middle one": (r"one in (?:middle|center)", r"middle (?:square|object|shape|circle)"),
    # VSQA image, get_from_image_triple
    "blurred": (r"blurry", r"out of focus", r"fuzzy"),
    # shapes: what_shape, which_object
    "sphere": (r"balls?",),
    "cube": (r"box(?:es)?",),
    "triangular pyramid": (r"tetrahedron", r"(?<!square )(?<!rectangular )pyramid"),
    "circle": (r"circular",),
    "triangle": (r"triangular(?! pyramid)",),
    # two-clip questions (ASQA clarity and volume): "the second clip", "clip 2", "the latter"
    "first": (
        r"former",
        r"1st",
        r"(?:clip|audio|segment|recording|track|sample|sound) (?:1|one)\b(?! second)",
        r"(?:clip|audio|segment|recording|track|sample|sound|one|part) at (?:start|beginning)",
        r"(?:earlier|opening|initial) (?:clip|audio|segment|recording|track|sample|one|part|sound)",
    ),
    "last": (
        r"second(?= (?:clip|audio|segment|recording|track|sample|one|half|sound))",
        r"2nd",
        r"latter",
        r"(?:clip|audio|segment|recording|track|sample|sound) (?:2|two)\b(?! second)",
        r"(?:clip|audio|segment|recording|track|sample|sound|one|part) at end",
        r"(?:later|final|closing) (?:clip|audio|segment|recording|track|sample|one|part|sound)",
    ),
    "same": (
        r"equally",
        r"identical",
        r"no (?:noticeable )?difference",
        r"equal (?:in )?(?:clarity|volume|loudness)",
    ),
    # AVQA instruments (class names use underscores; models write the instrument as people say it)
    "acoustic guitar": (r"(?<!electric )(?<!bass )(?<!steel )guitar",),
    "electric bass": (r"bass guitar", r"(?<!double )(?<!upright )bass(?! drum)(?! guitar)"),
    "drum": (r"drum kit", r"drum set"),
    "congas": (r"conga drums?", r"congas?"),
}
#: Option words that are nouns, matched in the plural too ("the drums", "two cones"): shapes and instruments.
PLURAL_NOUNS = SHAPE_WORDS | frozenset(
    {"ukulele", "cello", "clarinet", "violin", "bassoon", "accordion", "banjo", "tuba", "flute", "bass",
     "bagpipe", "drum", "conga", "suona", "xylophone", "saxophone", "guzheng", "trumpet", "erhu", "piano",
     "guitar", "pipa"}
)  # fmt: skip
#: Options whose alias "last" and "first" wordings need the two-clip framing: they are only aliased when
#: "second" is not itself an option.
_ORDINAL_OPTIONS = frozenset({"first", "last"})
#: Aliases that could also mean another option when that one is offered: a "box" may be a cuboid.
_SHARED_WITH: dict[str, frozenset[str]] = {r"box(?:es)?": frozenset({"cuboid"})}


@cache
def _compiled(alias: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{alias})\b")


def aliases_for(option_keys: Iterable[str]) -> list[tuple[str, re.Pattern[str]]]:
    """(option key, pattern) for every alias of the offered options (normalised keys), excluding aliases that
    would match another offered option's own wording."""
    return _aliases(tuple(option_keys))


@cache
def _aliases(option_keys: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    """:func:`aliases_for` for one option list, worked out once: every answer to a question shares it."""
    keys = option_keys
    out: list[tuple[str, re.Pattern[str]]] = []
    if "second" in keys:
        keys = tuple(k for k in keys if k not in _ORDINAL_OPTIONS)
    for key in keys:
        for alias in OPTION_ALIASES.get(key, ()):
            pattern = _compiled(alias)
            if any(other != key and pattern.search(other) for other in option_keys):
                continue
            if _SHARED_WITH.get(alias, frozenset()) & set(option_keys):
                continue
            out.append((key, pattern))
    return out
