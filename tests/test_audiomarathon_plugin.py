"""AudioMarathon through the real command line: baselines on every task, rescoring official files, the pages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from avibench.kits.published import published_table
from avibench.level_metrics.audiomarathon import TASKS
from avibench.testing.harness import invoke

BENCH = ["--benchmark", "audiomarathon"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("marathon") / "data"
    made = invoke(["sample-data", *BENCH, "--out", str(root)])
    assert made.code == 0, made.stderr
    return root


def run(data: Path, out: Path, model: str, *extra: str, refine: bool = True) -> dict:
    common = [*BENCH, "--data-root", str(data), "--output-dir", str(out), "--model", model]
    for stage in ("infer", "refine", "eval") if refine else ("infer", "eval"):
        args = [stage, *common, *(("--mode", "rules") if stage == "refine" else ()), *extra]
        done = invoke(args)
        assert done.code == 0, (stage, done.stderr)
    return json.loads((out / model / "audiomarathon" / "eval.json").read_text())


def test_tasks_and_validation(data: Path) -> None:
    listed = invoke(["tasks", *BENCH, "--data-root", str(data), "--json"])
    rows = json.loads(listed.stdout)
    assert [r["task"] for r in rows] == list(TASKS)
    assert [r["found"] for r in rows] == [4, 4, 3, 4, 4, 4, 4, 4, 5, 4]
    assert invoke(["validate-data", str(data), *BENCH]).code == 0
    assert [t["task"] for t in json.loads(invoke(["tasks", *BENCH, "--json"]).stdout)] == list(TASKS)


def test_oracle_scores_100_on_every_task_in_both_profiles(data: Path, tmp_path: Path) -> None:
    doc = run(data, tmp_path, "oracle")
    for profile in ("reference", "strict"):
        view = doc["summary"]["by_profile"][profile]
        assert view["tasks"] == dict.fromkeys(TASKS, 100.0) and view["headline"] == 100.0
    assert doc["ASR"]["wer_mean"] == 0.0 and doc["average"] == 100.0 and doc["complete"] is True
    assert (
        doc["SD"]["metric"] == "binary_f1_fake" and doc["SGR"]["metric"] == "weighted_f1_classes_valid_only"
    )
    assert {k: doc["coverage"]["SAR"][k] for k in ("questions", "answered", "unparsed", "status")} == {
        "questions": 5,
        "answered": 5,
        "unparsed": 0,
        "status": "scored",
    }
    journal = tmp_path / "oracle" / "audiomarathon" / "infer" / "ER.jsonl"
    assert {json.loads(line)["params"]["max_tokens"] for line in journal.read_text().splitlines()} == {10}


def test_random_is_near_chance(tmp_path: Path) -> None:
    root = tmp_path / "full"
    assert invoke(["sample-data", *BENCH, "--out", str(root), "--full-size"]).code == 0
    doc = run(root, tmp_path, "random", "--tasks", "MC,ER")
    for profile in ("reference", "strict"):
        view = doc["summary"]["by_profile"][profile]
        assert view["chance"] == pytest.approx({"MC": 25.0, "ER": 25.0}, abs=0.1)
        for task in ("MC", "ER"):
            assert abs(view["tasks"][task] - view["chance"][task]) < 8, (profile, task)


def test_reference_needs_no_refine_and_strict_reads_the_raw_reply_then(data: Path, tmp_path: Path) -> None:
    refined = run(data, tmp_path / "a", "random")
    raw_only = run(data, tmp_path / "b", "random", refine=False)
    assert raw_only["summary"]["by_profile"] == refined["summary"]["by_profile"]


def test_rescoring_round_trip_needs_the_metadata_only(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    ours = run(data, out, "random")
    common = [*BENCH, "--data-root", str(data), "--output-dir", str(out), "--model", "random"]
    exported = invoke(["export", *common])
    assert exported.code == 0, exported.stderr
    folder = out / "random" / "audiomarathon" / "reference"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        f"{t}_results.jsonl" if t == "SED" else f"{t}_results.json" for t in TASKS
    )
    metadata_only = tmp_path / "metadata"
    shutil.copytree(data, metadata_only, ignore=shutil.ignore_patterns("*.flac"))
    for clip in metadata_only.rglob("*.wav"):
        clip.write_bytes(b"")  # HAD's question list is its file names; nothing is decoded
    args = ["eval", *BENCH, "--data-root", str(metadata_only), "--output-dir", str(out)]
    rescored = invoke([*args, "--predictions", str(folder), "--label", "rescored"])
    assert rescored.code == 0, rescored.stderr
    theirs = json.loads((out / "rescored" / "audiomarathon" / "eval.json").read_text())
    assert theirs["summary"]["by_profile"] == ours["summary"]["by_profile"]
    assert {t: theirs[t] for t in TASKS} == {t: ours[t] for t in TASKS}
    assert theirs["meta"]["source"] == "predictions"


def test_rescoring_reports_tasks_without_a_result_file(data: Path, tmp_path: Path) -> None:
    run(data, tmp_path, "oracle")
    common = [*BENCH, "--data-root", str(data), "--output-dir", str(tmp_path), "--model", "oracle"]
    assert invoke(["export", *common, "--tasks", "MC,SD", "--out", str(tmp_path / "two")]).code == 0
    args = ["eval", *BENCH, "--data-root", str(data), "--output-dir", str(tmp_path), "--label", "two"]
    rescored = invoke([*args, "--predictions", str(tmp_path / "two")])
    assert rescored.code == 3 and "ASR: no ASR_results.json" in rescored.stderr, rescored.stderr
    rescored = invoke([*args, "--predictions", str(tmp_path / "two"), "--allow-partial"])
    assert rescored.code == 0, rescored.stderr
    doc = json.loads((tmp_path / "two" / "audiomarathon" / "eval.json").read_text())
    assert doc["summary"]["tasks"]["MC"] == 100.0 and doc["summary"]["tasks"]["ASR"] is None
    assert doc["coverage"]["ASR"]["reason"] == f"no ASR_results.json in {tmp_path / 'two'}"
    assert (doc["average"], doc["complete"]) == (100.0, False)


def test_leaderboard_shows_published_rows_beside_runs(data: Path, tmp_path: Path) -> None:
    run(data, tmp_path, "oracle")
    board = invoke(["leaderboard", *BENCH, "--output-dir", str(tmp_path)])
    assert board.code == 0, board.stderr
    data_board = json.loads((tmp_path / "leaderboard-audiomarathon.json").read_text())
    rows = data_board["rows"]  # a run on the generated sample is not ranked beside published results
    assert [r["name"] for r in rows[:2]] == ["Human", "Qwen2.5-Omni-7B"]
    assert [r["name"] for r in data_board["other_data"]] == ["oracle"]
    human = rows[0]
    assert human["headline"] == 87.6 and human["tasks"]["ASR"] is None and human["tasks"]["MC"] == 100.0
    assert len(rows) == len(published_table("audiomarathon").rows)
    ranked = invoke(["leaderboard", *BENCH, "--output-dir", str(tmp_path), "--include-unofficial"])
    assert ranked.code == 0
    rows = json.loads((tmp_path / "leaderboard-audiomarathon.json").read_text())["rows"]
    assert [r["name"] for r in rows[:2]] == ["oracle", "Human"]
