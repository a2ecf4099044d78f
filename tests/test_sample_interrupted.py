"""An interrupted ``sample-data`` (no marker: it is written last) is never taken as a finished sample, neither by
``sample-data`` itself nor by ``avibench run --sample``; the refusal names the command that regenerates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from avibench.plugin import SAMPLE_MARKER
from avibench.testing.harness import invoke


@pytest.fixture
def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """OmniBench's default sample folder (under the working folder) as an interrupted sample-data leaves it."""
    monkeypatch.chdir(tmp_path)
    assert invoke(["sample-data", "--benchmark", "omnibench"]).code == 0
    root = tmp_path / "data" / "omnibench-sample"
    (root / SAMPLE_MARKER).unlink()
    return root


def test_sample_data_does_not_keep_an_interrupted_sample(interrupted: Path) -> None:
    again = invoke(["sample-data", "--benchmark", "omnibench"])
    assert again.code == 2, again.stdout
    assert SAMPLE_MARKER in again.stderr and "--force" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    assert invoke(["sample-data", "--benchmark", "omnibench", "--force"]).code == 0
    assert (interrupted / SAMPLE_MARKER).is_file()


def test_run_sample_does_not_use_an_interrupted_sample(interrupted: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke(
        ["run", "--model", "oracle", "--benchmarks", "omnibench", "--sample", "--output-dir", str(out)]
    )
    assert result.code == 2
    assert "sample-data --benchmark omnibench --out data/omnibench-sample --force" in result.stderr
    assert not (out / "oracle" / "omnibench" / "infer").exists()
