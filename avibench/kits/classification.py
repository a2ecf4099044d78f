"""Classification kit: answers read as one label of a vocabulary, their metrics and chance levels. Pure.

* :func:`read_label`: the one label a reply names (whole words, case and punctuation ignored, synonyms mapped),
  ``None`` for a hedge, a refusal, two labels or none; :func:`normalised` is the comparison form;
* metrics: a question's value is the ``(gold, predicted)`` pair (:func:`label_pair`) that
  :func:`~avibench.level_metrics.task_metrics.accuracy`-like and F1 metrics take: :data:`macro_f1` and
  :data:`weighted_f1` (re-exported from the task metrics), :func:`label_accuracy`;
* chance: :func:`chance_accuracy` (one over the labels) and :func:`chance_f1`, the F1 of a uniform guess's
  expected confusion counts over the questions' gold labels.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from avibench.level_metrics.task_metrics import macro_f1, weighted_f1
from avibench.refine.choice import HEDGES, REFUSALS, visible_text

__all__ = [
    "chance_accuracy",
    "chance_f1",
    "label_accuracy",
    "label_pair",
    "macro_f1",
    "normalised",
    "read_label",
    "weighted_f1",
]

_NON_WORD = re.compile(r"[^\w]+")


def normalised(text: str) -> str:
    """Lowercase words separated by single spaces (punctuation, underscores and hyphens are spaces)."""
    return " ".join(_NON_WORD.sub(" ", text.replace("_", " ")).lower().split())


def _phrases(words: Iterable[str]) -> re.Pattern[str]:
    parts = sorted({normalised(w) for w in words}, key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(re.escape(p) for p in parts if p)})(?!\w)")


_HEDGE = _phrases(HEDGES)
_REFUSAL = _phrases(REFUSALS)


def read_label(
    reply: str | None,
    labels: Sequence[str],
    *,
    synonyms: Mapping[str, str] | None = None,
    whole: bool = False,
) -> str | None:
    """The label of ``labels`` the reply names, or ``None`` when it cannot be told.

    ``synonyms`` maps other words to a label (``{"joyful": "happy"}``). ``whole``: the reply must be the label
    and nothing else (after :func:`normalised`); otherwise a label is read where it stands as whole words, the
    longest first (``"very happy"`` before ``"happy"``), and the reply must name exactly one label, not hedge
    ("maybe", "either") and not refuse.
    """
    text = normalised(visible_text(reply))
    if not text:
        return None
    names = {normalised(label): label for label in labels}
    names.update({normalised(word): label for word, label in (synonyms or {}).items()})
    names.pop("", None)
    if whole:
        return names.get(text)
    if _HEDGE.search(text) or _REFUSAL.search(text):
        return None
    found = {names[m.group(0)] for m in _phrases(names).finditer(text)}
    return found.pop() if len(found) == 1 else None


def label_pair(gold: str, predicted: str | None) -> tuple[str, str | None]:
    """A question's value for the F1 metrics: ``(gold, predicted)``, predicted ``None`` when unread."""
    return (gold, predicted)


def label_accuracy(values: Sequence[tuple[str, str | None]]) -> float | None:
    """Percent of ``(gold, predicted)`` pairs whose prediction is the gold label; ``None`` for no pairs."""
    if not values:
        return None
    return 100.0 * sum(gold == predicted for gold, predicted in values) / len(values)


def chance_accuracy(labels: Sequence[Any]) -> float:
    """A uniform guess's expected accuracy (percent) over ``labels``."""
    return 100.0 / len(labels)


def chance_f1(
    golds: Sequence[str], labels: Sequence[str], average: Literal["macro", "weighted"] = "macro"
) -> float | None:
    """The F1 (percent) of the expected confusion counts of a uniform guess over ``labels`` on questions whose
    gold labels are ``golds``: a label with ``n_c`` of ``n`` questions gets ``2 n_c / (n + K n_c)`` (``K``
    labels); as :data:`macro_f1` and :data:`weighted_f1` do, ``macro`` averages over the gold labels present and
    ``weighted`` weighs each by its share of the questions (guessing a label no question has only costs
    precision)."""
    if not golds or not labels:
        return None
    n, k, counts = len(golds), len(labels), Counter(golds)
    f1 = {label: 2 * c / (n + k * c) for label, c in counts.items()}
    if average == "weighted":
        return 100.0 * sum(f1[label] * c / n for label, c in counts.items())
    return 100.0 * sum(f1.values()) / len(f1)
