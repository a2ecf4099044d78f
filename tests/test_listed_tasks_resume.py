"""A task defined by a folder listing (AudioMarathon SD) is planned, refined and scored again when a clip is added:
the finished-task and eval stamps must see the listing, not only metadata files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from avibench.testing.harness import CliResult, invoke

ENV = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "REFINE_BASE_URL": ""}


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    """A finished oracle run of SD on the sample, refined and scored once."""
    root = tmp_path / "am"
    assert invoke(["sample-data", "--benchmark", "audiomarathon", "--out", str(root)]).code == 0
    out = tmp_path / "out"
    for stage in ("infer", "refine", "eval"):
        result = _stage(stage, root, out)
        assert result.code == 0, result.stderr
    return root, out


def _stage(stage: str, root: Path, out: Path, *extra: str) -> CliResult:
    args = [stage, "--benchmark", "audiomarathon", "--model", "oracle", "--tasks", "SD", *extra]
    return invoke([*args, "--data-root", str(root), "--output-dir", str(out)], ENV)


def _add_clip(root: Path) -> None:
    fake = root / "SD" / "fake"
    first = sorted(fake.glob("*.wav"))[0]
    shutil.copy(first, fake / "had_fake_9999.wav")


def test_a_clip_added_to_a_listed_task_is_asked(run: tuple[Path, Path]) -> None:
    root, out = run
    _add_clip(root)
    infer = _stage("infer", root, out)
    assert infer.code == 0, infer.stderr
    journal = out / "oracle" / "audiomarathon" / "infer" / "SD.jsonl"
    assert "had_fake_9999" in journal.read_text()


def test_the_added_clip_is_refined_and_scored(run: tuple[Path, Path]) -> None:
    root, out = run
    _add_clip(root)
    assert _stage("infer", root, out).code == 0
    # infer answered the run's data as it is now: the later stages take it as the run's own data
    for stage in ("refine", "eval"):
        result = _stage(stage, root, out)
        assert result.code == 0, result.stderr
    samples = out / "oracle" / "audiomarathon" / "samples.jsonl"
    assert "had_fake_9999" in samples.read_text()
