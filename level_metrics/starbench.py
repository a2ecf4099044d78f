"""STAR-Bench metrics: AA and ACR per dataset, the official ``performance.json`` block, ``Final MA``. Pure.

* AA (average accuracy) is the mean correctness over all runs; ACR (all-correct rate) is the share of items whose
  runs are all correct.
* ``tr*``/``sr*``: ``Total``, ``By Category`` and ``By Sub-category``, each computed over runs (micro).
* ``pc*``: micro within each sub-category; a category is the unweighted mean of its sub-categories and ``Total``
  the unweighted mean of all sub-categories (macro).
* ``Final MA`` is the unweighted mean over the scored datasets of their ``Total`` AA and ACR.

A dataset's AA is also a task metric (:func:`aa_metric`) over per-run values ``(sub-category, score)``, so the
declared plug-in's core computes the same number and resamples items for intervals; :func:`runs_left_out` names
the runs a profile leaves out and :func:`dataset_block` builds the official block from the runs scored.

All numbers are percentages (floats). Chance levels come from the same aggregation, with each run's correctness
replaced by the probability that a uniform guess is right (ACR then multiplies the probabilities of an item's
runs, which is the chance of guessing every run right).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from avibench.level_metrics.starbench_parse import Choice, is_error_response, parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE, StarBenchProfile
from avibench.level_metrics.starbench_rotation import answer_letter, family
from avibench.level_metrics.task_metrics import Metric, tallied

RunStatus = Literal["answered", "failed", "missing"]
Outcome = Literal["correct", "wrong", "unparsed", "failed", "missing"]
FINAL_MA = "Final MA"


@dataclass(frozen=True)
class Run:
    """One run of one item as scored: what was presented (options, clip order), the gold and the response.

    ``answer`` is the gold option text of this run (for temporal items, recomputed for its clip order).
    ``status`` is ``failed`` for a request that raised and ``missing`` for a run never asked.
    """

    item_id: str
    rotation: int
    options: tuple[str, ...]
    answer: str
    category: str | None = None
    sub_category: str | None = None
    order: tuple[int, ...] = ()
    status: RunStatus = "answered"
    response: str | None = None

    @property
    def gold_letter(self) -> str:
        return answer_letter(self.options, self.answer)


@dataclass(frozen=True)
class Judged:
    """The verdict on one run: ``outcome`` and the parser's choice (``None`` when nothing was parsed)."""

    run: Run
    outcome: Outcome
    choice: Choice | None = None

    @property
    def correct(self) -> bool:
        return self.outcome == "correct"


@dataclass(frozen=True)
class DatasetScore:
    """One dataset scored in one profile: the official block and what was left out or could not be read.

    ``run_scores`` follows the runs as given: 1 right, 0 wrong, ``None`` for a run the profile leaves out (an
    incomplete id in the reference, a repeated presentation in the strict profile).
    """

    block: dict[str, Any]
    incomplete_ids: tuple[str, ...] = ()
    repeated_runs_dropped: int = 0
    counts: Mapping[Outcome, int] = field(default_factory=dict)
    run_scores: tuple[float | None, ...] = ()


def judge_run(run: Run, profile: StarBenchProfile = REFERENCE) -> Judged:
    """Parse one run's response and compare it with its gold letter."""
    if run.status == "missing":
        return Judged(run, "missing")
    error = run.status == "failed" or is_error_response(run.response)
    if error and not profile.error_strings_are_answers:
        return Judged(run, "failed")
    choice = parse_choice(run.response, run.options, profile)
    if choice.letter is None:
        return Judged(run, "unparsed", choice)
    return Judged(run, "correct" if choice.letter == run.gold_letter else "wrong", choice)


def _value(x: float, profile: StarBenchProfile) -> float:
    return float(f"{x:.2f}") if profile.two_decimal_values else x


def _mean(values: Sequence[float]) -> float:
    """The plain mean; 0 for no values (a perception dataset without sub-categories has nothing to average)."""
    return sum(values) / len(values) if values else 0.0


def _aa(scores: Sequence[float], profile: StarBenchProfile) -> float:
    return _value(_mean(scores) * 100, profile)


Scored = tuple[Run, float]


