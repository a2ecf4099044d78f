"""Runs scored with different values of a plug-in's own eval option (strict-toy's --strictness): compare refuses
them unless --force (and then says so), and the leaderboard and the card mark the one scored with a non-default
value, as they mark runs on other data or made with other settings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins, run_args


@pytest.fixture
def toys_installed(tmp_path: Path) -> Iterator[None]:
    with registered_plugins(
        tmp_path / "site",
        "toys",
        {"strict-toy": "strict_toy_benchmark:StrictToyBench"},
        Path(__file__).parent,
    ):
        yield


def test_runs_scored_with_other_option_values_are_refused_or_marked(
    toys_installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out = tmp_path / "toy", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "strict-toy", "--out", str(root)]).code == 0
    server = FakeOpenAIServer(responder=lambda body: "Yes, I hear it.")
    for label, strictness in (("lenient", []), ("exact", ["--strictness", "exact"])):
        common = run_args("strict-toy", root, out, label)
        with server.run_in_thread():
            args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
            assert invoke(args, {"OPENAI_API_KEY": "sk-toy"}).code == 0
        assert invoke(["refine", *common, "--mode", "rules"]).code == 0
        assert invoke(["eval", *common, "--profile", "strict", *strictness]).code == 0

    where = ["--benchmark", "strict-toy", "--output-dir", str(out)]
    refused = invoke(["compare", "lenient", "exact", *where])
    assert refused.code == 2
    assert "lenient and exact were scored with different eval options" in refused.stderr
    assert "exact: --strictness exact" in refused.stderr
    forced = invoke(["compare", "lenient", "exact", *where, "--force"])
    assert forced.code == 0, forced.stderr
    page = json.loads((out / "compare-strict-toy-lenient-vs-exact.json").read_text(encoding="utf-8"))
    assert any("different eval options" in note for note in page["notes"])

    board = invoke(["leaderboard", *where])
    assert board.code == 0, board.stderr
    text = "\n".join(p.read_text(encoding="utf-8") for p in out.glob("leaderboard*strict-toy*.md"))
    text = text or (out / "leaderboard.md").read_text(encoding="utf-8")
    exact = next(line for line in text.splitlines() if "exact" in line and "run" in line)
    lenient = next(line for line in text.splitlines() if "lenient" in line and "run" in line)
    assert "[eval options: --strictness exact]" in exact
    assert "eval options" not in lenient

    monkeypatch.chdir(tmp_path)
    with server.run_in_thread():
        run = [
            "run",
            "--model",
            "m",
            "--label",
            "exact",
            "--benchmarks",
            "strict-toy",
            "--output-dir",
            str(out),
        ]
        run += ["--data-root", f"strict-toy={root}", "--strictness", "exact", "--profile", "strict"]
        run += ["--skip-probe"]
        run += ["--base-url", server.base_url]
        assert invoke(run, {"OPENAI_API_KEY": "sk-toy"}).code == 0
    row = json.loads((out / "exact" / "card.json").read_text(encoding="utf-8"))["benchmarks"][0]
    assert row["settings"]["eval_options"] == {"strictness": "exact"}
    assert "eval options: --strictness exact" in (out / "exact" / "card.md").read_text(encoding="utf-8")
