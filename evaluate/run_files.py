"""Reading a run's files for the pages: its eval.json, and accounting over its infer and refine journals."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.contracts import RunPaths, is_answered, latest_read_only, records_read_only
from avibench.errors import AvibenchError
from avibench.evaluate.document import DASH, as_number
from avibench.store import read_records


def read_json(path: Path) -> Any:
    """A JSON file's value; an unreadable file or invalid JSON is a user error naming the file (and the line)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AvibenchError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AvibenchError(f"{path}: cannot read: {exc}") from None


def load_eval(paths: RunPaths) -> dict[str, Any]:
    """The run's eval.json; a missing or unreadable file is a user error that says what to do."""
    path, label = paths.eval_json, paths.label
    if not path.is_file():
        raise AvibenchError(
            f"{path}: no eval.json for run '{label}'; run `avibench eval --benchmark {paths.benchmark} "
            f"--label {label}` first"
        )
    doc = read_json(path)
    if not isinstance(doc, dict):
        raise AvibenchError(f"{path}: expected a JSON object at the top level")
    if not isinstance(doc.get("summary"), dict):
        raise AvibenchError(f"{path} field summary: missing or not an object; re-run `avibench eval`")
    return doc


TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclass(frozen=True)
class InferStats:
    """Request accounting of one task's infer journal.

    ``records`` counts journal records: one per finished question, a question retried by a later run counts
    again. ``requests`` counts what the endpoint received: each record's ``attempts`` (the client's own
    retries included; a record without it counts 1). Requests still in flight when a run was killed are in
    neither. ``tokens`` sums the usage of every record (an attempt that failed reports none); ``with_usage``
    counts the records that reported usage at all (offline baselines and some servers report none, which shows
    as a dash, not 0).
    """

    records: int
    done: int
    failed: int
    with_usage: int
    tokens: dict[str, int]
    latencies: tuple[float, ...]
    requests: int = 0

    def latency(self, q: float) -> float | None:
        if not self.latencies:
            return None
        import numpy as np  # the report commands import this module; most never need a percentile

        return float(np.percentile(self.latencies, q))

    def token_cells(self) -> list[str]:
        return [str(self.tokens.get(k, 0)) if self.with_usage else DASH for k in TOKEN_KEYS]


def _tokens(usages: Iterable[dict[str, Any]]) -> dict[str, int]:
    totals = Counter[str]()
    for usage in usages:
        for key in TOKEN_KEYS:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                totals[key] += value
    return dict(totals)


def _attempts(record: dict[str, Any]) -> int:
    value = record.get("attempts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def infer_stats(paths: RunPaths, tasks: Sequence[str]) -> dict[str, InferStats]:
    """Per task with an infer journal, in the order given: requests, tokens (every request) and latencies."""
    stats: dict[str, InferStats] = {}
    for task in tasks:
        path = paths.infer_journal(task)
        if not path.is_file():
            continue
        records = records_read_only(path)
        latest = latest_read_only(path).values()
        usages = [r["usage"] for r in records if isinstance(r.get("usage"), dict)]
        stats[task] = InferStats(
            records=len(records),
            requests=sum(_attempts(r) for r in records),
            done=sum(1 for r in latest if is_answered(r)),
            failed=sum(1 for r in latest if r.get("error") is not None),
            with_usage=len(usages),
            tokens=_tokens(usages),
            latencies=tuple(v for r in records if (v := as_number(r.get("latency_s"))) is not None),
        )
    return stats


def refine_stats(paths: RunPaths, tasks: Sequence[str]) -> dict[str, Counter[str]]:
    """Per task with a refine journal, in the order given: how many answers each refine method made."""
    stats: dict[str, Counter[str]] = {}
    for task in tasks:
        path = paths.refine_journal(task)
        if path.is_file():
            stats[task] = Counter(str(r.get("method")) for r in latest_read_only(path).values())
    return stats


def read_run_json(path: Path) -> dict[str, Any] | str | None:
    """infer/run.json as an object, an error text when unreadable, or None when absent."""
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"unreadable ({exc})"
    return doc if isinstance(doc, dict) else "unreadable (not a JSON object)"


def _seconds(start: Any, end: Any) -> float | None:
    from datetime import datetime

    try:
        return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds()
    except ValueError:
        return None


def active_seconds(paths: RunPaths) -> float | None:
    """Wall time the run's infer invocations spent, each from its start to its end record (``infer/runs.jsonl``);
    an invocation killed before its end record is not counted. ``None`` when none finished."""
    total, started, any_finished = 0.0, None, False
    for record in read_records(paths.runs_log):
        if record.get("event") == "start":
            started = record.get("started")
        elif record.get("event") == "end" and started is not None:
            seconds = _seconds(started, record.get("finished"))
            if seconds is not None:
                total, any_finished = total + max(seconds, 0.0), True
            started = None
    return total if any_finished else None


def throughput(paths: RunPaths, tasks: Sequence[str]) -> dict[str, Any] | None:
    """The run's serving figures over every task: requests, requests per second of infer wall time, latency p50
    and p95, prompt and completion tokens (``None`` where no record reported usage) and failed questions."""
    stats = list(infer_stats(paths, tasks).values())
    if not stats:
        return None
    requests = sum(s.requests for s in stats)
    latencies = InferStats(0, 0, 0, 0, {}, tuple(v for s in stats for v in s.latencies))
    tokens = Counter[str]()
    for s in stats:
        tokens.update(s.tokens)
    usage = any(s.with_usage for s in stats)
    seconds = active_seconds(paths)
    return {
        "requests": requests,
        "failed": sum(s.failed for s in stats),
        "seconds": None if seconds is None else round(seconds, 3),
        "requests_per_second": round(requests / seconds, 3) if seconds else None,
        "latency_p50_s": None if (p := latencies.latency(50)) is None else round(p, 4),
        "latency_p95_s": None if (p := latencies.latency(95)) is None else round(p, 4),
        "prompt_tokens": tokens.get("prompt_tokens", 0) if usage else None,
        "completion_tokens": tokens.get("completion_tokens", 0) if usage else None,
    }
