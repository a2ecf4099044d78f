"""What the command line says is true: help texts, totals, names it is given, signs and counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.evaluate.document import fmt_delta, fmt_score
from avibench.testing.harness import invoke

NO_FENSE = dict.fromkeys(
    ("AVIBENCH_FENSE", "AVIBENCH_FENSE_SBERT", "AVIBENCH_FENSE_ECHECKER", "AVIBENCH_FENSE_BERT")
)


@pytest.fixture(scope="module")
def marathon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("am") / "data"
    assert invoke(["sample-data", "--benchmark", "audiomarathon", "--out", str(root)]).code == 0
    return root


def test_top_level_help_shows_the_per_benchmark_layout() -> None:
    helped = invoke(["--help"]).stdout
    assert "outputs/<label>/<benchmark>/eval.json" in helped
    assert "outputs/<label>/eval.json" not in helped and "outputs/<label>/infer/" not in helped


def test_a_group_named_in_tasks_is_taken(tmp_path: Path) -> None:
    root = tmp_path / "star"
    assert invoke(["sample-data", "--benchmark", "starbench", "--out", str(root)]).code == 0
    listed = json.loads(
        invoke(["tasks", "--benchmark", "starbench", "--data-root", str(root), "--json"]).stdout
    )
    spatial = [t["task"] for t in listed if t["group"] == "spatial reasoning"]
    args = ["--benchmark", "starbench", "--data-root", str(root), "--output-dir", str(tmp_path / "o")]
    asked = invoke(["infer", *args, "--model", "oracle", "--tasks", "spatial-reasoning"])
    assert asked.code == 0, asked.stderr
    assert sorted(
        p.stem
        for p in (tmp_path / "o" / "oracle" / "starbench" / "infer").glob("*.jsonl")
        if p.stem != "runs"
    ) == sorted(spatial)
    assert "groups (the group column of 'avibench tasks'" in " ".join(
        invoke(["infer", "--help"]).stdout.split()
    )


def test_a_group_of_the_task_listing_is_taken_where_the_plugin_has_none(
    sample_root: Path, tmp_path: Path
) -> None:
    args = ["--data-root", str(sample_root), "--output-dir", str(tmp_path)]
    asked = invoke(["infer", *args, "--model", "oracle", "--tasks", "reasoning"])
    assert asked.code == 0, asked.stderr
    assert sorted(
        p.stem for p in (tmp_path / "oracle" / "avibench" / "infer").glob("*.jsonl") if p.stem != "runs"
    ) == [
        "AVH",
        "AVLG",
        "AVQA",
        "VAH",
    ]
    unknown = invoke(["infer", *args, "--model", "oracle", "--tasks", "nope"])
    assert unknown.code == 2 and "groups: perception, reasoning, sensation, understand" in unknown.stderr


def test_tasks_json_gives_counts_as_numbers(marathon: Path) -> None:
    listed = json.loads(
        invoke(["tasks", "--benchmark", "audiomarathon", "--data-root", str(marathon), "--json"]).stdout
    )
    assert all(isinstance(t["found"], int) for t in listed), listed
    assert sum(t["found"] for t in listed) == 40


def test_a_shard_table_adds_up(marathon: Path, tmp_path: Path) -> None:
    args = ["--benchmark", "audiomarathon", "--data-root", str(marathon), "--output-dir", str(tmp_path)]
    shard = invoke(["infer", *args, "--model", "oracle", "--shard", "0/2"])
    assert shard.code == 0, shard.stderr
    table = shard.stdout + shard.stderr
    header = next(line for line in table.splitlines() if line.startswith("task "))
    total = next(line for line in table.splitlines() if line.startswith("total "))
    assert "other shards" in header
    selected, done, failed, skipped, others = (int(v) for v in total.split()[1:6])
    assert selected == 40 and done + failed + skipped + others == selected and others > 0


def test_report_refuses_an_unknown_published_name_and_names_only_its_options(tmp_path: Path) -> None:
    root = tmp_path / "mmar"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    args = [
        "--benchmark",
        "mmar",
        "--data-root",
        str(root),
        "--output-dir",
        str(tmp_path / "o"),
        "--model",
        "oracle",
    ]
    assert invoke(["infer", *args]).code == 0
    assert invoke(["eval", *args]).code == 0
    where = ["--benchmark", "mmar", "--label", "oracle", "--output-dir", str(tmp_path / "o")]
    refused = invoke(["report", *where, "--published", "Gemini 2.5 Pro,GPT-9"])
    assert refused.code == 2
    assert "no published mmar result named 'GPT-9'" in refused.stderr and "Gemini 2.5 Flash" in refused.stderr
    assert invoke(["report", *where, "--published", "gemini 2.5 pro"]).code == 0
    assert "--data-root" not in invoke(["report", "--help"]).stdout


def test_a_zero_never_shows_a_minus_sign() -> None:
    assert (
        fmt_delta(-0.001) == "+0.00" and fmt_delta(-0.004999) == "+0.00" and fmt_delta(-0.005001) == "-0.01"
    )
    assert fmt_score(-0.0) == "0.00" and fmt_score(-0.004) == "0.00"


def test_fense_missing_says_its_cause_once(sample_root: Path, tmp_path: Path) -> None:
    args = [
        "--data-root",
        str(sample_root),
        "--output-dir",
        str(tmp_path),
        "--model",
        "oracle",
        "--tasks",
        "AVC",
    ]
    assert invoke(["infer", *args]).code == 0
    assert invoke(["refine", *args]).code == 0
    evaluated = invoke(["eval", *args], NO_FENSE)
    said = evaluated.stdout + evaluated.stderr
    assert "not scored: AVC: FENSE needs local model files: AVIBENCH_FENSE_SBERT is not set" in said
    assert "leaves them out" not in said and "AVC is not scored: AVC" not in said
    assert said.count("FENSE needs local model files") == 1
