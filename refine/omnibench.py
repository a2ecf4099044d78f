"""OmniBench answer parsing: the official letter parser of the reference profile.

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
"""

from __future__ import annotations

from collections.abc import Sequence

from avibench.kits import multiple_choice as mc

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
