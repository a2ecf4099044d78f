"""One rule for the two streams: results (each table headed by a line naming its stage, benchmark and run, and the
files written) on stdout; progress, stage headers, notes and warnings on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from avibench.testing.harness import invoke

STAGES = ("infer", "refine", "eval")


def test_a_redirected_run_log_names_the_benchmark_of_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = invoke(
        ["run", "--model", "oracle", "--benchmarks", "mmar,omnibench", "--sample", "--output-dir", "out"]
    )
    assert ran.code == 0, ran.stderr
    lines = ran.stdout.splitlines()
    headings = [line for line in lines if line.startswith("== ")]
    assert headings == [
        f"== {stage} {bench} (run oracle) ==" for bench in ("mmar", "omnibench") for stage in STAGES
    ]
    # every table (a line of column names) sits under the heading of its own benchmark's stage
    tables = [i for i, line in enumerate(lines) if line.startswith(("task ", "MMAR ", "total"))]
    assert tables
    for i in tables:
        above = [line for line in lines[:i] if line.startswith("== ")]
        assert above, lines[i]
    assert "task   selected  done" not in ran.stderr and "headline" not in ran.stderr
    assert "[1/2] mmar: infer" in ran.stderr and "[1/2] mmar: infer" not in ran.stdout


def test_the_rule_is_documented() -> None:
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "stdout carries results" in readme and "stderr carries the way there" in readme
