"""Accuracy tasks: full-match and AVSQA, with the double-confirm rule they share."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from avibench.level_metrics.common import (
    PRE_PREFIX,
    Column,
    DrawnStats,
    Notes,
    Stats,
    column,
    entry_key,
    is_invalid_pre,
    key_id,
    prediction_text,
    python_round5,
    scored_items,
    strip_punctuation_lower,
    whole_task,
)
from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.types import Item, TaskScore

_INTEGER = re.compile(r"\d+")


@functools.lru_cache(maxsize=4096)
def _option_pattern(option: str) -> re.Pattern[str]:
    """The whole-phrase pattern of one option (option lists repeat across thousands of entries)."""
    return re.compile(r"\b" + re.escape(strip_punctuation_lower(option)) + r"\b")


def snap_to_option(options: Any, text: str, profile: ScoringProfile, notes: Notes, index: int) -> str | None:
    """The option mentioned earliest in ``text`` (whole-phrase match after cleaning), in its own spelling.

    Ties on position go to the option that sorts first; an answer naming several options is ``""`` (matches no
    label) unless ``snap_first_of_several_options``. A plain string is a sequence of one-character options
    in the reference (its defect) and no options at all when ``raw_option_string_chars`` is off.
    """
    if options is None or (isinstance(options, str) and not profile.raw_option_string_chars):
        return None
    if not isinstance(options, (str, list, tuple)):
        notes.add(f"options of type {type(options).__name__} cannot be iterated; no option snapping", index)
        return None
    haystack = strip_punctuation_lower(text)
    found: list[tuple[int, str]] = []
    for option in options:
        if not isinstance(option, str):
            notes.add("non-string option ignored in option snapping (the reference would abort)", index)
        elif match := _option_pattern(option).search(haystack):
            found.append((match.start(), option))
    if not found:
        return None
    if not profile.snap_first_of_several_options and len({option for _, option in found}) > 1:
        notes.add("answer names several options; matched to none", index)
        return ""
    return min(found)[1]


def _normalise_label(text: str) -> str:
    return " ".join(strip_punctuation_lower(text).split())


def full_match_sample(item: Item, text: str, profile: ScoringProfile, notes: Notes) -> int:
    """1 if the (option-snapped) cleaned prediction matches the ground truth, else 0."""
    label = f"{item.answer}"
    snapped = snap_to_option(item.options, text, profile, notes, item.index)
    pred = text if snapped is None else snapped
    if not profile.case_sensitive_label:
        label, pred = _normalise_label(label), _normalise_label(pred)
    integer = _INTEGER.search(pred)  # a digit label matches the prediction's first integer
    return int(pred == label or (label.isdigit() and integer is not None and integer.group(0) == label))


def _answer_set(text: str) -> list[str]:
    return sorted(part.strip() for part in text.lower().strip().split(";"))


def avsqa_sample(item: Item, text: str, profile: ScoringProfile, notes: Notes) -> int:
    """1 if the ``;``-separated answers equal the ground truth's as sorted lists (case-insensitive)."""
    pred = text.replace("*", "").replace("#", "")
    return int(_answer_set(pred) == _answer_set(f"{item.answer}"))


def accuracy_records(
    items: Sequence[Item], *, profile: ScoringProfile | str, notes: Notes | None = None, avsqa: bool = False
) -> list[float | None]:
    """Each item's score after double-confirm zeroing by failed pre-questions (``None``: not a scored formal
    entry), aligned with ``items``: full-match's, or with ``avsqa`` AVSQA's (its own sample rule on the
    uncleaned prediction; the reference keeps its invalid pre-questions)."""
    profile = get_profile(profile)
    notes = Notes() if notes is None else notes
    score_sample = avsqa_sample if avsqa else full_match_sample
    skip_invalid_pre = profile.avsqa_skip_invalid_pre or not avsqa
    invalid_pre = {str(item.id) for item in items if is_invalid_pre(item)} if skip_invalid_pre else set()
    recorded: dict[str, int] = {}
    entry_of: dict[str, Item] = {}
    failed_pre_ids: set[str] = set()
    for item in scored_items(items, profile):
        key = entry_key(item)
        if _skipped_pre(item, key, invalid_pre, profile, skip_invalid_pre):
            continue
        text = prediction_text(item, clean=not avsqa, notes=notes, profile=profile)
        score = 0 if text is None else score_sample(item, text, profile, notes)
        if profile.double_confirm_positional:
            if "id=pre_" in key:
                if score == 0:
                    _zero_first_recorded(recorded, key_id(key)[len(PRE_PREFIX) :])
                continue
        elif str(item.id).startswith(PRE_PREFIX):
            if score == 0:
                failed_pre_ids.add(str(item.id)[len(PRE_PREFIX) :])
            continue
        recorded[key] = score
        entry_of[key] = item
    per_index = {
        entry_of[key].index: 0.0 if str(entry_of[key].id) in failed_pre_ids else float(score)
        for key, score in recorded.items()
    }
    return [per_index.get(item.index) for item in items]


def accuracy_columns(scores: Sequence[float]) -> dict[str, Column]:
    """The formal entries' scores, as :func:`accuracy_total` reads them."""
    return {"score": column(scores, float)}


def _accuracy(mean: float, scored: int) -> float:
    """The accuracy of ``scored`` formal entries whose scores' mean is ``mean`` (0 for none)."""
    return python_round5(mean) if scored else 0.0


def accuracy_total(stats: Stats, notes: Notes | None = None) -> TaskScore:
    """The task's accuracy from its formal entries' scores (any order: they are 0 or 1, so the mean is exact)."""
    notes = notes or Notes()
    scored = stats.count("score")
    if not scored:
        notes.add("no formal entry to score (the reference would abort with ZeroDivisionError); scored 0")
    value = _accuracy(stats.mean("score") if scored else 0.0, scored)
    return TaskScore(value, value, scored, notes.render())


def accuracy_headlines(drawn: DrawnStats) -> list[float]:
    """:func:`accuracy_total`'s headline on every draw at once (a thousand totals of a task, without a score
    object each)."""
    means, counts = drawn.stat("mean", "score"), drawn.stat("count", "score")
    return [_accuracy(mean, scored) for mean, scored in zip(means, counts, strict=True)]


def _skipped_pre(
    item: Item, key: str, invalid_pre: set[str], profile: ScoringProfile, skip_invalid_pre: bool
) -> bool:
    """Whether an invalid pre slot is left out; the reference finds it by the id part of the entry key."""
    if profile.double_confirm_positional:
        return key_id(key) in invalid_pre
    return skip_invalid_pre and is_invalid_pre(item)


def _zero_first_recorded(recorded: dict[str, int], formal_id: str) -> None:
    """The reference's rule: zero the first already-recorded key whose id part is ``formal_id``."""
    marker = f"#id={formal_id}#"
    for key in recorded:
        if marker in key:
            recorded[key] = 0
            return


full_match_records = accuracy_records
avsqa_records = functools.partial(accuracy_records, avsqa=True)


def full_match(items: Sequence[Item], *, profile: ScoringProfile | str) -> TaskScore:
    """Full-match accuracy (AVM, AVH, VAH, AVQA, ASQA, VSQA_I, VSQA_V and pooled VSQA)."""
    return whole_task(
        full_match_records, accuracy_columns, accuracy_total, items, sample=float, profile=profile
    )


def avsqa(items: Sequence[Item], *, profile: ScoringProfile | str) -> TaskScore:
    """AVSQA accuracy: exact multiset match of ``;``-separated answers, with double-confirm."""
    return whole_task(avsqa_records, accuracy_columns, accuracy_total, items, sample=float, profile=profile)
