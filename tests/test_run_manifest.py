"""A run is one thing: its dataset, model and settings are bound to its label and checked by every stage."""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.contracts import RunPaths
from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, run_args

KEY = "sk-manifest-test"
MANIFEST_NAME = "manifest.json"


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two datasets of the same shape whose AMIC questions differ (B's first question carries a marker)."""
    base = tmp_path_factory.mktemp("manifest")
    a = build_dataset(base / "A", {"AMIC": 6, "VMIC": 4})
    b = build_dataset(base / "B", {"AMIC": 6, "VMIC": 4}, markers={"AMIC": {0: "edited"}, "VMIC": {0: "x"}})
    return a, b


def oracle_run(root: Path, out: Path, label: str = "o1") -> RunPaths:
    """An oracle run on ``root`` through infer, refine and eval (AMIC and VMIC)."""
    common = ["--label", label, "--output-dir", str(out)]
    first = invoke(["infer", "--model", "oracle", "--data-root", str(root), *common])
    assert first.code == 0, first.stderr
    assert invoke(["refine", "--data-root", str(root), *common]).code == 0
    scored = invoke(["eval", "--tasks", "AMIC,VMIC", "--data-root", str(root), *common])
    assert scored.code == 0, scored.stderr
    return RunPaths(out, label, "avibench")


def scores(path: Path) -> dict[str, float]:
    """The tasks an eval file scored, with their scores."""
    tasks = json.loads(path.read_text())["summary"]["tasks"]
    return {task: score for task, score in tasks.items() if score is not None}


def test_eval_on_other_data_is_refused_and_the_run_data_is_the_default(roots, tmp_path: Path) -> None:
    a, b = roots
    paths = oracle_run(a, tmp_path)
    good = paths.eval_json.read_bytes()
    assert scores(paths.eval_json) == {"AMIC": 100.0, "VMIC": 100.0}

    other = invoke(["eval", "--label", "o1", "--output-dir", str(tmp_path), "--data-root", str(b)])
    assert other.code == 2
    assert other.stderr.count("\n") == 1
    assert f"was made from the data at {a.resolve()}, not {b}" in other.stderr
    assert f"pass --data-root {a.resolve()}" in other.stderr and "--allow-other-data" in other.stderr
    assert paths.eval_json.read_bytes() == good

    again = invoke(["eval", "--label", "o1", "--output-dir", str(tmp_path), "--tasks", "AMIC,VMIC"])
    assert again.code == 0, again.stderr
    assert scores(paths.eval_json) == {"AMIC": 100.0, "VMIC": 100.0}


@pytest.mark.parametrize(
    ("command", "stage"),
    [
        (["refine"], "refine"),
        (["export"], "export"),
        (["view"], "view"),
    ],
)
def test_other_stages_refuse_other_data(roots, tmp_path: Path, command: list[str], stage: str) -> None:
    a, b = roots
    oracle_run(a, tmp_path)
    result = invoke([*command, "--label", "o1", "--output-dir", str(tmp_path), "--data-root", str(b)])
    assert result.code == 2
    assert (
        f"to {stage} it on its own data, or --allow-other-data to {stage} it on {b} anyway" in result.stderr
    )


def test_allowed_other_data_is_recorded_and_stated_on_every_page(roots, tmp_path: Path) -> None:
    a, b = roots
    paths = oracle_run(a, tmp_path)
    args = ["--label", "o1", "--output-dir", str(tmp_path)]
    allowed = invoke(["eval", *args, "--data-root", str(b), "--tasks", "AMIC,VMIC", "--allow-other-data"])
    assert allowed.code == 0, allowed.stderr
    meta = json.loads(paths.eval_json.read_text())["meta"]
    (use,) = meta["run"]["other_data"]
    assert use["data_root"] == str(b) and use["tasks"] == ["AMIC", "VMIC"]
    manifest = json.loads((paths.root / MANIFEST_NAME).read_text())
    assert [u["stage"] for u in manifest["other_data"]] == ["eval"]

    assert invoke(["report", *args]).code == 0
    assert invoke(["view", *args]).code == 0
    assert invoke(["leaderboard", "--output-dir", str(tmp_path)]).code == 0
    statement = f"used other data than the run's (--allow-other-data): {b}"
    assert statement in paths.report_md.read_text()
    assert html.escape(statement) in (paths.root / "viewer.html").read_text()
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    (row,) = board["other_data"]
    assert row["name"] == "o1" and "--allow-other-data" in json.dumps(row)


def test_report_of_an_eval_scored_on_other_data_before_manifests_is_refused(roots, tmp_path: Path) -> None:
    a, b = roots
    paths = oracle_run(a, tmp_path)
    doc = json.loads(paths.eval_json.read_text())
    del doc["meta"]["run"]  # as eval on main wrote it: no binding recorded, scored on B
    doc["meta"]["data_root"] = str(b)
    paths.eval_json.write_text(json.dumps(doc))
    args = ["--label", "o1", "--output-dir", str(tmp_path)]
    refused = invoke(["report", *args])
    assert refused.code == 2
    assert "eval.json was scored there; re-score it with `avibench eval" in refused.stderr
    forced = invoke(["report", *args, "--allow-other-data"])
    assert forced.code == 0, forced.stderr
    assert f"Scored on other data than the run's (--allow-other-data): {b}" in paths.report_md.read_text()


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    with fake.run_in_thread():
        yield fake


def test_a_second_model_or_other_settings_on_another_task_is_refused(roots, tmp_path: Path, server) -> None:
    a, _ = roots
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    common = ["--label", "shared", "--output-dir", str(tmp_path), "--data-root", str(a), "--retry-delay", "0"]
    common.append("--skip-probe")  # the probe's own requests are not questions

    def infer(*extra: str):
        return invoke(["infer", *common, *extra], env)

    assert infer("--model", "model-a", "--tasks", "AMIC").code == 0
    second = infer("--model", "model-b", "--tasks", "VMIC")
    assert second.code == 2
    assert 'is bound to model "model-a", not model "model-b"; use another --label, or --allow-mixed' in (
        second.stderr
    )
    baseline = infer("--model", "random", "--tasks", "VMIC")
    assert baseline.code == 2 and 'backend openai, not model "random", backend random' in baseline.stderr
    warmer = infer("--model", "model-a", "--tasks", "VMIC", "--temperature", "0.7")
    assert warmer.code == 2 and "is bound to temperature 0.0, not temperature 0.7" in warmer.stderr
    assert server.count == 6, "refused runs asked nothing"
    assert not (tmp_path / "shared" / "avibench" / "infer" / "VMIC.jsonl").exists()

    mixed = infer("--model", "model-b", "--tasks", "VMIC", "--allow-mixed")
    assert mixed.code == 0, mixed.stderr
    args = ["--label", "shared", "--output-dir", str(tmp_path)]
    assert invoke(["refine", *args, "--mode", "rules"], env).code == 0
    assert invoke(["eval", *args, "--tasks", "AMIC,VMIC", "--allow-partial"]).code == 0
    assert invoke(["report", *args]).code == 0
    assert invoke(["leaderboard", "--output-dir", str(tmp_path), "--include-unofficial"]).code == 0
    statement = 'AMIC: model "model-a"; VMIC: model "model-b"'
    paths = RunPaths(tmp_path, "shared", "avibench")
    assert statement in paths.report_md.read_text()
    assert statement in (tmp_path / "leaderboard.md").read_text()


def test_compare_refuses_runs_of_different_data_and_names_files_after_the_benchmark(
    roots, tmp_path: Path
) -> None:
    a, b = roots
    oracle_run(a, tmp_path, "onA")
    oracle_run(b, tmp_path, "onB")
    oracle_run(a, tmp_path, "alsoA")
    refused = invoke(["compare", "onA", "onB", "--output-dir", str(tmp_path)])
    assert refused.code == 2
    assert "onA and onB were made from different data (tasks AMIC, VMIC differ)" in refused.stderr
    assert "--force" in refused.stderr
    forced = invoke(["compare", "onA", "onB", "--output-dir", str(tmp_path), "--force"])
    assert forced.code == 0, forced.stderr
    assert "Compared anyway (--force)" in (tmp_path / "compare-avibench-onA-vs-onB.md").read_text()
    same = invoke(["compare", "onA", "alsoA", "--output-dir", str(tmp_path)])
    assert same.code == 0, same.stderr
    assert (tmp_path / "compare-avibench-onA-vs-alsoA.json").is_file()
    assert not list(tmp_path.glob("compare-onA-*"))


def test_a_subset_eval_is_written_beside_eval_json_unless_replace(roots, tmp_path: Path) -> None:
    a, _ = roots
    paths = oracle_run(a, tmp_path)
    complete = paths.eval_json.read_bytes()
    args = ["eval", "--label", "o1", "--output-dir", str(tmp_path)]
    subset = invoke([*args, "--tasks", "VMIC"])
    assert subset.code == 0, subset.stderr
    assert paths.eval_json.read_bytes() == complete
    assert scores(paths.root / "eval-VMIC.json") == {"VMIC": 100.0}
    assert (paths.root / "eval-VMIC.samples.jsonl").is_file()
    assert "note: kept" in subset.stderr and "AMIC complete there, not here" in subset.stderr
    assert "--replace" in subset.stderr
    replaced = invoke([*args, "--tasks", "VMIC", "--replace"])
    assert replaced.code == 0
    assert scores(paths.eval_json) == {"VMIC": 100.0}


def test_an_incomplete_eval_does_not_replace_a_complete_one(roots, tmp_path: Path) -> None:
    a, _ = roots
    paths = oracle_run(a, tmp_path)
    complete = paths.eval_json.read_bytes()
    journal = paths.refine_journal("VMIC")
    records = list(read_records(journal))
    journal.write_text("".join(json.dumps(r) + "\n" for r in records[:-1]))  # one answer left unrefined
    result = invoke(["eval", "--label", "o1", "--output-dir", str(tmp_path), "--tasks", "AMIC,VMIC"])
    assert result.code == 3
    assert paths.eval_json.read_bytes() == complete
    partial = json.loads((paths.root / "eval-AMIC-VMIC.json").read_text())
    assert "VMIC" in partial["summary"]["incomplete"]["tasks"]
    assert "VMIC complete there, not here" in result.stderr


def test_eval_files_in_one_folder_keep_their_own_samples(roots, tmp_path: Path) -> None:
    a, _ = roots
    oracle_run(a, tmp_path)
    args = ["eval", "--label", "o1", "--output-dir", str(tmp_path)]
    assert invoke([*args, "--tasks", "AMIC", "--out", str(tmp_path / "a.json")]).code == 0
    assert invoke([*args, "--tasks", "VMIC", "--out", str(tmp_path / "b.json")]).code == 0
    tasks = {
        name: {r["task"] for r in read_records(tmp_path / name)}
        for name in ("a.samples.jsonl", "b.samples.jsonl")
    }
    assert tasks == {"a.samples.jsonl": {"AMIC"}, "b.samples.jsonl": {"VMIC"}}
    assert not (tmp_path / "samples.jsonl").exists()


def test_a_run_made_before_manifests_is_adopted(roots, tmp_path: Path) -> None:
    a, b = roots
    paths = oracle_run(a, tmp_path)
    manifest = json.loads((paths.root / MANIFEST_NAME).read_text())
    (paths.root / MANIFEST_NAME).unlink()
    result = invoke(["eval", "--label", "o1", "--output-dir", str(tmp_path), "--tasks", "AMIC,VMIC"])
    assert result.code == 0, result.stderr
    assert "was made before run manifests; adopted it from its journals and run log" in result.stderr
    adopted = json.loads((paths.root / MANIFEST_NAME).read_text())
    assert adopted["created_by"] == "adopted"
    for key in ("model", "backend", "temperature", "template", "data_root"):
        assert adopted[key] == manifest[key], key
    assert adopted["tasks"]["AMIC"]["fingerprint"] == manifest["tasks"]["AMIC"]["fingerprint"]
    other = invoke(["eval", "--label", "o1", "--output-dir", str(tmp_path), "--data-root", str(b)])
    assert other.code == 2 and "--allow-other-data" in other.stderr


def test_a_copy_of_the_run_data_elsewhere_is_the_same_dataset(roots, tmp_path: Path) -> None:
    a, _ = roots
    paths = oracle_run(a, tmp_path / "out")
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    args = ["--output-dir", str(tmp_path / "out"), "--data-root", str(copy), "--tasks", "AMIC,VMIC"]
    result = invoke(["eval", "--label", "o1", *args])
    assert result.code == 0, result.stderr
    assert scores(paths.eval_json) == {"AMIC": 100.0, "VMIC": 100.0}


def test_mmar_runs_are_bound_too_and_comparisons_of_two_benchmarks_keep_apart(roots, tmp_path: Path) -> None:
    a, _ = roots
    out = tmp_path / "out"
    for seed in ("0", "1"):
        made = invoke(
            ["sample-data", "--benchmark", "mmar", "--out", str(tmp_path / f"mmar{seed}"), "--seed", seed]
        )
        assert made.code == 0, made.stderr
    for model in ("oracle", "random"):
        for bench, root in (("mmar", tmp_path / "mmar0"), ("avibench", a)):
            common = run_args(bench, root, out, model)
            assert invoke(["infer", "--model", model, *common]).code == 0
            assert invoke(["refine", *common]).code == 0
            tasks = ["--tasks", "AMIC,VMIC"] if bench == "avibench" else []
            assert invoke(["eval", *common, *tasks]).code == 0
    mmar = RunPaths(out, "oracle", "mmar")
    assert scores(mmar.eval_json) == {"MMAR": 100.0}
    other = invoke(["eval", "--benchmark", "mmar", "--label", "oracle", "--output-dir", str(out),
                    "--data-root", str(tmp_path / "mmar1")])  # fmt: skip
    assert other.code == 2 and "(task MMAR differs)" in other.stderr
    assert scores(mmar.eval_json) == {"MMAR": 100.0}

    for bench in ("avibench", "mmar"):
        compared = invoke(["compare", "oracle", "random", "--benchmark", bench, "--output-dir", str(out)])
        assert compared.code == 0, compared.stderr
    for bench in ("avibench", "mmar"):
        data = json.loads((out / f"compare-{bench}-oracle-vs-random.json").read_text())
        assert set(data["comparisons"][0]["differences"]) >= (
            {"MMAR"} if bench == "mmar" else {"AMIC", "VMIC"}
        )


def test_eval_refuses_a_model_other_than_the_runs(roots, tmp_path: Path) -> None:
    """--label names the run and eval records --model as the scores' model: another model would mislabel them."""
    root, _ = roots
    run = oracle_run(root, tmp_path)
    before = run.eval_json.read_text()
    common = ["--label", "o1", "--output-dir", str(tmp_path), "--tasks", "AMIC,VMIC"]
    wrong = invoke(["eval", "--model", "random", *common])
    assert wrong.code == 2
    assert '"oracle", not "random"' in wrong.stderr and MANIFEST_NAME in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1
    assert run.eval_json.read_text() == before
    right = invoke(["eval", "--model", "oracle", *common])
    assert right.code == 0, right.stderr
    assert json.loads(run.eval_json.read_text())["meta"]["model"] == "oracle"
