"""Every selected task is in coverage, the report's coverage table and the chance levels, answered or not, and
``summary.incomplete`` counts what coverage counts: a task never run, a run asked with ``--variants first`` (the
toy's two wordings per question) and a prediction file with a missing entry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.testing.harness import invoke, registered_plugins, run_args


@pytest.fixture
def toy_installed(tmp_path: Path) -> Iterator[None]:
    with registered_plugins(
        tmp_path / "site", "toys", {"toy": "toy_benchmark:ToyBench"}, Path(__file__).parent
    ):
        yield


def _eval(out: Path, label: str, benchmark: str) -> dict:
    return json.loads((out / label / benchmark / "eval.json").read_text(encoding="utf-8"))


def test_a_task_never_run_is_covered_with_its_chance(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "toy", tmp_path / "out"
    assert invoke(["sample-data", "--benchmark", "toy", "--out", str(root)]).code == 0
    common = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--label", "run"]
    assert invoke(["infer", *common, "--model", "oracle", "--tasks", "event"]).code == 0
    assert invoke(["refine", *common]).code == 0
    assert invoke(["eval", *common]).code == 3
    doc = _eval(out, "run", "toy")
    assert set(doc["coverage"]) == {"event", "attribute", "temporal"}
    never = doc["coverage"]["attribute"]
    assert (never["questions"], never["missing"], never["status"]) == (4, 4, "not_run")
    assert set(doc["summary"]["chance"]) == {"event", "attribute", "temporal"}
    for profile in ("reference", "strict"):
        assert set(doc["summary"]["by_profile"][profile]["chance"]) == {"event", "attribute", "temporal"}
    incomplete = doc["summary"]["incomplete"]["tasks"]["attribute"]
    assert (incomplete["questions"], incomplete["missing"]) == (never["questions"], never["missing"])
    assert invoke(["report", *common[:2], "--label", "run", "--output-dir", str(out)]).code == 0
    report = (out / "run" / "toy" / "report.md").read_text(encoding="utf-8")
    coverage = report[report.index("## Coverage") :]
    assert "attribute" in coverage and "temporal" in coverage


def test_a_first_variants_run_counts_the_same_everywhere(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "toy", tmp_path / "out"
    assert invoke(["sample-data", "--benchmark", "toy", "--out", str(root)]).code == 0
    common = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--label", "run"]
    assert invoke(["infer", *common, "--model", "oracle", "--variants", "first"]).code == 0
    assert invoke(["refine", *common]).code == 0
    result = invoke(["eval", *common])
    assert result.code == 0, result.stderr
    doc = _eval(out, "run", "toy")
    for task in ("event", "attribute", "temporal"):
        cover = doc["coverage"][task]
        assert (cover["questions"], cover["missing"], cover["status"]) == (2, 0, "scored"), (task, cover)
    assert "incomplete" not in doc["summary"]


def test_a_task_a_plugin_skips_is_still_covered(tmp_path: Path) -> None:
    root, out = tmp_path / "vb", tmp_path / "out"
    assert invoke(["sample-data", "--benchmark", "voicebench", "--out", str(root)]).code == 0
    common = run_args("voicebench", root, out, "run")
    assert invoke(["infer", *common, "--model", "oracle", "--tasks", "mmsu"]).code == 0
    assert invoke(["refine", *common]).code == 0
    assert invoke(["eval", *common, "--allow-partial"]).code == 0
    doc = _eval(out, "run", "voicebench")
    assert set(doc["coverage"]) == set(doc["summary"]["incomplete"]["tasks"]) | {"mmsu"}
    assert doc["coverage"]["bbh"]["status"] == "not_run" and doc["coverage"]["bbh"]["missing"] == 8


def test_a_missing_prediction_entry_is_counted_alike(tmp_path: Path) -> None:
    root, out, exported = build_dataset(tmp_path / "levels", {"AMIC": 4}), tmp_path / "out", tmp_path / "exp"
    where = ["--data-root", str(root), "--output-dir", str(out)]
    assert invoke(["infer", "--model", "oracle", *where]).code == 0
    assert invoke(["refine", "--label", "oracle", *where]).code == 0
    assert invoke(["export", "--label", "oracle", *where, "--out", str(exported)]).code == 0
    predictions = exported / "tasks" / "AMIC.json"
    entries = json.loads(predictions.read_text(encoding="utf-8"))
    predictions.write_text(json.dumps([None, *entries[1:]]), encoding="utf-8")  # one entry null
    target = tmp_path / "pred.json"
    args = ["eval", "--data-root", str(root), "--predictions", str(exported), "--out", str(target)]
    result = invoke([*args, "--tasks", "AMIC"])
    assert result.code == 3
    doc = json.loads(target.read_text(encoding="utf-8"))
    cover, counted = doc["coverage"]["AMIC"], doc["summary"]["incomplete"]["tasks"]["AMIC"]
    assert (cover["questions"], cover["missing"]) == (counted["questions"], counted["missing"]) == (4, 1)
