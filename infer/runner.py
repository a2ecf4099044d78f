"""One scheduler for a whole run: every selected task in one event loop, a global in-flight limit.

A producer walks the task plans and feeds pending samples into a bounded queue; ``concurrency`` workers
take them, ask the backend, and hand each record to a journal sink that appends the records that arrived
together with one fsync per journal, in a worker thread (so slow disks never stall the event loop). A worker takes its next sample only after its record is
durable, so a crash loses at most the requests in flight.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from avibench.failures import FailureGuard, RunStopped, commonest
from avibench.infer.backends.base import Backend, InferRequest
from avibench.infer.fingerprint import content_hash
from avibench.infer.journal import TaskPlan, make_record
from avibench.infer.progress import Answered
from avibench.items import Item
from avibench.llm import FILTERED_REASONS, ChatError
from avibench.scheduler import run_jobs
from avibench.store import JournalSink


@dataclass
class TaskOutcome:
    """What happened to one task in this run."""

    task: str
    selected: int
    skipped: int
    done: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    tokens: int = 0
    other_shards: int = 0
    """Selected questions that belong to the other shards of a ``--shard i/n`` run (asked by them)."""

    @property
    def commonest_error(self) -> str | None:
        return commonest(self.errors)


def describe_error(exc: BaseException) -> str:
    """A one-line description of a failed request (ChatError messages are already clean)."""
    from avibench.infer.media import (
        MediaError,
    )  # av and numpy: loaded once a request is built, not on a no-op

    if isinstance(exc, ChatError | MediaError):
        return str(exc)
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def initial_outcomes(plans: list[TaskPlan]) -> dict[str, TaskOutcome]:
    """Per-task outcomes before any sample is asked (samples already done count as skipped)."""
    return {
        p.task: TaskOutcome(
            task=p.task, selected=p.selected, skipped=p.already_done, other_shards=p.other_shards
        )
        for p in plans
    }


class Runner:
    """Runs task plans through one backend with a global concurrency limit."""

    def __init__(
        self,
        backend: Backend,
        backend_name: str,
        request: InferRequest,
        *,
        concurrency: int = 8,
        scrub: Callable[[str], str] = lambda s: s,
        on_answer: Callable[[Answered], None] | None = None,
        guard: FailureGuard | None = None,
        empty_answers: bool = False,
    ):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.backend = backend
        self.backend_name = backend_name
        self.request = request
        self.concurrency = concurrency
        self.scrub = scrub
        self.on_answer = on_answer
        self.guard = guard or FailureGuard()
        self.empty_answers = empty_answers
        """Whether an empty (not filtered) reply, once the client's retry of it is spent, is the answer
        (:attr:`avibench.plugin.Benchmark.empty_answers`) rather than a failure."""
        self.params = request.provenance()
        self.stopped: str | None = None
        """Why the run stopped early (a permanent failure, ``--max-failures``), else ``None``."""

    async def _ask(self, item: Item) -> tuple[dict[str, Any], BaseException | None]:
        from avibench.infer import media

        start = time.perf_counter()
        predict: str | None = None
        error: str | None = None
        usage = timings = finish_reason = request_bytes = None
        latency = 0.0
        failure: BaseException | None = None
        attempts = 1
        try:
            answer = await self.backend.answer(item, self.request)
        except Exception as exc:  # every failure is recorded, never scored
            latency = time.perf_counter() - start
            finish_reason = getattr(exc, "finish_reason", None)
            attempts = getattr(exc, "attempts", 1)
            said_nothing = isinstance(exc, ChatError) and exc.kind == "empty"
            if self.empty_answers and said_nothing and finish_reason not in FILTERED_REASONS:
                predict = ""  # the model said nothing: its answer, where the benchmark scores silence
            if predict is None:
                failure = exc
                error = self.scrub(describe_error(exc))
        else:
            usage, latency = answer.usage, answer.latency_s
            timings, finish_reason = answer.timings, answer.finish_reason
            request_bytes = answer.request_bytes
            attempts = answer.attempts
            if finish_reason in FILTERED_REASONS:
                error = f"filtered answer (finish_reason {finish_reason})"
            elif isinstance(answer.text, str) and (answer.text.strip() or self.empty_answers):
                predict = answer.text
            else:
                error = "empty answer" + (f" (finish_reason {finish_reason})" if finish_reason else "")
        record = make_record(
            item,
            predict=predict,
            error=error,
            backend=self.backend_name,
            model=self.request.model,
            params={**self.params, **self.request.for_item(item)},
            prompt_hash=media.prompt_hash(item, self.request),
            content_hash=content_hash(item),
            latency_s=latency,
            usage=usage,
            timings=timings,
            finish_reason=finish_reason,
            request_bytes=request_bytes,
            attempts=attempts,
        )
        if predict == "":
            record["empty_answer"] = True
        return record, failure

    async def run(self, plans: list[TaskPlan]) -> dict[str, TaskOutcome]:
        outcomes = initial_outcomes(plans)

        async def work(job: tuple[TaskPlan, Item], sink: JournalSink) -> None:
            plan, question = job
            record, failure = await self._ask(question)
            outcome = outcomes[plan.task]
            tokens = (record["usage"] or {}).get("total_tokens", 0)
            outcome.tokens += tokens
            ok = record["error"] is None
            if ok:
                outcome.done += 1
            else:
                outcome.failed += 1
                outcome.errors[record["error"]] += 1
            # counted as the record is queued (the write starts without a pause): a run stopped while this waits
            # for the disk still journals it, so the counts must hold it too
            await sink.write(plan.path, record)
            if self.on_answer is not None:
                self.on_answer(Answered(plan.task, ok, tokens, record["error"]))
            self.guard.observe(record["error"], failure)

        jobs = ((plan, item) for plan in plans for item in plan.pending)
        try:
            await run_jobs(jobs, work, concurrency=self.concurrency, stop=lambda: self.guard.stopped)
        except* RunStopped as stop:
            self.stopped = str(stop.exceptions[0])
        return outcomes
