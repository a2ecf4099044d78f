"""The refine stage: infer journals in, one refine journal per task out, resumable per sample.

A sample is (re)refined when it has no refine record yet, when its raw answer changed upstream (``raw_hash``),
when its last refine failed, or when this run can do better than the last one (an LLM is now available for an
answer the rules left unparsed; ``--mode llm`` for an answer refined without the LLM). Everything else is
skipped, so a finished run re-run does no work and sends no request.

``reparse`` re-reads every refined answer (``rule``, ``unparsed``, ``llm``) with the current rules, so improved
rules reach old records. An LLM reply already paid for is re-read too and never asked again: an ``llm`` record
whose raw answer the rules now decide becomes ``rule``; one they still cannot decide keeps its LLM result (re-read
by the current rules, else as it was), with or without an LLM configured. Only records whose answer or method
changes are appended.

Methods recorded per sample: ``rule`` (the rules gave the canonical answer), ``llm`` (the LLM's reply,
canonicalised by the same rules), ``passthrough`` (families the reference does not refine), ``unparsed``
(no canonical form: ``predict`` is the LLM's reply when one was asked, else the raw answer, which is what the
reference scorer would have seen), ``failed`` (the LLM request failed: ``predict`` is null, retried next run).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from avibench import __version__
from avibench.contracts import REFINE_METHODS, RefineRecord, RunPaths, is_answered, latest_by_key
from avibench.errors import JournalMismatchError
from avibench.failures import FailureGuard, RunStopped, commonest
from avibench.infer.journal import FINISHED_DIR, file_states, record_id, where
from avibench.infer.progress import Answered, RunLog, StageProgress
from avibench.items import Item
from avibench.llm import ChatError
from avibench.plugin import Benchmark, Task
from avibench.refine.cache import LLMCache
from avibench.refine.llm_fallback import LLMRefiner, LLMSettings, advice
from avibench.scheduler import run_jobs
from avibench.store import JournalSink, JournalWriter, atomic_write_json

Mode = Literal["auto", "rules", "llm"]
METHODS = REFINE_METHODS
#: The refine-LLM cache shared by every label under one output dir (a run re-refined under another label, or a
#: second run of the same model, pays for no prompt twice).
CACHE_NAME = ".refine-cache.jsonl"
#: Where earlier versions kept a run's own cache, under its refine folder; still read so nothing paid is lost.
RUN_CACHE_NAME = ".llm_cache.jsonl"
#: The methods ``reparse`` re-reads.
REPARSED = frozenset({"rule", "unparsed", "llm"})
#: Seconds between disk syncs of the refine journal and cache (records are written and flushed at once; a
#: power cut loses at most this much, and the next run redoes it).
SYNC_INTERVAL = 1.0


def raw_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class TaskSummary:
    task: str
    done: int = 0
    refined_now: int = 0
    requests: int = 0
    changed: int = 0
    """Answers whose refined answer or method differs from their previous record."""
    methods: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    """Failed refinements by reason (kept records included)."""

    @property
    def failed(self) -> int:
        return self.methods["failed"]

    @property
    def commonest_error(self) -> str | None:
        return commonest(self.errors)

    @property
    def share_without_llm(self) -> float | None:
        """Share of answered samples resolved by rules or passthrough (no LLM needed)."""
        if not self.done:
            return None
        return (self.methods["rule"] + self.methods["passthrough"]) / self.done


@dataclass
class _Work:
    item: Item
    infer: dict[str, Any]
    raw: str
    previous: dict[str, Any] | None = None
    """The sample's last refine record for this same raw answer, if any."""


def _needs_work(
    previous: dict[str, Any] | None, raw: str, passthrough: bool, mode: Mode, llm: bool, reparse: bool = False
) -> bool:
    if previous is None or previous.get("raw_hash") != raw_hash(raw) or previous.get("method") == "failed":
        return True
    method = previous.get("method")
    if passthrough:
        return method != "passthrough"
    if reparse and method in REPARSED:
        return True
    asked_llm = previous.get("refine_model") is not None
    if llm and mode == "llm" and not asked_llm:
        return True
    return llm and mode == "auto" and method == "unparsed" and not asked_llm


