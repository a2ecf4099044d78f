"""How close does the judge runner come to the ideal throughput of its concurrency?

Judges ``--jobs`` AIR-Bench Chat requests (generated items, both orders) at ``--concurrency`` 64 against the local
fake server (in its own process, as in ``infer_throughput.py``) answering every request after ``--latency`` 0.2 s,
through the real client and the fsynced journal. The ideal is ``concurrency / latency`` requests per second; the
target is a ratio of at least 0.9. Also printed: the judge's CPU time per request and a re-run (zero requests).
Usage: ``python bench/airbench_judge.py [--jobs 1280] [--concurrency 64] [--latency 0.2]``.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import tempfile
import time
from pathlib import Path

from infer_throughput import start_server

from avibench.benchmarks.airbench.judging import judge_messages
from avibench.benchmarks.airbench.layout import chat_item
from avibench.benchmarks.airbench.sample import chat_entries
from avibench.kits.judged import JudgeJob, JudgeSettings, run_judge
from avibench.level_metrics.airbench_chat import ORDERS


def jobs(count: int) -> list[JudgeJob]:
    entries = chat_entries(per_subset=(count // (2 * 10)) + 1)
    items = [chat_item(e, i, Path("unused.wav")) for i, e in enumerate(entries)]
    made = [
        JudgeJob(f"{item.key}@{order}", judge_messages(item, "It sounds like rain on a roof.", order))
        for item in items
        for order in ORDERS
    ]
    return made[:count]


def accept(reply: str) -> bool:
    """Any reply counts: the fake server's stock reply is not a score pair, and parsing is not measured here."""
    return bool(reply.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1280)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    work = jobs(args.jobs)
    importlib.import_module("openai")  # the SDK's one-time import (about a second) is not judging throughput
    with tempfile.TemporaryDirectory() as folder:
        server, base = start_server(args.latency, Path(folder))
        try:
            settings = JudgeSettings(
                model="judge", base_urls=(f"{base}/v1",), api_key="sk-bench", concurrency=args.concurrency
            )
            journal = Path(folder) / "judge.jsonl"
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            outcome = run_judge(work, journal, settings, accept=accept)
            elapsed = time.perf_counter() - start
            used = resource.getrusage(resource.RUSAGE_SELF)
            again = time.perf_counter()
            rerun = run_judge(work, journal, settings, accept=accept)
            rerun_s = time.perf_counter() - again
        finally:
            server.terminate()
            server.wait()
    cpu_s = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
    ideal = args.concurrency / args.latency
    achieved = len(work) / elapsed
    print(f"{len(work)} judge requests, concurrency {args.concurrency}, server latency {args.latency:g} s")
    print(
        f"elapsed {elapsed:.2f} s: {achieved:.1f} req/s, ideal {ideal:.1f} req/s, ratio {achieved / ideal:.3f}"
    )
    print(
        f"replies {sum(r.valid for r in outcome.replies.values())}/{len(work)}; requests {outcome.requests}"
    )
    print(f"judge CPU {1000 * cpu_s / len(work):.2f} ms per request")
    print(f"re-run: {rerun.requests} requests, {rerun.reused} replies from the journal, {rerun_s:.2f} s")


if __name__ == "__main__":
    main()
