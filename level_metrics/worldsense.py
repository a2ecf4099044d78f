"""WorldSense's official scoring (VLMEvalKit's ``WorldSense.evaluate``), as pure functions.

The reply is read by exact matching first (``extract_characters_regex``): strip; delete each listed answer prefix
where it occurs, case-sensitively, in the list's order (two missing commas in VLMEvalKit's list glue two pairs of
prefixes into strings no reply contains); the first uppercase A, B, C or D *anywhere* is the answer ("ANSWER: C"
reads as A, "Cannot determine" as C, "Failed to obtain answer via API." as A). When that finds none, VLMEvalKit
falls back to ``extract_option``: the options are the lines after the first of the *question* field (WorldSense's
questions are one line, so there are normally none), ``can_infer`` matches the reply against them, and without a
judge the answer is "Z", which scores 0. With a judge, its option-matching prompt is asked up to three times until
``can_infer`` reads its reply; otherwise "Z" too (VLMEvalKit then draws among the options and Z at random, which
with no options is always Z). Every row counts, a row without a prediction too (its prediction reads "nan").

``rating`` is ``get_dimension_rating``: per duration bucket and overall, the mean score per domain, sub-category,
task domain, task type and audio class (a question counts in each audio class it lists), to three decimals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from avibench.kits.multiple_choice import accuracy_by

_LETTER = re.compile(r"[ABCD]")
#: strict: a letter standing alone, not a letter inside a word ("Cannot", "ANSWER", "Bass")
_LONE_LETTER = re.compile(r"(?<![A-Za-z])[ABCD](?![A-Za-z])")


@dataclass(frozen=True)
class Matching:
    """VLMEvalKit's matching data (``prompts/worldsense/matching.json``)."""

    prefixes: tuple[str, ...]
    intended_prefixes: tuple[str, ...]
    reject: tuple[str, ...]
    marks: str
    verbose_answer: re.Pattern[str]
    api_failure: str


def exact_letter(prediction: str, matching: Matching) -> str:
    """``extract_characters_regex``: the first uppercase A-D after deleting the prefixes ("" when none)."""
    text = prediction.strip()
    for prefix in matching.prefixes:
        text = text.replace(prefix, "")
    found = _LETTER.search(text)  # its "more than ten words and no letter" branch returns "" as this does
    return found[0] if found else ""


def strict_letter(prediction: str, matching: Matching) -> str | None:
    """The strict reading: every intended prefix deleted in any case, then the first A-D standing alone;
    ``None`` for a refusal or a failure message, or where no letter stands alone."""
    if any(marker in prediction for marker in (*matching.reject, matching.api_failure)):
        return None
    text = prediction.strip()
    for prefix in matching.intended_prefixes:
        text = re.sub(re.escape(prefix), " ", text, flags=re.IGNORECASE)
    found = _LONE_LETTER.search(text)
    return found[0] if found else None


def question_choices(question: str) -> dict[str, str]:
    """``extract_option``'s options: the lines after the question's first holding ``A.``, ``B.``, ... in turn."""
    choices: dict[str, str] = {}
    for k, line in enumerate(question.split("\n")[1:]):
        letter = chr(ord("A") + k)
        at = line.find(letter + ".")
        if at >= 0:
            choices[letter] = line[at + 2 :].strip(". \n")
    return choices


def candidate_choices(candidates: Sequence[str]) -> dict[str, str]:
    """The candidates ``["A. x", ...]`` as options by letter (what the strict judge prompt shows)."""
    choices = {}
    for k, candidate in enumerate(candidates):
        letter = chr(ord("A") + k)
        text = candidate.strip()
        choices[letter] = text[2:].strip() if text.startswith(letter + ".") else text
    return choices


def _count(splits: Sequence[str], keys: Sequence[str]) -> int:
    return sum(key in splits for key in keys)


def can_infer_option(answer: str, choices: Mapping[str, str], matching: Matching) -> str | None:
    """``can_infer_option``: a refusal is Z; one option letter as a token near the end; a lone Z; the verbose
    "answer is X" pattern."""
    if matching.api_failure in answer:
        return None
    if any(reject in answer for reject in matching.reject):
        return "Z"
    spaced = answer
    for mark in matching.marks:
        spaced = spaced.replace(mark, " ")
    splits = [s.strip() for s in spaced.split()]
    count = _count(splits, list(choices))
    if count == 1:
        for letter in choices:
            if letter in splits and splits.index(letter) > len(splits) - 5:
                return letter
    elif count == 0 and _count(splits, ["Z", ""]) == 1:
        return "Z"
    found = matching.verbose_answer.search(answer or "")
    if found and found.group(1).upper() in choices:
        return found.group(1).upper()
    return None


def can_infer_text(answer: str, choices: Mapping[str, str]) -> str | None:
    """``can_infer_text``: the one option whose text the (not too long) answer contains, in any case."""
    lowered = answer.lower()
    if len(lowered) > 2 * sum(len(str(v)) for v in choices.values()):
        return None
    found = [letter for letter, text in choices.items() if str(text).lower() in lowered]
    return found[0] if len(found) == 1 else None


def can_infer(answer: str, choices: Mapping[str, str], matching: Matching) -> str | None:
    """``can_infer``: by letter, else by option text (``None``: VLMEvalKit's False)."""
    return can_infer_option(answer, choices, matching) or can_infer_text(answer, choices)


def option_text(choices: Mapping[str, str], header: str, line: str) -> str:
    """``build_option_str``: the header, then one line per option."""
    return header + "".join(line.format(letter=k, text=v) for k, v in choices.items())


FIELDS = ("domain", "sub_category", "task_domain", "task_type", "audio_class")


def _fraction(cell: Mapping[str, Any]) -> float | None:
    """A group's mean score to three decimals, as VLMEvalKit formats ``np.mean`` (``None``: its "nan")."""
    n, accuracy = int(cell["n"]), cell["accuracy"]
    if not n or accuracy is None:
        return None
    return float(f"{round(accuracy * n / 100) / n:.3f}")  # the 0/1 scores' sum over n, as numpy's mean


def rating(
    rows: Sequence[Mapping[str, Any]], groups: Mapping[str, Sequence[str]], durations: Sequence[str]
) -> dict[str, Any]:
    """``get_dimension_rating``: per duration bucket (in ``durations`` order) and ``overall``, each field's mean
    score per group (``groups[field]`` in order, then any other group found; empty: ``None``), and ``overall``.

    A row is ``duration``, the five fields (``audio_class`` a list, counted in each class) and a 0/1 ``score``;
    VLMEvalKit stops with a KeyError on a duration or group it does not list, where this reports it after the
    listed ones."""
    found = [d for d in dict.fromkeys(str(r["duration"]) for r in rows) if d not in durations]
    out: dict[str, Any] = {}
    for bucket in [*durations, *found, "overall"]:
        chosen = [r for r in rows if bucket == "overall" or str(r["duration"]) == bucket]
        table = accuracy_by(
            chosen,
            [float(r["score"]) for r in chosen],
            FIELDS,
            fixed=groups,
            empty_group_zero=False,
            total="overall",
        )
        out[bucket] = {"overall": _fraction(table["overall"])}
        out[bucket] |= {name: {g: _fraction(c) for g, c in table[name].items()} for name in FIELDS}
    return out
