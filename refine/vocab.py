"""Mapping the names models use onto a task's class list: case, plurals, spaces versus hyphens, modifiers.

The scorers compare class names as exact strings, so "Dogs", "hair dryer" and "black dog" must become "dog",
"hair-dryer" and "dog". Only the everyday names listed in ``SYNONYMS`` map onto another word ("puppy" ->
"dog", "man" -> "person" where the list has no "man"); any other name that maps onto no class is kept as written
(the AVL rules then refuse it, the counting rules keep it for the scorer to count as the wrong class it is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import inflect

#: Class-list entries that are answers about the list, not objects to look for in prose.
META_CLASSES = frozenset({"not sure", "no available option"})


@cache
def _engine() -> inflect.engine:
    """inflect, imported on first use: its import takes seconds, which a refine that never meets a plural (or
    a ``--help``) should not pay."""
    import inflect

    return inflect.engine()


def squash(name: str) -> str:
    """A spelling-insensitive key: lowercase letters and digits only ("Hair Dryer" -> "hairdryer")."""
    return re.sub(r"[^a-z0-9]+", "", name.lower())


@lru_cache(maxsize=8192)
def singular(word: str) -> str:
    """The singular of an English noun phrase's last word, or the word itself."""
    if not word or len(word) > 60:
        return word
    try:
        result = _engine().singular_noun(word)
    except Exception:
        return word
    return result if isinstance(result, str) and result else word


@cache
def _index(classes: tuple[str, ...]) -> dict[str, str]:
    return {squash(c): c for c in classes if squash(c)}


@cache
def two_word_classes(classes: tuple[str, ...]) -> dict[str, str]:
    """Hyphenated classes by their spaced spelling ("hair dryer" -> "hair-dryer")."""
    return {c.replace("-", " "): c for c in classes if "-" in c}


#: Everyday names for a class, used only when the name itself is not a class of the list and the class is
#: ("kitten" -> "cat"; "man" -> "person" for AVL, whose list has no "man"). Each one names the class without doubt.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "cat": ("kitten", "kitty"),
    "dog": ("puppy", "doggy"),
    "mower": ("lawnmower", "lawn mower"),
    "lawn-mower": ("lawnmower", "lawn mower", "mower"),
    "person": ("man", "woman", "boy", "girl", "people", "persons", "human", "lady", "gentleman", "child", "kid",
               "musician", "singer", "male", "female", "vocalist", "performer", "player"),
    "man": ("gentleman",),
    "woman": ("lady",),
    "drum": ("drum kit", "drumkit", "drum set", "drums"),
    "saxophone": ("sax",),
    "airplane": ("plane", "aeroplane", "aircraft", "jet", "airliner"),
}  # fmt: skip


@cache
def _synonyms(classes: tuple[str, ...]) -> dict[str, str]:
    present = {squash(c) for c in classes}
    return {
        squash(word): target
        for target, words in SYNONYMS.items()
        if target in classes
        for word in words
        if squash(word) not in present
    }


def match_class(name: str, classes: Sequence[str]) -> str | None:
    """The class a name denotes, or ``None`` when it denotes none (or several) of them."""
    index = _index(tuple(classes))
    text = name.strip().lower()
    if not text or len(text) > 80:
        return None
    hit = index.get(squash(text)) or index.get(squash(singular(text)))
    if hit is not None:
        return hit
    synonyms = _synonyms(tuple(classes))
    hit = synonyms.get(squash(text)) or synonyms.get(squash(singular(text)))
    if hit is not None:
        return hit
    parts = re.findall(r"[a-z0-9]+", text)
    found = {
        c
        for p in parts
        if (c := index.get(squash(p)) or index.get(squash(singular(p))) or synonyms.get(squash(p)))
        is not None
    }  # "man singing" -> person
    found -= META_CLASSES
    if len(found) == 1:
        return found.pop()
    return None


def normalise_key(name: str, classes: Sequence[str]) -> str:
    """A dict key from a model onto the class list when possible, else as written (blanks collapsed)."""
    hit = match_class(name, classes)
    return hit if hit is not None else " ".join(name.split())


def class_at(tokens: Sequence[str], i: int, classes: tuple[str, ...]) -> tuple[str, int] | None:
    """The class named at token ``i`` (two-word names like "hair dryer" first) and the tokens it spans."""
    for width in (2, 1):
        if i + width > len(tokens):
            continue
        phrase = re.sub(r"'s$", "", " ".join(tokens[i : i + width]))
        if width == 2:
            spaced = two_word_classes(classes)
            hit = spaced.get(phrase) or spaced.get(singular(phrase)) if spaced else None
        else:
            known = phrase in classes or singular(phrase) in classes
            hit = match_class(phrase, classes) if known else _synonyms(classes).get(squash(singular(phrase)))
        if hit is not None and hit not in META_CLASSES:
            return hit, width
    return None


def classes_in(text: str, classes: tuple[str, ...]) -> list[str]:
    """The distinct classes a text names, in order of first mention."""
    tokens = [re.sub(r"_\d+$", "", t) for t in re.findall(r"[a-z0-9]+(?:['_-][a-z0-9]+)*", text.lower())]
    found: list[str] = []
    i = 0
    while i < len(tokens):
        hit = class_at(tokens, i, classes)
        if hit is None:
            i += 1
            continue
        found.append(hit[0])
        i += hit[1]
    return list(dict.fromkeys(found))


#: Shape and colour words, to tell when an answer names something of the options' kind that is no option.
SHAPE_WORDS = frozenset(
    {"cube", "sphere", "cone", "pyramid", "cylinder", "cuboid", "prism", "torus", "ball", "box", "block",
     "tetrahedron", "ring", "disk", "disc", "capsule", "star", "triangle", "square", "circle", "rectangle",
     "octahedron", "hexagon", "pentagon", "oval", "ellipse", "donut", "heart"}
)  # fmt: skip
COLOUR_WORDS = frozenset(
    {"red", "blue", "white", "black", "gray", "grey", "green", "yellow", "purple", "orange", "pink", "brown",
     "cyan", "magenta", "violet", "silver", "gold", "golden", "beige", "teal", "turquoise", "maroon", "navy"}
)  # fmt: skip
