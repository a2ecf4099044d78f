"""AIR-Bench Foundation scoring: the official answer-letter rule, a strict extractor and the aggregation. Pure.

Foundation has 19 tasks drawn from 25 subsets (a subset is one task on one source dataset, keyed
``<task_name>_<dataset_name>`` as in the official scorer). The official scorer reports accuracy per subset only;
the leaderboard reports accuracy per task, per category (speech, sound, music: the mean of the category's task
accuracies) and an ``Average`` that is the mean of the three category means (this reproduces every published
average; the plain mean over the 19 tasks does not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any, Literal

import yaml

from avibench.definitions import prompt_resource
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.task_metrics import tallied

LETTERS: tuple[str, ...] = mc.letters_for(4)
#: The official letter rule: the reply's first character, else its second-to-last, when it is A-D.
OFFICIAL_RULES = ("first_character", "second_to_last")


@dataclass(frozen=True)
class AirBenchProfile:
    """The switches of one AIR-Bench scoring profile (``True`` = behave like the official scripts)."""

    name: str

    first_or_penultimate: bool = True
    """Reference: after stripping and removing newlines, the answer letter is the first character if it is one of
    ``A``-``D`` (upper case), else the second-to-last character if that is (meant for "The answer is A."); any
    other reply fails to parse, so "the answer is B" fails and "Dog barking" reads as D. When False the strict
    extractor (:func:`strict_choice`) reads a letter or an option's text and accepts only the item's own letters."""

    unparsed_leaves_denominator: bool = True
    """Reference: an unparseable answer is counted in ``fail_num`` and left out of its subset's denominator, which
    inflates accuracy (official issue #8). When False it stays in ``fail_num`` and is also scored wrong."""

    missing_counts_as_wrong: bool = False
    """Reference: a question that has no answer (never asked, or the request failed) is absent from the result
    file and counts nowhere. When True a Foundation question is scored wrong, and a Chat question gives the model
    a score of 0 and a loss in both judge orders."""

    judge_orders_per_item: bool = False
    """Reference (Chat): each judge order is averaged over its own parsed replies and the two means are averaged,
    so a judge failure in one order silently changes which items count on that side. When True an item counts
    only when both orders parsed, as the mean of its two orders."""

    judge_reply_as_int: bool = True
    """Reference (Chat): a judge reply is read as the official parser reads it: stripped, its newlines removed and
    split on single spaces; it must give exactly two tokens, each read by Python's ``int()``, so a sign ("+7",
    "-3"), underscores between digits ("1_0"), leading zeros ("07"), whitespace other than a space around a
    token ("7\t") and non-ASCII decimal digits ("\u0667") are all accepted and a score of 0 or below counts as
    it is; a score above 10 is a judge failure (the official script's ``exit(1)`` there is caught by its own bare
    ``except``). When False a token must also be ASCII digits only and each score within the 1-10 scale the
    judge is asked for; anything else is a judge failure."""


REFERENCE = AirBenchProfile(name="reference")
STRICT = AirBenchProfile(
    name="strict",
    first_or_penultimate=False,
    unparsed_leaves_denominator=False,
    missing_counts_as_wrong=True,
    judge_orders_per_item=True,
    judge_reply_as_int=False,
)
PROFILES: dict[str, AirBenchProfile] = {p.name: p for p in (REFERENCE, STRICT)}


@dataclass(frozen=True)
class FoundationTask:
    """One leaderboard task: its ``task_name`` in the data, its leaderboard label, category and source datasets."""

    name: str
    label: str
    category: str
    datasets: tuple[str, ...]

    @property
    def subsets(self) -> tuple[str, ...]:
        return tuple(f"{self.name}_{d}" for d in self.datasets)


#: The official layout (``prompts/airbench/layout.yaml``): the task tables (Foundation's in leaderboard order,
#: Chat's categories) and each part's meta and result files.
OFFICIAL_LAYOUT = yaml.safe_load(prompt_resource("airbench", "layout.yaml"))
FOUNDATION_TASKS = tuple(
    FoundationTask(n, lab, c, tuple(d)) for n, lab, c, d in OFFICIAL_LAYOUT["foundation"]
)
TASKS_BY_NAME: dict[str, FoundationTask] = {t.name: t for t in FOUNDATION_TASKS}
#: Each Foundation subset's task (every bootstrap resample pools its subsets' counts by task).
TASK_OF_SUBSET = {s: task for task in reversed(FOUNDATION_TASKS) for s in task.subsets}
CATEGORIES = ("speech", "sound", "music")


# ---- answer extraction ---------------------------------------------------------------------------------------


def strict_choice(raw: str, options: Sequence[str]) -> int | None:
    """The option index a free-form reply chooses, or ``None`` when it cannot be told.

    The shared strict multiple-choice extractor, reading the letters AIR-Bench shows (A to D, only as many as the
    item has options): a letter or an option's text, the last committed answer after self-corrections, and
    nothing from reasoning blocks, hedges or refusals.
    """
    return mc.strict_choice(raw, options, LETTERS[: len(options)])


def choose(response: str, options: Sequence[str], profile: AirBenchProfile) -> int | None:
    """The chosen option index under ``profile``; the official rule may give an index past the real options."""
    if profile.first_or_penultimate:
        return mc.official_choice(response, LETTERS, OFFICIAL_RULES, letters=LETTERS)
    return strict_choice(response, options)


# ---- aggregation ---------------------------------------------------------------------------------------------


Verdict = Literal["correct", "wrong", "unparsed", "missing"]


def foundation_block(verdicts: Iterable[tuple[str, Verdict]], profile: AirBenchProfile = REFERENCE) -> dict:
    """The Foundation score block of each question's ``(subset, verdict)``: per subset ``{correct, n,
    accuracy}`` (in order of first appearance; accuracy 0-1, ``None`` when nothing entered the denominator, where
    the official scorer crashes), ``fail_num`` (the unparseable answers) and ``total_sum``. The strict profile
    adds ``missing`` (answers that never came), which the official output cannot show."""
    in_n = {"missing": profile.missing_counts_as_wrong, "unparsed": not profile.unparsed_leaves_denominator}
    tasks: dict[str, dict[str, Any]] = {}
    outcomes: Counter[str] = Counter()
    for subset, outcome in verdicts:
        cell = tasks.setdefault(subset, {"correct": 0, "n": 0})
        cell["n"] += int(in_n.get(outcome, True))  # whether the outcome enters the denominator
        cell["correct"] += int(outcome == "correct")
        outcomes[outcome] += 1
    for cell in tasks.values():
        cell["accuracy"] = cell["correct"] / cell["n"] if cell["n"] else None
    total_sum = sum(c["n"] for c in tasks.values())
    block = {"tasks": tasks, "fail_num": outcomes["unparsed"], "total_sum": total_sum}
    return block | ({"missing": outcomes["missing"]} if profile.missing_counts_as_wrong else {})


def _subset_tally(value: Sequence[str | float]) -> dict[Hashable, float]:
    subset, score = value
    return {("n", str(subset)): 1.0, ("correct", str(subset)): float(int(score))}


def _average_from_totals(totals: Mapping[Hashable, float]) -> float | None:
    subsets = {name[1] for name, n in totals.items() if name[0] == "n" and n}  # type: ignore[index]
    counts = {s: {"correct": totals.get(("correct", s), 0.0), "n": totals[("n", s)]} for s in subsets}
    categories = [v for v in summarize(task_accuracy(counts))["categories"].values() if v is not None]
    return fmean(categories) * 100 if categories else None


@tallied(_subset_tally, _average_from_totals)
def foundation_average(scored: Sequence[Sequence[str | float]]) -> float | None:
    """The Foundation leaderboard average (0-100) of the questions a profile scored, each ``(subset, score)``
    with score 1 or 0: the mean of the category means of the task accuracies (of the categories present)."""
    totals: Counter[Hashable] = Counter()
    for value in scored:
        totals.update(_subset_tally(value))
    return _average_from_totals(totals)


def task_accuracy(counts: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Accuracy (0-1) per task, pooling the ``{correct, n}`` counts of its subsets (``n``: the accuracy
    denominator); tasks with an empty denominator are left out."""
    pooled: dict[str, Counter[str]] = {}
    for subset, cell in counts.items():
        if subset not in TASK_OF_SUBSET:
            raise ValueError(f"{subset!r} is not an AIR-Bench Foundation subset")
        pooled.setdefault(TASK_OF_SUBSET[subset].name, Counter()).update(correct=cell["correct"], n=cell["n"])
    return {
        t.name: pooled[t.name]["correct"] / pooled[t.name]["n"]
        for t in FOUNDATION_TASKS
        if pooled.get(t.name, {}).get("n")
    }


def summarize(by_task: Mapping[str, float]) -> dict:
    """Leaderboard view of per-task values (0-1): tasks, category means, mean over tasks and ``average``.

    ``average`` is the mean of the category means, as the published leaderboard computes it; ``mean`` is the
    plain mean over the tasks present. Categories without tasks are ``None``, and so is ``average`` then.
    """
    categories: dict[str, float | None] = {}
    for category in CATEGORIES:
        values = [v for k, v in by_task.items() if TASKS_BY_NAME[k].category == category]
        categories[category] = fmean(values) if values else None
    present = [v for v in categories.values() if v is not None]
    return {
        "tasks": dict(by_task),
        "categories": categories,
        "mean": fmean(by_task.values()) if by_task else None,
        "average": fmean(present) if len(present) == len(CATEGORIES) else None,
    }


def leaderboard_view(block: Mapping[str, Any]) -> dict:
    """The leaderboard view on 0-100 of a Foundation block: accuracy per task (by its leaderboard label) and per
    category (``None`` when the category has no task)."""
    view = summarize(task_accuracy(block["tasks"]))
    return {
        "tasks": {TASKS_BY_NAME[k].label: 100 * v for k, v in view["tasks"].items()},
        "categories": {k: None if v is None else v * 100 for k, v in view["categories"].items()},
    }
