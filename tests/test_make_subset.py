"""``make infer TASKS=... N=...`` then ``make eval``: the warning says what is left in a few lines with commands
that ask it, and ``make eval N=`` accepts the subset it asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from avibench.testing.harness import CLEARED_ENV

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def make(tmp_path: Path, sample_root: Path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    wrapper = venv / "bin" / "avibench"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m avibench.cli "$@"\n')
    wrapper.chmod(0o755)
    (venv / ".avibench-installed").touch()  # newer than pyproject.toml and the Makefile: nothing to install
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV} | {
        "OUTPUT_DIR": str(tmp_path / "out")
    }

    def run(target: str, *variables: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                "make",
                "-C",
                str(REPO),
                target,
                f"VENV={venv}",
                "MODEL=oracle",
                f"DATA={sample_root}",
                *variables,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    return run


def test_a_quick_subset_is_warned_in_few_lines_and_accepted_with_n(make) -> None:
    assert make("infer", "TASKS=AMIC,AVL", "N=3").returncode == 0
    assert make("refine").returncode == 0
    whole = make("eval")
    assert whole.returncode != 0 and "Error 3" in whole.stderr
    assert "never run" in whole.stderr and whole.stderr.count("never run") == 1
    assert "  never run: 13 task(s)" in whole.stderr and "--tasks ASQA," in whole.stderr
    assert "the latest infer asked a part of them on purpose (--n-samples 3)" in whole.stderr
    assert "without --n-samples to ask the rest" in whole.stderr
    assert "with the same settings" not in whole.stderr

    subset = make("eval", "TASKS=AMIC,AVL", "N=3")
    assert subset.returncode == 0, subset.stderr
    assert "WARNING: incomplete run" in subset.stderr  # still said, no longer an error
