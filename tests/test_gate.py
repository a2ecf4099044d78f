"""``avibench gate``: exit 1 only when a headline is shown below its bar, with the interval that shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


def scored_runs(base: Path, benchmark: str) -> Path:
    """The output folder of an oracle and a random run of the benchmark's sample, scored."""
    data, out = base / "data", base / "out"
    assert invoke(["sample-data", "--benchmark", benchmark, "--out", str(data)]).code == 0
    for model in ("oracle", "random"):
        for stage in (["infer", "--data-root", str(data)], ["refine"], ["eval"]):
            result = invoke([*stage, "--benchmark", benchmark, "--model", model, "--output-dir", str(out)])
            assert result.code == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scored_runs(tmp_path_factory.mktemp("gate"), "mmar")


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


def test_a_fraction_as_threshold_is_named_on_the_percent_scale(out: Path) -> None:
    result = invoke(["gate", "--output-dir", str(out), "--label", "random", "--threshold", "0.69"])
    assert result.code == 0
    assert "0-100 scale (0.69, not 69); for 69 pass --threshold 69" in result.stderr
    plain = invoke(["gate", "--output-dir", str(out), "--label", "random", "--threshold", "30"])
    assert "note:" not in plain.stderr


@pytest.fixture(scope="module")
def asr_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ASR runs: no headline, each task a word or character error rate (lower is better)."""
    return scored_runs(tmp_path_factory.mktemp("gate-asr"), "asr")


def _task_rates(out: Path, label: str) -> dict[str, float]:
    return json.loads((out / label / "asr" / "eval.json").read_text())["summary"]["tasks"]


def test_a_benchmark_without_a_headline_is_gated_task_by_task_where_higher_is_worse(asr_out: Path) -> None:
    rates = _task_rates(asr_out, "random")
    code, doc = gate(asr_out, "--label", "random", "--baseline", "oracle")
    assert code == 1 and [v["headline"] for v in doc["verdicts"]] == list(rates)
    for verdict in doc["verdicts"]:
        assert verdict["lower_is_better"] and verdict["score"] == rates[verdict["headline"]]
        assert verdict["failed"] and verdict["low"] > 0 and "excludes zero" in verdict["why"]
    code, doc = gate(asr_out, "--label", "oracle", "--baseline", "random")
    assert code == 0 and not any(v["failed"] for v in doc["verdicts"])  # lower error rates: better


def test_an_error_rate_fails_a_threshold_only_when_its_whole_interval_is_above(asr_out: Path) -> None:
    code, doc = gate(asr_out, "--label", "random", "--threshold", "10")
    assert code == 1 and all(v["failed"] and v["low"] > 10 for v in doc["verdicts"])
    assert "is above it" in doc["verdicts"][0]["why"]
    code, doc = gate(asr_out, "--label", "oracle", "--threshold", "10")
    assert code == 0 and all(v["score"] <= 10 for v in doc["verdicts"])
    code, doc = gate(asr_out, "--label", "random", "--threshold", "95")
    noisy = [v for v in doc["verdicts"] if v["score"] > 95 and v["low"] <= 95]
    assert noisy and all(not v["failed"] and "noise" in v["why"] for v in noisy)


def test_a_benchmark_that_cannot_be_gated_is_named_after_the_others(out: Path, tmp_path: Path) -> None:
    import shutil

    shutil.copytree(out / "oracle", tmp_path / "partial")
    shutil.copytree(out / "random", tmp_path / "random")
    eval_json = tmp_path / "partial" / "mmar" / "eval.json"
    document = json.loads(eval_json.read_text())
    summary = document["summary"]
    summary["headline"] = None
    for view in summary.get("by_profile", {}).values():
        view["headline"] = None
    summary["incomplete"] = {
        "tasks": {"sound": {"reason": "not judged: no API key", "text": "not scored of 5"}}
    }
    eval_json.write_text(json.dumps(document))
    args = ["gate", "--output-dir", str(tmp_path), "--threshold", "50"]
    result = invoke([*args, "--label", "partial", "--benchmarks", "mmar,mmau"])
    assert result.code == 2 and result.stdout == ""
    assert (
        "mmar: " in result.stderr and "the run is incomplete (sound: not judged: no API key)" in result.stderr
    )
    assert "error: mmau: " in result.stderr and "no eval.json for run 'partial'" in result.stderr
    mixed = invoke(["gate", "--output-dir", str(tmp_path), "--label", "random", "--threshold", "99", "--json",
                    "--benchmarks", "mmar,mmau"])  # fmt: skip
    doc = json.loads(mixed.stdout)
    assert mixed.code == 1 and doc["verdicts"][0]["failed"] and not doc["passed"]  # a failure outranks a gap
    assert list(doc["errors"]) == ["mmau"]
