"""An MMSU-shaped plug-in written on the kits alone (``mmsu_toy.py``, at most 100 non-blank lines) goes through
every command from an entry point: sample data, validation, tasks, infer against the local server (a fixed reply
that the official rule and the strict reading read differently), refine, eval (per sub-task, per category and
pooled), report, export, leaderboard, the baselines and compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins

KEY = "sk-mmsu-toy-1c2d"
TOY = Path(__file__).parent / "mmsu_toy.py"


def test_the_toy_is_at_most_a_hundred_lines() -> None:
    lines = [line for line in TOY.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) <= 100, len(lines)


@pytest.fixture
def toy(tmp_path: Path):
    with registered_plugins(
        tmp_path / "site", "mmsutoy", {"mmsu-toy": "mmsu_toy:MMSUToy"}, Path(__file__).parent
    ):
        yield


def _expected(root: Path, right) -> dict[str, float]:
    rows = [json.loads(line) for line in (root / "question" / "mmsu.jsonl").read_text().splitlines()]
    by: dict[str, list[bool]] = {}
    for row in rows:
        by.setdefault(row["sub-task"], []).append(right(row))
    return {task: 100.0 * sum(v) / len(v) for task, v in by.items()}


def test_every_command(toy: None, tmp_path: Path) -> None:
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "mmsu-toy", "--out", str(root)]).code == 0
    assert invoke(["validate-data", str(root), "--benchmark", "mmsu-toy"]).code == 0
    listing = invoke(["tasks", "--benchmark", "mmsu-toy", "--data-root", str(root)])
    assert listing.code == 0 and "counting" in listing.stdout
    common = ["--benchmark", "mmsu-toy", "--data-root", str(root), "--output-dir", str(out), "--label", "run"]
    # "B, or maybe C": the official first character reads B; the strict reading finds a hedge and reads nothing
    with (server := FakeOpenAIServer(responder=lambda body: "B, or maybe C")).run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 0, evaluated.stderr
    doc = json.loads((out / "run" / "mmsu-toy" / "eval.json").read_text())
    reference = _expected(root, lambda row: row["answer_gt"] == "B")
    assert doc["summary"]["by_profile"]["reference"]["tasks"] == pytest.approx(reference)
    assert doc["summary"]["by_profile"]["strict"]["tasks"] == dict.fromkeys(reference, 0.0)
    assert doc["sub-task"]["pitch"]["accuracy"] == pytest.approx(reference["pitch"])
    assert doc["sub-task"]["pitch"]["n"] == 4 and doc["total"]["n"] == 12
    assert set(doc["category"]) == {"perception", "reasoning"}
    assert doc["summary"]["chance"] == dict.fromkeys(reference, 25.0)
    assert set(doc["summary"]["intervals"]["aggregates"]) == {"headline", "perception", "reasoning"}

    assert invoke(["report", "--benchmark", "mmsu-toy", "--label", "run", "--output-dir", str(out)]).code == 0
    assert "MMSU-shaped toy report: run" in (out / "run" / "mmsu-toy" / "report.html").read_text()
    assert invoke(["export", *common]).code == 2  # no official prediction format declared
    board = invoke(
        ["leaderboard", "--benchmark", "mmsu-toy", "--output-dir", str(out), "--include-unofficial"]
    )
    assert board.code == 0
    for model in ("oracle", "random"):
        baseline = [
            "--benchmark",
            "mmsu-toy",
            "--data-root",
            str(root),
            "--output-dir",
            str(out),
            "--model",
            model,
        ]
        assert all(invoke([stage, *baseline]).code == 0 for stage in ("infer", "refine", "eval"))
    oracle = json.loads((out / "oracle" / "mmsu-toy" / "eval.json").read_text())["summary"]["by_profile"]
    assert oracle["reference"]["headline"] == 100.0 and oracle["strict"]["headline"] == 100.0
    assert invoke(["compare", "run", "oracle", "--benchmark", "mmsu-toy", "--output-dir", str(out)]).code == 0


def test_one_edited_question_changes_only_its_sub_tasks_fingerprint(toy: None, tmp_path: Path) -> None:
    root = tmp_path / "data"
    assert invoke(["sample-data", "--benchmark", "mmsu-toy", "--out", str(root)]).code == 0
    bench = get_benchmark("mmsu-toy")
    before = {t.name: bench.fingerprint(root, [t]) for t in bench.tasks()}
    meta = root / "question" / "mmsu.jsonl"
    rows = [json.loads(line) for line in meta.read_text().splitlines()]
    edited = next(r for r in rows if r["sub-task"] == "counting")
    edited["question"] = "How many tones do you hear?"
    meta.write_text("".join(json.dumps(r) + "\n" for r in rows))
    after = {t.name: bench.fingerprint(root, [t]) for t in bench.tasks()}
    assert [t for t in before if before[t] != after[t]] == ["counting"]
