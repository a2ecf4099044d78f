"""The demo is the pipeline's self-test: oracle at 100 on every task but AVC, in both profiles."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from avibench.benchmarks.avibench.demo import chance_rows, oracle_failures
from avibench.cli import cli


def test_demo_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "outputs"
    result = CliRunner().invoke(
        cli,
        ["demo", "--data-root", str(tmp_path / "sample"), "--output-dir", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output[-3000:]
    assert "Self-test passed" in result.output
    oracle = json.loads((out / "oracle" / "avibench" / "eval.json").read_text())
    for profile in ("reference", "strict"):
        tasks = oracle["summary"]["by_profile"][profile]["tasks"]
        assert len(tasks) == 14
        assert all(abs(score - 100) <= 0.01 for task, score in tasks.items() if task != "AVC"), tasks
    assert oracle["meta"]["fense"]["status"] == "stand-in"
    assert set(oracle["summary"]["intervals"]["tasks"]) == set(oracle["summary"]["tasks"])  # every task
    random_doc = json.loads((out / "random" / "avibench" / "eval.json").read_text())
    assert (
        random_doc["summary"]["headline"] == random_doc["summary"]["by_profile"]["reference"]["overall"] < 40
    )
    for name in ("report.md", "report.html"):
        assert (out / "oracle" / "avibench" / name).is_file() and (
            out / "random" / "avibench" / name
        ).is_file()
    assert json.loads((out / "leaderboard.json").read_text())
    mmar = json.loads((out / "oracle" / "mmar" / "eval.json").read_text())
    assert mmar["summary"]["by_profile"]["strict"]["headline"] == 100.0
    assert set(mmar["summary"]["intervals"]["tasks"]) == {"MMAR"}


def test_self_test_catches_an_imperfect_oracle() -> None:
    doc = {"summary": {"by_profile": {"reference": {"tasks": {"AVC": 40.0, "AVM": 100.0, "AVL": 99.5}}}}}
    assert oracle_failures(doc) == ["reference/AVL: 99.5"]
    doc["summary"]["by_profile"]["reference"]["tasks"]["AVL"] = None
    assert oracle_failures(doc) == ["reference/AVL: None"]


def test_random_is_judged_per_task_with_a_tolerance_from_its_size() -> None:
    doc = {
        "summary": {
            "tasks": {"AVM": 50.0, "AVC": 90.0, "VAH": None, "AVQA": 0.0},
            "chance": {"AVM": 50.0, "AVC": 0.0, "VAH": 10.0, "AVQA": 36.0},
            "profile": "reference",
            "by_profile": {"reference": {"counts": {"AVM": 100, "VAH": 9, "AVQA": 400}}},
        },
    }
    rows = {t: (s, c, round(tol, 2)) for t, s, c, tol in chance_rows(doc)}
    assert set(rows) == {"AVM", "VAH", "AVQA"}  # AVC has no chance level to judge
    assert rows["AVM"] == (50.0, 50.0, 20.0)  # 4 * 100 * sqrt(0.25 / 100)
    assert rows["VAH"] == (0.0, 10.0, 40.0)  # 9 questions: 0 is within reach of chance
    assert rows["AVQA"] == (0.0, 36.0, 9.6)  # 400 questions: 0 is not
