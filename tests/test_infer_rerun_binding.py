"""A finished run re-run leaves what eval reads as it was (so eval replays its result instead of scoring again),
and a run with no answer yet is not bound to the model it was first started with (a model-name typo's 404)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke

KEY = "sk-binding-test-5678"
FAST = ["--retry-delay", "0.001", "--timeout", "2", "--concurrency", "1", "--skip-probe"]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dataset(tmp_path_factory.mktemp("binding") / "levels", {"AMIC": 6})


def _states(*paths: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths}


def test_a_no_op_infer_rewrites_nothing_eval_reads(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    where = ["--data-root", str(data_root), "--output-dir", str(out)]
    assert invoke(["infer", "--model", "oracle", *where]).code == 0
    assert invoke(["refine", "--label", "oracle", *where]).code == 0
    assert invoke(["eval", "--label", "oracle", "--tasks", "AMIC", *where]).code == 0
    run = out / "oracle" / "avibench"
    read_by_eval = (run / "manifest.json", run / "infer" / "run.json", run / "eval.json")
    before = _states(*read_by_eval)
    again = invoke(["infer", "--model", "oracle", *where])
    assert again.code == 0, again.stderr
    assert _states(*read_by_eval) == before
    replayed = invoke(["eval", "--label", "oracle", "--tasks", "AMIC", *where])
    assert replayed.code == 0 and _states(*read_by_eval) == before  # eval.json not written again
    runs = [json.loads(line) for line in (run / "infer" / "runs.jsonl").read_text().splitlines()]
    assert [r["event"] for r in runs] == ["start", "end", "start", "end"]  # each invocation still logged


def test_a_no_op_run_replays_every_eval(tmp_path: Path) -> None:
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        args = ["run", "--model", "oracle", "--benchmarks", "mmar", "--sample", "--output-dir", "out"]
        assert invoke(args).code == 0
        eval_json = tmp_path / "out" / "oracle" / "mmar" / "eval.json"
        written = eval_json.stat().st_mtime_ns
        again = invoke(args)
        assert again.code == 0, again.stderr
        assert eval_json.stat().st_mtime_ns == written
    finally:
        os.chdir(here)


@pytest.mark.parametrize("allow_mixed", [False, True])
def test_a_run_whose_first_model_answered_nothing_takes_the_corrected_model(
    data_root: Path, tmp_path: Path, allow_mixed: bool
) -> None:
    server = FakeOpenAIServer(plan=FaultPlan(rate=1.0, random_faults=(Fault("404"),)))
    out = tmp_path / "out"
    common = ["--label", "run", "--data-root", str(data_root), "--output-dir", str(out), *FAST]
    env = {"OPENAI_API_KEY": KEY}
    with server.run_in_thread():
        env["OPENAI_BASE_URL"] = server.base_url
        typo = invoke(["infer", "--model", "gpt-typo", *common], env)
        assert typo.code == 1 and "does not serve model 'gpt-typo'" in typo.stderr
        server.plan = FaultPlan()
        extra = ["--allow-mixed"] if allow_mixed else []
        fixed = invoke(["infer", "--model", "gpt-right", *common, *extra], env)
    assert fixed.code == 0, fixed.stderr
    assert "--allow-mixed" not in fixed.stderr
    manifest = json.loads((out / "run" / "avibench" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["model"] == "gpt-right" and manifest["mixed"] is False
    assert {t["model"] for t in manifest["tasks"].values()} == {"gpt-right"}
    refused = invoke(["infer", "--model", "gpt-other", *common], env)
    assert refused.code == 2 and 'bound to model "gpt-right"' in refused.stderr  # answered: bound now
