"""The infer journal: one JSONL file per task, one record per finished request, the latest per key wins.

A question is done when its latest record has a non-empty ``predict`` and no ``error``. Planning a run reads
the journal, checks that it was made from the same dataset (same id under every recorded key, and the same
question text and media: :func:`avibench.infer.fingerprint.content_hash`) and with the same generation settings
(:data:`GENERATION_SETTINGS`; ``--allow-mixed`` lets a run go on with other settings, and the mix is then
recorded and reported), and lists what is still to do.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.contracts import InferRecord, is_answered, latest_by_key
from avibench.errors import JournalMismatchError
from avibench.infer import fingerprint
from avibench.items import Item, first_variants
from avibench.store import atomic_write_json

#: The request parameters that change what a model answers; answers made with different values are not mixed
#: under one label unless asked (the seed, the provider options and the media encoding details are not among them).
GENERATION_SETTINGS = (
    "temperature",
    "max_tokens",
    "media",
    "drop_audio_with_video",
    "template",
    "system_prompt",
)


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
    mixed: Counter[str] = field(default_factory=Counter)
    """Answers on record made with other generation settings (``--allow-mixed``), by the setting that differs."""
    stamp: tuple[Sequence[Item], Mapping[str, Any]] | None = None
    """The task's items and planning inputs, for :func:`remember_finished` once the run has answered the rest."""


def record_id(item: Item) -> str:
    """The id a journal record carries: the id the official data gives the question."""
    return str(item.meta.get("id", item.item_id))


def where(item: Item) -> str:
    """How a message names a question: its entry number where that is its key, else its key."""
    return f"entry {item.index}" if item.key == str(item.index) else f"question {item.key!r}"


def generation_settings(params: dict[str, Any]) -> dict[str, Any]:
    """The generation settings of a record's ``params`` (absent ones are ``None``)."""
    return {k: params.get(k) for k in GENERATION_SETTINGS}


