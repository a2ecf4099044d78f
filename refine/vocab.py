"""Mapping the names models use onto a task's class list and onto option wording.

The scorers compare class names as exact strings, so "Dogs", "hair dryer" and "black dog" must become "dog",
"hair-dryer" and "dog". Only the everyday names listed as ``class_synonyms`` map onto another word ("puppy" ->
"dog", "man" -> "person" where the list has no "man"); any other name that maps onto no class is kept as written
(the AVL rules then refuse it, the counting rules keep it for the scorer to count as the wrong class it is).

Option aliases are what models write instead of an option's own words ("rotating" for "Rotation",
"stationary" for "No movement", "the second clip" for "last"), as patterns over normalised text. An alias
counts as a mention of its option only when the option is offered and the alias is not itself the wording of
another offered option (the "the middle one" option keeps "middle" from meaning "center"). Every alias is a
paraphrase a careful reader would map without doubt; anything that could mean two options (a "guitar" that is
electric, "moderately rough") is left out or fenced off with a lookaround, so the rules refuse rather than
guess. The word lists and alias tables are data: ``prompts/avibench/refine_vocabulary.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

import yaml

from avibench.definitions import prompt_resource

if TYPE_CHECKING:
    import inflect

#: The rules' word lists and alias tables, by name (each list's meaning is written beside it in the file).
VOCABULARY: dict[str, Any] = yaml.safe_load(prompt_resource("avibench", "refine_vocabulary.yaml"))
META_CLASSES = frozenset(VOCABULARY["meta_classes"])
SHAPE_WORDS = frozenset(VOCABULARY["shape_words"])
COLOUR_WORDS = frozenset(VOCABULARY["colour_words"])
#: Option words that are nouns, matched in the plural too ("the drums", "two cones"): shapes and instruments.
PLURAL_NOUNS = SHAPE_WORDS | frozenset(VOCABULARY["plural_instruments"])


def any_of(name: str) -> str:
    """A vocabulary list as a regular expression matching any of its phrases as whole words."""
    return rf"\b(?:{'|'.join(VOCABULARY[name])})\b"


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


@cache
def _synonyms(classes: tuple[str, ...]) -> dict[str, str]:
    present = {squash(c) for c in classes}
    return {
        squash(word): target
        for target, words in VOCABULARY["class_synonyms"].items()
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
    if (hit := index.get(squash(text)) or index.get(squash(singular(text)))) is not None:
        return hit
    synonyms = _synonyms(tuple(classes))
    if (hit := synonyms.get(squash(text)) or synonyms.get(squash(singular(text)))) is not None:
        return hit
    parts = re.findall(r"[a-z0-9]+", text)
    found = {
        c
        for p in parts
        if (c := index.get(squash(p)) or index.get(squash(singular(p))) or synonyms.get(squash(p)))
        is not None
    }  # "man singing" -> person
    found -= META_CLASSES
    return found.pop() if len(found) == 1 else None


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
        if (hit := class_at(tokens, i, classes)) is None:
            i += 1
            continue
        found.append(hit[0])
        i += hit[1]
    return list(dict.fromkeys(found))


@cache
def aliases_for(option_keys: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    """(option key, pattern) for every alias of the offered options (normalised keys), excluding aliases that
    would match another offered option's own wording; worked out once per option list, which every answer to
    a question shares. The "first"/"last" aliases need the two-clip framing: they are only used when "second"
    is not itself an option."""
    keys = option_keys
    out: list[tuple[str, re.Pattern[str]]] = []
    if "second" in keys:
        keys = tuple(k for k in keys if k not in ("first", "last"))
    for key in keys:
        for alias in VOCABULARY["option_aliases"].get(key, ()):
            pattern = re.compile(rf"\b(?:{alias})\b")
            if any(other != key and pattern.search(other) for other in option_keys):
                continue
            if set(VOCABULARY["aliases_shared_with"].get(alias, ())) & set(option_keys):
                continue
            out.append((key, pattern))
    return out
