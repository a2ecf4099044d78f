"""validate-data: every kind of broken dataset is reported with file, entry and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from tiny_dataset import write_mp4

from avibench.benchmarks.avibench.dataset import Sample, load_task
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.benchmarks.avibench.validate import validate_dataset, validate_task
from avibench.cli import cli
from avibench.errors import DatasetError
from avibench.items import path_text


def pre_pairs(samples: list[Sample]) -> dict[int, int]:
    """Map each pre-question's index to the index of its formal entry (the first formal entry with that id)."""
    first_formal: dict[str, int] = {}
    pairs: dict[int, int] = {}
    for s in samples:
        if not s.is_pre:
            first_formal.setdefault(s.id, s.index)
    for s in samples:
        if s.is_pre and s.formal_id in first_formal:
            pairs[s.index] = first_formal[s.formal_id]
    return pairs


def _entry(task: str, idx: str, gt: object, **inp: object) -> dict:
    return {
        "id": idx,
        "task": task,
        "subtask": None,
        "input": {"question": {"prompt": None, "text": "Q?", "options": None}, **inp},
        "output": {"question_answer": gt},
    }


def _write_task(root: Path, task: str, entries: list, media: tuple[str, ...] = ()) -> Path:
    folder = root / AVIBENCH.task(task).stage / task
    (folder / "input").mkdir(parents=True, exist_ok=True)
    for rel in media:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"RIFF")
    (folder / "data.json").write_text(json.dumps(entries, indent=2))
    return folder / "data.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "levels"
    _write_task(
        r,
        "AVH",
        [_entry("AVH", "00000", "yes", video="./input/videos/00000.mp4")],
        ("input/videos/00000.mp4",),
    )
    return r


def _messages(root: Path, task: str) -> list[str]:
    return [str(p) for p in validate_task(root, AVIBENCH.task(task))]


def test_clean_task_has_no_problems(root: Path) -> None:
    assert _messages(root, "AVH") == []


def test_invalid_json_names_line_and_column(root: Path) -> None:
    path = root / "reasoning" / "AVH" / "data.json"
    path.write_text('[\n  {"id": "0",\n  "task": }\n]')
    [msg] = _messages(root, "AVH")
    assert str(path) in msg
    assert "line 3 column 11" in msg


def test_missing_field_task_mismatch_and_gt_shape(root: Path) -> None:
    entry = _entry("AVM", "00000", ["yes"])
    del entry["output"]
    _write_task(root, "AVH", [_entry("AVM", "00000", {"a": 1}), entry])
    msgs = _messages(root, "AVH")
    assert any("entry 0 field task: task is 'AVM' but the folder is AVH" in m for m in msgs)
    assert any("entry 0 field output.question_answer: expected an answer string" in m for m in msgs)
    assert any("entry 1 field output: missing" in m for m in msgs)


def test_missing_and_escaping_media(root: Path) -> None:
    _write_task(
        root,
        "AVH",
        [
            _entry("AVH", "0", "yes", video="./input/videos/missing.mp4"),
            _entry("AVH", "1", "no", audio_list=["./input/../../../etc/passwd"]),
            _entry("AVH", "2", "no", image_list=["/abs/path.png"]),
        ],
    )
    msgs = _messages(root, "AVH")
    assert any(
        "entry 0 field input.video: media file './input/videos/missing.mp4' not found" in m for m in msgs
    )
    assert any("entry 1 field input.audio_list[0]:" in m and "escapes the task folder" in m for m in msgs)
    assert any("entry 2 field input.image_list[0]:" in m and "must start with ./input/" in m for m in msgs)


@pytest.mark.parametrize(
    ("task", "gt", "expected"),
    [
        ("AMIC", {"dog": "two"}, "count of 'dog' is not a non-negative integer"),
        ("AMIC", [], "expected a non-empty object"),
        ("AVL", {"bbox": {"dog_1": [1, 2, 3]}, "original_wh": [10, 10]}, "box 'dog_1' must be [x, y, w, h]"),
        ("AVL", {"bbox": {"dog_1": [1, 2, 3, 4]}, "original_wh": [0, 10]}, "original_wh must be [W, H]"),
        ("AVLG", {"bbox": {"frame_0": "none"}, "original_wh": [10, 10]}, "box 'frame_0' must be"),
        ("AVLG", {"bbox": {}, "original_wh": [10, 10]}, "bbox is empty"),
        ("VAR", [0, "1"], "expected a list of non-negative integer indices"),
        ("AVC", [], "expected a reference caption"),
        ("AVSQA", "", "expected a non-empty option string"),
    ],
)
def test_ground_truth_shapes(tmp_path: Path, task: str, gt: object, expected: str) -> None:
    _write_task(tmp_path, task, [_entry(task, "00000", gt)])
    msgs = _messages(tmp_path, task)
    assert any("entry 0 field output.question_answer: " + expected in m for m in msgs), msgs


def test_retrieval_index_out_of_range(tmp_path: Path) -> None:
    wavs = [f"./input/wavs/00000_0{k}.wav" for k in range(3)]
    _write_task(tmp_path, "VAR", [_entry("VAR", "0", [3], audio_list=wavs)], tuple(w[2:] for w in wavs))
    assert any("index 3 is out of range for 3 candidates" in m for m in _messages(tmp_path, "VAR"))


