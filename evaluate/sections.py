"""Report sections every benchmark's run report shares: refine methods, requests, tokens and cost, definitions,
provenance, and the options a report is written with."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from avibench.evaluate.document import DASH, Paragraph, Table
from avibench.evaluate.run_files import InferStats


@dataclass(frozen=True)
class ReportOptions:
    """What a report is written with beyond the run's files.

    ``price_in`` and ``price_out`` are USD per million prompt and completion tokens (the cost column appears
    only when both are given); ``published`` names the published models drawn beside the run (``None``: the
    three best published ones).
    """

    price_in: float | None = None
    price_out: float | None = None
    published: tuple[str, ...] | None = None

    @property
    def priced(self) -> bool:
        return self.price_in is not None and self.price_out is not None


#: Refine methods in the order of the table's columns.
REFINE_METHODS = ("rule", "llm", "unparsed", "passthrough", "failed")


def refine_table(stats: Mapping[str, Counter[str]]) -> Table:
    rows, totals = [], Counter[str]()
    for task in stats:
        counts = stats[task]
        other = sum(n for method, n in counts.items() if method not in REFINE_METHODS)
        rows.append([task, *(str(counts[m]) for m in REFINE_METHODS), str(other), str(sum(counts.values()))])
        totals.update(counts)
    other_total = sum(n for method, n in totals.items() if method not in REFINE_METHODS)
    rows.append(
        ["Total", *(str(totals[m]) for m in REFINE_METHODS), str(other_total), str(sum(totals.values()))]
    )
    return Table(["Task", "Rules", "LLM", "Unparsed", "Passthrough", "Failed", "Other", "Samples"], rows)


def _fmt_seconds(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def _cost(s: InferStats, options: ReportOptions) -> str:
    if not s.with_usage:
        return DASH
    prompt, completion = s.tokens.get("prompt_tokens", 0), s.tokens.get("completion_tokens", 0)
    return f"{(prompt * (options.price_in or 0) + completion * (options.price_out or 0)) / 1e6:.4f}"


def usage_table(stats: Mapping[str, InferStats], options: ReportOptions | None = None) -> Table:
    """Per task and in total: what the endpoint received, tokens, estimated cost (when priced) and latency."""
    options = options or ReportOptions()

    def row(name: str, s: InferStats) -> list[str]:
        counts = [str(s.requests), str(s.records), str(s.done), str(s.failed)]
        cost = [_cost(s, options)] if options.priced else []
        return [name, *counts, *s.token_cells(), *cost, *(_fmt_seconds(s.latency(q)) for q in (50, 95, 100))]

    rows = [row(task, s) for task, s in stats.items()]
    all_stats = list(stats.values())
    tokens = Counter[str]()
    for s in all_stats:
        tokens.update(s.tokens)
    total = InferStats(
        records=sum(s.records for s in all_stats),
        requests=sum(s.requests for s in all_stats),
        done=sum(s.done for s in all_stats),
        failed=sum(s.failed for s in all_stats),
        with_usage=sum(s.with_usage for s in all_stats),
        tokens=dict(tokens),
        latencies=tuple(v for s in all_stats for v in s.latencies),
    )
    rows.append(row("Total", total))
    headers = ["Task", "Requests sent", "Journal records", "Done", "Failed"]
    headers += ["Prompt tokens", "Completion tokens", "Total tokens"]
    headers += ["Est. cost (USD)"] if options.priced else []
    return Table([*headers, "Latency p50 (s)", "p95 (s)", "max (s)"], rows)


def usage_explanation(options: ReportOptions) -> Paragraph:
    """What each number of the usage table counts, said once above it."""
    price = (
        f" Cost is estimated at {options.price_in:g} USD per million prompt tokens and {options.price_out:g} "
        "per million completion tokens."
        if options.priced
        else " Give --price-in and --price-out (USD per million tokens) to add an estimated cost."
    )
    return Paragraph(
        "Requests sent: what the endpoint received, retries inside the client included (each journal record "
        "stores its attempts; older records count as one). Journal records: finished questions, one per "
        "question and run (a question retried by a later run counts again). Requests in flight when a run was "
        "killed appear in neither. Done and Failed count each question's latest record. Tokens and latency sum "
        "every record; an attempt that failed reports no usage, so tokens count answered attempts only."
        + price
    )


#: Terms every report uses, defined once at the end of the page.
COMMON_DEFINITIONS: tuple[tuple[str, str], ...] = (
    (
        "reference profile",
        "reproduces the benchmark's official scorer exactly, its quirks included, so numbers compare with "
        "published ones.",
    ),
    ("strict profile", "the same scorer with the official defects fixed; use it to compare models fairly."),
    (
        "chance level",
        "the score a uniform guess over each question's answer space gets on average, computed from this "
        "dataset (drawn as a dashed red line on the task charts).",
    ),
    (
        "95% CI",
        "percentile bootstrap interval over items: items are redrawn with replacement 1,000 times (seed 0); "
        "the questions of one item (a double-confirm pair, the rotations of a question, the folders of a "
        "pooled task) are drawn together. Stage and Overall intervals recompute the benchmark's formula on "
        "each resample. Where a task's score is not a plain mean over its items, the interval measures the "
        "item-to-item variation of the per-item scores around the reported score. A class-based score (an F1 "
        "over classes) leaves out of a resample a class the drawn items hold neither as truth nor as answer, "
        "as its F1 is undefined there rather than 0; a resample where the score itself is undefined is left "
        "out of the percentiles.",
    ),
    (
        "partial / incomplete",
        "a task scored on fewer questions than it has (failed, missing or unscorable answers), or a summary "
        "number that rests on such a task or on a task not scored; hover the badge for the counts.",
    ),
    (
        "not scored",
        "a task with no score (no data, no answers, a scorer that could not run); it is never drawn or "
        "counted as 0.",
    ),
)


def definitions_table(extra: Sequence[tuple[str, str]] = ()) -> Table:
    return Table(["Term", "Meaning"], [[t, d] for t, d in (*extra, *COMMON_DEFINITIONS)], align="lw")


def _flatten(prefix: str, value: object, depth: int = 2) -> list[tuple[str, str]]:
    """(dotted key, text) pairs of an object, nested objects opened ``depth`` levels deep, deeper ones as JSON."""
    if isinstance(value, dict) and value and depth > 0:
        pairs: list[tuple[str, str]] = []
        for key, child in value.items():
            pairs += _flatten(f"{prefix}.{key}" if prefix else str(key), child, depth - 1)
        return pairs
    if isinstance(value, str):
        return [(prefix, value)]
    return [(prefix, json.dumps(value, ensure_ascii=False, sort_keys=True))]


def provenance_table(meta: Mapping[str, Any], run_json: dict[str, Any] | None) -> Table:
    rows = [["eval.json", key, text] for key, text in _flatten("", dict(meta))]
    if run_json is not None:
        rows += [["infer/run.json", key, text] for key, text in _flatten("", run_json)]
    return Table(["File", "Field", "Value"], rows, align="lll")
