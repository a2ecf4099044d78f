"""AIR-Bench layout: the generated sample loads and validates; injected faults are reported by file, entry, field."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from avibench.benchmarks.airbench import layout, predictions, sample
from avibench.benchmarks.airbench.layout import CHAT_SECTION, FOUNDATION_SECTION, foundation_prompt
from avibench.errors import DatasetError
from avibench.items import Response
from avibench.kits import records
from avibench.level_metrics.airbench import FOUNDATION_TASKS
from avibench.level_metrics.airbench_chat import CHAT_CATEGORIES
from avibench.plugin import get_benchmark


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample.generate(tmp_path_factory.mktemp("air") / "data", per_subset=2, seed=0)


@pytest.fixture
def root(pristine: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(pristine, tmp_path / "data"))


def _foundation(root: Path) -> list:
    return layout.load(FOUNDATION_SECTION, root)


def _validate(root: Path, check_audio: bool = True) -> list:
    """Every problem of the sections present."""
    present = [s for s in layout.SECTIONS.values() if s.meta_path(root).is_file()]
    return [p for section in present for p in layout.checked(section, root, check_audio)[1]]


def _edit_meta(root: Path, section: layout.Section, edit) -> list[dict]:
    path = section.meta_path(root)
    entries = json.loads(path.read_text())
    edit(entries)
    path.write_text(json.dumps(entries))
    return entries


def test_sample_covers_every_subset_and_category(pristine: Path) -> None:
    assert _validate(pristine) == []
    items = _foundation(pristine)
    subsets = {i.meta["subset"] for i in items}
    assert subsets == {s for t in FOUNDATION_TASKS for s in t.subsets} and len(subsets) == 25
    assert {i.meta["task_name"] for i in items} == {t.name for t in FOUNDATION_TASKS}
    assert {len(i.options) for i in items} == {2, 3, 4}
    grounding = [i for i in items if i.meta["task_name"] == "Audio_Grounding"]
    assert grounding and all(i.media[0].suffix == ".flac" and i.media[0].is_file() for i in grounding)
    assert all(i.source["path"].endswith(".wav") for i in grounding)
    assert {i.meta["category"] for i in layout.load(CHAT_SECTION, pristine)} == set(CHAT_CATEGORIES)


def test_sample_is_deterministic(pristine: Path, tmp_path: Path) -> None:
    again = sample.generate(tmp_path / "again", per_subset=2, seed=0)
    for section in layout.SECTIONS.values():
        assert section.meta_path(again).read_bytes() == section.meta_path(pristine).read_bytes()
    first = sorted(p.relative_to(pristine) for p in pristine.rglob("*.flac"))
    assert first and (again / first[0]).read_bytes() == (pristine / first[0]).read_bytes()


def test_foundation_item_prompt(pristine: Path) -> None:
    item = next(i for i in _foundation(pristine) if len(i.options) == 2)
    lines = item.text.split("\n")
    assert lines[0].startswith("Choose the most suitable answer from options A, B, C, and D")
    assert lines[-2:] == ["C. None", "D. None"]
    assert item.parts[0].kind == "audio" and item.item_id == str(item.source["uniq_id"])


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            ("x", "y"),
            "options A and B to respond the question in next line, you may only choose A or B.\nQ\nA. x\nB. y",
        ),
        (("x", "y", "z"), "options A, B, and C to respond"),
    ],
)
def test_clean_template_lists_real_options(options: tuple[str, ...], expected: str) -> None:
    assert expected in foundation_prompt("Q", options, "air-clean")


def test_clean_template_equals_official_for_four_options() -> None:
    options = ("w", "x", "y", "z")
    assert foundation_prompt("Q", options, "air-clean") == foundation_prompt("Q", options, "air-official")


def test_unknown_template() -> None:
    with pytest.raises(KeyError, match="air-official"):
        foundation_prompt("Q", ("a", "b"), "nope")


def test_injected_faults_are_each_reported(root: Path) -> None:
    section = FOUNDATION_SECTION

    def edit(entries: list[dict]) -> None:
        entries[3]["answer_gt"] = "not an option"
        del entries[5]["question"]
        entries[9]["uniq_id"] = entries[8]["uniq_id"]
        four = next(i for i, e in enumerate(entries) if "choice_d" in e and i > 10)
        del entries[four]["choice_c"]
        entries[four]["answer_gt"] = entries[four]["choice_a"]
        entries.append("not an object")

    entries = _edit_meta(root, section, edit)
    section.audio_path(root, entries[7]).unlink()
    grounding = next(i for i, e in enumerate(entries[:-1]) if e["task_name"] == "Audio_Grounding")
    section.audio_path(root, entries[grounding]).unlink()
    found = {(p.index, p.field) for p in _validate(root)}
    four = next(i for i, e in enumerate(entries[:-1]) if "choice_d" in e and "choice_c" not in e)
    assert found == {
        (3, "answer_gt"),
        (5, "question"),
        (7, "path"),
        (9, "uniq_id"),
        (four, None),
        (grounding, "path"),
        (len(entries) - 1, None),
    }
    with pytest.raises(DatasetError) as caught:
        _foundation(root)
    assert (
        str(caught.value)
        == f"{section.meta_path(root)} entry 3 field answer_gt: 'not an option' is not one of the choices"
    )


def test_unknown_task_and_non_string_field(root: Path) -> None:
    def edit(entries: list[dict]) -> None:
        entries[0]["task_name"] = "Speech_Recognition"
        entries[1]["choice_b"] = ["a", "list"]
        entries[1]["answer_gt"] = entries[1]["choice_a"]

    _edit_meta(root, FOUNDATION_SECTION, edit)
    found = {(p.index, p.field) for p in _validate(root, check_audio=False)}
    assert found == {(0, "task_name"), (1, "choice_b")}


def test_chat_faults(root: Path) -> None:
    def edit(entries: list[dict]) -> None:
        del entries[2]["meta_info"]
        entries[4]["task_name"] = "speech_qa"

    _edit_meta(root, CHAT_SECTION, edit)
    found = {(p.index, p.field) for p in _validate(root, check_audio=False)}
    assert found == {(2, "meta_info"), (4, "task_name")}


def test_either_section_alone_is_valid(root: Path) -> None:
    plugin = get_benchmark("airbench")
    shutil.rmtree(root / CHAT_SECTION.name)
    assert [t.name for t in plugin.available(root)] == ["foundation"]
    assert plugin.validate(root, plugin.tasks()) == []
    shutil.rmtree(root / FOUNDATION_SECTION.name)
    (problem,) = plugin.validate(root, plugin.tasks())
    assert "holds neither" in str(problem)


def test_meta_not_a_list(root: Path) -> None:
    CHAT_SECTION.meta_path(root).write_text('{"a": 1}')
    (problem,) = _validate(root)
    assert str(problem).endswith("Chat_meta.json: expected a JSON array of entries, found dict")


def test_oracle_is_perfect_in_both_profiles(pristine: Path) -> None:
    items = _foundation(pristine)
    rng = random.Random(0)
    plugin = get_benchmark("airbench")
    foundation = next(t for t in plugin.tasks() if t.name == "foundation")
    responses = [Response(i, "answered", sample.oracle_answer(i, rng)) for i in items]
    document = plugin.score(
        {"foundation": responses}, profile="reference", options={}, tasks=(foundation,)
    ).document
    for profile in ("reference", "strict"):
        view = document["summary"]["by_profile"][profile]
        assert view["official"]["foundation"]["fail_num"] == 0
        assert view["tasks"]["foundation"] == 100.0


def test_foundation_results_round_trip(pristine: Path, tmp_path: Path) -> None:
    rng = random.Random(0)
    items = _foundation(pristine)
    answers = [sample.random_answer(i, rng) for i in items]
    answers[0] = None
    path = tmp_path / FOUNDATION_SECTION.result_file
    rows = [predictions.result_row(i, a) for i, a in zip(items, answers, strict=True)]
    records.write_jsonl(path, rows[:-1])  # the last question never answered: absent from the file
    read = records.read_records(path)
    assert list(read[0]) == list(FOUNDATION_SECTION.result_fields) and read == rows[:-1]
    two = next(r for r in read if r["choice_c"] is None)
    assert two["choice_d"] is None
    responses = predictions.responses_from_results(path, "foundation", items, pristine)
    expected = ["failed"] + ["answered"] * (len(items) - 2) + ["missing"]
    assert [r.status for r in responses] == expected
    assert [r.raw for r in responses[1:-1]] == answers[1:-1]


def test_chat_results_round_trip(pristine: Path, tmp_path: Path) -> None:
    items = layout.load(CHAT_SECTION, pristine)
    path = tmp_path / CHAT_SECTION.result_file
    rng = random.Random(0)
    records.write_jsonl(path, (predictions.result_row(i, sample.oracle_answer(i, rng)) for i in items))
    responses = predictions.responses_from_results(path, "chat", items, pristine)
    assert [(r.item, r.status, r.raw) for r in responses] == [(i, "answered", i.answer) for i in items]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "entry 2: is not JSON (Expecting value)"),
        ('["a"]', "entry 2: is not a JSON object"),
        ("DROP", "entry 2 field uniq_id: is missing"),
        ("WRONG", "entry 2 field answer_gt: 'nothing' is not one of the choices"),
    ],
)
def test_bad_result_lines(pristine: Path, tmp_path: Path, line: str, message: str) -> None:
    item = _foundation(pristine)[0]
    row = predictions.result_row(item, "A")
    if line == "DROP":
        line = json.dumps({k: v for k, v in row.items() if k != "uniq_id"})
    elif line == "WRONG":
        line = json.dumps(row | {"answer_gt": "nothing"})
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(row) + "\n" + line + "\n")
    with pytest.raises(DatasetError) as caught:
        predictions.responses_from_results(path, "foundation", _foundation(pristine), pristine)
    assert str(caught.value) == f"{path} {message}"
