"""STAR-Bench metrics: AA and ACR per dataset, the official ``performance.json`` block, ``Final MA``. Pure.

* AA (average accuracy) is the mean correctness over all runs; ACR (all-correct rate) is the share of items whose
  runs are all correct.
* ``tr*``/``sr*``: ``Total``, ``By Category`` and ``By Sub-category``, each computed over runs (micro).
* ``pc*``: micro within each sub-category; a category is the unweighted mean of its sub-categories and ``Total``
  the unweighted mean of all sub-categories (macro).
* ``Final MA`` is the unweighted mean over the scored datasets of their ``Total`` AA and ACR.

A run is the :class:`~avibench.items.Item` asked. A dataset's AA is also a task metric (:func:`aa_metric`) over
per-run values ``(sub-category, score)``, so the core computes the same number and resamples items for intervals.
All numbers are percentages. Chance levels come from the same aggregation with each run's correctness replaced by
the probability that a uniform guess is right (ACR then multiplies an item's probabilities).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from avibench.items import Item
from avibench.level_metrics.starbench_profile import REFERENCE, StarBenchProfile
from avibench.level_metrics.starbench_rotation import family
from avibench.level_metrics.task_metrics import Metric, tallied

FINAL_MA = "Final MA"
Scored = tuple[Item, float]
GROUPINGS = (("By Category", "category"), ("By Sub-category", "sub-category"))


def _value(x: float, profile: StarBenchProfile) -> float:
    return float(f"{x:.2f}") if profile.two_decimal_values else x


def _mean(values: Sequence[float]) -> float:
    """The plain mean; 0 for no values (a perception dataset without sub-categories has nothing to average)."""
    return sum(values) / len(values) if values else 0.0


def _aa(scores: Sequence[float], profile: StarBenchProfile) -> float:
    return _value(_mean(scores) * 100, profile)


def _metrics(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    by_id: dict[str, list[float]] = {}
    for item, p in rows:
        by_id.setdefault(item.item_id, []).append(p)
    return {
        "AA": _aa([p for _, p in rows], profile),
        "ACR": _value(_mean([math.prod(ps) for ps in by_id.values()]) * 100, profile),
        "total_runs": len(rows),
        "unique_samples": len(by_id),
    }


def _group(rows: Sequence[Scored], field: str) -> dict[str, list[Scored]]:
    """Rows by the meta ``field`` (rows without one are left out), keys in sorted order."""
    groups: dict[str, list[Scored]] = {}
    for row in rows:
        if row[0].meta.get(field) is not None:
            groups.setdefault(str(row[0].meta[field]), []).append(row)
    return dict(sorted(groups.items()))


def _micro_block(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    block: dict[str, Any] = {"Total": _metrics(rows, profile)}
    for name, field in GROUPINGS:
        groups = _group(rows, field)
        if groups:
            block[name] = {k: _metrics(g, profile) for k, g in groups.items()}
    return block


def _macro(
    entries: Sequence[Mapping[str, Any]], rows: Sequence[Scored], profile: StarBenchProfile
) -> dict[str, Any]:
    return {
        **{key: _value(_mean([e[key] for e in entries]), profile) for key in ("AA", "ACR")},
        "n_subcategories": len(entries),
        "total_runs": len(rows),
        "unique_samples": len({item.item_id for item, _ in rows}),
    }


def _macro_block(rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    """Perception: sub-categories micro, categories and total the mean of their sub-categories' values."""
    subs = _group(rows, "sub-category")
    by_sub = {k: _metrics(g, profile) for k, g in subs.items()}
    parent = {k: g[0][0].meta.get("category") for k, g in subs.items()}
    by_cat = {}
    for cat, cat_rows in _group(rows, "category").items():
        members = [by_sub[k] for k, c in parent.items() if c is not None and str(c) == cat]
        if members:
            by_cat[cat] = _macro(members, cat_rows, profile)
    return {
        "By Sub-category": by_sub,
        "By Category": by_cat,
        "Total": _macro(list(by_sub.values()), rows, profile),
    }


def runs_counted(items: Sequence[Item], statuses: Sequence[str], profile: StarBenchProfile) -> list[bool]:
    """Whether each run counts: the reference leaves out every run of an id with a run ``missing``; strict counts
    a repeated presentation (same options and clip order) once, the first answered one."""
    incomplete = {item.item_id for item, status in zip(items, statuses, strict=True) if status == "missing"}
    kept = [not (profile.incomplete_ids_dropped and item.item_id in incomplete) for item in items]
    if profile.repeated_runs_count_twice:
        return kept
    first: dict[tuple[Any, ...], int] = {}
    order = sorted(
        (k for k in range(len(items)) if kept[k]),
        key=lambda k: (statuses[k] != "answered", items[k].meta["rotate_id"]),
    )
    for k in order:
        item = items[k]
        first.setdefault((item.item_id, item.options, item.meta.get("shuffled_seg_order")), k)
    chosen = set(first.values())
    return [k in chosen for k in range(len(items))]


def dataset_block(alias: str, rows: Sequence[Scored], profile: StarBenchProfile) -> dict[str, Any]:
    """The official block of dataset ``alias`` from its scored runs, each with its score (or chance) in [0, 1]."""
    if not rows:
        return {"Total": {"AA": 0.0, "ACR": 0.0, "total_runs": 0, "unique_samples": 0}}
    return _macro_block(rows, profile) if family(alias) == "pc" else _micro_block(rows, profile)


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


def chance_block(alias: str, items: Sequence[Item], profile: StarBenchProfile = REFERENCE) -> dict[str, Any]:
    """The block a uniform random guesser is expected to get (each run right with probability 1/options)."""
    counted = runs_counted(items, ["answered"] * len(items), profile)
    return dataset_block(
        alias, [(i, 1.0 / len(i.options)) for i, c in zip(items, counted, strict=True) if c], profile
    )


def with_final_ma(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Per-dataset blocks keyed by alias, followed by the official summary row: the mean over datasets of their
    ``Total`` AA and ACR."""
    totals = [b["Total"] for b in blocks.values()]
    return {**blocks, FINAL_MA: {k: _mean([t[k] for t in totals]) for k in ("AA", "ACR")}}
