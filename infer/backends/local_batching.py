"""Gathers concurrent ``answer()`` calls into batches for one worker thread that owns the model.

The runner asks one item per call from many asyncio workers; a GPU is used well only when items are
generated together. Calls put their prepared input on a queue and await a future; the worker takes the
oldest waiting input and the ones closest to it in length (little padding wasted, nobody starves), runs
them, and resolves the futures. Running out of GPU memory splits the batch in halves and retries each,
down to single items; a single item that still does not fit fails alone.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import torch

P = TypeVar("P")
R = TypeVar("R")

_STOP = object()


@dataclass
class _Request(Generic[P]):
    payload: P
    key: Hashable
    length: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future
    arrived: float = field(default_factory=time.monotonic)


def _free_accelerator_memory() -> None:
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def run_splitting_on_oom(batch: list[P], run: Callable[[list[P]], list[R]]) -> list[R | BaseException]:
    """``run(batch)``, halving the batch on out-of-memory until it fits; an item that never fits gets its error."""
    try:
        return list(run(batch))
    except torch.OutOfMemoryError as exc:
        _free_accelerator_memory()
        if len(batch) == 1:
            return [exc]
        middle = len(batch) // 2
        return run_splitting_on_oom(batch[:middle], run) + run_splitting_on_oom(batch[middle:], run)


def pick_batch(pending: list[_Request], size: int) -> list[_Request]:
    """The oldest request and the ``size - 1`` others of its kind nearest to it in length."""
    first = pending[0]
    alike = [r for r in pending[1:] if r.key == first.key]
    alike.sort(key=lambda r: abs(r.length - first.length))
    return [first, *alike[: size - 1]]


class Batcher(Generic[P, R]):
    """Runs ``run(list of payloads) -> list of results`` on one thread, on batches of at most ``batch_size``.

    Only payloads with equal ``key`` share a batch. ``linger_s`` is how long the worker waits for a batch to
    fill once it has something to do and fewer than ``batch_size`` are waiting.
    """

    def __init__(self, run: Callable[[list[P]], list[R]], batch_size: int, linger_s: float = 0.02):
        if batch_size < 1:
            raise ValueError("batch size must be at least 1")
        self.run = run
        self.batch_size = batch_size
        self.linger_s = linger_s
        self._inbox: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="avibench-generate", daemon=True)
        self._thread.start()

    async def submit(self, payload: P, key: Hashable, length: int) -> R:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._inbox.put(_Request(payload, key, length, loop, future))
        return await future

    def close(self) -> None:
        """Stop the worker after the batch it is running; requests still waiting are cancelled."""
        self._inbox.put(_STOP)
        self._thread.join()

    def _gather(self, pending: list[_Request]) -> bool:
        """Move waiting requests into ``pending``; False once the batcher is closing."""
        block = not pending
        deadline = time.monotonic() + self.linger_s
        while True:
            timeout = None if block else max(0.0, deadline - time.monotonic())
            try:
                request = self._inbox.get(timeout=timeout) if block or timeout else self._inbox.get_nowait()
            except queue.Empty:
                return True
            if request is _STOP:
                return False
            pending.append(request)
            block = False
            if len(pending) >= self.batch_size and self._inbox.empty():
                return True

    def _work(self) -> None:
        pending: list[_Request] = []
        while self._gather(pending):
            batch = pick_batch(pending, self.batch_size)
            for request in batch:
                pending.remove(request)
            try:
                results = run_splitting_on_oom([r.payload for r in batch], self.run)
            except Exception as exc:
                results = [exc] * len(batch)
            for request, result in zip(batch, results, strict=True):
                request.loop.call_soon_threadsafe(_resolve, request.future, result)
        for request in pending:
            request.loop.call_soon_threadsafe(request.future.cancel)


def _resolve(future: asyncio.Future, result: object) -> None:
    if future.done():
        return
    if isinstance(result, BaseException):
        future.set_exception(result)
    else:
        future.set_result(result)
