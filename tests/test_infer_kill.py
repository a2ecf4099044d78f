"""Crash safety: SIGKILL the infer process at random moments, resume, and check nothing is lost or doubled."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.contracts import is_answered as is_done
from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CLEARED_ENV

N = 40
CONCURRENCY = 4
TRIALS = 3
KEY = "sk-kill-test"


def line_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": N})
    journal = tmp_path / "out" / "m" / "avibench" / "infer" / "AMIC.jsonl"
    rng = random.Random(20261122)
    server = FakeOpenAIServer(latency=0.03, record_bodies=False)
    with server.run_in_thread():
        env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
        env.update(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=server.base_url)
        command = [sys.executable, "-m", "avibench.cli", "infer", "--model", "m", "--data-root", str(root)]
        command += ["--output-dir", str(tmp_path / "out"), "--concurrency", str(CONCURRENCY)]
        command += ["--skip-probe"]  # the bound below counts the questions' requests only

        kills = 0
        for trial in range(TRIALS):
            target = line_count(journal) + rng.randint(1, 12)
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while process.poll() is None and line_count(journal) < target and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.04))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                kills += 1
            process.wait(timeout=30)
            if trial == 1:  # a write torn by a crash: the next run must cut it, readers must skip it
                with journal.open("ab") as fh:
                    fh.write(b'{"index": 59, "id": "00059", "predict": "tor')

        final = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        total_requests = server.count

    assert kills >= 2, "the trials should interrupt runs in progress"
    assert final.returncode == 0, final.stderr
    records = list(read_records(journal))
    done = Counter(r["index"] for r in records if is_done(r))
    assert done == Counter(range(N)), "every sample exactly one valid answer"
    assert all(r["predict"] != "tor" for r in records)
    for line in journal.read_bytes().splitlines():  # the torn tail was cut before appending
        assert line.startswith(b"{") and line.endswith(b"}")
    assert N <= total_requests <= N + kills * CONCURRENCY
