"""The shared judge runner asking several samples per job in one request (``n``), as VoiceBench's official judge
does: every choice read, journaled together, reused on a re-run, and a reply with fewer choices kept as it came."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from avibench.kits.judged import JudgeJob, JudgeSettings, run_judge
from avibench.testing.fake_openai import FakeOpenAIServer

KEY = "sk-judge-samples-77"
JOBS = [JudgeJob(f"q{i}", [{"role": "user", "content": f"Rate answer {i}."}]) for i in range(4)]


def scores(*replies: str):
    cycle = itertools.cycle(replies)
    return lambda body: next(cycle)


def settings(server: FakeOpenAIServer, samples: int) -> JudgeSettings:
    return JudgeSettings(model="judge", base_urls=(server.base_url,), api_key=KEY, samples=samples)


def test_three_samples_are_one_request_whose_choices_are_journaled_and_reused(tmp_path: Path) -> None:
    journal = tmp_path / "judge.jsonl"
    server = FakeOpenAIServer(responder=scores("5", "4", "3"))
    with server.run_in_thread():
        first = run_judge(JOBS, journal, settings(server, 3), accept=str.isdigit, reasks=0)
        sent = server.count
        again = run_judge(JOBS, journal, settings(server, 3), accept=str.isdigit, reasks=0)
    assert sent == len(JOBS) == first.requests and server.count == sent  # the re-run sends nothing
    assert all(r.body["n"] == 3 for r in server.requests)
    assert {r.choices for r in first.replies.values()} == {("5", "4", "3")}
    assert all(r.valid and r.reply == "5" for r in first.replies.values())
    assert again.requests == 0 and again.reused == 3 * len(JOBS)
    assert again.replies == first.replies
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [r["choices"] for r in records] == [["5", "4", "3"]] * len(JOBS)


def test_a_reply_with_fewer_choices_than_asked_is_kept_as_it_came(tmp_path: Path) -> None:
    server = FakeOpenAIServer(responder=scores("Yes", "No"), max_choices=2)
    with server.run_in_thread():
        outcome = run_judge(JOBS[:1], tmp_path / "j.jsonl", settings(server, 3), accept=bool, reasks=0)
    assert outcome.replies["q0"].choices == ("Yes", "No") and server.count == 1


def test_one_sample_sends_no_n_and_records_no_choices(tmp_path: Path) -> None:
    journal = tmp_path / "judge.jsonl"
    server = FakeOpenAIServer(responder=scores("5"))
    with server.run_in_thread():
        outcome = run_judge(JOBS[:2], journal, settings(server, 1), accept=str.isdigit)
    assert "n" not in server.requests[0].body and outcome.replies["q0"].choices == ("5",)
    assert all("choices" not in json.loads(line) for line in journal.read_text().splitlines())


def test_a_choice_the_benchmark_does_not_accept_makes_the_job_invalid(tmp_path: Path) -> None:
    server = FakeOpenAIServer(responder=scores("5", "great", "4"))
    with server.run_in_thread():
        outcome = run_judge(JOBS[:1], tmp_path / "j.jsonl", settings(server, 3), accept=str.isdigit, reasks=0)
    reply = outcome.replies["q0"]
    assert not reply.valid and reply.choices == ("5", "great", "4")
