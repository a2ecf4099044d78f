"""Incomplete badges: which numbers of a run rest on partial data, read from eval.json.

``summary.incomplete`` (written by eval) lists every number that rests on an incomplete task with its counts:
such a number gets an ``incomplete`` badge naming them. Where it lists nothing the badges come from ``coverage``.

``coverage[task].status`` is ``scored``, ``partial`` or ``not_scored`` per task folder (with its counts and
reason). A reported task pooled from several folders takes the worst status of its folders; a summary number
(a stage, Overall, the headline) is incomplete when any task it rests on is partial or not scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from avibench.evaluate.document import DASH, Cell, as_dict, fmt_score

if TYPE_CHECKING:
    from avibench.plugin import Benchmark

RANK = {"scored": 0, "partial": 1, "not_scored": 2}


@dataclass(frozen=True)
class Status:
    status: str
    hint: str = ""


def _counts(info: Mapping[str, Any]) -> str:
    total = info.get("formal", info.get("questions", info.get("entries")))
    parts = [f"{info.get('scored', 0)} of {total} scored"]
    parts += [
        f"{info[k]} {k}"
        for k in ("failed", "missing", "unparsed")
        if isinstance(info.get(k), int) and info[k]
    ]
    return ", ".join(parts)


def task_statuses(benchmark: Benchmark, coverage: Mapping[str, Any]) -> dict[str, Status]:
    """The status of every reported task that has coverage, with a hint naming its counts and reason."""
    grouped: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for folder, info in coverage.items():
        try:
            reported = benchmark.reported_task(folder)
        except Exception:  # a coverage key the benchmark does not know is reported as it is
            reported = folder
        grouped.setdefault(reported, []).append((folder, as_dict(info)))
    out: dict[str, Status] = {}
    for reported, folders in grouped.items():
        status = max((str(i.get("status") or "scored") for _, i in folders), key=lambda s: RANK.get(s, 0))
        hints = []
        for folder, info in folders:
            if info.get("status") in ("partial", "not_scored"):
                prefix = f"{folder}: " if len(folders) > 1 else ""
                reason = f"; {info['reason']}" if info.get("reason") else ""
                hints.append(f"{prefix}{_counts(info)}{reason}")
        out[reported] = Status(status, "; ".join(hints))
    return out


def score_cell(value: object, status: Status | None) -> Cell:
    """A task score with its badge: ``partial`` (scored on part of the questions) or ``not scored``."""
    if status is None or status.status == "scored":
        return Cell(fmt_score(value))
    if status.status == "partial" and fmt_score(value) != DASH:
        return Cell(fmt_score(value), "partial", status.hint)
    return Cell(fmt_score(value), "not scored", status.hint or "no score")


def aggregate_status(members: Sequence[str], statuses: Mapping[str, Status]) -> Status:
    """Incomplete when any member task is partial, not scored, or absent from coverage."""
    lacking = [
        f"{t} ({statuses[t].status.replace('_', ' ')})" if t in statuses else f"{t} (not run)"
        for t in members
        if t not in statuses or statuses[t].status != "scored"
    ]
    if not lacking:
        return Status("scored")
    return Status("partial", "rests on incomplete tasks: " + ", ".join(lacking))


def aggregate_cell(value: object, members: Sequence[str], statuses: Mapping[str, Status]) -> Cell:
    status = aggregate_status(members, statuses)
    if status.status == "scored":
        return Cell(fmt_score(value))
    return Cell(fmt_score(value), "incomplete", status.hint)


COUNT_WORDS = (("missing", "missing"), ("failed", "failed"), ("unrefined", "not refined"))


def incomplete_badge(incomplete: Mapping[str, Any], key: str) -> tuple[str, str] | None:
    """(badge, hint) of a number listed in ``summary.incomplete.numbers`` (``tasks.X``, ``overall``...), else None.

    The badge carries the counts (``incomplete: 3 missing, 1 failed``); the hint names each task behind them."""
    info = as_dict(as_dict(incomplete.get("numbers")).get(key))
    if not info:
        return None
    counts = [f"{info[k]} {word}" for k, word in COUNT_WORDS if isinstance(info.get(k), int) and info[k]]
    tasks = as_dict(incomplete.get("tasks"))
    hint = "rests on incomplete tasks: " + "; ".join(
        f"{t}: {as_dict(tasks.get(t)).get('text') or 'incomplete'}" for t in info.get("tasks") or ()
    )
    return "incomplete" + (f": {', '.join(counts)}" if counts else ""), hint


def number_cell(value: object, key: str, incomplete: Mapping[str, Any], fallback: Cell | None = None) -> Cell:
    """A summary number with the badge ``summary.incomplete`` gives it, else ``fallback`` (a coverage badge)."""
    badge = incomplete_badge(incomplete, key)
    if badge is not None:
        return Cell(fmt_score(value), *badge)
    return fallback or Cell(fmt_score(value))
