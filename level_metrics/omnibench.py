"""OmniBench scoring: the official counts and rates from each question's verdict. Pure.

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

#: The audio types the official scorer knows, in its order (any other crashes it; loading rejects them).
AUDIO_TYPES: tuple[str, ...] = ("music", "speech", "sound event")
VERDICTS: tuple[str, ...] = ("correct", "invalid", "wrong")


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
