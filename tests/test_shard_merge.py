"""Runs split over hosts: shards written to separate folders, one killed and resumed, merged into one run whose
numbers are those of a single-process run; mismatched, missing and duplicated shards are refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer, request_text
from avibench.testing.harness import CLEARED_ENV, invoke

KEY = "sk-shard-test"


def letter_for(body: Any) -> str:
    """The same answer for the same question, whichever replica or process asks."""
    return f"The answer is ({'ABCD'[zlib.crc32(request_text(body).encode()) % 4]})."


def _infer(root: Path, out: Path, urls: list[str], *extra: str) -> list[str]:
    command = [sys.executable, "-m", "avibench.cli", "infer", "--benchmark", "mmar", "--model", "m"]
    command += ["--data-root", str(root), "--output-dir", str(out), "--skip-probe", "--concurrency", "2"]
    for url in urls:
        command += ["--base-url", url]
    return command + list(extra)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _numbers(out: Path) -> dict[str, Any]:
    """What eval computed (scores, intervals, coverage), without when and where it ran."""
    doc = json.loads((out / "m" / "mmar" / "eval.json").read_text(encoding="utf-8"))
    doc.pop("meta", None)
    return doc


def _score(out: Path) -> dict[str, Any]:
    for stage in (["refine", "--mode", "rules"], ["eval"]):
        result = invoke([*stage, "--benchmark", "mmar", "--model", "m", "--output-dir", str(out)])
        assert result.code == 0, result.stderr
    return _numbers(out)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmar") / "data"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    return root


@pytest.mark.slow
def test_two_hosts_one_killed_then_merged_equal_single_process(data: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    env["OPENAI_API_KEY"] = KEY
    replicas = [FakeOpenAIServer(latency=0.05, responder=letter_for) for _ in range(2)]
    with replicas[0].run_in_thread() as a, replicas[1].run_in_thread() as b:
        urls = [a.base_url, b.base_url]
        single = subprocess.run(
            _infer(data, tmp_path / "single", urls), env=env, capture_output=True, timeout=120
        )
        assert single.returncode == 0, single.stderr
        first = subprocess.run(
            _infer(data, tmp_path / "host0", urls, "--shard", "0/2"),
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert first.returncode == 0, first.stderr
        journal = tmp_path / "host1" / "m" / "mmar" / "infer" / "MMAR.jsonl"
        killed = subprocess.Popen(
            _infer(data, tmp_path / "host1", urls, "--shard", "1/2"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while killed.poll() is None and _lines(journal) < 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert killed.poll() is None, "the shard should still be running when it is killed"
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert 3 <= _lines(journal) < 15
        interrupted = invoke(
            ["merge", str(tmp_path / "host0"), str(tmp_path / "host1"), "--into", str(tmp_path / "early")]
        )
        assert interrupted.code == 0, interrupted.stderr
        assert "shard 1/2" in interrupted.stderr and "ended without finishing" in interrupted.stderr
        resumed = subprocess.run(
            _infer(data, tmp_path / "host1", urls, "--shard", "1/2"),
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert a.count > 0 and b.count > 0, "both replicas served"

    merged = invoke(
        ["merge", str(tmp_path / "host1"), str(tmp_path / "host0"), "--into", str(tmp_path / "merged")]
    )
    assert merged.code == 0, merged.stderr
    assert "merged 2 shards" in merged.stdout and "MMAR 30 answered" in merged.stdout
    assert _score(tmp_path / "merged") == _score(tmp_path / "single")
    served = json.loads((tmp_path / "single" / "m" / "mmar" / "eval.json").read_text())["meta"]["throughput"]
    assert served["requests"] == 30 and served["failed"] == 0 and served["requests_per_second"] > 0
    assert served["prompt_tokens"] > 0 and served["completion_tokens"] > 0
    assert 0.05 <= served["latency_p50_s"] <= served["latency_p95_s"], "the replicas answer after 50 ms"


def _offline_shard(data: Path, out: Path, shard: str, *extra: str) -> None:
    args = [
        "infer",
        "--benchmark",
        "mmar",
        "--model",
        "random",
        "--data-root",
        str(data),
        "--output-dir",
        str(out),
    ]
    assert invoke([*args, "--shard", shard, *extra]).code == 0


def test_missing_duplicated_and_mismatched_shards_are_refused(data: Path, tmp_path: Path) -> None:
    _offline_shard(data, tmp_path / "h0", "0/3")
    _offline_shard(data, tmp_path / "h1", "1/3")
    _offline_shard(data, tmp_path / "h2", "2/3", "--temperature", "0.7")
    _offline_shard(data, tmp_path / "h2b", "2/3")
    _offline_shard(data, tmp_path / "odd", "1/2")

    def merge(*folders: str) -> Any:
        return invoke(["merge", *(str(tmp_path / f) for f in folders), "--into", str(tmp_path / "out")])

    missing = merge("h0", "h1")
    assert missing.code == 2 and "shard 2/3 is missing" in missing.stderr
    duplicated = merge("h0", "h1", "h2b", "h1")
    assert duplicated.code == 2 and "shard 1/3 is duplicated" in duplicated.stderr
    assert str(tmp_path / "h1") in duplicated.stderr
    mismatched = merge("h0", "h1", "h2")
    assert (
        mismatched.code == 2
        and str(tmp_path / "h2") in mismatched.stderr
        and "temperature" in mismatched.stderr
    )
    cut = merge("h0", "odd")
    assert cut.code == 2 and "cut differently" in cut.stderr
    assert not (tmp_path / "out").exists(), "a refused merge writes nothing"
    assert merge("h2b", "h0", "h1").code == 0
    again = merge("h0", "h1", "h2b")
    assert again.code == 2 and "already exists" in again.stderr
