"""The plug-in contract: benchmarks defined only in the test suite run every stage through their entry points.

The toy benchmark (``toy_benchmark.py``, a yes/no audio QA benchmark that only declares its tasks' metrics and
headline) and an older-style plug-in that scores itself (``legacy_toy_benchmark.py``) are registered the way a
third-party package registers one, with ``avibench.benchmarks`` entry points in an installed distribution's
metadata, and driven through the real command line: sample data, validation, infer against the local server with
faults (then resumed), refine, eval, report, compare, export and the leaderboard. Nothing outside their files knows
them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.plugin import benchmark_names, deprecation_notice, get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines, registered_plugins, run_args

BUILT_IN = (
    "avibench",
    "airbench",
    "audiomarathon",
    "dailyomni",
    "mmar",
    "mmau",
    "mmsu",
    "omnibench",
    "starbench",
    "voicebench",
    "worldsense",
)

KEY = "sk-toy-3b1f0e"
CATEGORIES = ("event", "attribute", "temporal")


@pytest.fixture
def toy_installed(tmp_path: Path) -> None:
    """Install the toy's entry point as a distribution on sys.path (no code outside the test suite changes)."""
    with registered_plugins(
        tmp_path / "site",
        "toybench",
        {"toy": "toy_benchmark:ToyBench", "legacy-toy": "legacy_toy_benchmark:LegacyToyBench"},
        Path(__file__).parent,
    ):
        yield


def test_the_toy_benchmark_is_listed_and_unknown_names_list_it(toy_installed: None) -> None:
    assert "toy" in benchmark_names() and "avibench" in benchmark_names()
    listing = invoke(["benchmarks"])
    assert listing.code == 0 and "toy: Toy yes/no audio QA" in listing.stdout
    unknown = invoke(["tasks", "--benchmark", "nope"])
    assert unknown.code == 2 and "installed benchmarks: " in unknown.stderr and "toy" in unknown.stderr


def test_toy_runs_every_stage_with_resume(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "toydata", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "toy", "--out", str(root)]).code == 0
    assert invoke(["validate-data", str(root), "--benchmark", "toy"]).code == 0
    common = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--label", "run"]

    server = FakeOpenAIServer(responder=lambda body: "Yes.")
    server.plan = FaultPlan(by_request={2: Fault("400"), 5: Fault("400")})
    env = {"OPENAI_API_KEY": KEY}
    with server.run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--retry-delay", "0.005"]
        args += ["--skip-probe"]  # the fault plan numbers the questions' requests
        first = invoke(args, env)
        assert first.code == 1, first.stderr  # two questions failed with a permanent error
        records = [r for t in CATEGORIES for r in journal_lines(out / "run" / "toy" / "infer" / f"{t}.jsonl")]
        assert len(records) == 12 and sum(r["error"] is not None for r in records) == 2
        assert {r["key"] for r in records} == {f"q{i}@w{k}" for i in range(1, 7) for k in (0, 1)}
        assert all(r["params"]["max_tokens"] == 16 for r in records)  # the benchmark's own limit
        requests_before = len(server.requests)
        second = invoke(args, env)
        assert second.code == 0, second.stderr
        assert len(server.requests) == requests_before + 2  # only the two failed questions were asked again
        third = invoke(args, env)
        assert third.code == 0 and len(server.requests) == requests_before + 2  # nothing left to ask

    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 0, evaluated.stderr
    assert "notice" not in evaluated.stderr  # a declared benchmark is not deprecated
    assert evaluated.stdout.strip().splitlines()[-1] == f"wrote {out / 'run' / 'toy' / 'eval.json'}"
    doc = json.loads((out / "run" / "toy" / "eval.json").read_text())
    # "Yes." is right for q1, q3 and q4 (both wordings): event 1 of 2, attribute 2 of 2, temporal 0 of 2
    for profile in ("reference", "strict"):
        view = doc["summary"]["by_profile"][profile]
        assert view["tasks"] == {"event": 50.0, "attribute": 100.0, "temporal": 0.0}
        assert view["headline"] == 50.0 and view["counts"] == dict.fromkeys(CATEGORIES, 4)
    assert doc["summary"]["chance"] == dict.fromkeys(CATEGORIES, 50.0)
    assert set(doc["summary"]["intervals"]["tasks"]) == set(CATEGORIES)
    assert "headline" in doc["summary"]["intervals"]["aggregates"]
    assert doc["meta"]["benchmark"] == "toy" and doc["coverage"]["event"]["status"] == "scored"
    samples = (out / "run" / "toy" / "samples.jsonl").read_text().splitlines()
    assert len(samples) == 12 and "Can you hear a tone? Answer yes or no." in "".join(samples)

    assert invoke(["report", "--benchmark", "toy", "--label", "run", "--output-dir", str(out)]).code == 0
    html = (out / "run" / "toy" / "report.html").read_text()
    assert "Toy yes/no audio QA report: run" in html and "50.00" in html
    exported = invoke(["export", *common])
    assert exported.code == 2 and "no official prediction format" in exported.stderr
    assert doc["meta"]["dataset"]["kind"] == "sample"  # the default check: the sample-data marker
    board = invoke(["leaderboard", "--benchmark", "toy", "--output-dir", str(out)])
    listed = json.loads((out / "leaderboard-toy.json").read_text())
    assert board.code == 0 and listed["rows"] == [] and listed["other_data"][0]["name"] == "run"
    board = invoke(["leaderboard", "--benchmark", "toy", "--output-dir", str(out), "--include-unofficial"])
    assert (
        board.code == 0 and json.loads((out / "leaderboard-toy.json").read_text())["rows"][0]["name"] == "run"
    )

    oracle = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--model", "oracle"]
    assert all(invoke([stage, *oracle]).code == 0 for stage in ("infer", "eval"))
    assert invoke(["compare", "run", "oracle", "--benchmark", "toy", "--output-dir", str(out)]).code == 0
    compared = json.loads((out / "compare-toy-run-vs-oracle.json").read_text())["comparisons"][0][
        "differences"
    ]
    assert compared["headline"]["delta"] == 50.0 and compared["temporal"]["delta"] == 100.0


