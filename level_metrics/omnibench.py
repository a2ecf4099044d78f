"""OmniBench's official scorer: its letter parser (the reference profile's reading) and the counts and rates
from each question's verdict. Pure.

:func:`official_letter` behaves as the official ``parse_multi_choice_response`` (OmniBench's
``inference/answer_parsing.py``, adapted from MMMU) called as ``calculate_metrics.py`` calls it: no stripping, a
fixed answer of "N/A" (here ``None``) instead of a random letter when nothing is found. It reads substrings, not
words, which is what makes it quirky:

1. any ``(X)`` in the reply (X = A-D); several: the one whose last ``(X)`` comes last;
2. else any ``X`` followed by a space ("A man is ..." names option A), else any ``X.`` ("... plan D."); several:
   the one whose last `` X `` (spaces both sides) comes last, and when none has one, the first letter A-D found;
3. else, for a reply of more than five words, every option whose text (lowercased) is a substring of the reply;
   several: the one whose text occurs last.

The scorer parses the gold answer *text* with the same function, so a gold answer may read as another option's
letter, or as nothing.

The result has the official ``calculate_metrics.py``'s names and units: ``total`` questions, the counts
``n_correct_response`` / ``n_invalid_response`` / ``n_wrong_response``, ``Accuracy`` and ``Invalid Rate`` as
fractions of ``total`` (the script prints them with four decimals; here they are unrounded), and
``stats_by_audio_type``: per audio type (music, speech, sound event, in the script's order) its ``total``, the three
counts and their rates (``Correct Rate``, ``Invalid Rate``, ``Wrong Rate``, fractions of the type's total). The
strict profile adds ``stats_by_task_type`` in the same shape.

A question is *invalid* when there is no answer to score (no row for it in the inference output, or the row the
official pipeline leaves for it with an empty ``question``); every other question is correct or wrong, so the
three counts always add up to ``total``. Where the script divides by zero (an audio type without questions), the
rate is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from avibench.kits import multiple_choice as mc

#: The audio types the official scorer knows, in its order (any other crashes it; loading rejects them).
AUDIO_TYPES: tuple[str, ...] = ("music", "speech", "sound event")
VERDICTS: tuple[str, ...] = ("correct", "invalid", "wrong")
#: The official parser needs more words than this before it matches option texts.
CONTENT_MIN_WORDS = 5


def official_letter(response: str, options: Sequence[str]) -> str | None:
    """The letter the official parser reads from ``response`` given the four ``options``; ``None`` for its
    "N/A" (nothing found). Of several candidates the one found last wins; on a tie (none found at all) the first
    letter, as ``max`` keeps the first of equal keys."""
    padded = f" {response} "
    letters = mc.letters_for(options)
    bracketed = [c for c in letters if f"({c})" in padded]
    if bracketed:
        return max(bracketed, key=lambda c: padded.rfind(f"({c})"))
    spaced = [c for c in letters if f"{c} " in padded] or [c for c in letters if f"{c}." in padded]
    if spaced:
        return max(spaced, key=lambda c: padded.rfind(f" {c} "))
    if len(padded.split()) <= CONTENT_MIN_WORDS:
        return None
    lowered = padded.lower()
    texts = dict(zip(letters, (str(o).lower() for o in options), strict=True))
    named = [c for c in letters if texts[c] in lowered]
    return max(named, key=lambda c: lowered.rfind(texts[c])) if named else None


def verdict(answered: bool, score: float | None) -> str:
    """``invalid`` when a question has no answer to score, else ``correct`` or ``wrong`` by its score."""
    if not answered:
        return "invalid"
    return "correct" if score else "wrong"


def _stats(verdicts: Sequence[str]) -> dict[str, Any]:
    total = len(verdicts)
    counts = {v: sum(x == v for x in verdicts) for v in VERDICTS}
    rates = {f"{v.title()} Rate": counts[v] / total if total else None for v in VERDICTS}
    return {"total": total, **{f"n_{v}_response": counts[v] for v in VERDICTS}, **rates}


def _grouped(keys: Iterable[str], verdicts: Sequence[str], fixed: Sequence[str] = ()) -> dict[str, Any]:
    groups: dict[str, list[str]] = {key: [] for key in fixed}
    for key, one in zip(keys, verdicts, strict=True):
        groups.setdefault(key, []).append(one)
    return {key: _stats(values) for key, values in groups.items()}


def official_result(
    verdicts: Sequence[str], audio_types: Sequence[str], task_types: Sequence[str] | None = None
) -> dict[str, Any]:
    """The official-shape result from each question's verdict (``correct``, ``invalid`` or ``wrong``) and its
    audio type; with ``task_types``, also broken down by task type (the strict profile)."""
    whole = _stats(verdicts)
    result: dict[str, Any] = {k: whole[k] for k in ("total", *(f"n_{v}_response" for v in VERDICTS))}
    result["Accuracy"], result["Invalid Rate"] = whole["Correct Rate"], whole["Invalid Rate"]
    result["stats_by_audio_type"] = _grouped(audio_types, verdicts, AUDIO_TYPES)
    if task_types is not None:
        result["stats_by_task_type"] = _grouped(task_types, verdicts)
    return result
