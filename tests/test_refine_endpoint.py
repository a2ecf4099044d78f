"""Refine never silently sends its model to an endpoint that does not serve it, and stops at a permanent failure."""

from __future__ import annotations

from pathlib import Path

from tiny_dataset import build_dataset

from avibench.store import append_records, read_records
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke


def _run(tmp_path: Path) -> tuple[Path, Path]:
    root = build_dataset(tmp_path / "levels", {"VAR": 6})
    out = tmp_path / "out"
    records = [
        {"key": str(i), "index": i, "id": f"{i:05d}", "task": "VAR", "predict": f"hmm, maybe clip {i}?",
         "error": None, "model": "m"}
        for i in range(6)
    ]  # fmt: skip
    append_records(out / "m" / "avibench" / "infer" / "VAR.jsonl", records)
    return root, out


def _refine(root: Path, out: Path, env: dict[str, str]):
    return invoke(["refine", "--label", "m", "--output-dir", str(out), "--data-root", str(root)], env)


def test_infer_endpoint_without_the_refine_model_is_refused_before_any_request(tmp_path: Path) -> None:
    root, out = _run(tmp_path)
    with FakeOpenAIServer().run_in_thread() as server:  # a vLLM-style server: lists only its own model
        result = _refine(root, out, {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"})
        assert server.count == 0
    assert result.code == 2
    assert "refine model 'gemini-2.5-flash' is not served by" in result.stderr
    assert "OPENAI_BASE_URL, set for infer" in result.stderr and "REFINE_MODEL" in result.stderr
    assert "REFINE_BASE_URL" in result.stderr


def test_first_404_stops_refine_with_one_line_naming_the_settings(tmp_path: Path) -> None:
    root, out = _run(tmp_path)
    plan = FaultPlan(rate=1.0, random_faults=(Fault("404"),))
    with FakeOpenAIServer(plan=plan).run_in_thread() as server:
        env = {"REFINE_BASE_URL": server.base_url, "REFINE_API_KEY": "k", "REFINE_CONCURRENCY": "1"}
        result = _refine(root, out, env)
        assert server.count == 1
    assert result.code == 2
    error = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1
    assert "does not serve model 'gemini-2.5-flash' (HTTP 404): set REFINE_MODEL" in error[0]
    assert "REFINE_BASE_URL" in error[0]


def test_summary_names_the_commonest_failure_and_records_the_mode(tmp_path: Path) -> None:
    root, out = _run(tmp_path)
    plan = FaultPlan(rate=1.0, random_faults=(Fault("400"),))
    with FakeOpenAIServer(plan=plan).run_in_thread() as server:
        env = {"REFINE_BASE_URL": server.base_url, "REFINE_API_KEY": "k", "AVIBENCH_PROGRESS_INTERVAL": "0"}
        result = _refine(root, out, env)
    assert result.code == 1
    assert "commonest failure: HTTP 400: injected HTTP 400 (x6)" in result.stderr
    assert "new failure (VAR): HTTP 400" in result.stderr
    records = list(read_records(out / "m" / "avibench" / "refine" / "VAR.jsonl"))
    assert {r["refine_mode"] for r in records} == {"auto"}
    assert (out / "m" / "avibench" / "refine" / "run.log").is_file()


def test_a_model_the_endpoint_does_not_serve_costs_one_request_at_any_concurrency(tmp_path: Path) -> None:
    root, out = _run(tmp_path)
    plan = FaultPlan(rate=1.0, random_faults=(Fault("404"),))
    with FakeOpenAIServer(plan=plan).run_in_thread() as server:
        env = {"REFINE_BASE_URL": server.base_url, "REFINE_API_KEY": "k", "REFINE_CONCURRENCY": "8"}
        result = _refine(root, out, env)
        assert server.count == 1
    assert result.code == 2 and "does not serve model 'gemini-2.5-flash' (HTTP 404)" in result.stderr
    with FakeOpenAIServer(responder=lambda body: "3", latency=0.2).run_in_thread() as server:
        env = {"REFINE_BASE_URL": server.base_url, "REFINE_API_KEY": "k", "REFINE_CONCURRENCY": "8"}
        assert _refine(root, out, env).code == 0
        assert server.peak_in_flight > 1 and server.count == 6  # after the first answer, the rest in parallel