class TaskRefiner:
    """Refines one task's answers and appends the records to its journal."""

    def __init__(
        self,
        benchmark: Benchmark,
        task: str,
        writer: JournalWriter,
        mode: Mode,
        refiner: LLMRefiner | None,
        reparse: bool = False,
    ):
        self.benchmark = benchmark
        self.task = task
        self.passthrough = benchmark.passthrough(task)
        self.writer = writer
        self.emit: Callable[[RefineRecord], None] = writer.append
        """Where new records go: appended at once, or handed to the scheduler's journal sink (LLM work)."""
        self.mode = mode
        self.refiner = refiner
        self.reparse = reparse
        self.summary = TaskSummary(task)

    def _record(self, work: _Work, predict: str | None, method: str, **extra: Any) -> RefineRecord:
        """Append the sample's new record; under ``reparse`` an unchanged one is kept instead of appended."""
        previous = work.previous
        if previous is not None and (previous.get("predict"), previous.get("method")) == (predict, method):
            if self.reparse:
                return previous  # type: ignore[return-value]
        elif previous is not None:
            self.summary.changed += 1
        item = work.item
        record: RefineRecord = {
            "key": item.key,
            "item_id": item.item_id,
            "variant": item.variant,
            "index": item.index,
            "id": record_id(item),
            "task": self.task,
            "subtask": item.meta.get("subtask"),
            "raw": work.raw,
            "raw_hash": raw_hash(work.raw),
            "predict": predict,
            "method": method,  # type: ignore[typeddict-item]
            "error": extra.get("error"),
            "refine_model": extra.get("refine_model"),
            "llm_output": extra.get("llm_output"),
            "refine_mode": self.mode,
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
            "version": __version__,
        }
        self.emit(record)
        self.summary.refined_now += 1
        return record

    def without_llm(self, work: _Work) -> dict[str, Any] | None:
        """Refine by passthrough or rules; ``None`` when the answer still needs the LLM."""
        if self.passthrough:
            return self._record(work, work.raw, "passthrough")
        if self.mode != "llm":
            refined = self.benchmark.extract(work.item, work.raw)
            if refined is not None:
                return self._record(work, refined, "rule")
        asked = work.previous.get("refine_model") if self.reparse and work.previous else None
        if asked is not None:
            return self._reread_llm(work, asked)
        if self.refiner is None or self.benchmark.refine_prompt(work.item, work.raw) is None:
            return self._record(work, work.raw, "unparsed")
        return None

    def _reread_llm(self, work: _Work, model: str) -> dict[str, Any]:
        """The LLM reply already paid for, read by the current rules; the previous record when they cannot."""
        assert work.previous is not None
        reply = work.previous.get("llm_output")
        refined = self.benchmark.extract(work.item, reply) if isinstance(reply, str) else None
        if refined is None:
            return work.previous
        return self._record(work, refined, "llm", refine_model=model, llm_output=reply)

    async def with_llm(self, work: _Work, refiner: LLMRefiner, guard: FailureGuard) -> RefineRecord:
        """Refine one answer through the LLM; ``guard`` stops the stage at a failure no retry can fix."""
        model = refiner.settings.model
        prompt = self.benchmark.refine_prompt(work.item, work.raw)
        assert prompt is not None
        try:
            reply, _cached = await refiner.ask(prompt)
        except ChatError as exc:
            record = self._record(work, None, "failed", error=str(exc), refine_model=model)
            guard.observe(str(exc), exc)
            return record
        refined = self.benchmark.extract(work.item, reply)
        if refined is None:
            return self._record(work, reply.strip(), "unparsed", refine_model=model, llm_output=reply)
        return self._record(work, refined, "llm", refine_model=model, llm_output=reply)


