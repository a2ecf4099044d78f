"""Completeness is the core's: a run is judged against the benchmark's default task set (or the ``--tasks`` subset),
whatever the plug-in, so a task never run, without data or unscored marks every number that rests on it, the same
way in the terminal and in eval.json, and eval exits 3 unless ``--allow-partial``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.evaluate.completeness import EXIT_INCOMPLETE
from avibench.testing.harness import invoke


def _lines(stdout: str) -> dict[str, str]:
    return {line.split()[0]: line for line in stdout.splitlines() if line.strip()}


def _doc(out: Path, label: str, bench: str) -> dict:
    return json.loads((out / label / bench / "eval.json").read_text())


@pytest.fixture(scope="module")
def star_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("star") / "data"
    assert invoke(["sample-data", "--benchmark", "starbench", "--out", str(path)]).code == 0
    return path


def _star(root: Path, out: Path) -> list[str]:
    return [
        "--benchmark",
        "starbench",
        "--data-root",
        str(root),
        "--output-dir",
        str(out),
        "--model",
        "oracle",
    ]


def test_starbench_with_only_tr_run_marks_final_ma_and_exits_3(star_root: Path, tmp_path: Path) -> None:
    common = _star(star_root, tmp_path)
    assert invoke(["infer", *common, "--tasks", "tr"]).code == 0
    result = invoke(["eval", *common])
    assert result.code == EXIT_INCOMPLETE, result.stderr
    assert "never run: 2 task(s), 54 questions (pc, sr); ask them with 'avibench infer" in result.stderr
    assert _lines(result.stdout)["Final"].endswith("[incomplete]")
    numbers = _doc(tmp_path, "oracle", "starbench")["summary"]["incomplete"]["numbers"]
    assert numbers["headline"]["tasks"] == ["pc", "sr"]
    assert invoke(["eval", *common, "--allow-partial"]).code == 0


def test_starbench_all_names_the_perception_dataset_final_ma_leaves_out(
    star_root: Path, tmp_path: Path
) -> None:
    common = [*_star(star_root, tmp_path), "--tasks", "starbench_all"]
    assert invoke(["infer", *common]).code == 0
    result = invoke(["eval", *common])
    assert result.code == 0, result.stderr  # judged against the subset named, which is complete
    assert _lines(result.stdout)["Final"].endswith("[incomplete]")
    numbers = _doc(tmp_path, "oracle", "starbench")["summary"]["incomplete"]["numbers"]
    assert numbers["headline"]["unselected"] == ["pc"] and numbers["headline"]["tasks"] == []


def test_audiomarathon_with_two_of_ten_tasks_run_marks_the_headline(tmp_path: Path) -> None:
    root = tmp_path / "data"
    bench = ["--benchmark", "audiomarathon"]
    assert invoke(["sample-data", *bench, "--out", str(root)]).code == 0
    common = [*bench, "--data-root", str(root), "--output-dir", str(tmp_path), "--model", "oracle"]
    assert invoke(["infer", *common, "--tasks", "MC,ER"]).code == 0
    result = invoke(["eval", *common])
    assert result.code == EXIT_INCOMPLETE, result.stderr
    printed = _lines(result.stdout)
    assert printed["headline"].endswith("[incomplete]") and not printed["MC"].endswith("[incomplete]")
    incomplete = _doc(tmp_path, "oracle", "audiomarathon")["summary"]["incomplete"]
    assert len(incomplete["tasks"]) == 8 and "MC" not in incomplete["tasks"]
    assert sorted(incomplete["numbers"]["headline"]["tasks"]) == sorted(incomplete["tasks"])


def test_avibench_with_a_task_data_file_missing_marks_its_stage_and_overall(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 4, "VAR": 3})
    common = ["--model", "oracle", "--data-root", str(root), "--output-dir", str(tmp_path)]
    assert invoke(["infer", *common]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    result = invoke(["eval", *common, "--fense", "off"])
    assert result.code == EXIT_INCOMPLETE, result.stderr
    assert f"AVM: no AVM data under {root}" in result.stderr
    printed = _lines(result.stdout)
    assert printed["Perception"].endswith("[incomplete]") and printed["Overall"].endswith("[incomplete]")
    assert not printed["AMIC"].endswith("[incomplete]")
    numbers = _doc(tmp_path, "oracle", "avibench")["summary"]["incomplete"]["numbers"]
    assert "AVM" in numbers["perception"]["tasks"] and "AMIC" not in numbers["perception"]["tasks"]


def test_rescored_predictions_with_avc_unscored_mark_overall(tmp_path: Path) -> None:
    root = tmp_path / "levels"
    assert invoke(["sample-data", "--out", str(root)]).code == 0
    for folder in root.glob("*/*/"):
        if folder.name not in ("AMIC", "AVC"):
            shutil.rmtree(folder)
    common = ["--model", "oracle", "--data-root", str(root), "--output-dir", str(tmp_path)]
    assert invoke(["infer", *common]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["export", *common]).code == 0
    predictions = tmp_path / "oracle" / "avibench" / "reference"
    args = ["eval", "--data-root", str(root), "--output-dir", str(tmp_path), "--label", "rescored"]
    result = invoke([*args, "--predictions", str(predictions), "--fense", "off"])
    assert result.code == EXIT_INCOMPLETE, result.stderr
    assert _lines(result.stdout)["Overall"].endswith("[incomplete]")
    incomplete = _doc(tmp_path, "rescored", "avibench")["summary"]["incomplete"]
    assert incomplete["tasks"]["AVC"]["status"] == "not_scored"
    assert "AVC" in incomplete["numbers"]["overall"]["tasks"]
