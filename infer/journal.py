"""The infer journal: one JSONL file per task, one record per finished request, the latest per key wins.

A question is done when its latest record has a non-empty ``predict`` and no ``error``. Planning a run reads
the journal, checks that it was made from the same dataset (same id under every recorded key) and lists
what is still to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.contracts import InferRecord, is_answered, latest_by_key
from avibench.errors import JournalMismatchError
from avibench.items import Item, first_variants


@dataclass(frozen=True)
class Shard:
    """Part ``index`` of ``count`` (0-based): the questions whose position in the task is ``index`` modulo ``count``.

    Selecting by position in the loaded task (not among pending questions) keeps concurrent shards disjoint
    even when they start at different times.
    """

    index: int = 0
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like i/n (for example 0/4), got {text!r}") from None
        if n < 1 or not 0 <= i < n:
            raise ValueError(f"--shard {text}: need n >= 1 and 0 <= i < n (shards are numbered from 0)")
        return cls(i, n)

    def takes(self, index: int) -> bool:
        return index % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class TaskPlan:
    """One task of a run: what is already done and which items are still to ask."""

    task: str
    path: Path
    selected: int
    already_done: int
    pending: list[Item] = field(default_factory=list)
    other_shards: int = 0


def record_id(item: Item) -> str:
    """The id a journal record carries: the id the official data gives the question."""
    return str(item.meta.get("id", item.item_id))


def where(item: Item) -> str:
    """How a message names a question: its entry number where that is its key, else its key."""
    return f"entry {item.index}" if item.key == str(item.index) else f"question {item.key!r}"


def check_journal(
    path: Path, items: Sequence[Item], latest: dict[str, dict[str, Any]], model: str | None = None
) -> None:
    """Raise :class:`JournalMismatchError` if the journal was made from other data (or by a model other than ``model``)."""
    by_key = {item.key: item for item in items}
    for key, record in latest.items():
        item = by_key.get(key)
        if item is None:
            raise JournalMismatchError(
                f"{path}: has a record for {key!r}, which the dataset ({len(items)} questions) no longer has; "
                "the dataset changed under this run: use another --label or move the journal away"
            )
        if str(record.get("id")) != record_id(item):
            raise JournalMismatchError(
                f"{path}: {where(item)} was answered for id {record.get('id')!r} but the dataset now has id "
                f"{record_id(item)!r} there; the dataset changed under this run: use another --label or move the "
                "journal away"
            )
        if model is not None and is_answered(record) and record.get("model") != model:
            raise JournalMismatchError(
                f"{path}: {where(item)} was answered by model {record.get('model')!r}, not {model!r}; "
                "use another --label for this model"
            )


def plan_task(
    items: Sequence[Item],
    path: Path,
    task: str,
    model: str,
    *,
    n_samples: int | None,
    shard: Shard,
    first_only: bool = False,
) -> TaskPlan:
    """What to ask of one task: ``items`` as the benchmark loaded them, ``path`` its infer journal.

    ``first_only`` asks only each item's first variant; the journal is still checked against every variant, so a
    run can go on later with all of them.
    """
    latest = latest_by_key(path)
    check_journal(path, items, latest, model)
    asked = first_variants(items) if first_only else items
    selected = asked[:n_samples] if n_samples is not None else asked
    plan = TaskPlan(task=task, path=path, selected=len(selected), already_done=0)
    for position, item in enumerate(selected):
        if is_answered(latest.get(item.key)):
            plan.already_done += 1
        elif shard.takes(position):
            plan.pending.append(item)
        else:
            plan.other_shards += 1
    return plan


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def make_record(
    item: Item,
    *,
    predict: str | None,
    error: str | None,
    backend: str,
    model: str,
    params: dict[str, Any],
    prompt_hash: str,
    latency_s: float,
    usage: dict[str, int] | None,
    timings: dict[str, float] | None = None,
    finish_reason: str | None = None,
    request_bytes: int | None = None,
    attempts: int = 1,
) -> InferRecord:
    record: InferRecord = {
        "key": item.key,
        "item_id": item.item_id,
        "variant": item.variant,
        "index": item.index,
        "id": record_id(item),
        "task": item.task,
        "subtask": item.meta.get("subtask"),
        "predict": predict,
        "error": error,
        "backend": backend,
        "model": model,
        "params": params,
        "prompt_hash": prompt_hash,
        "latency_s": round(latency_s, 4),
        "usage": usage,
        "attempts": attempts,
        "time": now_iso(),
        "version": __version__,
    }
    if timings:
        record["timings"] = timings
    if finish_reason is not None:
        record["finish_reason"] = finish_reason
    if request_bytes is not None:
        record["request_bytes"] = request_bytes
    return record