def _collect(
    items: Sequence[Item],
    infer_path: Path,
    refine_path: Path,
    passthrough: bool,
    mode: Mode,
    llm: bool,
    reparse: bool = False,
) -> tuple[list[_Work], dict[str, dict[str, Any]], int]:
    """Work to do, the refine records kept as they are, and the number of answered questions."""
    by_key = {item.key: item for item in items}
    previous = latest_by_key(refine_path)
    work: list[_Work] = []
    kept: dict[str, dict[str, Any]] = {}
    answered = 0
    for key, record in latest_by_key(infer_path).items():
        if not is_answered(record):
            continue
        item = by_key.get(key)
        if item is None or str(record.get("id")) != record_id(item):
            found = record_id(item) if item is not None else "no such question"
            place = where(item) if item is not None else f"question {key!r}"
            raise JournalMismatchError(
                f"{infer_path}: the record for {place} has id {record.get('id')!r}, the dataset has {found!r}; "
                "the infer journal was made from another version of the data"
            )
        answered += 1
        raw = record["predict"]
        prev = previous.get(key)
        if _needs_work(prev, raw, passthrough, mode, llm, reparse):
            same_raw = prev is not None and prev.get("raw_hash") == raw_hash(raw)
            work.append(_Work(item, record, raw, prev if same_raw else None))
        elif prev is not None:
            kept[key] = prev
    return work, kept, answered


@dataclass
class _Monitor:
    """What watches a refine run: the failure guard (shared by its tasks) and where progress goes."""

    guard: FailureGuard
    log: RunLog
    progress: bool = True
    llm_answered: bool = False
    """Whether the refine LLM has answered once in this run (until then its requests go one at a time)."""


async def _run_llm(
    task: TaskRefiner, pending: Sequence[_Work], refiner: LLMRefiner, concurrency: int, monitor: _Monitor
) -> None:
    """The answers the rules left, through the LLM on the shared scheduler; their records reach the journal
    through its sink, off the event loop."""
    bar = StageProgress(f"refine {task.task} (LLM)", len(pending), log=monitor.log, enabled=monitor.progress)
    made: list[RefineRecord] = []
    task.emit = made.append

    async def one(work: _Work, sink: JournalSink) -> None:
        record = await task.with_llm(work, refiner, monitor.guard)
        while made:
            await sink.write(task.writer.path, made.pop(0))
        task.summary.methods[record["method"]] += 1
        if record["error"] is not None:
            task.summary.errors[record["error"]] += 1
        else:
            monitor.llm_answered = True
        bar(Answered(task.task, record["error"] is None, error=record["error"]))

    try:
        await refiner.verify()
        head = 0 if monitor.llm_answered else 1  # until the LLM has answered once, one request: a model the
        # endpoint does not serve (or a rejected key) stops the stage after one request, as infer's probe does
        await run_jobs(pending[:head], one, concurrency=1, stop=lambda: monitor.guard.stopped)
        await run_jobs(
            pending[head:], one, concurrency=max(concurrency, 1), stop=lambda: monitor.guard.stopped
        )
    except* RunStopped as stop:
        raise stop.exceptions[0] from None
    finally:
        task.emit = task.writer.append
        bar.close()


def refine_task(
    benchmark: Benchmark,
    task: Task,
    *,
    data_root: Path,
    paths: RunPaths,
    mode: Mode,
    settings: LLMSettings,
    cache: LLMCache,
    monitor: _Monitor,
    reparse: bool = False,
) -> TaskSummary | None:
    """Refine one task; ``None`` when the run has no infer journal for it."""
    infer_path = paths.infer_journal(task.name)
    if not infer_path.is_file():
        return None
    passthrough = benchmark.passthrough(task.name)
    use_llm = settings.configured and mode != "rules" and not passthrough
    refine_path = paths.refine_journal(task.name)
    inputs = {
        "version": __version__,
        "data": file_states(benchmark.data_files(data_root, task)),
        "mode": mode,
        "llm": use_llm,
        "reparse": reparse,
    }
    finished = _finished_summary(task.name, refine_path, infer_path, inputs)
    if finished is not None:
        return finished
    items = benchmark.load(data_root, task)
    work, kept, answered = _collect(items, infer_path, refine_path, passthrough, mode, use_llm, reparse)
    refiner = LLMRefiner(settings, cache) if use_llm else None
    with JournalWriter(paths.refine_journal(task.name), sync_interval=SYNC_INTERVAL) as writer:
        refining = TaskRefiner(benchmark, task.name, writer, mode, refiner, reparse)
        refining.summary.done = answered
        refining.summary.methods.update(r.get("method", "unparsed") for r in kept.values())
        refining.summary.errors.update(r["error"] for r in kept.values() if r.get("error"))
        pending = []
        for item in work:
            record = refining.without_llm(item)
            if record is None:
                pending.append(item)
            else:
                refining.summary.methods[record["method"]] += 1
        if pending and refiner is not None:
            asyncio.run(_drive(refining, pending, refiner, settings.concurrency, monitor))
    if work:  # a run that refined everything it found leaves nothing for the next one: look once more
        work, kept, answered = _collect(items, infer_path, refine_path, passthrough, mode, use_llm, reparse)
    _remember_finished(answered, kept, refine_path, infer_path, inputs, finished=not work)
    return refining.summary