def test_flat_bbox_gt_is_accepted(tmp_path: Path) -> None:
    _write_task(tmp_path, "AVL", [_entry("AVL", "0", {"tuba_1": [153, 4, 107, 210]})])
    assert _messages(tmp_path, "AVL") == []


def test_pre_question_before_formal_is_a_warning(tmp_path: Path) -> None:
    _write_task(tmp_path, "ASQA", [_entry("ASQA", "pre_00000", "yes"), _entry("ASQA", "00000", "first")])
    [problem] = validate_task(tmp_path, AVIBENCH.task("ASQA"))
    assert problem.severity == "warning"
    assert "does not follow a formal entry" in str(problem)


def test_invalid_pre_slot_with_null_gt_is_allowed(tmp_path: Path) -> None:
    _write_task(tmp_path, "VSQA_I", [_entry("VSQA_I", "00000", "yes"), _entry("VSQA_I", "pre_00000", None)])
    assert _messages(tmp_path, "VSQA_I") == []


def test_list_valued_options_reported(tmp_path: Path) -> None:
    entry = _entry("AVH", "0", "yes")
    entry["input"]["question"]["options"] = ["yes", "no"]
    _write_task(tmp_path, "AVH", [entry])
    assert any(
        "field input.question: question.options must be a string or null" in m
        for m in _messages(tmp_path, "AVH")
    )


def test_not_an_array_and_missing_folder(root: Path) -> None:
    (root / "reasoning" / "AVH" / "data.json").write_text('{"id": 1}')
    assert "expected a JSON array of entries, found dict" in _messages(root, "AVH")[0]
    assert "task folder not found" in _messages(root, "VAH")[0]


def test_cli_exit_codes_and_no_traceback(root: Path) -> None:
    runner = CliRunner()
    write_mp4(
        root / "reasoning" / "AVH" / "input" / "videos" / "00000.mp4"
    )  # the CLI decodes every media file
    ok = runner.invoke(cli, ["validate-data", str(root), "--tasks", "AVH"])
    assert ok.exit_code == 0, ok.output
    assert "0 error(s)" in ok.output
    (root / "reasoning" / "AVH" / "data.json").write_bytes(b"\xff\xfe[")
    bad = runner.invoke(cli, ["validate-data", str(root), "--tasks", "AVH"])
    assert bad.exit_code == 1
    assert "not UTF-8 text" in bad.output
    assert "Traceback" not in bad.output


def test_loader_raises_dataset_error_with_field(root: Path) -> None:
    _write_task(root, "AVH", [{"id": "0", "task": "AVH", "input": {"question": {}}}])
    with pytest.raises(DatasetError, match=r"entry 0 field output.question_answer: missing"):
        load_task(root, "AVH")


@pytest.mark.parametrize(
    "text",
    [
        "levels/perception/AVM/input/a.wav", "/abs/AVM/input/a.wav", "./input/a.wav", "levels//AVM/input/a.wav",
        "levels/./AVM/input/a.wav", "levels/AVM/input/", "levels/AVM/input/.", "//server/a.wav", "///a.wav", ".",
        "", "a/../b.wav", "a/.b/c..wav", " spaced /a.wav", "a/./", "./", "a.wav",
    ],
)  # fmt: skip
def test_media_path_text_is_the_paths_own_form(text: str) -> None:
    """A sample keeps its media paths as text, written as the path object would write them."""
    assert path_text(text) == str(Path(text))


def test_loaded_media_texts_and_paths_agree(tmp_path: Path) -> None:
    entry = {
        "id": "0", "task": "AVH", "input": {"question": {"text": "q", "options": "a, b"},
        "audio_list": ["./input//a.wav"], "image_list": ["./input/./i.png"], "video": "./input/v.mp4/"},
        "output": {"question_answer": "a"},
    }  # fmt: skip
    _write_task(tmp_path, "AVH", [entry])
    sample = load_task(tmp_path, "AVH")[0]
    folder = tmp_path / "reasoning" / "AVH" / "input"
    assert sample.audios == (folder / "a.wav",) and sample.audio_files == (str(folder / "a.wav"),)
    assert sample.images == (folder / "i.png",) and sample.image_files == (str(folder / "i.png"),)
    assert sample.video == folder / "v.mp4" and sample.video_file == str(folder / "v.mp4")


def test_sample_dataset_validates_clean(sample_root: Path) -> None:
    problems = validate_dataset(sample_root)
    assert [str(p) for p in problems if p.severity == "error"] == []


def test_sample_dataset_loads_and_pairs(sample_root: Path) -> None:
    for spec in AVIBENCH.tasks:
        samples = load_task(sample_root, spec)
        assert 6 <= len(samples) <= 10, spec.name
        pairs = pre_pairs(samples)
        assert bool(pairs) == spec.double_confirm
        for pre_index, formal_index in pairs.items():
            assert formal_index < pre_index
            assert samples[pre_index].formal_id == samples[formal_index].id
        for sample in samples:
            assert all(p.is_file() for p in sample.media)


def test_sample_copy_with_damage_is_caught(sample_root: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(sample_root, copy)
    folder = copy / "perception" / "AMIC"
    media = sorted((folder / "input").rglob("*.wav"))[0]
    media.unlink()
    problems = validate_dataset(copy, (AVIBENCH.task("AMIC"),))
    assert any(
        p.field and p.field.startswith("input.audio_list") and "not found" in p.message for p in problems
    )
