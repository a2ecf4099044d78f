"""MMAR and MMAU test-mini scoring: the official token-set match, the strict option match, the breakdowns. Pure.

Both benchmarks' official scorers share one matching rule (:func:`token_set_match`) and differ only in the
prediction key and the breakdown fields, so one code path scores both, driven by a tuple of :class:`Breakdown`.
The plug-in builds the official scorer's shape with the multiple-choice kit's ``accuracy_by``: one mapping per
breakdown field from group to ``{"accuracy": percent (unrounded), "n": count}``, plus ``total``.

Two behaviours of the official scripts are not reproduced because they crash instead of scoring: a breakdown value
outside the fixed key set (KeyError there) is reported as an extra group after the fixed ones, and a file in which
no record has a prediction (ZeroDivisionError there) gets a ``total`` accuracy of ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from avibench.level_metrics.profile import lookup_profile

_OFFICIAL_TOKEN = re.compile(r"\b\w+\b")


def official_tokens(text: str) -> set[str]:
    """The official tokenizer: the *set* of lowercased ``\\w+`` runs (Unicode-aware, so a CJK run is one token)."""
    return set(_OFFICIAL_TOKEN.findall(text.lower()))


def token_set_match(answer: str, prediction: str, choices: Sequence[str]) -> bool:
    """The official rule: every answer token is in the prediction and no distractor-only token is.

    Distractor-only tokens are those of each choice whose token set differs from the answer's, minus the answer's
    tokens; a distractor with exactly the answer's token set ("near to far" vs "far to near") adds nothing, so
    predicting it verbatim scores correct. A prediction with no token is wrong.
    """
    predicted = official_tokens(prediction)
    if not predicted:
        return False
    gold = official_tokens(answer)
    wrong: set[str] = set()
    for choice in choices:
        tokens = official_tokens(choice)
        if tokens != gold:
            wrong |= tokens - gold
    return gold <= predicted and predicted.isdisjoint(wrong)


@dataclass(frozen=True)
class MmarProfile:
    """The switches of one MMAR/MMAU scoring profile (``True`` = behave like the official scorer)."""

    name: str

    token_set_match: bool = True
    """Reference: the raw answer is scored by :func:`token_set_match`, a bag of words: word order is ignored (a
    distractor with the answer's words in another order scores correct), a letter-only answer is never correct,
    and reasoning that mentions a distractor's word is wrong. When False the option the strict extractor read from
    the answer must be the gold option, and an answer it could not read is wrong."""

    skip_missing: bool = True
    """Reference: a record without the prediction key is skipped, so the denominator shrinks with every missing
    answer and a partial run looks complete. When False a question without an answer (failed, never asked or
    missing from the file) is scored wrong."""

    empty_group_zero: bool = True
    """Reference: the fixed breakdown keys are always reported, and one with no scored record prints 0% accuracy,
    which reads like a real score. When False its accuracy is ``None``."""


REFERENCE = MmarProfile(name="reference")
STRICT = MmarProfile(name="strict", token_set_match=False, skip_missing=False, empty_group_zero=False)
PROFILES: dict[str, MmarProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def get_profile(name: str | MmarProfile) -> MmarProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    return lookup_profile(name, PROFILES)


@dataclass(frozen=True)
class Breakdown:
    """One breakdown of the results: the record field, its fixed groups in the official order (empty: groups in
    first-seen order), and the heading the official scorer prints (``None``: not an official breakdown)."""

    field: str
    fixed: tuple[str, ...] = ()
    title: str | None = None


MMAR_MODALITIES: tuple[str, ...] = (
    "sound", "music", "speech", "mix-sound-music", "mix-sound-speech", "mix-music-speech", "mix-sound-music-speech",
)  # fmt: skip
MMAR_CATEGORIES: tuple[str, ...] = ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer")
MMAU_TASKS: tuple[str, ...] = ("sound", "music", "speech")
MMAU_DIFFICULTIES: tuple[str, ...] = ("easy", "hard", "medium")
SUB_CATEGORY = Breakdown("sub-category", title="Sub-category-wise Accuracy:")

MMAR_BREAKDOWNS: tuple[Breakdown, ...] = (
    Breakdown("modality", MMAR_MODALITIES, "Modality-wise Accuracy:"),
    Breakdown("category", MMAR_CATEGORIES, "Category-wise Accuracy:"),
    SUB_CATEGORY,
)
#: MMAU's official breakdowns, then ``category`` (not printed officially; 13 items store it as a one-element list).
MMAU_BREAKDOWNS: tuple[Breakdown, ...] = (
    Breakdown("task", MMAU_TASKS, "Task-wise Accuracy:"),
    Breakdown("difficulty", MMAU_DIFFICULTIES, "Difficulty-wise Accuracy:"),
    SUB_CATEGORY,
    Breakdown("category"),
)