def test_toy_oracle_and_random_baselines(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "toydata", tmp_path / "outputs"
    invoke(["sample-data", "--benchmark", "toy", "--out", str(root)])
    for model, expected in (("oracle", 100.0), ("random", None)):
        common = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--model", model]
        assert invoke(["infer", *common]).code == 0
        assert invoke(["refine", *common, "--mode", "rules"]).code == 0
        assert invoke(["eval", *common]).code == 0
        doc = json.loads((out / model / "toy" / "eval.json").read_text())
        for profile in ("reference", "strict"):
            score = doc["summary"]["by_profile"][profile]["headline"]
            assert score == expected if expected is not None else 0.0 <= score <= 100.0


def test_a_plugin_that_scores_itself_still_works_with_a_notice(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "legacydata", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "legacy-toy", "--out", str(root)]).code == 0
    common = run_args("legacy-toy", root, out, "run")
    with (server := FakeOpenAIServer(responder=lambda body: "A")).run_in_thread():
        infer = ["infer", *common, "--model", "m", "--base-url", server.base_url]
        assert invoke(infer, {"OPENAI_API_KEY": KEY}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    evaluated = invoke(["eval", *common])
    assert evaluated.code == 0, evaluated.stderr
    notices = [line for line in evaluated.stderr.splitlines() if "deprecated" in line]
    assert len(notices) == 1 and "benchmark legacy-toy scores itself" in notices[0]
    doc = json.loads((out / "run" / "legacy-toy" / "eval.json").read_text())
    # the server always says "A": right on fwd for q1, q3, q4 and on rev for q2 (choices reversed)
    assert doc["summary"]["by_profile"]["reference"]["headline"] == pytest.approx(50.0)
    assert doc["summary"]["by_profile"]["strict"]["headline"] == 0.0


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_built_in_benchmark_is_declared(name: str) -> None:
    """The benchmarks shipped here are scored by the core: every task declares its metric, and none prints the
    self-scoring notice."""
    benchmark = get_benchmark(name)
    assert benchmark.declared, [t.name for t in benchmark.tasks() if t.metric is None]
    assert deprecation_notice(benchmark) is None
