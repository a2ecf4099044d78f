"""``refine --reparse`` (improved rules reach old records, LLM results are never paid twice) and the LLM cache
shared by every label under one output dir."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_refine_runner import (
    ANSWERS,
    NO_LLM,
    TASKS,
    llm_settings,
    make_run,
    offline_cli_args,
    refine_run,
    refined,
    responder,
    write_infer,
)

from avibench.benchmarks.avibench.plugin import AVIBench
from avibench.items import Item
from avibench.refine.cli import refine
from avibench.testing.fake_openai import FakeOpenAIServer

CURRENT_RULES = AVIBench.extract


def _rules(overrides: dict[str, str | None]) -> Callable[[AVIBench, Item, str], str | None]:
    """The current rules, except that each answer in ``overrides`` is read as given (other rules' outcome)."""

    def extract(self: AVIBench, item: Item, text: str) -> str | None:
        return overrides[text] if text in overrides else CURRENT_RULES(self, item, text)

    return extract


OLDER = {ANSWERS["ASQA"][1]: "**not sure**", ANSWERS["AMIC"][1]: None}


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, Path]:
    return make_run(tmp_path)


def test_reparse_brings_improved_rules_to_old_rule_and_unparsed_records(
    run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, run_path = run
    with monkeypatch.context() as older:
        older.setattr(AVIBench, "extract", _rules(OLDER))
        refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)
    assert refined(run_path, "ASQA")[1]["predict"] == "**not sure**"
    assert refined(run_path, "AMIC")[1]["method"] == "unparsed"

    plain = refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM)
    assert sum(s.refined_now for s in plain) == 0  # without --reparse the old records stay
    assert refined(run_path, "ASQA")[1]["predict"] == "**not sure**"

    lines = (run_path / "refine" / "ASQA.jsonl").read_text().count("\n")
    again = refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM, reparse=True)
    by_task = {s.task: s for s in again}
    assert by_task["ASQA"].changed == 1 and by_task["AMIC"].changed == 1 and by_task["VAR"].changed == 0
    assert sum(s.refined_now for s in again) == 2  # unchanged answers are not appended again
    assert refined(run_path, "ASQA")[1]["predict"] == "**no**"
    assert refined(run_path, "AMIC")[1]["method"] == "rule"
    assert refined(run_path, "AMIC")[1]["predict"] == '{"dog": "2", "man": "1"}'
    assert (run_path / "refine" / "ASQA.jsonl").read_text().count("\n") == lines + 1
    third = refine_run(TASKS, data_root=root, run_path=run_path, mode="rules", settings=NO_LLM, reparse=True)
    assert sum(s.refined_now for s in third) == 0 and sum(s.changed for s in third) == 0


def test_reparse_rereads_llm_results_and_never_asks_again(
    run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, run_path = run
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == 3
        # Newer rules: the ASQA raw answer is now decidable; the VAR LLM reply "[1]" is read otherwise.
        monkeypatch.setattr(AVIBench, "extract", _rules({ANSWERS["ASQA"][2]: "**no**", "[1]": "[0, 1]"}))
        summaries = refine_run(
            TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server), reparse=True
        )
        assert server.count == 3 and sum(s.requests for s in summaries) == 0
    asqa = refined(run_path, "ASQA")[2]
    assert asqa["method"] == "rule" and asqa["predict"] == "**no**"
    var = refined(run_path, "VAR")[2]
    assert var["method"] == "llm" and var["predict"] == "[0, 1]" and var["llm_output"] == "[1]"
    amic = refined(run_path, "AMIC")[2]
    assert amic["method"] == "llm" and amic["predict"] == '{"dog": "3"}'  # kept as it was
    assert sum(s.changed for s in summaries) == 2


def test_reparse_without_an_llm_keeps_llm_records(run: tuple[Path, Path]) -> None:
    root, run_path = run
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
    before = refined(run_path, "AMIC")[2]
    for mode in ("auto", "rules"):
        summaries = refine_run(
            TASKS, data_root=root, run_path=run_path, mode=mode, settings=NO_LLM, reparse=True
        )
        assert sum(s.refined_now for s in summaries) == 0
        assert sum(s.methods["llm"] for s in summaries) == 3
    assert refined(run_path, "AMIC")[2] == before


def test_the_llm_cache_is_shared_across_labels(run: tuple[Path, Path]) -> None:
    root, run_path = run
    other = run_path.parent.parent / "m-again" / "avibench"
    write_infer(other)
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == 3
        second = refine_run(TASKS, data_root=root, run_path=other, mode="auto", settings=llm_settings(server))
        assert server.count == 3 and sum(s.requests for s in second) == 0
    assert refined(other, "AMIC")[2]["method"] == "llm"
    assert (run_path.parent.parent / ".refine-cache.jsonl").read_text().count("\n") == 3
    assert not (run_path / "refine" / ".llm_cache.jsonl").exists()


def test_a_run_cache_of_earlier_versions_is_still_read(run: tuple[Path, Path]) -> None:
    root, run_path = run
    shared = run_path.parent.parent / ".refine-cache.jsonl"
    with FakeOpenAIServer(responder=responder).run_in_thread() as server:
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        shutil.rmtree(run_path / "refine")
        (run_path / "refine").mkdir()
        shared.rename(run_path / "refine" / ".llm_cache.jsonl")  # the layout earlier versions wrote
        refine_run(TASKS, data_root=root, run_path=run_path, mode="auto", settings=llm_settings(server))
        assert server.count == 3
    assert refined(run_path, "VAR")[2]["method"] == "llm"


def test_cli_reparse_reports_changes(run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root, run_path = run
    args = offline_cli_args(root, run_path, monkeypatch)
    with monkeypatch.context() as older:
        older.setattr(AVIBench, "extract", _rules(OLDER))
        assert CliRunner().invoke(refine, args).exit_code == 0
    result = CliRunner().invoke(refine, [*args, "--reparse"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith("changed=2")
