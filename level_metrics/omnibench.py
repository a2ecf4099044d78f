"""OmniBench scoring: verdicts from parsed letters, the official counts and rates, both profiles. Pure.

The result has the official ``calculate_metrics.py``'s names and units: ``total`` questions, the counts
``n_correct_response`` / ``n_invalid_response`` / ``n_wrong_response``, ``Accuracy`` and ``Invalid Rate`` as
fractions of ``total`` (the script prints them with four decimals; here they are unrounded), and
``stats_by_audio_type``: per audio type (music, speech, sound event, in the script's order) its ``total``, the three
counts and their rates (``Correct Rate``, ``Invalid Rate``, ``Wrong Rate``, fractions of the type's total). The
strict profile adds ``stats_by_task_type`` in the same shape. :func:`official_lines` renders the text the script
prints.

A question is *invalid* when there is no answer to score (no row for it in the inference output, or the row the
official pipeline leaves for it with an empty ``question``); every other question is correct or wrong, so the
three counts always add up to ``total``. Where the script divides by zero (an audio type without questions), the
rate is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from avibench.kits.multiple_choice import letters_for
from avibench.level_metrics.profile import lookup_profile

#: The audio types the official scorer knows, in its order (any other crashes it; loading rejects them).
AUDIO_TYPES: tuple[str, ...] = ("music", "speech", "sound event")
#: The letters the official prompt shows, in option order.
LETTERS: tuple[str, ...] = letters_for(4)
VERDICTS: tuple[str, ...] = ("correct", "invalid", "wrong")


@dataclass(frozen=True)
class OmniBenchProfile:
    """The switches of one OmniBench scoring profile (``True`` = behave like the official scorer)."""

    name: str

    gold_from_answer_text: bool = True
    """Reference: the gold letter is what the official parser reads from the gold answer's *text*, not the
    answer's position among the options; an answer such as "A man is answering" reads as A wherever it stands,
    and a short answer without a letter ("Two beeps, a circle") reads as nothing. When False the gold letter is
    the letter of the option equal to the answer."""

    official_parser: bool = True
    """Reference: the reply's letter is what the official substring parser reads: "A or B" and "not A, it is B"
    read as B (the last letter), a hedge or a refusal reads as whatever letter or option text it contains, and
    "b" or "**B**" reads as nothing. When False it is the strict extractor's choice (hedges, refusals and
    answers naming two options unparsed; bold and lowercase letters read)."""

    unparsed_matches_unparsed: bool = True
    """Reference: the scorer compares the two parses as strings, so a reply read as nothing ("N/A") is correct
    whenever the gold answer also reads as nothing (the official script asserts this never happens, but its
    message reads a field the dataset lacks, so run without asserts it scores them correct). When False an
    unparsed reply is wrong."""

    task_type_breakdown: bool = False
    """Reference: the script breaks results down by audio type only. When True they are also broken down by
    task type (the paper's eight categories), in the same shape."""


REFERENCE = OmniBenchProfile(name="reference")
STRICT = OmniBenchProfile(
    name="strict",
    gold_from_answer_text=False,
    official_parser=False,
    unparsed_matches_unparsed=False,
    task_type_breakdown=True,
)
PROFILES: dict[str, OmniBenchProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def get_profile(name: str | OmniBenchProfile) -> OmniBenchProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    return lookup_profile(name, PROFILES)


@dataclass(frozen=True)
class Record:
    """One question as the scorer sees it, its answers already parsed.

    ``answered`` is False for an invalid question (nothing to score). ``gold_index`` is the answer's position
    among the options (``None``: the answer is none of them, and the strict profile counts the question wrong); ``gold_parsed`` the letter the official parser reads from the answer text (``None``:
    "N/A"); ``official`` the letter it reads from the reply, ``strict`` the option index the strict extractor
    chose (``None``: unparsed).
    """

    audio_type: str
    task_type: str
    answered: bool
    gold_index: int | None
    gold_parsed: str | None
    official: str | None = None
    strict: int | None = None


def predicted_letter(record: Record, profile: OmniBenchProfile) -> str | None:
    """The reply's letter under ``profile`` (``None``: unparsed or unanswered)."""
    if not record.answered:
        return None
    if profile.official_parser:
        return record.official
    return None if record.strict is None else LETTERS[record.strict]


def gold_letter(record: Record, profile: OmniBenchProfile) -> str | None:
    if profile.gold_from_answer_text:
        return record.gold_parsed
    return None if record.gold_index is None else LETTERS[record.gold_index]


def verdict(record: Record, profile: OmniBenchProfile | str = REFERENCE) -> str:
    """``correct``, ``invalid`` (no answer) or ``wrong``."""
    profile = get_profile(profile)
    if not record.answered:
        return "invalid"
    predicted, gold = predicted_letter(record, profile), gold_letter(record, profile)
    if predicted is None or gold is None:
        both_unparsed = predicted is None and gold is None
        return "correct" if both_unparsed and profile.unparsed_matches_unparsed else "wrong"
    return "correct" if predicted == gold else "wrong"


def _rate(count: int, total: int) -> float | None:
    return count / total if total else None


def _stats(verdicts: Sequence[str]) -> dict[str, Any]:
    counts = {v: sum(x == v for x in verdicts) for v in VERDICTS}
    total = len(verdicts)
    return {
        "total": total,
        "n_correct_response": counts["correct"],
        "n_invalid_response": counts["invalid"],
        "n_wrong_response": counts["wrong"],
        "Correct Rate": _rate(counts["correct"], total),
        "Invalid Rate": _rate(counts["invalid"], total),
        "Wrong Rate": _rate(counts["wrong"], total),
    }


def _grouped(keys: Iterable[str], verdicts: Sequence[str], fixed: Sequence[str] = ()) -> dict[str, Any]:
    groups: dict[str, list[str]] = {key: [] for key in fixed}
    for key, one in zip(keys, verdicts, strict=True):
        groups.setdefault(key, []).append(one)
    return {key: _stats(values) for key, values in groups.items()}


def official_result(
    verdicts: Sequence[str],
    audio_types: Sequence[str],
    task_types: Sequence[str],
    profile: OmniBenchProfile | str = REFERENCE,
) -> dict[str, Any]:
    """The official-shape result of one profile from each question's verdict and its audio and task types."""
    profile = get_profile(profile)
    whole = _stats(verdicts)
    result: dict[str, Any] = {
        "total": whole["total"],
        "n_correct_response": whole["n_correct_response"],
        "n_invalid_response": whole["n_invalid_response"],
        "n_wrong_response": whole["n_wrong_response"],
        "Accuracy": whole["Correct Rate"],
        "Invalid Rate": whole["Invalid Rate"],
        "stats_by_audio_type": _grouped(audio_types, verdicts, AUDIO_TYPES),
    }
    if profile.task_type_breakdown:
        result["stats_by_task_type"] = _grouped(task_types, verdicts)
    return result


def score(records: Sequence[Record], profile: OmniBenchProfile | str = REFERENCE) -> dict[str, Any]:
    """The official-shape result of one profile."""
    verdicts = [verdict(r, profile) for r in records]
    return official_result(verdicts, [r.audio_type for r in records], [r.task_type for r in records], profile)


def official_lines(result: Mapping[str, Any], inference_file: str) -> list[str]:
    """The lines the official script prints for ``result`` (every audio type must have questions: the script
    divides by each type's count)."""
    stats = result["stats_by_audio_type"]
    lines = [
        "=" * 40,
        f"Total number of questions: {result['total']}",
        f"Correct response: {result['n_correct_response']}; Invalid response: {result['n_invalid_response']}, "
        f"Wrong response: {result['n_wrong_response']}",
        inference_file,
        "Accuracy, Invalid Rate",
        f"{result['Accuracy']:.4f}, {result['Invalid Rate']:.4f}",
        "Stats by audio type:",
    ]
    for audio_type in AUDIO_TYPES:
        one = stats[audio_type]
        lines += [
            f"{audio_type} total: {one['total']}",
            "Correct, Invalid, Wrong Response Rate:",
            f"{audio_type}: {one['Correct Rate']:.4f}, {one['Invalid Rate']:.4f}, {one['Wrong Rate']:.4f}",
        ]
    return lines
