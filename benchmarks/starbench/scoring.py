"""STAR-Bench responses scored in both profiles into the eval document.

Every response is one run of one item (key ``id@k``). Both profiles parse the raw answer themselves (the reference
with the official parser, the strict profile with the strict one), so a run scores the same whether or not refine
ran. The top level of the document is what the official evaluator writes for the primary profile: one
``performance.json`` block per dataset alias (``Total``, ``By Category``, ``By Sub-category``, each with ``AA``,
``ACR``, ``total_runs``, ``unique_samples``; percent floats) and the ``Final MA`` row over the datasets scored.

Each run's score in each profile (``per_sample``, for samples.jsonl) is 1 or 0, ``None`` where the profile leaves
the run out (the reference drops an id with a missing run).

A run that asked only each item's first variant (``infer --variants first``) is a rotations-off run: its datasets
are scored on run 0 alone, as the official evaluator does when robust evaluation is off, and ``meta.rotations``
says so (the official evaluator would crash on such a perception dataset, because it always expects one run per
option; here it is scored on run 0 like the others).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from avibench.benchmarks.starbench.workdir import run_from_item, run_from_response
from avibench.items import Response, first_variants
from avibench.level_metrics.starbench import FINAL_MA, DatasetScore, chance_levels, score_benchmark
from avibench.level_metrics.starbench_parse import is_error_response
from avibench.level_metrics.starbench_profile import PROFILES, get_profile
from avibench.plugin import Scored

INCOMPLETE_SHOWN = 3


@dataclass(frozen=True)
class DatasetRuns:
    """The responses of one dataset that count, and whether the run asked only first variants."""

    alias: str
    responses: tuple[Response, ...]
    first_only: bool

    @property
    def asked(self) -> bool:
        return any(r.status != "missing" for r in self.responses)


def dataset_runs(alias: str, responses: Sequence[Response]) -> DatasetRuns:
    """The runs to score: all of them, or run 0 alone when nothing but first variants was asked."""
    first = {item.key for item in first_variants(r.item for r in responses)}
    asked = [r for r in responses if r.status != "missing"]
    first_only = len(first) < len(responses) and bool(asked) and all(r.item.key in first for r in asked)
    kept = tuple(r for r in responses if r.item.key in first) if first_only else tuple(responses)
    return DatasetRuns(alias, kept, first_only)


def is_failure(response: Response) -> bool:
    """A request that failed: recorded as failed, or stored by the official runner as its error string."""
    return response.status == "failed" or (response.status == "answered" and is_error_response(response.raw))


def _profile_summary(block: Mapping[str, Any]) -> dict[str, Any]:
    datasets = {alias: b["Total"] for alias, b in block.items() if alias != FINAL_MA}
    return {
        "tasks": {alias: total["AA"] for alias, total in datasets.items()},
        "headline": block[FINAL_MA]["AA"],
        "acr": {alias: total["ACR"] for alias, total in datasets.items()},
        "headline_acr": block[FINAL_MA]["ACR"],
    }


def _reason(runs: DatasetRuns, score: DatasetScore, failed: int, missing: int) -> str | None:
    notes = []
    if runs.first_only:
        notes.append("rotations off: run 0 of each item only")
    if missing:
        notes.append(f"{missing} run(s) never asked")
    if score.incomplete_ids:
        shown = ", ".join(score.incomplete_ids[:INCOMPLETE_SHOWN])
        more = "..." if len(score.incomplete_ids) > INCOMPLETE_SHOWN else ""
        notes.append(f"{len(score.incomplete_ids)} id(s) with a run missing ({shown}{more})")
    if failed:
        notes.append(f"{failed} failed request(s), counted wrong")
    return "; ".join(notes) or None


def _coverage(runs: DatasetRuns, score: DatasetScore | None) -> dict[str, Any]:
    failed = sum(is_failure(r) for r in runs.responses)
    missing = sum(r.status == "missing" for r in runs.responses)
    if score is None:
        status, reason = "not_scored", "no answer recorded"
    else:
        status = "partial" if failed or missing else "scored"
        reason = _reason(runs, score, failed, missing)
    return {
        "questions": len(runs.responses),
        "answered": len(runs.responses) - failed - missing,
        "failed": failed,
        "missing": missing,
        "unparsed": score.counts.get("unparsed", 0) if score else 0,
        "scored": sum(score.counts.values()) if score else 0,
        "incomplete_ids": len(score.incomplete_ids) if score else 0,
        "runs": "first" if runs.first_only else "all",
        "status": status,
        "reason": reason,
    }


def _rotations(datasets: Sequence[DatasetRuns]) -> str:
    off = {d.first_only for d in datasets}
    return "mixed" if len(off) > 1 else "off" if off == {True} else "on"


def score_responses(responses: Mapping[str, Sequence[Response]], profile: str) -> Scored:
    """The eval document of the datasets in ``responses`` (alias -> one response per loaded run)."""
    datasets = {alias: dataset_runs(alias, rs) for alias, rs in responses.items()}
    scored = {alias: d for alias, d in datasets.items() if d.asked}
    runs = {alias: [run_from_response(r) for r in d.responses] for alias, d in scored.items()}
    results = {name: score_benchmark(runs, get_profile(name)) for name in PROFILES}
    block, scores = results[profile]
    by_profile = {name: _profile_summary(b) for name, (b, _) in results.items()}
    levels = chance_levels(
        {alias: [run_from_item(r.item) for r in d.responses] for alias, d in scored.items()}
    )
    chance = {alias: levels[alias]["Total"]["AA"] for alias in scored}
    document = {
        **block,
        "summary": {"profile": profile, **by_profile[profile], "chance": chance, "by_profile": by_profile},
        "coverage": {alias: _coverage(d, scores.get(alias)) for alias, d in datasets.items()},
        "meta": {"rotations": _rotations(list(scored.values()))},
    }
    per_sample = {
        alias: {
            response.item.key: {name: results[name][1][alias].run_scores[i] for name in PROFILES}
            for i, response in enumerate(d.responses)
        }
        for alias, d in scored.items()
    }
    return Scored(document=document, per_sample=per_sample)
