"""``avibench compare`` takes runs by label or by folder, and refuses a run that scored nothing instead of writing
a page of dashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def mmar_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("cmp")
    data, out = base / "data", base / "outputs"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(data)]).code == 0
    for model in ("oracle", "random"):
        args = ["--benchmark", "mmar", "--data-root", str(data), "--output-dir", str(out), "--model", model]
        assert invoke(["infer", *args]).code == 0
        assert invoke(["refine", *args, "--mode", "rules"]).code == 0
        assert invoke(["eval", *args]).code == 0
    return out


def test_runs_given_as_folders_are_compared_under_their_labels(mmar_runs: Path, tmp_path: Path) -> None:
    by_folder = invoke(
        [
            "compare",
            str(mmar_runs / "oracle" / "mmar"),
            str(mmar_runs / "random" / "mmar"),
            "--out",
            str(tmp_path),
        ]
    )
    assert by_folder.code == 0, by_folder.stderr
    data = json.loads((tmp_path / "compare-mmar-oracle-vs-random.json").read_text())
    assert [c["run"] for c in data["comparisons"]] == ["random"]
    by_label = invoke(
        [
            "compare",
            "oracle",
            "random",
            "--benchmark",
            "mmar",
            "--output-dir",
            str(mmar_runs),
            "--out",
            str(tmp_path / "l"),
        ]
    )
    assert by_label.code == 0, by_label.stderr
    assert json.loads((tmp_path / "l" / "compare-mmar-oracle-vs-random.json").read_text()) == data


def test_a_path_that_is_no_run_folder_says_what_to_give(mmar_runs: Path, tmp_path: Path) -> None:
    wrong = invoke(["compare", str(mmar_runs / "oracle" / "mmar"), str(tmp_path / "nowhere" / "mmar")])
    assert wrong.code == 2
    assert f"{tmp_path / 'nowhere' / 'mmar'}: no run folder of benchmark mmar there" in wrong.stderr
    assert "nowhere/mmar/mmar" not in wrong.stderr


def test_a_run_that_scored_nothing_is_refused(tmp_path: Path) -> None:
    data, out = tmp_path / "air", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "airbench", "--out", str(data)]).code == 0
    for model in ("oracle", "random"):
        args = [
            "--benchmark",
            "airbench",
            "--data-root",
            str(data),
            "--output-dir",
            str(out),
            "--model",
            model,
        ]
        assert invoke(["infer", *args, "--tasks", "chat"]).code == 0
        assert invoke(["refine", *args]).code == 0
        invoke(["eval", *args, "--tasks", "chat", "--allow-partial"])  # no judge key: chat is not scored
    refused = invoke(["compare", "oracle", "random", "--benchmark", "airbench", "--output-dir", str(out)])
    assert refused.code == 2
    assert "run 'oracle'" in refused.stderr and "has no scored task" in refused.stderr
    assert not list(out.glob("compare-*"))
