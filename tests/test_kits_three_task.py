"""The three-task example of the plug-in docs (``three_task_toy.py``: corpus WER, macro F1, rotated multiple
choice, at most 150 non-blank lines) goes through every command, and its numbers match a computation of their
own: jiwer's pooled WER, F1 counted by hand, one right rotation in three."""

from __future__ import annotations

import json
from pathlib import Path

import jiwer
import pytest

from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins, run_args

KEY = "sk-three-task-9f1e"
TOY = Path(__file__).parent / "three_task_toy.py"
SENTENCES = ("the cat sat down", "open the red door", "birds sing at dawn", "turn the music off")


def test_the_example_is_at_most_150_lines() -> None:
    assert len([line for line in TOY.read_text(encoding="utf-8").splitlines() if line.strip()]) <= 150


@pytest.fixture
def toy(tmp_path: Path):
    with registered_plugins(
        tmp_path / "site",
        "threetasktoy",
        {"three-task-toy": "three_task_toy:ThreeTaskToy"},
        Path(__file__).parent,
    ):
        yield


def _reply(body: dict) -> str:
    text = json.dumps(body["messages"])
    if "Transcribe" in text:
        return "The cat sat."
    return "Happy!" if "emotion" in text else "(A)"


def test_every_command_and_the_numbers(toy: None, tmp_path: Path) -> None:
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "three-task-toy", "--out", str(root)]).code == 0
    assert invoke(["validate-data", str(root), "--benchmark", "three-task-toy"]).code == 0
    common = run_args("three-task-toy", root, out, "run")
    with (server := FakeOpenAIServer(responder=_reply)).run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 0, evaluated.stderr
    doc = json.loads((out / "run" / "three-task-toy" / "eval.json").read_text())
    pooled = jiwer.process_words(list(SENTENCES), ["the cat sat"] * 4)
    errors = pooled.substitutions + pooled.deletions + pooled.insertions
    # "happy" for all six: happy F1 = 2*2 / (2*2 + 4 + 0) = 0.5, sad and angry 0; "(A)" is right in one rotation of three
    expected = {"asr": 100 * (1 - errors / 16), "emotion": 50 / 3, "order": 100 / 3}
    for profile in ("reference", "strict"):
        assert doc["summary"]["by_profile"][profile]["tasks"] == pytest.approx(expected, abs=0.01)
    assert doc["summary"]["by_profile"]["reference"]["headline"] == pytest.approx(
        sum(expected.values()) / 3, abs=0.01
    )
    assert doc["summary"]["chance"] == pytest.approx({"emotion": 100 / 3, "order": 100 / 3}, abs=0.01)
    assert set(doc["summary"]["intervals"]["tasks"]) == {"asr", "emotion", "order"}
    assert doc["summary"]["by_profile"]["reference"]["counts"] == {"asr": 4, "emotion": 6, "order": 9}

    assert (
        invoke(["report", "--benchmark", "three-task-toy", "--label", "run", "--output-dir", str(out)]).code
        == 0
    )
    assert invoke(["export", *common]).code == 2
    board = ["leaderboard", "--benchmark", "three-task-toy", "--output-dir", str(out), "--include-unofficial"]
    assert invoke(board).code == 0
    baseline = [
        "--benchmark",
        "three-task-toy",
        "--data-root",
        str(root),
        "--output-dir",
        str(out),
        "--model",
    ]
    for model in ("oracle", "random"):
        assert all(invoke([stage, *baseline, model]).code == 0 for stage in ("infer", "refine", "eval"))
    oracle = json.loads((out / "oracle" / "three-task-toy" / "eval.json").read_text())["summary"][
        "by_profile"
    ]
    assert oracle["reference"]["tasks"] == {"asr": 100.0, "emotion": 100.0, "order": 100.0}
    assert (
        invoke(["compare", "run", "oracle", "--benchmark", "three-task-toy", "--output-dir", str(out)]).code
        == 0
    )
