"""``make eval`` writes the report whatever eval's exit code, so the pages never disagree with eval.json."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tiny_dataset import build_dataset

from avibench.testing.harness import CLEARED_ENV, invoke

REPO = Path(__file__).resolve().parents[1]


def test_make_eval_writes_the_report_of_an_incomplete_eval_and_keeps_its_exit_code(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 4})
    out = tmp_path / "out"
    common = ["--label", "o", "--output-dir", str(out)]
    assert invoke(["infer", "--model", "oracle", "--data-root", str(root), *common]).code == 0
    # refine left undone: eval scores an incomplete run and exits 3
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    wrapper = venv / "bin" / "avibench"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m avibench.cli "$@"\n')
    wrapper.chmod(0o755)
    (venv / ".avibench-installed").touch()  # newer than pyproject.toml and the Makefile: nothing to install
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV} | {"OUTPUT_DIR": str(out)}
    result = subprocess.run(
        ["make", "-C", str(REPO), "eval", f"VENV={venv}", "MODEL=oracle", "LABEL=o", "TASKS=AMIC"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0 and "Error 3" in result.stderr, result.stderr
    run = out / "o" / "avibench"
    assert "exit code 3" in result.stderr
    assert (run / "report.md").stat().st_mtime >= (run / "eval.json").stat().st_mtime
    assert "incomplete" in (run / "report.md").read_text()