def settings_differ(record: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """The generation settings in which an answered record differs from ``expected`` (records without ``params``,
    written before parameters were recorded, are taken as they are)."""
    params = record.get("params")
    if not isinstance(params, dict):
        return []
    have = generation_settings(params)
    return [k for k in GENERATION_SETTINGS if have[k] != expected.get(k)]


def _describe(name: str, have: Any, want: Any) -> str:
    return f"{name} {json.dumps(have)} on record, {json.dumps(want)} now"


def check_journal(
    path: Path,
    items: Sequence[Item],
    latest: dict[str, dict[str, Any]],
    model: str | None = None,
    *,
    settings: Callable[[Item], dict[str, Any]] | None = None,
    allow_mixed: bool = False,
) -> Counter[str]:
    """Raise :class:`JournalMismatchError` if the journal was made from other data, by a model other than
    ``model``, or (unless ``allow_mixed``) with generation settings other than ``settings(item)``.

    Returns the answers on record that differ in their settings, counted by setting (empty unless ``allow_mixed``).
    """
    by_key = {item.key: item for item in items}
    mixed: Counter[str] = Counter()
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
        if not is_answered(record):
            continue
        if model is not None and record.get("model") != model:
            raise JournalMismatchError(
                f"{path}: {where(item)} was answered by model {record.get('model')!r}, not {model!r}; "
                "use another --label for this model"
            )
        stored = record.get("content_hash")
        if stored is not None and stored != fingerprint.content_hash(item):
            raise JournalMismatchError(
                f"{path}: {where(item)} (id {record_id(item)!r}) was answered for another version of its question "
                "text or media (content hash differs); the dataset changed under this run: use another --label "
                "or move the journal away"
            )
        if settings is None:
            continue
        expected = settings(item)
        differ = settings_differ(record, expected)
        if differ and not allow_mixed:
            params = record["params"]
            detail = "; ".join(_describe(k, params.get(k), expected.get(k)) for k in differ)
            raise JournalMismatchError(
                f"{path}: {where(item)} was answered with other generation settings ({detail}); use another "
                "--label, the same settings, or --allow-mixed to add answers made with these settings"
            )
        mixed.update(differ)
    return mixed


def plan_task(
    items: Sequence[Item],
    path: Path,
    task: str,
    model: str,
    *,
    n_samples: int | None,
    shard: Shard,
    first_only: bool = False,
    settings: Callable[[Item], dict[str, Any]] | None = None,
    allow_mixed: bool = False,
) -> TaskPlan:
    """What to ask of one task: ``items`` as the benchmark loaded them, ``path`` its infer journal, ``settings``
    the generation settings this run sends for an item (checked against the answers on record).

    ``first_only`` asks only each item's first variant; the journal is still checked against every variant, so a
    run can go on later with all of them.
    """
    latest = latest_by_key(path)
    mixed = check_journal(path, items, latest, model, settings=settings, allow_mixed=allow_mixed)
    asked = first_variants(items) if first_only else items
    selected = asked[:n_samples] if n_samples is not None else asked
    plan = TaskPlan(task=task, path=path, selected=len(selected), already_done=0, mixed=mixed)
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
    content_hash: str | None = None,
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
        "content_hash": content_hash,
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


#: Folder (beside the journals) of the stamps of finished tasks, see :func:`finished_plan`.
FINISHED_DIR = ".finished"


def _state(path: str | Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def file_states(paths: Sequence[Path]) -> dict[str, list[int] | None]:
    """Size and modification time (ns) of each file, ``None`` for one that is not there."""
    return {str(p): _state(p) for p in paths}


def _finished_path(journal: Path) -> Path:
    return journal.parent / FINISHED_DIR / f"{journal.stem}.json"


def finished_plan(journal: Path, task: str, inputs: Mapping[str, Any]) -> TaskPlan | None:
    """The plan of a task that was finished and checked when nothing it depends on has changed since, else None.

    Planning a resumed run loads the task, reads its journal and checks every answer against the dataset (ids,
    content hashes, model, settings). When a plan found nothing left to ask, :func:`remember_finished` records
    what that verdict rested on: ``inputs`` (the data files' sizes and times and the run's settings), the
    journal's size and time, and the size and time of every media file. The same inputs, an untouched journal
    and unchanged media give the same verdict, so a no-op resume stats files instead of hashing every question;
    an edit to any of them plans the task in full.
    """
    try:
        stamp = json.loads(_finished_path(journal).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("inputs") != json.loads(json.dumps(inputs)):
        return None
    if stamp.get("journal") != _state(journal):
        return None
    media = stamp.get("media")
    if not isinstance(media, dict) or any(_state(p) != state for p, state in media.items()):
        return None
    done = stamp.get("done")
    if not isinstance(done, int):
        return None
    mixed = stamp.get("mixed")
    return TaskPlan(
        task=task,
        path=journal,
        selected=done,
        already_done=done,
        mixed=Counter(mixed if isinstance(mixed, dict) else {}),
    )


def remember_answered(plan: TaskPlan, answered: int) -> None:
    """After a run: a task whose pending questions were all answered now is finished (its new records were made
    by this run, from these items and settings), so the next resume need not check it again."""
    if plan.stamp is None or plan.other_shards or answered != len(plan.pending):
        return
    items, inputs = plan.stamp
    done = TaskPlan(plan.task, plan.path, plan.selected, plan.already_done + answered, mixed=plan.mixed)
    remember_finished(done, items, inputs)


def remember_finished(plan: TaskPlan, items: Sequence[Item], inputs: Mapping[str, Any]) -> None:
    """Record a finished plan (nothing pending, no other shard's share) for :func:`finished_plan`; an unfinished
    plan removes any earlier record."""
    path = _finished_path(plan.path)
    if plan.pending or plan.other_shards or plan.already_done != plan.selected:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return
    media = {p.value: _state(p.value) for item in items for p in item.parts if p.kind != "text"}
    stamp = {
        "inputs": inputs,
        "journal": _state(plan.path),
        "media": media,
        "done": plan.already_done,
        "mixed": dict(plan.mixed),
    }
    with contextlib.suppress(OSError):  # a read-only run folder only costs the full check next time
        atomic_write_json(path, stamp)
