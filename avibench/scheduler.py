"""The one way the toolkit runs many requests: a bounded queue, a fixed number of workers, durable journals.

Infer, refine's LLM fallback and the judges all hand their jobs to :func:`run_jobs`. A producer feeds the jobs into
a queue of at most twice the concurrency (so a 20k-question run never holds 20k pending coroutines), ``concurrency``
workers take them one at a time, and each worker's records are appended by a :class:`~avibench.store.JournalSink`
in a worker thread, so a slow disk never stalls the event loop. A worker takes its next job only after its record
is on disk: a crash loses at most the requests in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from avibench.store import JournalSink

Job = TypeVar("Job")


async def run_jobs(
    jobs: Iterable[Job],
    work: Callable[[Job, JournalSink], Awaitable[None]],
    *,
    concurrency: int,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Run ``work(job, sink)`` for every job with at most ``concurrency`` in flight; ``stop()`` true ends the run
    after the jobs in flight (a run that fails too much, for example). Exceptions from ``work`` propagate."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    queue: asyncio.Queue[tuple[Job] | None] = asyncio.Queue(maxsize=2 * concurrency)
    sink = JournalSink()

    async def produce() -> None:
        for job in jobs:
            if stop():
                break
            await queue.put((job,))
        for _ in range(concurrency):
            await queue.put(None)

    async def worker() -> None:
        while (entry := await queue.get()) is not None:
            if not stop():  # once stopped, drain the queue so the producer is never left waiting
                await work(entry[0], sink)

    writer = asyncio.create_task(sink.run())
    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(produce())
            for _ in range(concurrency):
                group.create_task(worker())
    finally:
        sink.stop()
        await asyncio.gather(writer, return_exceptions=True)
        sink.close()
