"""MMAR and MMAU test-mini scoring: the official token-set match and the breakdowns. Pure.

Both benchmarks' official scorers share one matching rule (:func:`token_set_match`) and differ only in the
prediction key and the breakdown fields (accuracy percentages unrounded), so one code path scores both.

Two behaviours of the official scripts are not reproduced because they crash instead of scoring: a breakdown value
outside the fixed key set (KeyError there) is reported as an extra group after the fixed ones, and a file in which
no record has a prediction (ZeroDivisionError there) gets a ``total`` accuracy of ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


MMAR_MODALITIES: tuple[str, ...] = (
    "sound", "music", "speech", "mix-sound-music", "mix-sound-speech", "mix-music-speech", "mix-sound-music-speech",
)  # fmt: skip
MMAR_CATEGORIES: tuple[str, ...] = ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer")
MMAU_TASKS: tuple[str, ...] = ("sound", "music", "speech")
MMAU_DIFFICULTIES: tuple[str, ...] = ("easy", "hard", "medium")
