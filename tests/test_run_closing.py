"""``avibench run``'s exit code and closing table: the README's offline line (judged parts without a judge are
"not judged": partial, exit 3, said in one line), only the benchmarks asked for count, an eval that kept an older
eval.json makes the row partial, and a stage that stopped says why."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from avibench.infer.backends.baselines import OracleBackend
from avibench.testing.harness import CliResult, invoke

OFFLINE = ["run", "--model", "oracle", "--benchmarks", "all", "--sample", "--output-dir", "out"]


@dataclass
class Offline:
    base: Path
    first: CliResult
    allowed: CliResult


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Offline]:
    """The README's offline line, as printed there (no judge key, no FENSE models), then with --allow-partial."""
    base = tmp_path_factory.mktemp("offline")
    here = Path.cwd()
    os.chdir(base)
    try:
        yield Offline(base, invoke(OFFLINE), invoke([*OFFLINE, "--allow-partial"]))
    finally:
        os.chdir(here)


def _table(result: CliResult) -> dict[str, str]:
    """The closing table's rows by benchmark."""
    lines = result.stdout.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("benchmark "))
    rows = [line for line in lines[start + 1 :] if line and not line.startswith("card: ")]
    return {line.split()[0]: line for line in rows}


def test_the_readme_offline_line_is_partial_with_one_line_per_unjudged_benchmark(offline: Offline) -> None:
    assert offline.first.code == 3, offline.first.stderr[-2000:]
    assert "error:" not in offline.first.stderr
    notes = [line for line in offline.first.stderr.splitlines() if line.startswith("not judged: ")]
    assert notes == [
        "not judged: chat: no API key for the judge (set JUDGE_API_KEY or OPENAI_API_KEY); the scores are "
        "partial without them",
        "not judged: alpacaeval_full, commoneval, wildvoice, sd-qa: no API key for the judge (set JUDGE_API_KEY "
        "or OPENAI_API_KEY); the scores are partial without them",
    ]
    table = _table(offline.first)
    assert table["airbench"].split()[1] == "partial" and table["voicebench"].split()[1] == "partial"
    assert offline.allowed.code == 0, offline.allowed.stderr[-2000:]
    card = json.loads((offline.base / "out" / "oracle" / "card.json").read_text(encoding="utf-8"))
    air = next(r for r in card["benchmarks"] if r["benchmark"] == "airbench")
    assert air["stages"]["eval"] == 0


def test_eval_without_a_judge_key_exits_3_and_0_with_allow_partial(offline: Offline) -> None:
    where = ["--benchmark", "airbench", "--label", "oracle", "--output-dir", str(offline.base / "out")]
    where += ["--data-root", str(offline.base / "data" / "airbench-sample")]
    partial = invoke(["eval", *where])
    assert partial.code == 3 and "error:" not in partial.stderr
    assert partial.stderr.count("not judged: chat") == 1
    coverage = json.loads((offline.base / "out" / "oracle" / "airbench" / "eval.json").read_text())[
        "coverage"
    ]
    assert coverage["chat"]["reason"].startswith("not judged: no API key for the judge")
    assert invoke(["eval", *where, "--allow-partial"]).code == 0


def test_only_the_benchmarks_asked_for_count(offline: Offline) -> None:
    here = Path.cwd()
    os.chdir(offline.base)
    try:
        mmar = invoke([*OFFLINE[:4], "mmar", *OFFLINE[5:]])
    finally:
        os.chdir(here)
    assert mmar.code == 0, mmar.stderr[-2000:]  # AIR-Bench's and VoiceBench's partial rows are older runs
    assert list(_table(mmar)) == ["mmar"]


def test_an_eval_that_kept_an_older_eval_json_makes_the_row_partial(
    offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = offline.base / "out" / "oracle" / "mmar" / "infer" / "MMAR.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]), encoding="utf-8")  # one answer lost ...

    async def broken(self, item, request):  # type: ignore[no-untyped-def]
        raise RuntimeError("backend broke")

    monkeypatch.setattr(OracleBackend, "answer", broken)  # ... and not made again
    monkeypatch.chdir(offline.base)
    result = invoke([*OFFLINE[:4], "mmar", *OFFLINE[5:], "--max-attempts", "1"])
    assert result.code == 1  # a question failed
    assert "note: kept" in result.stderr
    row = _table(result)["mmar"]
    assert row.split()[1] == "partial" and "this run's eval is incomplete (eval-partial.json)" in row
    card = json.loads((offline.base / "out" / "oracle" / "card.json").read_text(encoding="utf-8"))
    assert next(r for r in card["benchmarks"] if r["benchmark"] == "mmar")["status"] == "partial"


def test_a_stopped_stage_says_why_in_its_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(["run", "--model", "gpt-x", "--benchmarks", "mmar", "--sample", "--output-dir", "out"])
    assert result.code == 2
    row = _table(result)["mmar"]
    assert row.split()[1] == "failed"
    assert "infer exited with 2: the openai backend needs OPENAI_API_KEY" in row
