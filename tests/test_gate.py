"""``avibench gate``: exit 1 only when a headline is shown below its bar, with the interval that shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("gate")
    data, out = base / "data", base / "out"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(data)]).code == 0
    for model in ("oracle", "random"):
        for stage in (["infer", "--data-root", str(data)], ["refine"], ["eval"]):
            result = invoke([*stage, "--benchmark", "mmar", "--model", model, "--output-dir", str(out)])
            assert result.code == 0, result.stderr
    return out


def gate(out: Path, *args: str) -> tuple[int, dict]:
    result = invoke(["gate", "--output-dir", str(out), "--json", *args])
    assert result.code in (0, 1), result.stderr
    return result.code, json.loads(result.stdout)


def _headline(out: Path, label: str) -> float:
    return json.loads((out / label / "mmar" / "eval.json").read_text())["summary"]["headline"]


def test_a_regression_beyond_the_paired_interval_fails(out: Path) -> None:
    code, doc = gate(out, "--label", "random", "--baseline", "oracle")
    (verdict,) = doc["verdicts"]
    assert code == 1 and not doc["passed"] and verdict["failed"]
    assert verdict["high"] < 0 and verdict["score"] == _headline(out, "random")
    assert "excludes zero" in verdict["why"]


def test_an_improvement_or_the_same_run_passes(out: Path) -> None:
    assert gate(out, "--label", "oracle", "--baseline", "random")[0] == 0
    code, doc = gate(out, "--label", "random", "--baseline", "random")
    assert code == 0 and doc["verdicts"][0]["low"] == 0 == doc["verdicts"][0]["high"]


def test_threshold_fails_only_when_the_whole_interval_is_below(out: Path) -> None:
    score = _headline(out, "random")
    code, doc = gate(out, "--label", "random", "--threshold", str(score + 0.5))
    verdict = doc["verdicts"][0]
    assert code == 0 and verdict["high"] >= score + 0.5 and "noise" in verdict["why"]
    code, doc = gate(out, "--label", "random", "--threshold", "99.9")
    assert code == 1 and doc["verdicts"][0]["high"] < 99.9
    assert gate(out, "--label", "oracle", "--threshold", "99.9")[0] == 0


def test_plain_output_and_usage_errors(out: Path) -> None:
    result = invoke(["gate", "--output-dir", str(out), "--label", "random", "--baseline", "oracle"])
    assert result.code == 1 and result.stdout.startswith("FAIL  mmar: headline")
    both = invoke(
        ["gate", "--output-dir", str(out), "--label", "random", "--baseline", "oracle", "--threshold", "1"]
    )
    assert both.code == 2 and "exactly one of" in both.stderr
    none = invoke(["gate", "--output-dir", str(out), "--label", "nobody", "--threshold", "1"])
    assert none.code == 2 and "no benchmark of run nobody" in none.stderr
