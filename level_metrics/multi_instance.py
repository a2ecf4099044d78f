"""AMIC / VMIC: multi-instance classification and counting.

Semantic part: F1 over predicted versus ground-truth class names (AMIC) or recall of the ground-truth classes
(VMIC). Counting part: per-sample mean absolute count error over the ground-truth classes (``tau`` for a class
the prediction leaves out), capped at 20, turned into ``1 - tanh(0.3 * RMSE)``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from avibench.level_metrics.common import (
    Column,
    Notes,
    Stats,
    column,
    finite_or_zero,
    mean,
    prediction_text,
    python_round5,
    records_of,
    scored_items,
    whole_task,
)
from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.types import Item, TaskScore

MicTask = Literal["AMIC", "VMIC"]

MISSING_CLASS_ERROR = {"AMIC": 7, "VMIC": 12}
"""tau: the count error charged for a ground-truth class the prediction does not name."""
COUNT_SHARPNESS = 0.3
MAX_SAMPLE_ERROR = 20
LONG_PREDICTION = 300
NOISY_COUNT = 10
"""VMIC: counts of 10 or more on both sides are treated as equal (noisy large counts)."""

_UNPARSED = object()


class _BadGroundTruthCount(Exception):
    """A ground-truth count that ``int()`` rejects: the reference aborts the task here."""


def count_score(rmse: float, sharpness: float) -> float:
    """``1 - tanh(sharpness * rmse)``; 0 for a NaN or negative RMSE."""
    return float(1 - np.tanh(sharpness * rmse)) if rmse >= 0 else 0.0


def _prepared(text: str) -> str:
    """Strip a leaked ``answer=`` prefix and turn single quotes into double quotes, as the reference does."""
    text = text.lstrip()
    if text.lower().startswith("answer="):
        text = text.split("=", 1)[1].lstrip()
    return text.replace("'", '"')


@functools.lru_cache(maxsize=8192)
def _load_json(text: str) -> Any:
    """The parsed JSON, shared (callers only read it): each answer is read in both profiles and again for the
    official document, and its printed form once more."""
    try:
        return json.loads(text)
    except Exception:  # includes RecursionError on absurd nesting
        return _UNPARSED


def _classes(mapping: Mapping[Any, Any], profile: ScoringProfile) -> dict[Any, Any]:
    if profile.mic_exact_class_names:
        return dict(mapping.items())
    return {name.strip().lower() if isinstance(name, str) else name: value for name, value in mapping.items()}


def _semantic(task: MicTask, truth: Any, parsed: Any, profile: ScoringProfile) -> float:
    """AMIC: F1 over the union of class names; VMIC: recall of the ground-truth classes."""
    if not isinstance(parsed, dict) or not isinstance(truth, dict):
        return 0.0
    predicted = set(_classes(parsed, profile))
    expected = set(_classes(truth, profile))
    if not expected:
        # Reference: an empty universe makes sklearn raise (scored 0); otherwise there is no hit (F1 0).
        return 1.0 if not predicted and not profile.mic_empty_gt_nan else 0.0
    hits = len(predicted & expected)
    if task == "AMIC":
        return 2 * hits / (len(expected) + len(predicted))
    return hits / len(expected)


def _ground_truth_counts(truth: Any) -> list[int]:
    try:
        return [int(truth[name]) for name in truth]
    except Exception:
        raise _BadGroundTruthCount from None


def _strict_count(value: Any) -> int:
    """A count as the strict profile accepts it: an integer, an integral float or an integer string."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError("a boolean or a fraction is not a count")
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError("not a count")


def _count_errors(task: MicTask, truth: Any, prediction: Any, profile: ScoringProfile) -> list[float]:
    """Per-class absolute count errors; raises _BadGroundTruthCount where the reference would abort."""
    errors: list[float] = []
    tau = MISSING_CLASS_ERROR[task]
    try:
        if not profile.mic_reparse_printed_prediction:
            if not isinstance(prediction, dict):
                raise TypeError("prediction is not a dict")
            truth, prediction = _classes(truth, profile), _classes(prediction, profile)
        to_int = int if profile.mic_reparse_printed_prediction else _strict_count
        for name in truth:
            if name in prediction:
                predicted = to_int(prediction[name])
                try:
                    expected = int(truth[name])
                except Exception:
                    raise _BadGroundTruthCount from None
                error = abs(predicted - expected)
                if task == "VMIC" and predicted >= NOISY_COUNT and expected >= NOISY_COUNT:
                    error = 0
            else:
                error = tau
            errors.append(error)
    except _BadGroundTruthCount:
        raise
    except Exception:
        fallback = _ground_truth_counts(truth)
        errors = [*errors, *fallback] if profile.mic_exception_double_append else fallback
    return errors


