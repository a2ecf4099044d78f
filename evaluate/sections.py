"""Report sections every benchmark's run report shares: refine methods, requests and tokens, provenance."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from avibench.evaluate.document import DASH, Table
from avibench.evaluate.run_files import InferStats

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


def usage_table(stats: Mapping[str, InferStats]) -> Table:
    def row(name: str, s: InferStats) -> list[str]:
        counts = [str(s.requests), str(s.done), str(s.failed)]
        return [name, *counts, *s.token_cells(), *(_fmt_seconds(s.latency(q)) for q in (50, 95, 100))]

    rows = [row(task, s) for task, s in stats.items()]
    all_stats = list(stats.values())
    tokens = Counter[str]()
    for s in all_stats:
        tokens.update(s.tokens)
    total = InferStats(
        requests=sum(s.requests for s in all_stats),
        done=sum(s.done for s in all_stats),
        failed=sum(s.failed for s in all_stats),
        with_usage=sum(s.with_usage for s in all_stats),
        tokens=dict(tokens),
        latencies=tuple(v for s in all_stats for v in s.latencies),
    )
    rows.append(row("Total", total))
    headers = ["Task", "Requests", "Done", "Failed", "Prompt tokens", "Completion tokens", "Total tokens"]
    return Table([*headers, "Latency p50 (s)", "p95 (s)", "max (s)"], rows)


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
