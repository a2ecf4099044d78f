"""MMAR / MMAU layouts: loading into items, validation problems, versions, prompts and the official prediction files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.benchmarks.mmar.layout import KNOWN_VERSIONS, MMAR, MMAU, Layout, build_prompt, shown_letters
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.plugin import get_benchmark


def load(root: Path, layout: Layout, template: str | None = None) -> list[Item]:
    plugin = get_benchmark(layout.benchmark)
    return plugin.load(root, plugin.tasks()[0], template)


def validate(root: Path, layout: Layout) -> list:
    plugin = get_benchmark(layout.benchmark)
    return plugin.validate(root, plugin.tasks())


@pytest.fixture(scope="module")
def mmar_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmar")
    get_benchmark("mmar").generate_sample(root)
    return root


@pytest.fixture(scope="module")
def mmau_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmau")
    get_benchmark("mmau").generate_sample(root)
    return root


def _copy(src: Path, dst: Path) -> Path:
    """A writable copy of a generated dataset (question file and audio)."""
    for path in src.rglob("*"):
        if path.is_file():
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return dst


def _lines(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "MMAR-meta.jsonl").read_text().splitlines()]


def _write_lines(root: Path, records: list[dict]) -> None:
    (root / "MMAR-meta.jsonl").write_text("\n".join(json.dumps(r) for r in records))


# Prompts -----------------------------------------------------------------------------------------------------------


def test_templates() -> None:
    assert get_benchmark("mmar").templates == ("mmar-official", "mmar-lettered")
    assert build_prompt("Who speaks?", ("Man", "Woman"), "mmar-official") == (
        "Who speaks?\nSelect one option from the provided choices:\nMan\nWoman"
    )
    lettered = build_prompt("Who speaks?", ("Man", "Woman"), "mmar-lettered")
    assert lettered.splitlines()[2:4] == ["A. Man", "B. Woman"]
    assert "letter" in lettered.splitlines()[-1]
    assert shown_letters("mmar-official", 4) == ()
    assert shown_letters("mmar-lettered", 3) == ("A", "B", "C")
    with pytest.raises(KeyError, match="mmar-official"):
        build_prompt("q", ("a", "b"), "nope")


# Loading -----------------------------------------------------------------------------------------------------------


def test_load_mmar_items(mmar_root: Path) -> None:
    items = load(mmar_root, MMAR)
    assert len(items) == 30
    first = items[0]
    record = _lines(mmar_root)[0]
    assert (first.benchmark, first.task, first.item_id, first.index) == ("mmar", "MMAR", record["id"], 0)
    assert [p.kind for p in first.parts] == ["audio", "text"]
    assert first.parts[0].path == mmar_root / "audio" / f"{record['id']}.wav"
    assert first.parts[1].value == build_prompt(record["question"], tuple(record["choices"]), "mmar-official")
    assert first.answer == record["answer"] and first.options == tuple(record["choices"])
    assert first.template == "mmar-official"
    for name in (
        "modality",
        "category",
        "sub-category",
        "language",
        "source",
        "url",
        "timestamp",
        "question",
    ):
        assert first.meta[name] == record[name]
    assert "rubric" not in first.meta and first.source["rubric"] == record["rubric"]
    # a record may name an audio file unlike its id
    assert items[1].parts[0].path.name == "sample_multi_segment.wav"
    assert load(mmar_root, MMAR, "mmar-lettered")[0].parts[1].value.splitlines()[2].startswith("A. ")


def test_load_older_json_list(mmar_root: Path, tmp_path: Path) -> None:
    root = _copy(mmar_root, tmp_path / "old")
    records = _lines(root)
    for r in records:
        for name in ("thinking", "cue", "rubric"):
            del r[name]
    (root / "MMAR-meta.jsonl").unlink()
    (root / "MMAR-meta.json").write_text(json.dumps(records))
    assert len(load(root, MMAR)) == 30
    assert not [p for p in validate(root, MMAR) if p.severity == "error"]


def test_audio_falls_back_to_the_id(mmar_root: Path, tmp_path: Path) -> None:
    root = _copy(mmar_root, tmp_path / "fallback")
    records = _lines(root)
    records[0]["audio_path"] = "./elsewhere/missing.wav"
    _write_lines(root, records)
    assert load(root, MMAR)[0].parts[0].path == root / "audio" / f"{records[0]['id']}.wav"


def test_load_mmau_items(mmau_root: Path) -> None:
    items = load(mmau_root, MMAU)
    record = json.loads((mmau_root / "mmau-test-mini.json").read_text())[0]
    assert (items[0].benchmark, items[0].task, items[0].item_id) == ("mmau", "test-mini", record["id"])
    assert items[0].parts[0].path == mmau_root / "test-mini-audios" / f"{record['id']}.wav"
    assert {i.meta["difficulty"] for i in items} == {"easy", "medium", "hard"}
    assert any(isinstance(i.meta["category"], list) for i in items)


def test_load_raises_on_the_first_bad_record(mmar_root: Path, tmp_path: Path) -> None:
    root = _copy(mmar_root, tmp_path / "bad")
    records = _lines(root)
    records[3]["answer"] = "not a choice"
    _write_lines(root, records)
    with pytest.raises(DatasetError) as raised:
        load(root, MMAR)
    assert (raised.value.index, raised.value.field) == (3, "answer")
    assert "MMAR-meta.jsonl entry 3 field answer" in str(raised.value)


def test_load_reports_broken_json_line(mmar_root: Path, tmp_path: Path) -> None:
    root = _copy(mmar_root, tmp_path / "broken")
    text = (root / "MMAR-meta.jsonl").read_text().splitlines()
    text[4] = text[4][:-5]
    (root / "MMAR-meta.jsonl").write_text("\n".join(text))
    with pytest.raises(DatasetError, match="line 5 is not valid JSON"):
        load(root, MMAR)


def test_missing_meta_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"MMAR-meta\.jsonl: file not found"):
        load(tmp_path, MMAR)
    assert [p.message for p in validate(tmp_path, MMAU)] == [
        "not found: a mmau data root holds mmau-test-mini.json"
    ]


# Validation --------------------------------------------------------------------------------------------------------


def test_generated_data_validates(mmar_root: Path, mmau_root: Path) -> None:
    for root, layout in ((mmar_root, MMAR), (mmau_root, MMAU)):
        problems = validate(root, layout)
        assert not [p for p in problems if p.severity == "error"], problems
        # the reworded-order items are flagged, as the 20 MMAR / 9 MMAU upstream items would be
        assert all(p.field == "answer" and "same words" in p.message for p in problems)


def test_validation_names_every_problem(mmar_root: Path, tmp_path: Path) -> None:
    root = _copy(mmar_root, tmp_path / "faults")
    records = _lines(root)
    records[0]["modality"] = "silence"
    records[1]["category"] = "Signal layer"
    del records[2]["question"]
    records[3]["choices"] = ["only one"]
    records[4]["id"] = records[5]["id"]
    records[6]["language"] = 3
    records[7]["rubric"] = [{"name": "x"}]
    records[9]["choices"] = ["Speech", "Speech", "Music"]
    records[9]["answer"] = "Speech"
    (root / records[8]["audio_path"]).write_bytes(b"not audio at all")
    (root / records[10]["audio_path"]).unlink()
    _write_lines(root, records)
    found = {(p.index, p.field, p.severity) for p in validate(root, MMAR)}
    assert {
        (0, "modality", "error"),
        (1, "category", "error"),
        (2, "question", "error"),
        (3, "choices", "error"),
        (5, "id", "error"),
        (6, "language", "error"),
        (7, "rubric", "error"),
        (8, "audio_path", "error"),
        (9, "choices", "warning"),
        (10, "audio_path", "error"),
    } <= found
    messages = {(p.index, p.field): p.message for p in validate(root, MMAR)}
    assert "'silence' is not one of sound, music" in messages[(0, "modality")]
    assert messages[(5, "id")] == "repeats the id of entry 4"
    assert "does not decode" in messages[(8, "audio_path")]
    assert "does not exist" in messages[(10, "audio_path")]


def test_fingerprint_and_known_versions(mmar_root: Path, tmp_path: Path) -> None:
    plugin = get_benchmark("mmar")
    fingerprint = plugin.fingerprint(mmar_root, plugin.tasks())
    assert fingerprint == plugin.fingerprint(mmar_root, plugin.tasks()) and len(fingerprint) == 16
    copy = _copy(mmar_root, tmp_path / "copy")
    (copy / "MMAR-meta.jsonl").write_bytes((mmar_root / "MMAR-meta.jsonl").read_bytes() + b" ")
    assert plugin.fingerprint(copy, plugin.tasks()) != fingerprint
    assert fingerprint not in KNOWN_VERSIONS
    assert all(len(k) == 16 for k in KNOWN_VERSIONS)


# Official prediction files -----------------------------------------------------------------------------------------


def rescore_file(path: Path, name: str) -> tuple[dict[str, dict], list[str], str]:
    """Each profile's official document of a prediction file, the notes the plug-in took reading it, and the key
    it read the predictions under."""
    plugin = get_benchmark(name)
    document = plugin.rescore(path).document
    by_profile = document["summary"]["by_profile"]
    notes = document["coverage"][plugin.layout.task]["notes"]
    return {p: view["official"] for p, view in by_profile.items()}, notes, document["meta"]["predictions_key"]


def export(items: list[Item], replies: list[str | None], out: Path) -> Path:
    """The plug-in's official prediction file of these replies (``None``: no answer)."""
    plugin = get_benchmark(items[0].benchmark)
    responses = [
        Response(i, "missing") if r is None else Response(i, "answered", r)
        for i, r in zip(items, replies, strict=True)
    ]
    return plugin.write_predictions({plugin.layout.task: responses}, out, stage="reference")[
        plugin.layout.task
    ]