def _finished_path(refine_path: Path) -> Path:
    return refine_path.parent / FINISHED_DIR / f"{refine_path.stem}.json"


def _finished_summary(
    task: str, refine_path: Path, infer_path: Path, inputs: Mapping[str, Any]
) -> TaskSummary | None:
    """The summary of a task that had nothing left to refine, when neither its journals, its data nor the
    settings have changed since (the same inputs find the same nothing), else None."""
    try:
        stamp = json.loads(_finished_path(refine_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("inputs") != json.loads(json.dumps(inputs)):
        return None
    if stamp.get("journals") != file_states([infer_path, refine_path]):
        return None
    done, methods, errors = stamp.get("done"), stamp.get("methods"), stamp.get("errors")
    if not isinstance(done, int) or not isinstance(methods, dict) or not isinstance(errors, dict):
        return None
    return TaskSummary(task=task, done=done, methods=Counter(methods), errors=Counter(errors))


def _remember_finished(
    answered: int,
    kept: Mapping[str, Mapping[str, Any]],
    refine_path: Path,
    infer_path: Path,
    inputs: Mapping[str, Any],
    *,
    finished: bool,
) -> None:
    """Record a task with nothing left to refine, and the summary a run that finds so prints (its answered
    questions and their records' methods and errors), for :func:`_finished_summary`; else remove the record."""
    path = _finished_path(refine_path)
    if not finished:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return
    stamp = {
        "inputs": inputs,
        "journals": file_states([infer_path, refine_path]),
        "done": answered,
        "methods": dict(Counter(r.get("method", "unparsed") for r in kept.values())),
        "errors": dict(Counter(r["error"] for r in kept.values() if r.get("error"))),
    }
    with contextlib.suppress(OSError):  # a read-only run folder only costs the full pass next time
        atomic_write_json(path, stamp)


async def _drive(
    task: TaskRefiner, pending: Sequence[_Work], refiner: LLMRefiner, concurrency: int, monitor: _Monitor
) -> None:
    try:
        await _run_llm(task, pending, refiner, concurrency, monitor)
    finally:
        task.summary.requests = refiner.requests
        await refiner.aclose()


def refine_run(
    benchmark: Benchmark,
    tasks: Sequence[Task],
    *,
    data_root: Path,
    paths: RunPaths,
    mode: Mode = "auto",
    settings: LLMSettings | None = None,
    progress: bool = False,
    reparse: bool = False,
    on_task: Callable[[TaskSummary], None] | None = None,
) -> list[TaskSummary]:
    """Refine every selected task that has an infer journal; ``reparse`` re-reads refined answers (module doc).

    The LLM cache is shared by every label under the output dir; the run's own cache from earlier versions is
    read as well.

    Raises :class:`avibench.failures.RunStopped` at the first refine-LLM failure no retry can fix (a rejected key,
    a model the endpoint does not serve): every later request would fail the same way.
    """
    settings = settings or LLMSettings.from_env()
    cache = LLMCache(
        Path(paths.output_dir) / CACHE_NAME,
        also_read=(paths.refine_dir / RUN_CACHE_NAME,),
        sync_interval=SYNC_INTERVAL,
    )
    log = RunLog(paths.stage_log("refine"))
    log.write(f"refine {paths.label}: mode {mode}, LLM {settings.model if settings.configured else 'none'}")
    monitor = _Monitor(FailureGuard(advice=advice(settings), repeats=1), log, progress)
    summaries = []
    try:
        for task in tasks:
            summary = refine_task(
                benchmark, task, data_root=data_root, paths=paths, mode=mode, settings=settings, cache=cache,
                monitor=monitor, reparse=reparse,
            )  # fmt: skip
            if summary is not None:
                summaries.append(summary)
                if on_task is not None:
                    on_task(summary)
    finally:
        cache.close()
        log.close()
    return summaries
