"""The refine stage end to end: journals in and out, resume, the LLM path against a local server, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tiny_dataset import build_dataset

from avibench.benchmarks.avibench.plugin import AVIBench
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError, JournalMismatchError
from avibench.refine.cli import refine
from avibench.refine.llm_fallback import LLMSettings
from avibench.refine.runner import refine_run as run_refine
from avibench.store import append_records, latest_by_index
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan, request_text

TASKS = AVIBench().select("AMIC,VAR,ASQA,AVM")
NO_LLM = LLMSettings()

# Per task: raw answers by index. Index 2 of AMIC/VAR/ASQA is beyond the rules (goes to the LLM).
ANSWERS = {
    "AMIC": [
        "answer={'dog': 1, 'man': 1}",
        "I hear two dogs and a man.",
        "Some dogs, maybe a man too [LLM-MIC]",
    ],
    "VAR": ["[0, 2]", "The matching audio clips are [1].", "Hard to say, perhaps the second [LLM-RET]"],
    "ASQA": ["The answer is **yes**.", "No.", "It could be yes or no [LLM-QA]"],
    "AVM": ["Yes, they match.", "No."],
}
LLM_REPLIES = {"[LLM-MIC]": '```json\n{"dog": "3"}\n```', "[LLM-RET]": "[1]", "[LLM-QA]": "**yes**"}


def _infer_record(task: str, index: int, predict: str | None, error: str | None = None) -> dict[str, Any]:
    return {
        "index": index, "id": f"{index:05d}", "task": task, "subtask": None, "predict": predict, "error": error,
        "backend": "test", "model": "m", "params": {}, "prompt_hash": "h", "latency_s": 0.1, "usage": None,
        "time": "2026-01-01T00:00:00+00:00", "version": "0",
    }  # fmt: skip


def write_infer(run_path: Path) -> None:
    """Infer journals for the four tasks under a run folder."""
    for task, answers in ANSWERS.items():
        append_records(
            run_path / "infer" / f"{task}.jsonl", [_infer_record(task, i, a) for i, a in enumerate(answers)]
        )


def make_run(tmp_path: Path) -> tuple[Path, Path]:
    """(data root, run folder) with infer journals for four tasks."""
    root = build_dataset(tmp_path / "levels", {t: len(a) for t, a in ANSWERS.items()})
    run_path = tmp_path / "outputs" / "m" / "avibench"
    write_infer(run_path)
    return root, run_path


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    return make_run(tmp_path)


def refine_run(tasks: Any, *, data_root: Path, run_path: Path, **options: Any) -> Any:
    """The stage on the run folder ``<output dir>/<label>/avibench``."""
    paths = RunPaths(run_path.parent.parent, run_path.parent.name, "avibench")
    return run_refine(AVIBench(), tasks, data_root=data_root, paths=paths, **options)


def refined(run_path: Path, task: str) -> dict[int, dict[str, Any]]:
    return latest_by_index(run_path / "refine" / f"{task}.jsonl")


def responder(body: Any) -> str:
    text = request_text(body)
    return next((reply for marker, reply in LLM_REPLIES.items() if marker in text), "i dont know")


def llm_settings(server: FakeOpenAIServer, **extra: Any) -> LLMSettings:
    return LLMSettings(
        model="refiner", base_urls=(server.base_url,), api_key="sk-test", concurrency=4, **extra
    )


def test_rules_mode_refines_and_leaves_the_rest_unparsed(run: tuple[Path, Path]) -> None:
    root, run_path = run
    summaries = refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)
    assert {s.task for s in summaries} == {"AMIC", "VAR", "ASQA", "AVM"}
    amic = refined(run_path, "AMIC")
    assert amic[0]["predict"] == '{"dog": "1", "man": "1"}' and amic[0]["method"] == "rule"
    assert amic[1]["predict"] == '{"dog": "2", "man": "1"}'
    assert amic[2]["method"] == "unparsed" and amic[2]["predict"] == ANSWERS["AMIC"][2]
    assert refined(run_path, "VAR")[1]["predict"] == "[1]"
    assert refined(run_path, "ASQA")[1]["predict"] == "**no**"
    avm = refined(run_path, "AVM")
    assert [avm[i]["method"] for i in (0, 1)] == ["passthrough", "passthrough"]
    assert avm[0]["predict"] == ANSWERS["AVM"][0]
    record = amic[0]
    assert record["raw"] == ANSWERS["AMIC"][0] and record["refine_model"] is None and record["error"] is None
    assert set(record) >= {"index", "id", "task", "subtask", "raw_hash", "llm_output", "time", "version"}


def test_resume_redoes_only_new_changed_or_unanswered(run: tuple[Path, Path]) -> None:
    root, run_path = run
    refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)
    again = refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)
    assert sum(s.refined_now for s in again) == 0
    lines_before = (run_path / "refine" / "VAR.jsonl").read_text().count("\n")
    append_records(
        run_path / "infer" / "VAR.jsonl",
        [_infer_record("VAR", 0, "Indices 0 and 1."), _infer_record("VAR", 1, None, error="HTTP 500")],
    )
    third = refine_run(
        AVIBench().select("VAR"), data_root=root, run_path=run_path, mode="rules", settings=NO_LLM
    )
    assert third[0].refined_now == 1 and third[0].done == 2
    assert refined(run_path, "VAR")[0]["predict"] == "[0, 1]"
    assert (run_path / "refine" / "VAR.jsonl").read_text().count("\n") == lines_before + 1


def test_an_infer_journal_from_other_data_is_refused(run: tuple[Path, Path]) -> None:
    root, run_path = run
    append_records(run_path / "infer" / "VAR.jsonl", [{**_infer_record("VAR", 1, "[0]"), "id": "zzz"}])
    with pytest.raises(JournalMismatchError, match="entry 1"):
        refine_run(AVIBench().select("VAR"), data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)


def test_llm_fallback_prompts_caches_and_canonicalises(run: tuple[Path, Path]) -> None:
    root, run_path = run
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == 3
        prompts = [request_text(b) for b in server.bodies()]
        assert {b["model"] for b in server.bodies()} == {"refiner"}
        mic = next(p for p in prompts if "[LLM-MIC]" in p)
        assert ANSWERS["AMIC"][2] in mic and "hair-dryer" in mic  # the raw answer and the class list
        qa = next(p for p in prompts if "[LLM-QA]" in p)
        assert "Is the sound clear?" in qa and "['yes', 'no', 'not sure']" in qa  # the question the model saw
        amic = refined(run_path, "AMIC")[2]
        assert amic["method"] == "llm" and amic["predict"] == '{"dog": "3"}'
        assert amic["refine_model"] == "refiner" and amic["llm_output"] == LLM_REPLIES["[LLM-MIC]"]
        assert refined(run_path, "VAR")[2]["predict"] == "[1]"
        assert refined(run_path, "ASQA")[2]["predict"] == "**yes**"

        again = refine_run(
            TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server)
        )
        assert server.count == 3 and sum(s.refined_now for s in again) == 0

        for task in ("AMIC", "VAR", "ASQA"):
            (run_path / "refine" / f"{task}.jsonl").unlink()
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == 3  # answered from the cache
        assert refined(run_path, "AMIC")[2]["method"] == "llm"


def test_unparsed_runs_get_the_llm_once_it_is_configured(run: tuple[Path, Path]) -> None:
    root, run_path = run
    refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=NO_LLM)
    assert refined(run_path, "VAR")[2]["method"] == "unparsed"
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        summaries = refine_run(
            TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server)
        )
    assert server.count == 3 and sum(s.refined_now for s in summaries) == 3
    assert refined(run_path, "VAR")[2]["method"] == "llm"


def test_llm_mode_sends_everything_and_keeps_uncanonical_replies_as_unparsed(run: tuple[Path, Path]) -> None:
    root, run_path = run
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(
            AVIBench().select("ASQA,AVM"),
            data_root=root,
            run_path=run_path,
            mode="llm",
            settings=llm_settings(server),
        )
        assert server.count == 3  # every ASQA answer; AVM is passed through
    asqa = refined(run_path, "ASQA")
    assert asqa[2]["method"] == "llm" and asqa[2]["predict"] == "**yes**"
    assert asqa[0]["method"] == "unparsed" and asqa[0]["predict"] == "i dont know"
    assert asqa[0]["llm_output"] == "i dont know"


def test_failed_llm_calls_are_recorded_and_retried(run: tuple[Path, Path]) -> None:
    root, run_path = run
    plan = FaultPlan(markers={"[LLM-RET]": Fault("400")}, by_request={1: Fault("429", "0.01")})
    with FakeOpenAIServer(responder=responder, plan=plan).run_in_thread() as server:
        summaries = refine_run(
            TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server)
        )
        failed = refined(run_path, "VAR")[2]
        assert failed["method"] == "failed" and failed["predict"] is None and "400" in failed["error"]
        assert "sk-test" not in json.dumps(failed)
        assert sum(s.failed for s in summaries) == 1
        assert refined(run_path, "AMIC")[2]["method"] == "llm"  # its first attempt got a 429, then succeeded
        plan.markers.clear()
        count = server.count
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == count + 1
    assert refined(run_path, "VAR")[2]["method"] == "llm"
    cache_lines = (run_path.parent.parent / ".refine-cache.jsonl").read_text().splitlines()
    assert len(cache_lines) == 3 and all("error" not in json.loads(line) for line in cache_lines)


def offline_cli_args(root: Path, run_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``refine`` arguments for the run, with no LLM endpoint configured in the environment."""
    for var in ("REFINE_BASE_URL", "REFINE_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return [
        "--label",
        "m",
        "--output-dir",
        str(run_path.parent.parent),
        "--data-root",
        str(root),
        "--no-progress",
    ]


