"""A stopped infer counts every failure its journals hold: the requests in flight when it stopped are journaled,
and its closing table and run.json count them too."""

from __future__ import annotations

import json
from pathlib import Path

from tiny_dataset import build_dataset

from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke


def test_a_stopped_run_counts_what_its_journal_holds(tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 40})
    out = tmp_path / "out"
    server = FakeOpenAIServer(plan=FaultPlan(rate=1.0, random_faults=(Fault("404"),)), latency=0.0)
    with server.run_in_thread():
        env = {"OPENAI_API_KEY": "sk-stop", "OPENAI_BASE_URL": server.base_url}
        args = ["infer", "--model", "m", "--data-root", str(root), "--output-dir", str(out), "--skip-probe"]
        result = invoke([*args, "--concurrency", "16", "--retry-delay", "0.001", "--timeout", "2"], env)
    assert result.code == 1 and "stopped after 3 x" in result.stderr
    journal = [r for r in read_records(out / "m" / "avibench" / "infer" / "AMIC.jsonl")]
    failed = sum(r.get("error") is not None for r in journal)
    assert failed > 3  # the requests in flight when the run stopped were journaled too
    run = json.loads((out / "m" / "avibench" / "infer" / "run.json").read_text(encoding="utf-8"))
    assert run["counts"]["AMIC"]["failed"] == failed
    row = next(line for line in result.stdout.splitlines() if line.startswith("AMIC "))
    assert row.split()[:4] == ["AMIC", "40", "0", str(failed)]
