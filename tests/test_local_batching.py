"""Gathering concurrent requests into batches (no model: a recording stand-in does the 'generation')."""

from __future__ import annotations

import asyncio

import pytest
import torch

from avibench.infer.backends.local_batching import Batcher, pick_batch, run_splitting_on_oom
from avibench.testing.tiny_models import FAMILIES, main


class _Waiting:
    def __init__(self, key: str, length: int):
        self.key, self.length = key, length


def test_pick_batch_takes_the_oldest_and_its_nearest_kin() -> None:
    pending = [
        _Waiting("a", 100),
        _Waiting("a", 10),
        _Waiting("b", 100),
        _Waiting("a", 95),
        _Waiting("a", 120),
    ]
    picked = pick_batch(pending, 3)
    assert picked == [pending[0], pending[3], pending[4]]  # same key only, nearest lengths first


def test_oom_on_a_lone_item_is_returned_not_raised() -> None:
    def run(batch: list[int]) -> list[int]:
        if 3 in batch:
            raise torch.OutOfMemoryError("too big")
        return [x * 10 for x in batch]

    results = run_splitting_on_oom([1, 2, 3, 4], run)
    assert results[:2] == [10, 20] and results[3] == 40
    assert isinstance(results[2], torch.OutOfMemoryError)


def test_batcher_batches_concurrent_calls_and_routes_results() -> None:
    seen: list[list[int]] = []

    def run(batch: list[int]) -> list[int]:
        seen.append(list(batch))
        return [x * x for x in batch]

    batcher: Batcher[int, int] = Batcher(run, batch_size=4, linger_s=0.2)

    async def ask() -> list[int]:
        return await asyncio.gather(*(batcher.submit(x, key="k", length=x) for x in range(10)))

    try:
        assert asyncio.run(ask()) == [x * x for x in range(10)]
    finally:
        batcher.close()
    assert sorted(x for batch in seen for x in batch) == list(range(10))
    assert max(len(batch) for batch in seen) == 4


def test_batcher_reports_other_errors_to_every_caller_of_the_batch() -> None:
    def run(batch: list[int]) -> list[int]:
        raise RuntimeError("broken model")

    batcher: Batcher[int, int] = Batcher(run, batch_size=2)
    try:
        with pytest.raises(RuntimeError, match="broken model"):
            asyncio.run(batcher.submit(1, key="k", length=1))
    finally:
        batcher.close()


def test_tiny_models_help_lists_the_families(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in FAMILIES)
