"""``avibench runs`` through the command line: a stage is ``done`` only when it left nothing out, and a folder an
infer left behind before its first question is no run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

JUDGE_KEY = "sk-judge-runs-51e0"


@pytest.fixture(scope="module")
def air(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("air") / "data"
    assert invoke(["sample-data", "--benchmark", "airbench", "--out", str(root)]).code == 0
    return root


def _runs(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    listed = invoke(["runs", "--output-dir", str(out), "--json"])
    assert listed.code == 0, listed.stderr
    return {(r["label"], r["benchmark"]): r for r in json.loads(listed.stdout)}


def _oracle_airbench(air: Path, out: Path) -> list[str]:
    args = ["--benchmark", "airbench", "--data-root", str(air), "--output-dir", str(out), "--model", "oracle"]
    assert invoke(["infer", *args]).code == 0
    assert invoke(["refine", *args, "--mode", "rules"]).code == 0
    return args


def test_airbench_without_a_judge_is_not_done(air: Path, tmp_path: Path) -> None:
    args = _oracle_airbench(air, tmp_path)
    invoke(["eval", *args, "--allow-partial"])  # its exit code is the subject of another test
    assert (tmp_path / "oracle" / "airbench" / "eval.json").is_file()
    state = _runs(tmp_path)[("oracle", "airbench")]["eval"]
    assert state.startswith("partial") and "chat" in state and "not scored" in state, state


def test_airbench_with_every_judge_reply_unreadable_is_not_done(air: Path, tmp_path: Path) -> None:
    args = _oracle_airbench(air, tmp_path)
    judge = FakeOpenAIServer(responder=lambda body: "I cannot rate these answers.")
    with judge.run_in_thread():
        evaluated = invoke(
            ["eval", *args, "--allow-partial", "--judge-base-url", judge.base_url],
            {"JUDGE_API_KEY": JUDGE_KEY},
        )
    assert evaluated.code == 0, evaluated.stderr
    state = _runs(tmp_path)[("oracle", "airbench")]["eval"]
    assert state == "partial (partial: chat)", state


def test_an_infer_that_stopped_before_asking_leaves_no_run(air: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(air, broken)
    (broken / "Chat" / "Chat_meta.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "outputs"
    args = [
        "--benchmark",
        "airbench",
        "--data-root",
        str(broken),
        "--output-dir",
        str(out),
        "--label",
        "typo",
    ]
    failed = invoke(["infer", *args, "--model", "oracle"])
    assert failed.code != 0
    assert ("typo", "airbench") not in _runs(out)
