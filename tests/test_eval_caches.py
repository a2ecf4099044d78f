"""What eval keeps between runs and within one: the chance levels shared by every output dir, the dataset parsed
once per version of its files, and media paths made relative without touching the disk. Each cache must give way
when what it was computed from changes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avibench.benchmarks.avibench import scoring
from avibench.benchmarks.avibench.dataset import Sample, load_task
from avibench.benchmarks.avibench.sample_data import generate
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec
from avibench.evaluate.reuse import stamp_path
from avibench.evaluate.samples import _json_safe, _relative
from avibench.level_metrics.chance import ESTIMATOR_VERSION
from avibench.plugin import get_benchmark

#: The sample dataset's chance levels at the current ESTIMATOR_VERSION. If a change to the estimator or to a
#: scorer it runs moves them, raise ESTIMATOR_VERSION (caches then recompute) and update these numbers.
SAMPLE_LEVELS = {
    "ASQA": 10.5556,
    "VSQA_I": 12.8042,
    "VSQA_V": 7.619,
    "AVSQA": 6.5625,
    "AMIC": 2.208,
    "VMIC": 1.209,
    "AVL": 0.5805,
    "AVM": 33.3333,
    "AVR": 37.1614,
    "VAR": 39.6354,
    "AVC": 0.0,
    "AVH": 33.3333,
    "VAH": 33.3333,
    "AVQA": 26.5625,
    "AVLG": 9.474,
}
PINNED_VERSION = 1


def _inputs(root: Path, names: tuple[str, ...] | None = None) -> dict[TaskSpec, list[Sample]]:
    specs = AVIBENCH.tasks if names is None else tuple(AVIBENCH.task(n) for n in names)
    return {spec: load_task(root, spec) for spec in specs}


def _rounded(levels: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in levels.items()}


def test_the_sample_levels_are_those_of_this_estimator_version(sample_root: Path) -> None:
    assert ESTIMATOR_VERSION == PINNED_VERSION, "update SAMPLE_LEVELS and PINNED_VERSION with the new levels"
    assert _rounded(scoring.chance_levels(_inputs(sample_root))) == SAMPLE_LEVELS


def test_a_second_eval_reads_the_levels_from_the_shared_cache(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache" / "chance.json"
    first = scoring.chance_levels(_inputs(sample_root), data_root=sample_root, cache=cache)
    assert _rounded(first) == SAMPLE_LEVELS
    stored = json.loads(cache.read_text())
    assert len(stored) == len(AVIBENCH.tasks)
    assert all(f":{ESTIMATOR_VERSION}:" in key for key in stored)

    def no_estimate(spec: TaskSpec, samples: list[Sample]) -> float:
        raise AssertionError(f"{spec.name} estimated again")

    monkeypatch.setattr(scoring, "folder_chance", no_estimate)
    assert scoring.chance_levels(_inputs(sample_root), data_root=sample_root, cache=cache) == first


def test_a_changed_data_file_is_estimated_again(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "levels"
    generate(root, seed=0)
    cache = tmp_path / "chance.json"
    scoring.chance_levels(_inputs(root, ("AVM", "AVH")), data_root=root, cache=cache)
    data = root / "perception" / "AVM" / "data.json"
    entries = json.loads(data.read_text())
    for entry in entries:
        entry["output"]["question_answer"] = "maybe"  # among no options: a guess is never right
    data.write_text(json.dumps(entries))
    estimated: list[str] = []
    real = scoring.folder_chance

    def counting(spec: TaskSpec, samples: list[Sample]) -> float:
        estimated.append(spec.name)
        return real(spec, samples)

    monkeypatch.setattr(scoring, "folder_chance", counting)
    levels = scoring.chance_levels(_inputs(root, ("AVM", "AVH")), data_root=root, cache=cache)
    assert estimated == ["AVM"]
    assert levels["AVM"] == 0.0
    assert levels["AVH"] == pytest.approx(100 / 3, abs=1e-3)


def test_a_new_estimator_version_recomputes_and_drops_the_old_levels(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "chance.json"
    scoring.chance_levels(_inputs(sample_root, ("AVM",)), data_root=sample_root, cache=cache)
    monkeypatch.setattr(scoring, "ESTIMATOR_VERSION", ESTIMATOR_VERSION + 1)
    monkeypatch.setattr(scoring, "folder_chance", lambda spec, samples: 12.5)
    assert scoring.chance_levels(_inputs(sample_root, ("AVM",)), data_root=sample_root, cache=cache) == {
        "AVM": 12.5
    }
    (key,) = json.loads(cache.read_text())
    assert f":{ESTIMATOR_VERSION + 1}:" in key


def test_an_unwritable_cache_is_only_a_miss(sample_root: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    levels = scoring.chance_levels(
        _inputs(sample_root, ("AVM",)), data_root=sample_root, cache=blocker / "c.json"
    )
    assert _rounded(levels) == {"AVM": SAMPLE_LEVELS["AVM"]}


def test_eval_puts_the_levels_in_the_user_cache_not_the_output_dir(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from avibench.evaluate.cli import eval_command

    monkeypatch.setenv("AVIBENCH_CACHE_DIR", str(tmp_path / "user-cache"))
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "AVM.json").write_text(json.dumps([None] * len(load_task(sample_root, "AVM"))))
    for out in ("first", "second"):
        args = [
            "--predictions",
            str(preds),
            "--data-root",
            str(sample_root),
            "--output-dir",
            str(tmp_path / out),
        ]
        result = CliRunner().invoke(
            eval_command, [*args, "--tasks", "AVM", "--allow-partial", "--fense", "off"]
        )
        assert result.exit_code == 0, result.output
        assert not (tmp_path / out / ".cache").exists()
    assert (tmp_path / "user-cache" / "avibench-chance.json").is_file()


def test_the_dataset_is_parsed_again_when_its_file_changes(tmp_path: Path) -> None:
    root = tmp_path / "levels"
    generate(root, seed=0)
    bench = get_benchmark("avibench")
    task = next(t for t in bench.tasks() if t.name == "AVM")
    first = bench.load(root, task)
    assert bench.load(root, task) == first
    assert load_task(root, "AVM") == load_task(root, "AVM")
    data = root / "perception" / "AVM" / "data.json"
    entries = json.loads(data.read_text())
    entries[0]["output"]["question_answer"] = "changed"
    data.write_text(json.dumps(entries))
    assert bench.load(root, task)[0].answer == "changed"
    assert load_task(root, "AVM")[0].answer == "changed"
    bench.load(root, task).clear()  # a caller's list is its own
    assert len(bench.load(root, task)) == len(first)


def test_media_paths_are_relative_to_the_root_by_their_text(tmp_path: Path) -> None:
    root = str(tmp_path / "levels")
    cwd = str(tmp_path)
    assert _relative(f"{root}/perception/AVM/input/a.mp4", root, cwd) == "perception/AVM/input/a.mp4"
    assert _relative("levels/sensation/ASQA/input/x.wav", root, cwd) == "sensation/ASQA/input/x.wav"
    assert _relative(f"{root}/../levels/a.png", root, cwd) == "a.png"
    assert _relative(f"{root}-other/a.png", root, cwd) == "../levels-other/a.png"  # a sibling is outside
    # each path's folder is made relative once; its last component is not always a file name
    assert _relative(f"{root}/perception/AVM/input/", root, cwd) == "perception/AVM/input"
    assert _relative(f"{root}/perception/AVM/input/..", root, cwd) == "perception/AVM"
    assert _relative(f"{root}/perception/.", root, cwd) == "perception"
    assert _relative(root, root, cwd) == "."
    assert _relative("levels", root, cwd) == "."
    assert _relative("x.wav", root, f"{root}/sensation") == "sensation/x.wav"
    assert _relative(f"{root}//perception//AVM/a.mp4", root, cwd) == "perception/AVM/a.mp4"
    # outside the root by its text but inside once a link is followed: resolved, as before
    (tmp_path / "levels").mkdir()
    (tmp_path / "elsewhere").symlink_to(tmp_path / "levels", target_is_directory=True)
    assert _relative(f"{tmp_path}/elsewhere/b.png", root, cwd) == "b.png"
    assert os.path.isabs(root)


def _eval(sample_root: Path, preds: Path, out: Path, *extra: str) -> Any:
    from click.testing import CliRunner

    from avibench.evaluate.cli import eval_command

    args = ["--predictions", str(preds), "--data-root", str(sample_root), "--output-dir", str(out)]
    return CliRunner().invoke(eval_command, [*args, "--tasks", "AVM,AVH", "--fense", "off", *extra])


def _predictions(sample_root: Path, folder: Path, answer: str | None) -> Path:
    folder.mkdir(exist_ok=True)
    for task in ("AVM", "AVH"):
        entries = load_task(sample_root, task)
        (folder / f"{task}.json").write_text(
            json.dumps([{"task": task, "id": s.id, "predict": answer or s.answer} for s in entries])
        )
    return folder


def test_an_unchanged_eval_is_not_computed_again(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    preds = _predictions(sample_root, tmp_path / "preds", None)
    first = _eval(sample_root, preds, tmp_path / "out")
    assert first.exit_code == 0, first.output
    eval_json = next((tmp_path / "out").rglob("eval.json"))
    written = eval_json.read_text()

    def no_scoring(*args: object, **kwargs: object) -> None:
        raise AssertionError("scored again")

    from avibench.benchmarks.avibench.plugin import AVIBench

    monkeypatch.setattr(AVIBench, "evaluate", no_scoring)
    again = _eval(sample_root, preds, tmp_path / "out")
    assert again.exit_code == 0, again.output
    assert again.output == first.output
    assert eval_json.read_text() == written


@pytest.mark.parametrize("change", ["prediction", "option", "output", "environment", "stamp"])
def test_eval_runs_again_when_what_it_reads_changed(
    sample_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    from avibench.benchmarks.avibench.plugin import AVIBench

    preds = _predictions(sample_root, tmp_path / "preds", None)
    assert _eval(sample_root, preds, tmp_path / "out").exit_code == 0
    eval_json = next((tmp_path / "out").rglob("eval.json"))
    scored: list[int] = []
    real = AVIBench.evaluate

    def counting(self: AVIBench, request: Any) -> Any:
        scored.append(1)
        return real(self, request)

    monkeypatch.setattr(AVIBench, "evaluate", counting)
    extra: tuple[str, ...] = ()
    if change == "prediction":
        _predictions(sample_root, preds, "maybe")  # every answer wrong now
    elif change == "option":
        extra = ("--profile", "strict")
    elif change == "output":
        eval_json.write_text(eval_json.read_text().replace('"reference"', '"edited"', 1))
    elif change == "stamp":  # a stamp whose printed lines were edited by hand: scored again, no traceback
        stamp = stamp_path(eval_json)
        stamp.write_text(json.dumps(json.loads(stamp.read_text()) | {"lines": [["stderr", 3]]}))
    else:
        monkeypatch.setenv("AVIBENCH_FENSE", "stand-in")
    again = _eval(sample_root, preds, tmp_path / "out", *extra)
    assert scored == [1], again.output
    document = json.loads(eval_json.read_text())
    assert "edited" not in eval_json.read_text()
    if change == "prediction":
        assert again.exit_code == 0, again.output
        assert document["summary"]["tasks"]["AVM"] == 0.0
    elif change == "option":
        assert document["summary"]["profile"] == "strict"
    assert document["summary"]["tasks"]["AVH"] is not None


def test_eval_leaves_the_garbage_collector_as_it_found_it(sample_root: Path, tmp_path: Path) -> None:
    import gc

    preds = _predictions(sample_root, tmp_path / "preds", None)
    assert gc.isenabled()
    assert _eval(sample_root, preds, tmp_path / "out").exit_code == 0
    assert gc.isenabled()
    assert _eval(sample_root, preds, tmp_path / "out", "--tasks", "NOPE").exit_code != 0  # a failed eval too
    assert gc.isenabled()


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_a_value_is_kept_as_it_reads_back_from_its_line(value: Any) -> None:
    """What the intervals read of a question's value is what samples.jsonl gives back, even where a flat list of
    scalars skips the encoding (NaN compared by its text)."""
    back = json.loads(json.dumps(value))
    assert json.dumps(_json_safe(value)) == json.dumps(back)
    assert type(_json_safe(value)) is type(back)
