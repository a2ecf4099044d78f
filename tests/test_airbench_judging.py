"""The AIR-Bench Chat judge through the real command line and the real openai client against the local server:
malformed replies, faults, a request that fails for good, a kill mid-judging, resume, and key hygiene."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from avibench.benchmarks.airbench import sample
from avibench.benchmarks.airbench.judging import JUDGE
from avibench.contracts import latest_by_key
from avibench.errors import AvibenchError
from avibench.kits.judged import JudgeJob, JudgeSettings, run_judge
from avibench.level_metrics.airbench_chat import CHAT_CATEGORY_OF_TASK
from avibench.llm import RetryPolicy
from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import CLEARED_ENV, invoke, journal_lines

KEY = "sk-judge-secret-93be1f"
UNSURE = "I am not sure."
REFERENCE_START = "The recording mainly features"


def answers_shown(body: dict) -> tuple[str, str]:
    content = body["messages"][0]["content"]
    first = content.split("[The Start of Assistant 1s Answer]\n")[1].split(
        "\n[The End of Assistant 1s Answer]"
    )
    second = content.split("[The Start of Assistant 2s Answer]\n")[1].split(
        "\n[The End of Assistant 2s Answer]"
    )
    return first[0], second[0]


def judge_replies(body: dict) -> str:
    """Reference first: "8 1" for an unsure answer, else "8 3". Model first: no score at all for an unsure answer
    (a judge failure), else "5 8"."""
    first, second = answers_shown(body)
    if first.startswith(REFERENCE_START):
        return "8 1" if second == UNSURE else "8 3"
    return "Assistant 2 is better." if first == UNSURE else "5 8"


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    """A Chat-only data root (10 items) answered by the random baseline."""
    root = sample.generate(tmp_path / "data", per_subset=1, seed=5, foundation=False)
    out = tmp_path / "out"
    assert (
        invoke(
            [
                "infer",
                "--benchmark",
                "airbench",
                "--data-root",
                str(root),
                "--output-dir",
                str(out),
                "--model",
                "random",
            ]
        ).code
        == 0
    )
    return root, out


def evaluate(root: Path, out: Path, server: FakeOpenAIServer, *extra: str):
    args = ["eval", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
    args += ["--model", "random", "--judge-base-url", server.base_url, "--tasks", "chat", *extra]
    return invoke(args, {"JUDGE_API_KEY": KEY})


def unsure_by_category(root: Path, out: Path) -> dict[str, tuple[int, int]]:
    """Category -> (items, unsure answers), from the answers the run recorded."""
    meta = {str(e["uniq_id"]): e for e in json.loads((root / "Chat" / "Chat_meta.json").read_text())}
    counts: dict[str, list[int]] = {}
    for key, record in latest_by_key(out / "random" / "airbench" / "infer" / "chat.jsonl").items():
        category = CHAT_CATEGORY_OF_TASK[meta[key]["task_name"]]
        counts.setdefault(category, [0, 0])
        counts[category][0] += 1
        counts[category][1] += record["predict"] == UNSURE
    return {c: (n, u) for c, (n, u) in counts.items()}


def test_malformed_replies_are_judge_failures_asked_once_and_leave_chat_partial(
    run: tuple[Path, Path],
) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=judge_replies)
    with server.run_in_thread():
        result = evaluate(root, out, server)
        assert result.code == 3, result.stderr  # Chat rests on fewer judgements than asked: incomplete
        assert evaluate(root, out, server, "--allow-partial").code == 0
    doc = json.loads((out / "random" / "airbench" / "eval.json").read_text())
    strict_chat = doc["summary"]["by_profile"]["strict"]["chat"]["categories"]
    counts = unsure_by_category(root, out)
    unsure = sum(u for _, u in counts.values())
    # as in the official script, the first reply is the judgement: nothing is asked again, not even on a re-run
    assert 1 < unsure < 10 and server.count == 20
    reason = doc["coverage"]["chat"]["reason"]
    assert doc["coverage"]["chat"]["status"] == "partial"
    assert reason == f"{unsure} of 20 judge replies give no scores (reference parser); the judge replied " + (
        f"'Assistant 2 is better.' x{unsure}"
    )
    assert f"chat: partial: {reason}" in result.stdout and "chat" in doc["summary"]["incomplete"]["tasks"]
    differs = 0
    for category, (n, u) in counts.items():
        row = doc["chat"]["categories"][category]
        # reference: each order over its own parsed replies; strict: only items parsed in both orders
        orders = [(1 * u + 3 * (n - u)) / n] + ([5.0] if u < n else [])
        assert row["score"] == pytest.approx(sum(orders) / len(orders))
        assert strict_chat[category] == (4.0 if u < n else None)
        assert row["judge_failures"] == u and row["n"] == n
        differs += row["score"] != strict_chat[category]
    assert differs > 0
    assert (
        doc["coverage"]["chat"]["judge_failures"] == unsure and doc["coverage"]["chat"]["unparsed"] == unsure
    )
    records = journal_lines(JUDGE.journal(out / "random" / "airbench"))
    assert len(records) == 20 and sum(not r["valid"] for r in records) == unsure
    assert {r["reply"] for r in records if not r["valid"]} == {"Assistant 2 is better."}


def test_faults_are_retried_and_a_finished_eval_sends_nothing(run: tuple[Path, Path]) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=judge_replies)
    server.plan = FaultPlan(
        by_request={1: Fault("429", "0.01"), 4: Fault("500", "0.01"), 6: Fault("503", "0")}
    )
    with server.run_in_thread():
        first = evaluate(root, out, server, "--judge-concurrency", "3", "--allow-partial")
        assert first.code == 0, first.stderr
        assert server.count == 20 + 3
        before = json.loads((out / "random" / "airbench" / "eval.json").read_text())
        again = evaluate(root, out, server, "--allow-partial")
        assert again.code == 0 and server.count == 20 + 3
    after = json.loads((out / "random" / "airbench" / "eval.json").read_text())
    assert after["chat"] == before["chat"] and after["meta"]["judge"]["requests_sent"] == 0
    assert after["meta"]["judge"]["replies_reused"] == 20


def test_a_failed_request_is_reported_then_retried_and_the_key_is_written_nowhere(
    run: tuple[Path, Path],
) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=judge_replies)
    server.plan = FaultPlan(by_request={2: Fault("echo-auth")})  # a 400 whose message holds the Authorization
    with server.run_in_thread():
        first = evaluate(root, out, server)
        assert first.code == 1 and "1 judge requests failed" in first.stderr and KEY not in first.stderr
        doc = json.loads((out / "random" / "airbench" / "eval.json").read_text())
        assert doc["coverage"]["chat"]["status"] == "partial"
        failed = [r for r in journal_lines(JUDGE.journal(out / "random" / "airbench")) if r["error"]]
        assert len(failed) == 1 and "HTTP 400" in failed[0]["error"] and "***" in failed[0]["error"]
        second = evaluate(root, out, server, "--allow-partial")
        assert second.code == 0, second.stderr
        assert server.count == 20 + 1  # only the failed job was asked again
    assert all(r.authorization == f"Bearer {KEY}" for r in server.requests)
    for path in (root.parent).rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_no_key_sends_nothing_and_leaves_chat_unscored(run: tuple[Path, Path]) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=judge_replies)
    with server.run_in_thread():
        args = ["eval", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
        result = invoke([*args, "--model", "random", "--judge-base-url", server.base_url])
    # not judged: partial (3), not failed (1); the one line says what to set
    assert result.code == 3 and "JUDGE_API_KEY or OPENAI_API_KEY" in result.stderr and server.count == 0
    assert "not judged: chat" in result.stderr
    doc = json.loads((out / "random" / "airbench" / "eval.json").read_text())
    assert doc["chat"] is None and doc["coverage"]["chat"]["status"] == "not scored"


def test_kill_mid_judging_then_resume(run: tuple[Path, Path], tmp_path: Path) -> None:
    root, out = run
    journal = JUDGE.journal(out / "random" / "airbench")
    server = FakeOpenAIServer(responder=judge_replies, latency=0.05, record_bodies=False)
    with server.run_in_thread():
        env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV} | {"JUDGE_API_KEY": KEY}
        command = [
            sys.executable,
            "-m",
            "avibench.cli",
            "eval",
            "--benchmark",
            "airbench",
            "--data-root",
            str(root),
            "--output-dir",
            str(out),
            "--model",
            "random",
            "--judge-base-url",
            server.base_url,
            "--judge-concurrency",
            "2",
        ]
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while process.poll() is None and len(list(read_records(journal))) < 6 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert process.poll() is None, "the eval should still be judging"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        judged_before = len(list(read_records(journal)))
        assert 6 <= judged_before < 20
        with journal.open("ab") as fh:  # a record torn by the kill: ignored, then cut before the next append
            fh.write(b'{"key": "0@model_first", "reply": "9 ')
        resumed = evaluate(root, out, server, "--allow-partial")
        assert resumed.code == 0, resumed.stderr
        assert server.count <= 20 + 2  # at most the two requests in flight at the kill were lost
        count = server.count
        assert evaluate(root, out, server, "--allow-partial").code == 0 and server.count == count
    keys = Counter(r["key"] for r in journal_lines(journal))
    assert len(keys) == 20 and set(keys.values()) == {1}


def test_runner_rejudges_only_changed_requests(tmp_path: Path) -> None:
    journal = tmp_path / "judge.jsonl"
    server = FakeOpenAIServer(responder=lambda body: "7 7")
    jobs = [JudgeJob(f"k{i}", [{"role": "user", "content": f"question {i}"}]) for i in range(5)]
    with server.run_in_thread():
        settings = JudgeSettings(
            model="j", base_urls=(server.base_url,), api_key=KEY, retry=RetryPolicy(base_delay=0)
        )
        first = run_judge(jobs, journal, settings, accept=lambda reply: True)
        assert first.requests == 5 and first.reused == 0 and first.replies["k3"].reply == "7 7"
        jobs[3] = JudgeJob("k3", [{"role": "user", "content": "question 3, answered again"}])
        second = run_judge(jobs, journal, settings, accept=lambda reply: True)
        assert second.requests == 1 and second.reused == 4 and server.count == 6
        other_model = run_judge(jobs[:1], journal, replace(settings, model="j2"), accept=bool)
        assert other_model.requests == 1
    with pytest.raises(AvibenchError, match="no API key"):
        run_judge(
            [JudgeJob("new", [{"role": "user", "content": "x"}])],
            journal,
            JudgeSettings(model="j"),
            accept=bool,
        )
    assert server.count == 7


@pytest.mark.parametrize(("status", "setting"), [(401, "JUDGE_API_KEY"), (404, "--judge-model")])
def test_a_failure_no_retry_fixes_stops_the_judging_after_three(
    run: tuple[Path, Path], status: int, setting: str
) -> None:
    """A rejected key or an unserved judge model fails every job the same way: three, not all, are asked."""
    root, out = run
    server = FakeOpenAIServer(plan=FaultPlan(rate=1.0, random_faults=(Fault(str(status)),)))
    with server.run_in_thread():
        result = evaluate(root, out, server, "--judge-concurrency", "1")
    assert result.code == 1
    assert server.count == 3
    stop = [line for line in result.stderr.splitlines() if "judge stopped after 3 x" in line]
    assert len(stop) == 1 and f"HTTP {status}" in stop[0] and setting in stop[0]
    doc = json.loads((out / "random" / "airbench" / "eval.json").read_text())
    assert doc["coverage"]["chat"]["status"] == "not scored"
    assert len(journal_lines(JUDGE.journal(out / "random" / "airbench"))) == 3  # asked again next time
