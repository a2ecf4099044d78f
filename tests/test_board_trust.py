"""Numbers a user can trust on the leaderboards: runs on sample or other data are not ranked beside published
models unless asked, --entry refuses them, --runs selects runs, and every number resting on an incomplete task
carries an incomplete badge with its counts, in the report and on the leaderboard. Through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from avibench.benchmarks.avibench import official
from avibench.benchmarks.avibench.dataset import task_dir
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.contracts import RunPaths
from avibench.plugin import SAMPLE_MARKER
from avibench.testing.harness import invoke

PARTIAL_TASK = "AVM"  # a Perception task: Perception, Overall and L1-L4 all rest on it
BADGED = ("tasks.AVM", "perception", "overall", "l1_task", "l2_modality", "l3_stage", "l4_domain", "headline")


def _pipeline(root: Path, out: Path, label: str, *, drop_one_of: str | None = None) -> None:
    common = ["--data-root", str(root), "--output-dir", str(out), "--label", label]
    assert invoke(["infer", "--model", "oracle", *common]).code == 0
    if drop_one_of is not None:  # one question of this task never got an answer
        journal = RunPaths(out, label, AVIBENCH.name).infer_journal(drop_one_of)
        lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
        journal.write_text("".join(lines[:-1]), encoding="utf-8")
    assert invoke(["refine", "--model", "oracle", "--mode", "rules", *common]).code == 0
    scored = invoke(["eval", "--model", "oracle", "--fense", "stand-in", "--allow-partial", *common])
    assert scored.code == 0, scored.stderr


@pytest.fixture(scope="module")
def runs(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated sample (with the marker sample-data writes) scored twice with the oracle: ``demo`` in full
    and ``partial`` with one AVM answer missing."""
    base = tmp_path_factory.mktemp("board")
    root = base / "sample"
    root.mkdir()
    for stage in {spec.stage for spec in AVIBENCH.tasks}:
        # hard links, not a symbolic link: a linked folder pointing out of the data root is refused
        shutil.copytree(sample_root / stage, root / stage, copy_function=os.link)
    (root / SAMPLE_MARKER).write_text(json.dumps({"benchmark": "avibench", "seed": 0}), encoding="utf-8")
    out = base / "out"
    _pipeline(root, out, "demo")
    _pipeline(root, out, "partial", drop_one_of=PARTIAL_TASK)
    return out


def _board(out: Path, *flags: str) -> dict:
    result = invoke(["leaderboard", "--output-dir", str(out), *flags])
    assert result.code == 0, result.stderr
    return json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))


def test_eval_records_the_sample_dataset(runs: Path) -> None:
    meta = json.loads(RunPaths(runs, "demo", AVIBENCH.name).eval_json.read_text())["meta"]
    assert meta["dataset"]["kind"] == "sample" and SAMPLE_MARKER in meta["dataset"]["why"]


def test_sample_runs_are_listed_apart_unless_ranked_on_request(runs: Path) -> None:
    board = _board(runs)
    assert all(row["published"] for row in board["rows"])  # only the paper's models are ranked
    assert [row["name"] for row in board["other_data"]] == ["demo", "partial"]  # named by label
    assert all(row["rank"] is None and row["dataset"]["kind"] == "sample" for row in board["other_data"])
    md = (runs / "leaderboard.md").read_text(encoding="utf-8")
    assert "Runs on other data (not comparable)" in md

    board = _board(runs, "--include-unofficial")
    assert board["other_data"] == []
    by_name = {row["name"]: row for row in board["rows"]}
    human = by_name["Human (subset)"]
    assert by_name["demo"]["rank"] == 1 and by_name["demo"]["overall"] > human["overall"]
    assert "[sample data, not comparable]" in by_name["demo"]["source"]


