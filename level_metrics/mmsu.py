"""MMSU's official numbers (dingdongwang/MMSU ``mmsu_evaluation.py`` at 698fac8) from each question's outcome.

The official scorer counts a question correct or wrong, or leaves it out of every denominator (a response that is
not a string, or one in the wrong format); it pools the counts per ``category`` and ``sub-category`` pair, per
``category`` and overall, and prints fractions. :func:`official_document` is that, in the scorer's key names and
key order, plus the accuracy per ``task_name`` the official script does not print (the same pooling, per task).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

NO_ANSWER = ""
"""The reference reading of an empty response or the text ``None``: counted, and wrong."""


def reference_reading(response: Any, letter: str | None) -> str | None:
    """What the official scorer takes of a response: ``None`` (left out: not a string), :data:`NO_ANSWER`
    (counted wrong: empty or ``None`` once stripped and its newlines removed), else ``letter``, the letter its
    first-character and second-to-last-character rules read (``None``: wrong format, left out)."""
    if not isinstance(response, str):
        return None
    text = response.strip().replace("\n", "")
    if not text or text == "None":
        return NO_ANSWER
    return letter


def _fraction(correct: int, total: int) -> float:
    return correct / total if total > 0 else 0


def official_document(metas: Sequence[Mapping[str, Any]], scores: Sequence[float | None]) -> dict[str, Any]:
    """``Overall Accuracy``, ``Total count``, ``task_average_accuracies`` ({category: {total_correct,
    total_count, average_accuracy}}), ``task_category_accuracies`` ({category: {sub-category: accuracy}}) and
    ``task_name_accuracies`` ({task_name: accuracy}) of the questions with a score (``None``: left out)."""
    pairs: dict[str, dict[str, list[int]]] = {}
    tasks: dict[str, list[int]] = {}
    for meta, score in zip(metas, scores, strict=True):
        if score is None:
            continue
        cell = pairs.setdefault(str(meta.get("category", "")), {}).setdefault(
            str(meta.get("sub-category", "")), [0, 0]
        )
        task = tasks.setdefault(str(meta.get("task_name", "")), [0, 0])
        for counts in (cell, task):
            counts[0] += int(score)
            counts[1] += 1
    averages = {}
    for category, subs in pairs.items():
        correct, total = sum(c for c, _ in subs.values()), sum(int(n) for _, n in subs.values())
        averages[category] = {
            "total_correct": correct,
            "total_count": total,
            "average_accuracy": _fraction(correct, total),
        }
    correct = sum(a["total_correct"] for a in averages.values())
    total = sum(a["total_count"] for a in averages.values())
    return {
        "Overall Accuracy": _fraction(correct, total),
        "Total count": total,
        "task_average_accuracies": averages,
        "task_category_accuracies": {
            category: {sub: _fraction(c, int(n)) for sub, (c, n) in subs.items()}
            for category, subs in pairs.items()
        },
        "task_name_accuracies": {name: _fraction(c, int(n)) for name, (c, n) in tasks.items()},
    }