MicRecord = tuple[float, float | None]
"""One sample's semantic score and counting error (``None``: left out of counting; NaN: no class to count)."""


def _record(item: Item, profile: ScoringProfile, notes: Notes, task: MicTask) -> MicRecord | None:
    text = prediction_text(item, clean=False, notes=notes)
    truth = item.answer
    if not isinstance(truth, dict):
        notes.add("ground truth is not a dict of class counts", item.index)
    if text is None:
        semantic, counted = 0.0, _UNPARSED
    else:
        prepared = _prepared(text)
        if len(prepared) >= LONG_PREDICTION and profile.mic_skip_long_predictions:
            notes.add("prediction of 300 characters or more left out (as the reference does)", item.index)
            return None
        parsed = _load_json(prepared)
        semantic = _semantic(task, truth, parsed, profile)
        counted = prepared if parsed is _UNPARSED else parsed
    if profile.mic_reparse_printed_prediction and text is not None:
        printed = f"{counted}"
        if len(printed) >= LONG_PREDICTION:
            notes.add("printed prediction of 300 characters or more left out of counting", item.index)
            return (semantic, None)
        counted = _load_json(printed.replace("'", '"'))
    try:
        errors = _count_errors(task, truth, counted, profile)
    except _BadGroundTruthCount:
        notes.add(
            "ground-truth count is not an integer (the reference would abort the task); "
            "sample left out of counting",
            item.index,
        )
        return (semantic, None)
    if not errors and not profile.mic_empty_gt_nan:
        notes.add("empty ground truth left out of counting", item.index)
        return (semantic, None)
    if not errors:
        notes.add(
            "empty ground truth gives a NaN count error, so counting scores 0 (as the reference)",
            item.index,
        )
    return (semantic, min(mean(errors), MAX_SAMPLE_ERROR))


mic_records = records_of(_record)
"""Each item's (semantic score, counting error), aligned with ``items`` (``None``: left out); ``task`` picks
AMIC (F1, tau 7) or VMIC (recall, tau 12)."""


def multi_instance(items: Sequence[Item], *, profile: ScoringProfile | str, task: MicTask) -> TaskScore:
    """Multi-instance classification and counting; ``task`` picks AMIC (F1, tau 7) or VMIC (recall, tau 12)."""
    if task.upper() not in MISSING_CLASS_ERROR:
        raise ValueError(f"multi_instance task must be AMIC or VMIC, got {task!r}")
    total = functools.partial(mic_total, considered=bool(scored_items(items, get_profile(profile))))
    return whole_task(mic_records, mic_columns, total, items, profile=profile, task=task.upper())


def mic_columns(records: Sequence[MicRecord]) -> dict[str, Column]:
    """The samples' semantic scores and counting errors, as :func:`mic_total` reads them."""
    return {
        "semantic": column(records, lambda r: r[0]),
        "error": column(records, lambda r: r[1], where=lambda r: r[1] is not None),
    }


def mic_total(stats: Stats, notes: Notes | None = None, *, considered: bool = True) -> TaskScore:
    """The task's score from its samples' columns, in data.json order; ``considered``: whether any prediction
    was read at all (the reference aborts without one)."""
    notes = notes or Notes()
    if not considered:
        notes.add("no prediction to score (the reference would abort with UnboundLocalError); scored 0")
        return TaskScore({"Semantic": 0.0, "Instance": 0.0, "Average": 0.0}, 0.0, 0, notes.render())
    semantic = stats.mean("semantic")
    rmse = float(np.sqrt(stats.mean_square("error"))) if stats.count("error") else math.nan
    counting = count_score(rmse, COUNT_SHARPNESS)
    if semantic == 0:
        counting = 0.0
    average = (semantic + counting) / 2
    value = {
        "Semantic": python_round5(semantic),
        "Instance": python_round5(counting),
        "Average": python_round5(average),
    }
    if math.isnan(value["Average"]):
        notes.add("every prediction was left out: the reference writes NaN; headline 0")
    return TaskScore(value, finite_or_zero(value["Average"]), stats.count("semantic"), notes.render())
