"""STAR-Bench scoring profiles: each official quirk that changes a STAR-Bench score is one named switch.

``REFERENCE`` reproduces the official evaluator (its answer parser, its per-dataset ``performance.json`` and its
``Final MA`` summary row); ``STRICT`` fixes its defects. Parser and aggregation read the same profile.
"""

from __future__ import annotations

from dataclasses import dataclass

from avibench.level_metrics.profile import lookup_profile


@dataclass(frozen=True)
class StarBenchProfile:
    """The switches of one STAR-Bench scoring profile (defaults = the official behaviour)."""

    name: str

    official_parser: bool = True
    """Official: a rule-based parser reads the letter (see :mod:`avibench.level_metrics.starbench_parse`). Its
    defects: letters are matched case-insensitively after a keyword, so "answer is (b)" yields ``<b>``, which never
    equals the upper-case gold letter; the English article counts as a letter ("The answer is a dog." yields
    ``<a>``, "A baby is crying" yields ``<A>``); a letter needs a Unicode word boundary, so "答案是C" finds nothing;
    "I choose B" is no keyword, so an option echoed earlier wins; negated mentions count ("not left to right");
    a hedge ("might be sad or neutral", "Possibly B, possibly C") resolves to whichever mention ranks highest;
    and a one- or two-word option text ("Left") is unparsed. When False the extractor shared by every option
    benchmark reads the response: case-normalised letters, CJK cues, commitments such as "I choose B", negation
    aware, and a hedge or refusal is unparsed (never a guess)."""

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
    official_parser=False,
    two_decimal_values=False,
    error_strings_are_answers=False,
    incomplete_ids_dropped=False,
    repeated_runs_count_twice=False,
)

PROFILES: dict[str, StarBenchProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def get_profile(name: str | StarBenchProfile) -> StarBenchProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    return lookup_profile(name, PROFILES)
