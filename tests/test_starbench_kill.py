"""STAR-Bench crash safety: SIGKILL infer while rotated runs are in flight, resume, and check every run ``id@k`` is
answered exactly once and nothing else was asked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from avibench.contracts import is_answered
from avibench.plugin import get_benchmark
from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CLEARED_ENV, invoke

TASKS = ("tr", "sr_ch")
CONCURRENCY = 4
KILL_AFTER = (7, 25)  # records on disk when each run is killed


def records_on_disk(journals: list[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in journals if p.exists())


@pytest.mark.slow
def test_sigkill_during_rotated_runs_then_resume(tmp_path: Path) -> None:
    bench = get_benchmark("starbench")
    root = tmp_path / "data"
    bench.generate_sample(root)
    expected = {t: Counter(i.key for i in bench.load(root, bench.task(t))) for t in TASKS}
    infer_dir = tmp_path / "out" / "m" / "starbench" / "infer"
    journals = [infer_dir / f"{t}.jsonl" for t in TASKS]
    server = FakeOpenAIServer(latency=0.03, record_bodies=False, responder=lambda body: "Answer: B")
    with server.run_in_thread():
        env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
        env.update(OPENAI_API_KEY="sk-kill", OPENAI_BASE_URL=server.base_url)
        command = [sys.executable, "-m", "avibench.cli", "infer", "--benchmark", "starbench", "--model", "m"]
        command += ["--skip-probe"]  # the request bounds below count questions
        command += [
            "--data-root",
            str(root),
            "--output-dir",
            str(tmp_path / "out"),
            "--tasks",
            "+".join(TASKS),
        ]
        command += ["--concurrency", str(CONCURRENCY)]
        kills = 0
        for target in KILL_AFTER:
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while (
                process.poll() is None and records_on_disk(journals) < target and time.monotonic() < deadline
            ):
                time.sleep(0.005)
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                kills += 1
            process.wait(timeout=30)
        resume = {"OPENAI_API_KEY": "sk-kill", "OPENAI_BASE_URL": server.base_url}
        final, again = invoke(command[3:], resume), invoke(command[3:], resume)
        total = server.count

    assert kills == 2 and final.code == 0 and again.code == 0, final.stderr
    for task, path in zip(TASKS, journals, strict=True):
        answered = Counter(r["key"] for r in read_records(path) if is_answered(r))
        assert answered == expected[task], f"{task}: every run answered exactly once"
    runs = sum(sum(c.values()) for c in expected.values())
    assert runs <= total <= runs + kills * CONCURRENCY  # the no-op resume asked nothing
