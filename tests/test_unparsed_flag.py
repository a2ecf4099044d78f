"""A run whose every answer is unparsed: eval prints both profiles and the unparsed count, and flags it in the
terminal, the report and the card (OmniBench: 12.50 reference from its random fallback, 0.00 strict, 24 of 24)."""

from __future__ import annotations

import json
from pathlib import Path

from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke


def test_a_run_of_unparsed_answers_is_flagged_everywhere(tmp_path: Path) -> None:
    root, out = tmp_path / "omnibench", tmp_path / "out"
    assert invoke(["sample-data", "--benchmark", "omnibench", "--out", str(root)]).code == 0
    server = FakeOpenAIServer(responder=lambda body: "I cannot tell from this.")
    with server.run_in_thread():
        args = ["run", "--model", "m", "--benchmarks", "omnibench", "--data-root", f"omnibench={root}"]
        args += ["--output-dir", str(out), "--base-url", server.base_url, "--skip-probe", "--mode", "rules"]
        result = invoke(args, {"OPENAI_API_KEY": "sk-unparsed"})
    assert result.code == 0, result.stderr[-2000:]
    table = result.stdout.splitlines()
    scores = next(i for i, line in enumerate(table) if line.startswith("== eval omnibench"))
    header = next(i for i, line in enumerate(table) if i > scores and line.startswith("task "))
    assert table[header].split() == ["task", "reference*", "strict"]
    assert table[header + 1].split() == ["OmniBench", "12.50", "0.00"]  # both profiles, not the primary alone
    assert "unparsed: 24 of 24 answers (strict profile)" in result.stdout
    assert "WARNING: mostly unparsed: 24 of 24 answers could not be read" in result.stderr
    closing = next(line for line in result.stdout.splitlines() if line.startswith("omnibench "))
    assert "mostly unparsed (24 of 24 answers)" in closing
    run = out / "m" / "omnibench"
    assert "Warning: mostly unparsed: 24 of 24 answers" in (run / "report.md").read_text(encoding="utf-8")
    card = json.loads((out / "m" / "card.json").read_text(encoding="utf-8"))
    assert card["benchmarks"][0]["unparsed"] == {"unparsed": 24, "answers": 24, "mostly": True}
    assert "mostly unparsed" in (out / "m" / "card.md").read_text(encoding="utf-8")


def test_a_readable_run_is_not_flagged(tmp_path: Path) -> None:
    root, out = tmp_path / "mmar", tmp_path / "out"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    args = ["run", "--model", "oracle", "--benchmarks", "mmar", "--data-root", f"mmar={root}", "--output-dir"]
    result = invoke([*args, str(out)])
    assert result.code == 0 and "unparsed: 0 of 30 answers" in result.stdout
    assert "mostly unparsed" not in result.stdout + result.stderr
    assert (
        json.loads((out / "oracle" / "card.json").read_text())["benchmarks"][0]["unparsed"]["mostly"] is False
    )