def test_cli_summary_and_exit_codes(run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root, run_path = run
    args = offline_cli_args(root, run_path, monkeypatch)
    result = CliRunner().invoke(refine, args)
    assert result.exit_code == 0, result.output
    assert "AMIC" in result.output and "unparsed=1" in result.output and "rule=2" in result.output
    plan = FaultPlan(markers={"[LLM": Fault("400")})
    with FakeOpenAIServer(plan=plan).run_in_thread() as server:
        monkeypatch.setenv("REFINE_BASE_URL", server.base_url)
        monkeypatch.setenv("REFINE_API_KEY", "sk-test")
        result = CliRunner().invoke(refine, [*args, "--tasks", "VAR"])
    assert result.exit_code == 1 and "failed=1" in result.output
    missing = CliRunner().invoke(refine, ["--label", "nope", "--output-dir", str(run_path.parent.parent)])
    assert missing.exit_code != 0 and "no infer results" in str(missing.exception)


def test_settings_come_from_refine_variables_then_openai_ones() -> None:
    env = {"OPENAI_BASE_URL": "http://a/v1", "OPENAI_API_KEY": "k1", "REFINE_CONCURRENCY": "3"}
    settings = LLMSettings.from_env(env)
    assert settings.configured and settings.base_urls == ("http://a/v1",) and settings.api_key == "k1"
    assert settings.model == "gemini-2.5-flash" and settings.concurrency == 3
    env |= {"REFINE_BASE_URL": "http://b/v1,http://c/v1", "REFINE_API_KEY": "k2", "REFINE_MODEL": "small"}
    settings = LLMSettings.from_env(env, model="override", concurrency=None)
    assert settings.base_urls == ("http://b/v1", "http://c/v1") and settings.api_key == "k2"
    assert settings.model == "override" and settings.concurrency == 3
    assert not LLMSettings.from_env({}).configured
    with pytest.raises(AvibenchError, match="REFINE_CONCURRENCY"):
        LLMSettings.from_env({"REFINE_CONCURRENCY": "0"})
