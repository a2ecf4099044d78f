"""Where the data is not what a command expects, it says what to do: generate the sample, name the benchmark the
folder holds; and our own sample's deliberate quirks are not reported as if they were the user's problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def mmar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmar") / "data"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    return root


def test_a_missing_sample_names_sample_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for command in (
        ["infer", "--model", "oracle", "--benchmark", "mmar"],
        ["validate-data", "--benchmark", "mmar"],
    ):
        missing = invoke(command)
        assert missing.code == 2
        assert "'avibench sample-data --benchmark mmar'" in missing.stderr, command


def test_another_benchmarks_data_is_named(mmar: Path, tmp_path: Path) -> None:
    checked = invoke(["validate-data", str(mmar)])
    assert checked.code == 2
    assert f"{mmar}: no avibench task found; it holds mmar data: pass --benchmark mmar" in checked.stderr
    assert "task folder not found" not in checked.stdout
    asked = invoke(["infer", "--model", "oracle", "--data-root", str(mmar), "--output-dir", str(tmp_path)])
    assert asked.code == 2 and "pass --benchmark mmar" in asked.stderr


def test_our_own_samples_quirks_are_one_note(mmar: Path) -> None:
    checked = invoke(["validate-data", str(mmar), "--benchmark", "mmar", "--strict"])
    assert checked.code == 0
    assert "warning:" not in checked.stdout
    assert "0 error(s), 3 warning(s)" in checked.stdout
    assert checked.stdout.count("is a sample made by 'avibench sample-data'") == 1
