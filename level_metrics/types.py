"""The two value types every scorer shares: one scored entry in, one task score out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Item:
    """One data.json entry paired with its prediction, in data.json order.

    ``answer`` is the raw ground truth (``output.question_answer``, never cleaned); ``predict`` is the refined
    prediction string, ``None`` when the entry has no prediction. ``options`` is what
    ``avibench.benchmarks.avibench.prompting.resolve_options`` gives ('' when absent or null, the resolved list for a pseudo-key,
    otherwise the raw value). ``question_text`` is the raw ``input.question.text`` (``None`` when null or absent)
    and only serves to find invalid ``pre_`` slots. ``task`` is the entry's task name, part of the reference's
    per-entry key.
    """

    index: int
    id: str
    answer: Any
    predict: str | None
    options: Any = ""
    question_text: Any = None
    task: str = ""


@dataclass
class TaskScore:
    """The score of one task folder.

    ``value`` is exactly what the reference evaluator would write for the task in its eval JSON (a float, or a
    dict of floats; it may hold NaN where the reference writes NaN). ``headline`` is the one 0-1 number reported
    for the task (the scalar, ``Average``, or the FENSE ``average``) and is always finite. ``scored`` counts the
    entries in the denominator. ``warnings`` says where the reference would have crashed or produced NaN and how
    the entry was scored instead. ``per_sample`` is aligned with the items: the sample's own score, ``None`` where
    the entry did not enter the score.
    """

    value: float | dict[str, float | int]
    headline: float
    scored: int
    warnings: list[str] = field(default_factory=list)
    per_sample: list[float | None] = field(default_factory=list)