def test_runs_selects_labels(runs: Path) -> None:
    board = _board(runs, "--runs", "partial", "--include-unofficial")
    assert [row["name"] for row in board["rows"] if not row["published"]] == ["partial"]
    unknown = invoke(["leaderboard", "--output-dir", str(runs), "--runs", "demo,ghost"])
    assert unknown.code == 2 and "ghost" in unknown.stderr


def test_entry_refuses_a_sample_run_without_force(runs: Path) -> None:
    flags = [
        *("--provider", "Test Lab", "--release-date", "2025-01-01"),
        *("--release-url", "https://example.org/r", "--source-url", "https://example.org/s"),
    ]
    refused = invoke(["leaderboard", "--output-dir", str(runs), "--entry", "demo", *flags])
    assert refused.code == 2
    assert (
        "sample data" in refused.stderr and "stand-in FENSE" in refused.stderr and "--force" in refused.stderr
    )
    forced = invoke(["leaderboard", "--output-dir", str(runs), "--entry", "demo", "--force", *flags])
    assert forced.code == 0, forced.stderr
    assert json.loads(forced.stdout)["model_name"] == "oracle"


def test_partial_run_badges_exactly_the_numbers_resting_on_the_task(runs: Path) -> None:
    paths = RunPaths(runs, "partial", AVIBENCH.name)
    incomplete = json.loads(paths.eval_json.read_text())["summary"]["incomplete"]
    assert sorted(incomplete["numbers"]) == sorted(BADGED)
    assert incomplete["numbers"]["overall"]["missing"] == 1

    assert invoke(["report", "--label", "partial", "--output-dir", str(runs)]).code == 0
    report = paths.report_md.read_text(encoding="utf-8")
    headline = next(line for line in report.splitlines() if line.count("incomplete: 1 missing") >= 1)
    # Perception, Overall and L1-L4 are badged; Understanding, Reasoning and Sensation are not
    assert headline.count("(incomplete: 1 missing)") == 6
    task_rows = [line for line in report.splitlines() if line.startswith("| Perception |")]
    assert [PARTIAL_TASK in r for r in task_rows if "(incomplete: 1 missing)" in r] == [True]

    board = _board(runs, "--include-unofficial")
    row = next(r for r in board["rows"] if r["name"] == "partial")
    assert sorted(row["incomplete"]) == sorted(BADGED)
    line = next(
        ln for ln in (runs / "leaderboard.md").read_text().splitlines() if ln.startswith("| 2 | partial")
    )
    assert line.count("(incomplete: 1 missing)") == 2  # Perception and Overall in the stage table
    tax = [ln for ln in (runs / "leaderboard.md").read_text().splitlines() if ln.startswith("| 2 | partial")][
        1
    ]
    assert tax.count("(incomplete: 1 missing)") == 4  # L1-L4
    demo = next(
        ln for ln in (runs / "leaderboard.md").read_text().splitlines() if ln.startswith("| 1 | demo")
    )
    assert "incomplete" not in demo


def _counted_root(root: Path, counts: dict[str, int]) -> Path:
    for spec in AVIBENCH.tasks:
        folder = task_dir(root, spec)
        folder.mkdir(parents=True)
        (folder / "data.json").write_text(json.dumps([{}] * counts.get(spec.name, spec.paper_count)))
    return root


def test_official_is_recognised_by_the_paper_counts_and_fingerprints(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = official.dataset_kind(sample_root, ["AVM"])
    assert (
        other["kind"] == "other" and f"the official data {AVIBENCH.task('AVM').paper_count}" in other["why"]
    )
    root = _counted_root(tmp_path / "levels", {})
    assert official.dataset_kind(root, [])["kind"] == "official"
    assert official.OFFICIAL_FINGERPRINTS == {}  # no official release hashed yet
    monkeypatch.setitem(official.OFFICIAL_FINGERPRINTS, "AVM", "0" * 64)
    changed = official.dataset_kind(root, ["AVM", "AVL"])
    assert changed == {"kind": "other", "why": "AVM: data.json differs from the official file (SHA-256)"}
