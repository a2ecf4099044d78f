"""The plug-in contract: a benchmark defined only in the test suite runs every stage through its entry point.

The toy benchmark (``toy_benchmark.py``) is registered the way a third-party package registers one, with an
``avibench.benchmarks`` entry point in an installed distribution's metadata, and then driven through the real
command line: sample data, validation, infer against the local server with faults (then resumed), refine, eval,
report, export and the leaderboard. Nothing outside its own file knows it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from avibench.plugin import benchmark_names, get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-toy-3b1f0e"


@pytest.fixture
def toy_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Install the toy's entry point as a distribution on sys.path (no code outside the test suite changes)."""
    site = tmp_path / "site"
    info = site / "toybench-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[avibench.benchmarks]\ntoy = toy_benchmark:ToyBench\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    get_benchmark.cache_clear()
    yield
    get_benchmark.cache_clear()
    sys.modules.pop("toy_benchmark", None)


def test_the_toy_benchmark_is_listed_and_unknown_names_list_it(toy_installed: None) -> None:
    assert "toy" in benchmark_names() and "avibench" in benchmark_names()
    listing = invoke(["benchmarks"])
    assert listing.code == 0 and "toy: Toy audio multiple choice" in listing.stdout
    unknown = invoke(["tasks", "--benchmark", "nope"])
    assert unknown.code == 2 and "installed benchmarks: " in unknown.stderr and "toy" in unknown.stderr


def test_toy_runs_every_stage_with_resume(toy_installed: None, tmp_path: Path) -> None:
    root, out = tmp_path / "toydata", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "toy", "--out", str(root)]).code == 0
    assert invoke(["validate-data", str(root), "--benchmark", "toy"]).code == 0
    common = ["--benchmark", "toy", "--data-root", str(root), "--output-dir", str(out), "--label", "run"]

    server = FakeOpenAIServer(responder=lambda body: "A")
    server.plan = FaultPlan(by_request={2: Fault("400"), 5: Fault("400")})
    env = {"OPENAI_API_KEY": KEY}
    with server.run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--retry-delay", "0.005"]
        args += ["--skip-probe"]  # the fault plan numbers the questions' requests
        first = invoke(args, env)
        assert first.code == 1, first.stderr  # two questions failed with a permanent error
        journal = out / "run" / "toy" / "infer" / "listen.jsonl"
        records = journal_lines(journal)
        assert len(records) == 8 and sum(r["error"] is not None for r in records) == 2
        assert {r["key"] for r in records} == {f"q{i}@{v}" for i in range(1, 5) for v in ("fwd", "rev")}
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
    assert evaluated.stdout.strip().splitlines()[-1] == f"wrote {out / 'run' / 'toy' / 'eval.json'}"
    doc = json.loads((out / "run" / "toy" / "eval.json").read_text())
    # the server always says "A": right on fwd for q1, q3, q4 and on rev for q2 (choices reversed)
    assert doc["summary"]["by_profile"]["reference"]["headline"] == pytest.approx(50.0)
    assert doc["summary"]["by_profile"]["strict"]["headline"] == 0.0
    assert doc["meta"]["benchmark"] == "toy" and doc["coverage"]["listen"]["status"] == "scored"

    assert invoke(["report", "--benchmark", "toy", "--label", "run", "--output-dir", str(out)]).code == 0
    html = (out / "run" / "toy" / "report.html").read_text()
    assert "Toy audio multiple choice report: run" in html and "50.00" in html
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
