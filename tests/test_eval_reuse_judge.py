"""Eval's reuse stamp covers the judge journals: a deleted or edited judge journal is judged and scored again, never
replayed from the earlier eval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.benchmarks.airbench import sample
from avibench.benchmarks.airbench.judging import JUDGE
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CliResult, invoke

KEY = "sk-judge-reuse-4c1d"


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    """A Chat-only data root answered by the random baseline."""
    root = sample.generate(tmp_path / "data", per_subset=1, seed=5, foundation=False)
    out = tmp_path / "out"
    args = ["infer", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
    assert invoke([*args, "--model", "random"]).code == 0
    return root, out


def _eval(root: Path, out: Path, server: FakeOpenAIServer) -> CliResult:
    args = ["eval", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
    args += ["--model", "random", "--judge-base-url", server.base_url, "--allow-partial"]
    return invoke(args, {"JUDGE_API_KEY": KEY})


def test_a_deleted_judge_journal_is_judged_again(run: tuple[Path, Path]) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=lambda body: "8 6")
    with server.run_in_thread():
        assert _eval(root, out, server).code == 0
        asked = server.count
        assert asked > 0
        JUDGE.journal(out / "random" / "airbench").unlink()
        again = _eval(root, out, server)
    assert again.code == 0, again.stderr
    assert server.count == 2 * asked  # every reply asked again, not the earlier eval printed once more
    assert JUDGE.journal(out / "random" / "airbench").is_file()


def test_an_edited_judge_journal_is_scored_again(run: tuple[Path, Path]) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=lambda body: "8 6")
    eval_json = out / "random" / "airbench" / "eval.json"
    with server.run_in_thread():
        assert _eval(root, out, server).code == 0
        before = json.loads(eval_json.read_text())["summary"]
        journal = JUDGE.journal(out / "random" / "airbench")
        journal.write_text(journal.read_text().replace("8 6", "8 2"))
        again = _eval(root, out, server)
    assert again.code == 0, again.stderr
    assert json.loads(eval_json.read_text())["summary"] != before


def test_an_unchanged_judged_eval_is_replayed(run: tuple[Path, Path]) -> None:
    root, out = run
    server = FakeOpenAIServer(responder=lambda body: "8 6")
    eval_json = out / "random" / "airbench" / "eval.json"
    with server.run_in_thread():
        first = _eval(root, out, server)
        written = eval_json.stat().st_mtime_ns
        again = _eval(root, out, server)
    assert again.code == 0 and again.stdout == first.stdout
    assert (
        eval_json.stat().st_mtime_ns == written
    )  # the journal this eval appended to is stamped as it left it