def test_prediction_file_round_trip(mmar_root: Path, tmp_path: Path) -> None:
    items = load(mmar_root, MMAR)
    # the first unanswered (written without the key), the second a letter answer
    path = export(items, [None, "B", *[item.answer for item in items[2:]]], tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert "answer_prediction" not in lines[0] and lines[2]["answer_prediction"] == items[2].answer
    assert list(lines[2])[:12] == list(MMAR.fields)  # the official key order
    assert len(lines) == 30
    results, notes, key = rescore_file(path, "mmar")
    assert key == "answer_prediction"
    assert notes == ["1 of 30 records have no 'answer_prediction' (the official scorer skips them)"]
    assert results["reference"]["total"] == {
        "accuracy": 100 * 28 / 29,
        "n": 29,
    }  # "B" is never right officially
    assert results["strict"]["total"] == {
        "accuracy": 100 * 28 / 30,
        "n": 30,
    }  # no letters shown: "B" is unread


def test_mmau_prediction_file(mmau_root: Path, tmp_path: Path) -> None:
    items = load(mmau_root, MMAU)
    exported = export(items, [i.answer for i in items], tmp_path)
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    assert all(r["model_output"] == r["answer"] for r in records)
    path = tmp_path / "preds.json"  # the JSON list the official scorer reads
    path.write_text(json.dumps(records))
    results, notes, _ = rescore_file(path, "mmau")
    assert notes == [] and results["reference"]["total"] == {"accuracy": 100.0, "n": 30}
    assert list(results["reference"]) == ["task", "difficulty", "sub-category", "category", "total"]


def test_legacy_prediction_key_is_read_with_a_note(mmar_root: Path, tmp_path: Path) -> None:
    records = [r | {"model_prediction": r["answer"]} for r in _lines(mmar_root)]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(records))
    _, notes, key = rescore_file(path, "mmar")
    assert key == "model_prediction"
    assert "older key 'model_prediction'" in notes[0]
    # one record with the current key: the older key is ignored everywhere
    records[0]["answer_prediction"] = records[0]["answer"]
    path.write_text(json.dumps(records))
    assert rescore_file(path, "mmar")[2] == "answer_prediction"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{}", "expected a JSON array of entries"),
        ("[]", "holds no records"),
        ("[1]", "entry 0: must be a JSON object"),
        (
            '[{"answer": "a", "choices": ["a", "b"], "modality": "sound", "category": "Signal Layer"}]',
            "no record",
        ),
        (
            '[{"choices": ["a", "b"], "modality": "sound", "category": "Signal Layer", "answer_prediction": "a"}]',
            "entry 0 field answer: is missing",
        ),
        (
            '[{"answer": "a", "choices": ["a", "b"], "modality": "sound", "answer_prediction": "a"}]',
            "entry 0 field category: is missing",
        ),
        (
            '[{"answer": "a", "choices": ["a", "b"], "modality": "sound", "category": "Signal Layer", '
            '"answer_prediction": null}]',
            "entry 0 field answer_prediction: must be a string",
        ),
    ],
)
def test_bad_prediction_files(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "preds.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=match):
        get_benchmark("mmar").rescore(path)


def test_extract_reads_letters_only_when_shown(mmar_root: Path) -> None:
    extract = get_benchmark("mmar").extract
    official = load(mmar_root, MMAR)[1]
    lettered = load(mmar_root, MMAR, "mmar-lettered")[1]
    assert extract(official, "B") is None
    assert extract(lettered, "B") == lettered.options[1]
    assert extract(official, official.options[0]) == official.options[0]
