"""Mapping the names models use onto a task's class list: case, plurals, spaces versus hyphens, modifiers.

The scorers compare class names as exact strings, so "Dogs", "hair dryer" and "black dog" must become "dog",
"hair-dryer" and "dog". No synonyms are invented ("puppy" stays "puppy"): a name that maps onto no class is
kept as written, which the scorer then counts as the wrong class it is.
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


def match_class(name: str, classes: Sequence[str]) -> str | None:
    """The class a name denotes, or ``None`` when it denotes none (or several) of them."""
    index = _index(tuple(classes))
    text = name.strip().lower()
    if not text or len(text) > 80:
        return None
    hit = index.get(squash(text)) or index.get(squash(singular(text)))
    if hit is not None:
        return hit
    parts = re.findall(r"[a-z0-9]+", text)
    found = {c for p in parts if (c := index.get(squash(p)) or index.get(squash(singular(p)))) is not None}
    found -= META_CLASSES
    if len(found) == 1:
        return found.pop()
    return None


def normalise_key(name: str, classes: Sequence[str]) -> str:
    """A dict key from a model onto the class list when possible, else as written (blanks collapsed)."""
    hit = match_class(name, classes)
    return hit if hit is not None else " ".join(name.split())
