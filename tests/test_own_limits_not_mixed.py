"""Questions that carry their own answer-length limit (STAR-Bench per task, AudioMarathon per prompt) do not make
a run "mixed settings"; answers made with another --max-tokens still do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


def _meta(out: Path, label: str, benchmark: str) -> dict:
    return json.loads((out / label / benchmark / "eval.json").read_text(encoding="utf-8"))["meta"]


def test_a_questions_own_limit_is_not_a_setting_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["run", "--model", "oracle", "--benchmarks", "starbench,audiomarathon", "--sample"]
    result = invoke([*args, "--output-dir", "out"])
    assert result.code == 0, result.stderr[-2000:]
    out = tmp_path / "out"
    for benchmark in ("starbench", "audiomarathon"):
        meta = _meta(out, "oracle", benchmark)
        assert meta["mixed_settings"] is False, (benchmark, meta["infer_settings"])
        assert [s["settings"]["max_tokens"] for s in meta["infer_settings"]] == [None]
    card = json.loads((out / "oracle" / "card.json").read_text(encoding="utf-8"))
    assert not any(row["settings"]["mixed_settings"] for row in card["benchmarks"])
    assert "mixed settings" not in (out / "oracle" / "card.md").read_text(encoding="utf-8")


def test_another_max_tokens_is_still_a_mix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    where = ["--benchmark", "starbench", "--output-dir", "out", "--label", "mix"]
    assert invoke(["sample-data", "--benchmark", "starbench", "--out", "data"]).code == 0
    first = ["infer", *where, "--model", "oracle", "--data-root", "data", "--tasks", "pc"]
    assert invoke(first).code == 0
    second = ["infer", *where, "--model", "oracle", "--data-root", "data", "--tasks", "tr"]
    assert invoke([*second, "--max-tokens", "64", "--allow-mixed"]).code == 0
    assert invoke(["refine", *where, "--data-root", "data"]).code == 0
    invoke(["eval", *where, "--data-root", "data", "--allow-partial"])
    meta = _meta(tmp_path / "out", "mix", "starbench")
    assert meta["mixed_settings"] is True
    assert sorted(str(s["settings"]["max_tokens"]) for s in meta["infer_settings"]) == ["64", "None"]
