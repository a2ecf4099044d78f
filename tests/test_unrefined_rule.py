"""One rule for answers refine has not seen, said by eval, its help, runs and the docs: an answer the benchmark's
rules read as it stands is scored and counted aloud; one they cannot read (or any, for a plug-in that scores
itself) is unrefined, and the task is incomplete (exit 3)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins, run_args


@pytest.fixture(scope="module")
def mmar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmar") / "data"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    return root


def test_rule_readable_unrefined_answers_are_scored_and_said(mmar: Path, tmp_path: Path) -> None:
    args = [
        "--benchmark",
        "mmar",
        "--data-root",
        str(mmar),
        "--output-dir",
        str(tmp_path),
        "--model",
        "oracle",
    ]
    assert invoke(["infer", *args]).code == 0
    evaluated = invoke(["eval", *args])
    assert evaluated.code == 0, evaluated.stderr
    assert (
        "note: 30 answers not refined yet were scored as they stand, read by the benchmark's rules (MMAR 30)"
        in (evaluated.stderr)
    )
    doc = json.loads((tmp_path / "oracle" / "mmar" / "eval.json").read_text())
    assert doc["meta"]["unrefined_read"] == {"MMAR": 30}
    (listed,) = json.loads(invoke(["runs", "--output-dir", str(tmp_path), "--json"]).stdout)
    assert listed["refine"] == "pending 30 (30 scored as they stand)" and listed["eval"] == "done"

    assert invoke(["refine", *args]).code == 0
    refined = invoke(["eval", *args])
    assert "not refined yet" not in refined.stderr
    assert (
        "unrefined_read" not in json.loads((tmp_path / "oracle" / "mmar" / "eval.json").read_text())["meta"]
    )


def test_the_rule_is_in_evals_help_and_the_plugin_guide() -> None:
    helped = invoke(["eval", "--help"])
    assert "one the benchmark's rules read as it stands" in helped.stdout
    assert "is scored, and eval says how many" in helped.stdout
    guide = " ".join((Path(__file__).parents[1] / "docs" / "plugins.md").read_text(encoding="utf-8").split())
    assert "reads as it stands is scored as it stands" in guide and "meta.unrefined_read" in guide


@pytest.fixture
def legacy_installed(tmp_path: Path) -> None:
    with registered_plugins(
        tmp_path / "site",
        "legacy",
        {"legacy-toy": "legacy_toy_benchmark:LegacyToyBench"},
        Path(__file__).parent,
    ):
        yield


def test_a_self_scoring_plugins_unrefined_answers_are_a_gap_with_a_cause(
    legacy_installed: None, tmp_path: Path
) -> None:
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "legacy-toy", "--out", str(root)]).code == 0
    common = run_args("legacy-toy", root, out, "run")
    with (server := FakeOpenAIServer(responder=lambda body: "A")).run_in_thread():
        infer = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(infer, {"OPENAI_API_KEY": "sk-legacy"}).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 3
    assert "  listen: 8 not refined of 8" in evaluated.stderr
    assert "8 infer answer(s) are not refined yet (listen)" in evaluated.stderr
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["eval", *common]).code == 0


TERSE = """
from legacy_toy_benchmark import LegacyToyBench


class TerseToy(LegacyToyBench):
    name = "terse-toy"

    def score(self, responses, *, profile, options):
        scored = super().score(responses, profile=profile, options=options)
        cover = scored.document["coverage"]["listen"]
        if cover["unparsed"]:
            cover["status"] = "partial"
        return scored
"""


def test_a_partial_without_a_reason_is_warned_with_its_counts(
    legacy_installed: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "terse_toy.py").write_text(TERSE, encoding="utf-8")
    entry = site / "legacy-0.1.dist-info" / "entry_points.txt"
    entry.write_text(entry.read_text() + "terse-toy = terse_toy:TerseToy\n", encoding="utf-8")
    get_benchmark.cache_clear()
    monkeypatch.delitem(sys.modules, "terse_toy", raising=False)
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "terse-toy", "--out", str(root)]).code == 0
    common = run_args("terse-toy", root, out, "run")
    with (server := FakeOpenAIServer(responder=lambda body: "Hard to say.")).run_in_thread():
        infer = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(infer, {"OPENAI_API_KEY": "sk-legacy"}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 3
    assert (
        "  listen: partial (0 scored, 8 unparsed, 0 failed, 0 missing; the plug-in gives no reason) of 8"
        in (evaluated.stderr)
    )
