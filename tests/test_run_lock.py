"""No double pay: two processes on one label never ask one question twice; shards still run side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from tiny_dataset import build_dataset

from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CLEARED_ENV, invoke

N = 12
KEY = "sk-lock-test"


def test_a_second_process_on_the_label_stops_while_a_disjoint_shard_runs(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": N})
    out = tmp_path / "out"
    run_root = out / "m" / "avibench"
    journal = run_root / "infer" / "AMIC.jsonl"
    server = FakeOpenAIServer(latency=0.5, record_bodies=False)
    with server.run_in_thread():
        env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
        env.update(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=server.base_url)
        args = [
            "infer",
            "--model",
            "m",
            "--data-root",
            str(root),
            "--output-dir",
            str(out),
            "--concurrency",
            "1",
            "--skip-probe",  # the probe's own requests are not questions
        ]
        first = subprocess.Popen(
            [sys.executable, "-m", "avibench.cli", *args, "--shard", "0/2"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not (journal.is_file() and journal.read_bytes()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the first process should still be asking"
        local = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
        whole = invoke([*args, "--shard", "0/1"], local)
        same = invoke([*args, "--shard", "0/2"], local)
        other = invoke([*args, "--shard", "1/2"], local)
        assert first.wait(timeout=60) == 0, first.stderr.read() if first.stderr else ""
    for refused in (whole, same):
        assert refused.code == 2
        assert refused.stderr.count("\n") == 1
        assert f"run 'm' ({run_root}) is already being worked on by pid {first.pid} on " in refused.stderr
        assert "--shard i/n" in refused.stderr
    assert other.code == 0, other.stderr
    keys = Counter(r["key"] for r in read_records(journal))
    assert len(keys) == N and set(keys.values()) == {1}, "every question asked once"
    assert server.count == N


def test_a_lock_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 3})
    run_root = tmp_path / "out" / "oracle" / "avibench"
    run_root.mkdir(parents=True)
    dead = {
        "pid": 999999,
        "host": "elsewhere",
        "command": "avibench infer",
        "started": "2026-01-01T00:00:00+00:00",
    }
    (run_root / ".lock-infer-0of1").write_text(json.dumps(dead))
    result = invoke(
        ["infer", "--model", "oracle", "--data-root", str(root), "--output-dir", str(tmp_path / "out")]
    )
    assert result.code == 0, result.stderr
    assert json.loads((run_root / ".lock-infer-0of1").read_text())["pid"] == os.getpid()


def test_which_shards_share_questions() -> None:
    from avibench.run_lock import overlaps

    assert overlaps((0, 1), (1, 2)) and overlaps((1, 2), (1, 2)) and overlaps((1, 4), (3, 6))
    assert not overlaps((0, 2), (1, 2)) and not overlaps((0, 3), (1, 3)) and not overlaps((1, 4), (0, 6))


def test_credentials_in_a_url_on_the_command_line_stay_out_of_the_lock_file(
    tmp_path: Path, monkeypatch
) -> None:
    """The lock file outlives the run and its holder line is shown to whoever runs next."""
    from avibench.run_lock import run_lock

    argv = ["avibench", "infer", "--base-url", "https://user:sk-in-url-123@example.com/v1", "--model", "m"]
    monkeypatch.setattr(sys, "argv", argv)
    with run_lock(tmp_path, "infer", "m"):
        pass
    command = json.loads((tmp_path / ".lock-infer-0of1").read_text())["command"]
    assert "sk-in-url-123" not in command and "user" not in command
    assert "https://example.com/v1" in command
