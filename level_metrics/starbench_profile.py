"""STAR-Bench scoring profiles: each official quirk that changes a STAR-Bench score is one named switch.

``REFERENCE`` reproduces the official evaluator (its answer parser, its per-dataset ``performance.json`` and its
``Final MA`` summary row); ``STRICT`` fixes its defects. Parser and aggregation read the same profile.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StarBenchProfile:
    """The switches of one STAR-Bench scoring profile (defaults = the official behaviour)."""

    name: str

    lowercase_letter_quirk: bool = True
    """Official: the keyword pass is case-insensitive for the letters too, so "answer is (b)" yields ``<b>``, which
    never equals the upper-case gold letter, and "The answer is a dog." yields ``<a>``. When False captured letters
    are upper-cased, bracketed lower-case letters count in both passes, and a bare ``a``/``i`` followed by a word
    is read as an English word, not a choice."""

    unicode_word_boundary: bool = True
    """Official: a letter must stand at a Unicode word boundary, and CJK characters are word characters, so
    "答案是C" finds nothing. When False only a Latin letter or digit next to the letter stops it matching."""

    commitment_keywords: bool = False
    """Official: only answer/solution/choice/option (and two Chinese phrases) introduce a keyword hit, so in
    "Option A: ... I choose B." the echoed option wins. When True "choose", "pick", "select", "go with" and
    "I'd say" introduce keyword hits as well."""

    negation_aware: bool = False
    """Official: a mention counts even when negated, so in "right to left, not left to right" the last-mentioned
    (negated) option wins. When True a mention right after "not", "n't", "never", "rather than", "instead of" or
    "except", or right before "is wrong/incorrect/not", is ignored."""

    hedges_unparsed: bool = False
    """Official: "A or B" resolves to whichever letter the ranks pick. When True a response that offers two
    different letters as alternatives ("A or B", "(A)/(C)") and commits to nothing after that is unparsed."""

    option_text_min_words: int = 3
    """Official: option texts are matched only when the response has more than two words, so a bare "Left" is
    unparsed. Strict matches option texts in any non-empty response."""

    two_decimal_values: bool = True
    """Official: every AA/ACR is written as a two-decimal percent string, and the perception macro means and the
    ``Final MA`` row average those rounded values. When False the exact values are kept throughout."""

    error_strings_are_answers: bool = True
    """Official: a failed request is stored as the answer ``"ERROR: ..."`` and parsed like one (normally wrong,
    occasionally right when the message contains a bracketed letter). When False such a row is a failure: it is
    counted wrong and reported as failed, never parsed."""

    incomplete_ids_dropped: bool = True
    """Official: the evaluator asserts that every id has all its runs and crashes otherwise. Here an id with a
    missing run is left out and listed as incomplete (the complete ids are scored). When False a missing run
    counts as a wrong run."""

    repeated_runs_count_twice: bool = True
    """Official: spatial items always get three cyclic shifts, so a two-option item is asked twice in the same
    order (shift 2 equals shift 0) and that presentation weighs double in AA and ACR. When False runs presenting
    the same options and clips in the same order count once (the first answered one)."""


REFERENCE = StarBenchProfile(name="reference")
STRICT = StarBenchProfile(
    name="strict",
    lowercase_letter_quirk=False,
    unicode_word_boundary=False,
    commitment_keywords=True,
    negation_aware=True,
    hedges_unparsed=True,
    option_text_min_words=1,
    two_decimal_values=False,
    error_strings_are_answers=False,
    incomplete_ids_dropped=False,
    repeated_runs_count_twice=False,
)

PROFILES: dict[str, StarBenchProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def get_profile(name: str | StarBenchProfile) -> StarBenchProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    if isinstance(name, StarBenchProfile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown scoring profile {name!r}; known profiles: {', '.join(PROFILES)}") from None
