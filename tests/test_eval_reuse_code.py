"""Eval's reuse stamp covers the package's code: an edited scorer or estimator (a development install keeps its
version) scores again instead of replaying the result of the old code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.evaluate import reuse
from avibench.testing.harness import CliResult, invoke


def _run(args: list[str]) -> CliResult:
    return invoke(args, {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "REFINE_BASE_URL": ""})


def test_an_edited_package_file_is_not_replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "code"
    code.mkdir()
    scorer = code / "scoring.py"
    scorer.write_text("LEVEL = 1\n")
    monkeypatch.setattr(reuse, "code_roots", lambda: [code])
    root = build_dataset(tmp_path / "levels", {"AMIC": 4})
    out = tmp_path / "out"
    where = ["--data-root", str(root), "--output-dir", str(out)]
    assert _run(["infer", "--model", "oracle", *where]).code == 0
    assert _run(["refine", "--label", "oracle", *where]).code == 0
    eval_json = out / "oracle" / "avibench" / "eval.json"
    assert _run(["eval", "--label", "oracle", "--tasks", "AMIC", *where]).code == 0
    written = eval_json.stat().st_mtime_ns
    assert _run(["eval", "--label", "oracle", "--tasks", "AMIC", *where]).code == 0
    assert eval_json.stat().st_mtime_ns == written  # unchanged code: replayed
    scorer.write_text("LEVEL = 2\n")
    os.utime(scorer, ns=(1, 1))
    assert _run(["eval", "--label", "oracle", "--tasks", "AMIC", *where]).code == 0
    assert eval_json.stat().st_mtime_ns != written


def test_the_code_roots_hold_the_scorers() -> None:
    import avibench.benchmarks.avibench.scoring as scoring
    import avibench.level_metrics.chance as chance

    roots = reuse.code_roots()
    for module in (scoring, chance):
        assert any(Path(module.__file__).is_relative_to(r) for r in roots), module.__name__
