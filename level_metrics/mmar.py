"""MMAR and MMAU test-mini scoring: the official token-set match, the strict option match, the breakdowns. Pure.

Both benchmarks' official scorers share one matching rule (:func:`token_set_match`) and differ only in the
prediction key and the breakdown fields, so one code path scores both, driven by a tuple of :class:`Breakdown`.
The result has the official scorer's shape: one mapping per breakdown field from group to
``{"accuracy": percent (unrounded), "n": count}``, plus ``total``. The official scripts print these lines (two
decimals) and write nothing; :func:`official_lines` renders the same text.

Two behaviours of the official scripts are not reproduced because they crash instead of scoring: a breakdown value
outside the fixed key set (KeyError there) is reported as an extra group after the fixed ones, and a file in which
no record has a prediction (ZeroDivisionError there) gets a ``total`` accuracy of ``None``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

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
    if isinstance(name, MmarProfile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError(f"unknown scoring profile {name!r}; known profiles: {', '.join(PROFILES)}") from None


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


@dataclass(frozen=True)
class Record:
    """One question as the scorer sees it.

    ``prediction`` is the raw answer (``None``: no prediction at all: the key is missing, the request failed or
    the question was never asked). ``chosen`` is the option index the strict extractor read from it (``None``:
    unparsed). ``groups`` maps breakdown fields to the question's values.
    """

    answer: str
    choices: tuple[str, ...]
    prediction: str | None
    chosen: int | None = None
    groups: Mapping[str, Any] = field(default_factory=dict)


def is_correct(record: Record, profile: MmarProfile = REFERENCE) -> bool | None:
    """Whether the record scores correct; ``None`` when the profile skips it (no prediction, reference)."""
    if record.prediction is None:
        return None if profile.skip_missing else False
    if profile.token_set_match:
        return token_set_match(record.answer, record.prediction, record.choices)
    chosen = record.chosen
    return (
        chosen is not None and 0 <= chosen < len(record.choices) and record.choices[chosen] == record.answer
    )


def _group_values(value: Any) -> list[str]:
    """The groups a record falls in for one field: a list counts in each listed group, ``None`` in none."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def _cell(total: float, n: int, empty_zero: bool) -> dict[str, Any]:
    if n == 0:
        return {"accuracy": 0.0 if empty_zero else None, "n": 0}
    return {"accuracy": 100.0 * total / n, "n": n}


def aggregate(
    groups: Sequence[Mapping[str, Any]],
    scores: Sequence[float | bool | None],
    breakdowns: Sequence[Breakdown],
    *,
    empty_group_zero: bool = True,
) -> dict[str, Any]:
    """Accuracy per breakdown group and in total, in the official shape; ``groups[i]`` maps breakdown fields to
    question i's values and ``scores[i]`` is its score in [0, 1], or ``None`` to leave it out (as the official
    scorer skips a record without prediction)."""
    result: dict[str, Any] = {}
    for breakdown in breakdowns:
        sums: dict[str, list[float]] = {key: [0.0, 0] for key in breakdown.fixed}
        for values, score in zip(groups, scores, strict=True):
            if score is None:
                continue
            for group in _group_values(values.get(breakdown.field)):
                cell = sums.setdefault(group, [0.0, 0])
                cell[0] += float(score)
                cell[1] += 1
        result[breakdown.field] = {k: _cell(s, int(n), empty_group_zero) for k, (s, n) in sums.items()}
    kept = [float(s) for s in scores if s is not None]
    result["total"] = _cell(sum(kept), len(kept), empty_group_zero) if kept else {"accuracy": None, "n": 0}
    return result


def score(
    records: Sequence[Record], breakdowns: Sequence[Breakdown], profile: MmarProfile | str = REFERENCE
) -> dict[str, Any]:
    """The official-shape result of one profile."""
    profile = get_profile(profile)
    verdicts = [is_correct(r, profile) for r in records]
    return aggregate(
        [r.groups for r in records], verdicts, breakdowns, empty_group_zero=profile.empty_group_zero
    )


def chance_level(choice_lists: Iterable[Sequence[str]]) -> float:
    """Expected accuracy (percent) of a uniform guess over each question's choices: the mean of 1/len(choices)."""
    return 100.0 * fmean(1.0 / len(c) for c in choice_lists)


def chance_breakdown(records: Sequence[Record], breakdowns: Sequence[Breakdown]) -> dict[str, Any]:
    """The chance level per breakdown group, in the result's shape (every record counts, answered or not)."""
    return aggregate([r.groups for r in records], [1.0 / len(r.choices) for r in records], breakdowns)


@dataclass(frozen=True)
class Disagreement:
    """Answered questions the two profiles score differently."""

    reference_only: int
    """Correct by the token-set match only (word-order false positives, answers the extractor refused)."""
    strict_only: int
    """Correct by the strict extractor only (letter answers, reasoning that names a distractor)."""

    @property
    def total(self) -> int:
        return self.reference_only + self.strict_only


def profile_disagreements(records: Iterable[Record]) -> Disagreement:
    """How many answered questions the reference and strict profiles score differently, by direction."""
    reference_only = strict_only = 0
    for record in records:
        if record.prediction is None:
            continue
        ref, strict = is_correct(record, REFERENCE), is_correct(record, STRICT)
        reference_only += bool(ref and not strict)
        strict_only += bool(strict and not ref)
    return Disagreement(reference_only, strict_only)


def official_lines(result: Mapping[str, Any], breakdowns: Sequence[Breakdown]) -> list[str]:
    """The text the official scorer prints for this result (official breakdowns only; 0 for an empty group)."""
    rule = "*" * 30
    lines: list[str] = []
    for breakdown in breakdowns:
        if breakdown.title is None:
            continue
        lines += [rule, breakdown.title]
        for name, cell in result[breakdown.field].items():
            lines.append(f"{name} : {cell['accuracy'] or 0:.2f}% over {cell['n']} samples")
    total = result["total"]
    lines += [rule, f"Total Accuracy: {total['accuracy'] or 0:.2f}% over {total['n']} samples", rule]
    lines.append("No prediction count: 0")
    return lines