def _metrics(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    by_id: dict[str, list[float]] = {}
    for run, p in rows:
        by_id.setdefault(run.item_id, []).append(p)
    acr = _mean([math.prod(ps) for ps in by_id.values()]) * 100
    return {
        "AA": _aa([p for _, p in rows], profile),
        "ACR": _value(acr, profile),
        "total_runs": len(rows),
        "unique_samples": len(by_id),
    }


def _category(run: Run) -> str | None:
    return run.category


def _sub_category(run: Run) -> str | None:
    return run.sub_category


def _group(rows: Sequence[Scored], key: Callable[[Run], str | None]) -> dict[str, list[Scored]]:
    """Rows by ``key`` (rows whose key is ``None`` are left out), keys in sorted order."""
    groups: dict[str, list[Scored]] = {}
    for row in rows:
        k = key(row[0])
        if k is not None:
            groups.setdefault(str(k), []).append(row)
    return dict(sorted(groups.items()))


def _micro_block(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    block: dict[str, Any] = {"Total": _metrics(rows, profile)}
    for name, key in (("By Category", _category), ("By Sub-category", _sub_category)):
        groups = _group(rows, key)
        if groups:
            block[name] = {k: _metrics(g, profile) for k, g in groups.items()}
    return block


def _macro(
    entries: Sequence[Mapping[str, Any]], rows: Sequence[Scored], profile: StarBenchProfile
) -> dict[str, Any]:
    return {
        "AA": _value(_mean([e["AA"] for e in entries]), profile),
        "ACR": _value(_mean([e["ACR"] for e in entries]), profile),
        "n_subcategories": len(entries),
        "total_runs": len(rows),
        "unique_samples": len({run.item_id for run, _ in rows}),
    }


def _macro_block(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    """Perception: sub-categories micro, categories and total the mean of their sub-categories' values."""
    subs = _group(rows, _sub_category)
    by_sub = {k: _metrics(g, profile) for k, g in subs.items()}
    parent = {k: g[0][0].category for k, g in subs.items() if g[0][0].category is not None}
    by_cat = {}
    for cat, cat_rows in _group(rows, _category).items():
        members = [by_sub[k] for k, c in parent.items() if str(c) == cat]
        if members:
            by_cat[cat] = _macro(members, cat_rows, profile)
    return {
        "By Sub-category": by_sub,
        "By Category": by_cat,
        "Total": _macro(list(by_sub.values()), rows, profile),
    }


def _select(runs: Sequence[Run], profile: StarBenchProfile) -> tuple[list[Run], tuple[str, ...], int]:
    """The runs that count, the ids with a missing run, and how many repeated presentations were dropped."""
    incomplete = tuple(dict.fromkeys(r.item_id for r in runs if r.status == "missing"))
    kept = [r for r in runs if r.item_id not in incomplete] if profile.incomplete_ids_dropped else list(runs)
    if profile.repeated_runs_count_twice:
        return kept, incomplete, 0
    first: dict[tuple[Any, ...], Run] = {}
    for run in sorted(kept, key=lambda r: (r.status != "answered", r.rotation)):
        first.setdefault((run.item_id, run.options, run.order), run)
    chosen = {id(r) for r in first.values()}
    unique = [r for r in kept if id(r) in chosen]
    return unique, incomplete, len(kept) - len(unique)


def dataset_block(alias: str, rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    """The official block of dataset ``alias`` from its scored runs, each with its score (or chance) in [0, 1]."""
    if not rows:
        return {"Total": {"AA": 0.0, "ACR": 0.0, "total_runs": 0, "unique_samples": 0}}
    return _macro_block(rows, profile) if family(alias) == "pc" else _micro_block(rows, profile)


def score_dataset(alias: str, runs: Sequence[Run], profile: StarBenchProfile = REFERENCE) -> DatasetScore:
    """Score every run of dataset ``alias`` (``pc``, ``tr_cap``, ...) and build its official block.

    Pass one :class:`Run` per expected run, with ``status="missing"`` for those never asked: such items are listed
    in ``incomplete_ids``; the reference profile leaves them out, the strict profile counts the missing run wrong.
    """
    kept, incomplete, dropped = _select(runs, profile)
    judged = [judge_run(r, profile) for r in kept]
    counts: dict[Outcome, int] = {}
    for j in judged:
        counts[j.outcome] = counts.get(j.outcome, 0) + 1
    rows = [(j.run, 1.0 if j.correct else 0.0) for j in judged]
    by_run = {id(run): value for run, value in rows}
    run_scores = tuple(by_run.get(id(run)) for run in runs)
    return DatasetScore(dataset_block(alias, rows, profile), incomplete, dropped, counts, run_scores)


def runs_left_out(runs: Sequence[Run], profile: StarBenchProfile = REFERENCE) -> list[int]:
    """The positions of the runs a profile leaves out: every run of an id with a run missing (the reference), a
    repeated presentation after its first answered one (strict)."""
    kept = {id(r) for r in _select(runs, profile)[0]}
    return [i for i, run in enumerate(runs) if id(run) not in kept]


def aa_metric(alias: str, profile: StarBenchProfile = REFERENCE) -> Metric:
    """Dataset ``alias``'s AA (its ``Total``) over the values ``(sub-category, score)`` of the runs scored: over
    the runs, or for perception the mean over sub-categories of theirs (runs without one left out)."""

    def share(totals: Mapping[Hashable, float], *key: str) -> float:
        n = totals.get(("n", *key), 0.0)
        return _value((totals.get(("sum", *key), 0.0) / n if n else 0.0) * 100, profile)

    def macro_from_totals(totals: Mapping[Hashable, float]) -> float:
        subs = sorted(name[1] for name, n in totals.items() if name[0] == "n" and len(name) == 2 and n)  # type: ignore[index, arg-type]
        return _value(_mean([share(totals, sub) for sub in subs]), profile)

    @tallied(lambda v: {("sum",): float(v[1]), ("n",): 1.0}, share)
    def micro(values: Sequence[Any]) -> float | None:
        return _aa([float(score) for _, score in values], profile)

    @tallied(
        lambda v: {} if v[0] is None else {("sum", str(v[0])): float(v[1]), ("n", str(v[0])): 1.0},
        macro_from_totals,
    )
    def macro(values: Sequence[Any]) -> float | None:
        groups: dict[str, list[float]] = {}
        for sub, score in values:
            if sub is not None:
                groups.setdefault(str(sub), []).append(float(score))
        return _value(_mean([_aa(groups[k], profile) for k in sorted(groups)]), profile)

    return macro if family(alias) == "pc" else micro


def chance_block(alias: str, runs: Sequence[Run], profile: StarBenchProfile = REFERENCE) -> dict[str, Any]:
    """The block a uniform random guesser is expected to get (each run right with probability 1/options)."""
    asked = [
        Run(r.item_id, r.rotation, r.options, r.answer, r.category, r.sub_category, r.order) for r in runs
    ]
    kept, _, _ = _select(asked, profile)
    return dataset_block(alias, [(r, 1.0 / len(r.options)) for r in kept], profile)


def final_ma(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """The official summary row: the mean over datasets of their ``Total`` AA and ACR."""
    totals = [b["Total"] for b in blocks.values()]
    if not totals:
        return {"AA": 0.0, "ACR": 0.0}
    return {"AA": _mean([t["AA"] for t in totals]), "ACR": _mean([t["ACR"] for t in totals])}


def reference_blocks(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per-dataset blocks keyed by alias, followed by their ``Final MA``."""
    return {**blocks, FINAL_MA: final_ma(blocks)}


def score_benchmark(
    runs_by_alias: Mapping[str, Sequence[Run]], profile: StarBenchProfile = REFERENCE
) -> tuple[dict[str, Any], dict[str, DatasetScore]]:
    """Score several datasets: the combined block (``{alias: block, "Final MA": ...}``) and each dataset's score."""
    scores = {alias: score_dataset(alias, runs, profile) for alias, runs in runs_by_alias.items()}
    return reference_blocks({a: s.block for a, s in scores.items()}), scores


def chance_levels(
    runs_by_alias: Mapping[str, Sequence[Run]], profile: StarBenchProfile = REFERENCE
) -> dict[str, Any]:
    """Chance blocks per dataset and their ``Final MA``."""
    return reference_blocks(
        {alias: chance_block(alias, runs, profile) for alias, runs in runs_by_alias.items()}
    )
