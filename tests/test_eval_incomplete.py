"""eval never lets a partial run pass for a complete one: a warning, exit code 3, and badges on every number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.evaluate.completeness import EXIT_INCOMPLETE
from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dataset(tmp_path_factory.mktemp("partial") / "levels", {"AMIC": 10, "VAR": 6})


def _common(root: Path, out: Path) -> list[str]:
    return ["--model", "oracle", "--data-root", str(root), "--output-dir", str(out)]


def test_partial_run_warns_exits_3_and_marks_every_number(data_root: Path, tmp_path: Path) -> None:
    common = _common(data_root, tmp_path)
    assert invoke(["infer", *common, "--n-samples", "7"]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    result = invoke(["eval", *common, "--fense", "off"])
    assert result.code == EXIT_INCOMPLETE
    assert "WARNING: incomplete run" in result.stderr
    assert "AMIC: 3 missing, partial of 10" in result.stderr and "VAR: 0" not in result.stderr
    doc = json.loads((tmp_path / "oracle" / "avibench" / "eval.json").read_text())
    incomplete = doc["summary"]["incomplete"]
    assert incomplete["tasks"]["AMIC"]["missing"] == 3 and "VAR" not in incomplete["tasks"]  # VAR has 6
    numbers = incomplete["numbers"]
    assert numbers["tasks.AMIC"] == {"tasks": ["AMIC"], "missing": 3, "failed": 0, "unrefined": 0}
    assert numbers["perception"]["tasks"] == ["AMIC", "AVL", "AVM", "VMIC"]  # AVL, AVM, VMIC: no data
    assert "tasks.VAR" not in numbers
    assert numbers["overall"]["missing"] == 3
    assert {"l1_task", "l2_modality", "l3_stage", "l4_domain"} <= set(numbers)
    assert numbers["tasks.ASQA"]["tasks"] == ["ASQA"] and "tasks.VAR" not in numbers
    printed = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert printed["AMIC"].endswith("[incomplete]") and printed["Overall"].endswith("[incomplete]")
    assert printed["AVM"].endswith("[incomplete]")  # a default task without data is judged too
    accepted = invoke(["eval", *common, "--fense", "off", "--allow-partial"])
    assert accepted.code == 0 and "WARNING: incomplete run" in accepted.stderr


def test_unrefined_answers_are_named_with_the_refine_command(data_root: Path, tmp_path: Path) -> None:
    common = _common(data_root, tmp_path)
    assert invoke(["infer", *common, "--tasks", "AMIC", "--n-samples", "4"]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["infer", *common, "--tasks", "AMIC"]).code == 0
    result = invoke(["eval", *common, "--tasks", "AMIC"])
    assert result.code == EXIT_INCOMPLETE
    assert "AMIC: 6 not refined of 10" in result.stderr
    assert "avibench refine --benchmark avibench --label oracle --tasks AMIC" in result.stderr
    doc = json.loads((tmp_path / "oracle" / "avibench" / "eval.json").read_text())
    assert doc["meta"]["refine"] == {"modes": {"rules": 4}, "models": {}}
    assert doc["meta"]["mixed_settings"] is False and doc["meta"]["infer_settings"][0]["answers"] == 10
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    complete = invoke(["eval", *common, "--tasks", "AMIC"])
    assert complete.code == 0 and "WARNING" not in complete.stderr


def test_a_task_whose_data_went_missing_is_reported_not_fatal(data_root: Path, tmp_path: Path) -> None:
    """A task answered, then its data.json removed: eval scores the rest and says the task has no data, from the
    run's journals and from prediction files alike."""
    import shutil

    root = tmp_path / "levels"
    shutil.copytree(data_root, root)
    common = _common(root, tmp_path / "out")
    assert invoke(["infer", *common]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    exported = tmp_path / "predictions"
    assert invoke(["export", *common, "--format", "reference", "--out", str(exported)]).code == 0
    next(root.glob("*/VAR/data.json")).unlink()
    for source in ([], ["--predictions", str(exported)]):
        result = invoke(["eval", *common, *source, "--fense", "off", "--allow-other-data"])
        assert result.code == EXIT_INCOMPLETE, (source, result.stderr)
        assert "VAR: no data" in result.stderr or "VAR: no VAR data" in result.stderr, result.stderr
        doc = json.loads((tmp_path / "out" / "oracle" / "avibench" / "eval.json").read_text())
        assert doc["summary"]["tasks"]["AMIC"] == 100.0 and doc["summary"]["tasks"].get("VAR") is None
