"""A damaged journal is never skipped without a word: a corrupt line is named (file and line) by every stage that
reads it, infer moves it aside and asks its question again, and a torn last line that infer cuts is reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def mmar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmar") / "data"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    return root


def _run(mmar: Path, out: Path) -> tuple[list[str], Path]:
    args = ["--benchmark", "mmar", "--data-root", str(mmar), "--output-dir", str(out), "--model", "oracle"]
    assert invoke(["infer", *args]).code == 0
    return args, out / "oracle" / "mmar" / "infer" / "MMAR.jsonl"


def test_a_corrupt_line_is_named_set_aside_and_asked_again(mmar: Path, tmp_path: Path) -> None:
    args, journal = _run(mmar, tmp_path)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    broken = lines[4][: len(lines[4]) // 2] + "\n"
    journal.write_text("".join([*lines[:4], broken, *lines[5:]]), encoding="utf-8")

    listed = invoke(["eval", *args, "--allow-partial"])
    assert f"{journal} line 5: not a JSON record, skipped" in listed.stderr

    resumed = invoke(["infer", *args])
    assert resumed.code == 0, resumed.stderr
    aside = journal.with_name("MMAR.jsonl.corrupt")
    assert f"{journal} line 5: not a JSON record; moved to {aside}" in resumed.stderr
    assert aside.read_text(encoding="utf-8") == broken
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(lines)  # the line moved out, its question asked again and appended
    assert invoke(["infer", *args]).stderr.count("not a JSON record") == 0


def test_a_torn_last_line_cut_on_resume_is_reported(mmar: Path, tmp_path: Path) -> None:
    args, journal = _run(mmar, tmp_path)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    torn = lines[-1][:20]
    journal.write_text("".join([*lines[:-1], torn]), encoding="utf-8")
    resumed = invoke(["infer", *args])
    assert resumed.code == 0, resumed.stderr
    assert f"{journal}: cut a torn last line ({len(torn)} bytes" in resumed.stderr
    assert len(journal.read_text(encoding="utf-8").splitlines()) == len(lines)
