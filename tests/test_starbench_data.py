"""STAR-Bench data: the sample generator, the loader's messages and runs, validation with injected faults, the
official work directory, and the oracle and random baselines."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from avibench.benchmarks.starbench import layout, predictions, sample
from avibench.errors import AvibenchError, DatasetError
from avibench.items import Item, Response
from avibench.kits import records
from avibench.kits.published import published_table
from avibench.level_metrics.starbench_parse import parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE, STRICT
from avibench.plugin import get_benchmark

BENCH = get_benchmark("starbench")

SPATIAL = "meta_info/holistic_reasoning_spatial.json"
TEMPORAL = "meta_info/holistic_reasoning_temporal.json"
PERCEPTION = "meta_info/foundation_perception.json"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("starbench")
    sample.generate(path)
    return path


@pytest.fixture
def copy(root: Path, tmp_path: Path) -> Path:
    shutil.copytree(root, tmp_path / "data")
    return tmp_path / "data"


def _entries(root: Path, rel: str) -> list[dict[str, Any]]:
    return json.loads((root / rel).read_text(encoding="utf-8"))


def _rewrite(root: Path, rel: str, entries: list[dict[str, Any]]) -> None:
    (root / rel).write_text(json.dumps(entries), encoding="utf-8")


def _shape(item: Item) -> list[str]:
    """Parts as ``kind`` (text shown in full, audio by file name and channel)."""
    return [p.value if p.kind == "text" else f"audio:{p.path.name}:{p.channel}" for p in item.parts]


# ---- generator ------------------------------------------------------------------------------------------------


def test_sample_counts_and_determinism(root: Path, tmp_path: Path) -> None:
    counts = sample.generate(tmp_path / "again")
    assert counts == {
        PERCEPTION: 14,
        "meta_info/foundation_perception_spatial.json": 4,
        "meta_info/foundation_perception_nonspatial.json": 10,
        SPATIAL: 6,
        TEMPORAL: 10,
    }
    for rel in counts:
        assert (tmp_path / "again" / rel).read_bytes() == (root / rel).read_bytes()
    wav = "starbench_audios/holistic_reasoning/spatial/sr_0000.wav"
    assert (tmp_path / "again" / wav).read_bytes() == (root / wav).read_bytes()
    assert layout.validate(root) == []


def test_full_size_counts(tmp_path: Path) -> None:
    counts = sample.generate(tmp_path, full_size=True)
    assert sum(counts[layout.DATASETS[a]] for a in ("pc", "sr", "tr")) == 2400
    assert layout.validate(tmp_path, ["tr", "sr_ch"]) == []
    assert len(layout.load_items(tmp_path, "tr")) == 950 * 3


def test_audio_answers_the_question(root: Path) -> None:
    spatial = {e["id"]: e for e in _entries(root, SPATIAL)}
    single = spatial["sr_0000"]
    audio, _ = sf.read(root / single["audio_paths"][0])
    left, right = np.sqrt(np.mean(audio**2, axis=0))
    side = {"from the left": left > 1.5 * right, "from the right": right > 1.5 * left}
    assert side.get(single["answer"], abs(left - right) < 1e-6)
    loud = next(e for e in _entries(root, PERCEPTION) if e["sub-category"] == "loudness_relative")
    levels = [np.sqrt(np.mean(sf.read(root / p)[0] ** 2)) for p in loud["audio_paths"]]
    assert loud["options"][int(np.argmax(levels))] == loud["answer"]
    glide = next(e for e in _entries(root, TEMPORAL) if e["sub-category"] == "OSM")
    crossings = [np.count_nonzero(np.diff(np.sign(sf.read(root / p)[0])) != 0) for p in glide["audio_paths"]]
    assert crossings == sorted(crossings)  # the pitch rises clip after clip in file order


# ---- loader ---------------------------------------------------------------------------------------------------


def test_runs_per_dataset(root: Path) -> None:
    assert len(layout.load_items(root, "pc")) == sum(len(e["options"]) for e in _entries(root, PERCEPTION))
    assert len(layout.load_items(root, "sr")) == 3 * 6
    assert len({i.item_id for i in layout.load_items(root, "tr_cap")}) == 10
    keys = [i.key for i in layout.load_items(root, "sr_ch")]
    assert keys[:3] == ["sr_0000@0", "sr_0000@1", "sr_0000@2"]


def test_resolve_datasets() -> None:
    def names(name: str) -> tuple[str, ...]:
        return tuple(t.name for t in BENCH.expand(name) or ())

    assert names("starbench_default") == ("pc", "tr", "sr")
    assert names("tr+SR+temporal_all") == ("tr", "sr", "tr_cap", "tr_uncut")
    assert names("starbench_all") == (
        "tr",
        "tr_cap",
        "tr_uncut",
        "sr",
        "sr_ch",
        "pc_sp",
        "pc_nsp",
    )
    assert names("spatial_all") == ("sr", "sr_ch")
    with pytest.raises(AvibenchError, match="unknown STAR-Bench dataset or group 'sp'"):
        names("sp")


def test_perception_messages(root: Path) -> None:
    two = [i for i in layout.load_items(root, "pc") if i.item_id == "pc_0000"]
    assert _shape(two[1]) == [
        "Audio 1:",
        "audio:pc_0000_1.wav:None",
        "Audio 2:",
        "audio:pc_0000_2.wav:None",
        "Which audio has the higher pitch?\n<A>: the second audio\n<B>: the first audio\n",
    ]
    assert two[1].variant == "r1" and two[1].max_tokens == 256
    assert two[1].meta["answer_letter"] == f"<{'AB'[two[1].options.index(two[1].answer)]}>"
    single = next(i for i in layout.load_items(root, "pc_nsp") if i.item_id == "pc_0001")
    assert _shape(single)[0] == "audio:pc_0001.wav:None"
    assert len(single.parts) == 2


def test_channel_messages(root: Path) -> None:
    item = layout.load_items(root, "sr_ch")[0]
    assert _shape(item)[:5] == [
        "Audio 1:",
        "audio:sr_0000.wav:0",
        "Audio 2:",
        "audio:sr_0000.wav:1",
        "Audio 1 is the left-ear channel and Audio 2 is the right-ear channel.\n",
    ]
    assert item.meta["channel_wise"] is True
    assert item.max_tokens == 1024


def test_temporal_messages(root: Path) -> None:
    entry = next(e for e in _entries(root, TEMPORAL) if e["id"] == "tr_ISSE_0")
    items = [i for i in layout.load_items(root, "tr") if i.item_id == "tr_ISSE_0"]
    # ISSE is subtask 1: runs 0, 1, 2 present segments (1,3,2), (2,1,3), (2,3,1)
    assert [i.meta["shuffled_seg_order"] for i in items] == ["1-3-2", "2-1-3", "2-3-1"]
    assert [i.answer for i in items] == [
        "clip 1 -> clip 3 -> clip 2",
        "clip 2 -> clip 1 -> clip 3",
        "clip 3 -> clip 1 -> clip 2",
    ]
    assert all(i.options == tuple(entry["options"]) for i in items)
    question = _shape(items[2])[0]
    assert question.startswith(entry["question"] + "\n<A>: ")
    assert _shape(items[2])[1:] == [
        "\nclip 1:",
        "audio:segment_2.wav:None",
        "\nclip 2:",
        "audio:segment_3.wav:None",
        "\nclip 3:",
        "audio:segment_1.wav:None",
    ]
    caption = next(i for i in layout.load_items(root, "tr_cap") if i.key == "tr_ISSE_0@2")
    assert _shape(caption)[1] == (
        "Here is a caption that describes the full, uncut audio scene to help you reconstruct the original "
        f"context: {entry['global_caption']}\n Below are 3 audio clips:\n"
    )
    uncut = next(i for i in layout.load_items(root, "tr_uncut") if i.key == "tr_ISSE_0@2")
    assert _shape(uncut)[1:4] == [
        "An uncut audio of the entire sound scene is provided:",
        "audio:uncut.wav:None",
        "\n The three clips are extracted from it, please arrange them in the correct order:\n",
    ]
    assert uncut.meta["given_uncut_audio"] is True and caption.meta["given_caption"] is True


# ---- validation -----------------------------------------------------------------------------------------------


def test_injected_faults(copy: Path) -> None:
    spatial = _entries(copy, SPATIAL)
    spatial[1]["answer"] = "from above"
    spatial[3]["id"] = spatial[0]["id"]
    _rewrite(copy, SPATIAL, spatial)
    sf.write(copy / spatial[2]["audio_paths"][0], np.zeros(1600), 16000)  # a mono "binaural" file
    temporal = _entries(copy, TEMPORAL)
    temporal[0]["id"] = "tr_XYZ_0"
    needed = next(i.answer for i in layout.load_items(copy, "tr") if i.item_id == temporal[1]["id"])
    temporal[1]["options"].remove(needed)
    del temporal[2]["global_caption"]
    _rewrite(copy, TEMPORAL, temporal)
    perception = _entries(copy, PERCEPTION)
    del perception[0]["question"]
    _rewrite(copy, PERCEPTION, perception)
    (copy / perception[3]["audio_paths"][0]).unlink()

    found = {(Path(p.path).name, p.index, p.field) for p in layout.validate(copy)}
    assert found == {
        ("holistic_reasoning_spatial.json", 1, "answer"),
        ("holistic_reasoning_spatial.json", 2, "audio_paths"),
        ("holistic_reasoning_spatial.json", 3, "id"),
        ("holistic_reasoning_temporal.json", 0, "id"),
        ("holistic_reasoning_temporal.json", 1, "options"),
        ("holistic_reasoning_temporal.json", 2, "global_caption"),
        ("foundation_perception.json", 0, "question"),
        ("foundation_perception.json", 3, "audio_paths"),
        ("foundation_perception_nonspatial.json", 3, "audio_paths"),  # the same clip, listed there too
    }
    stereo = next(p for p in layout.validate(copy, ["sr"]) if p.index == 2)
    assert "must be stereo, found 1 channel" in str(stereo)
    missing = next(p for p in layout.validate(copy, ["pc"]) if p.index == 3)
    assert "file not found" in missing.message
    with pytest.raises(
        DatasetError, match=r"holistic_reasoning_spatial\.json entry 1 field answer: 'from above'"
    ):
        layout.load_items(copy, "sr")
    with pytest.raises(DatasetError, match=r"entry 0 field id: .*tr_XYZ_0"):
        layout.load_items(copy, "tr")


def test_unreadable_files(copy: Path) -> None:
    (copy / TEMPORAL).write_text("[{", encoding="utf-8")
    (copy / SPATIAL).unlink()
    problems = [str(p) for p in layout.validate(copy, ["tr", "sr"])]
    assert len(problems) == 2
    assert "holistic_reasoning_temporal.json: invalid JSON at line 1" in problems[0]
    assert problems[1].endswith("holistic_reasoning_spatial.json: file not found")


def test_entry_shape_problems(copy: Path) -> None:
    _rewrite(
        copy,
        SPATIAL,
        [
            "not an object",
            {"id": "x", "task": "t", "question": "q", "options": ["a"], "answer": "a", "audio_paths": []},
        ],
    )
    found = {(p.index, p.field) for p in layout.validate(copy, ["sr"])}
    assert found == {(0, None), (1, "options"), (1, "audio_paths")}


# ---- baselines and the official work directory -----------------------------------------------------------------


def _answered(items: list[Item], answer: Any, seed: int) -> list[Response]:
    rng = random.Random(seed)
    return [Response(i, "answered", raw=answer(i, rng)) for i in items]


def test_oracle_is_perfect_in_both_profiles(root: Path) -> None:
    responses = {
        a: _answered(BENCH.load(root, BENCH.task(a)), BENCH.oracle_answer, 3) for a in layout.DATASETS
    }
    for profile in ("reference", "strict"):
        document = BENCH.score(responses, profile=profile, options={}).document
        for alias in layout.DATASETS:
            assert document[alias]["Total"]["AA"] == 100.0, (profile, alias)
            assert document[alias]["Total"]["ACR"] == 100.0, (profile, alias)
        assert document["Final MA"] == {"AA": 100.0, "ACR": 100.0}


def test_oracle_phrases_parse_everywhere(root: Path) -> None:
    items = layout.load_items(root, "pc") + layout.load_items(root, "tr")
    for item in items:
        for phrase in sample.ORACLE_PHRASES:
            text = phrase.format(letter="ABCD"[item.options.index(item.answer)], text=item.answer)
            for profile in (REFERENCE, STRICT):
                assert parse_choice(text, item.options, profile).token == item.meta["answer_letter"], text


def test_random_answers_parse_to_an_option(root: Path) -> None:
    rng = random.Random(0)
    items = layout.load_items(root, "pc")
    letters = set()
    for item in items * 5:
        text = BENCH.random_answer(item, rng)
        choice = parse_choice(text, item.options, STRICT)
        assert choice.letter is not None and parse_choice(text, item.options).letter == choice.letter
        letters.add(choice.letter)
    assert letters == {"A", "B", "C", "D"}


def test_work_dir_round_trip_rescoring(root: Path, tmp_path: Path) -> None:
    items = layout.load_items(root, "sr")
    rows = [
        predictions.official_row(i, r.raw or "")
        for i, r in zip(items, _answered(items, BENCH.oracle_answer, 1), strict=True)
    ]
    assert rows[0]["unique_id"] == "sr_0000@0" and rows[0]["is_correct"] is True
    assert rows[0]["prediction"] == rows[0]["answer_letter"]
    for row in rows:
        row["prediction"], row["is_correct"] = "Z", False  # stored verdicts are never trusted
    rows[4]["model_response"] = "ERROR: Connection reset (A)"
    dropped = rows.pop(7)
    path = predictions.results_path(tmp_path / "model", "sr")
    records.write_jsonl(path, rows)
    responses = BENCH.read_predictions(tmp_path / "model", root, BENCH.select("sr"))
    assert [r.status for r in responses["sr"]].count("missing") == 1
    assert [r.item.key for r in responses["sr"] if r.status == "failed"] == [rows[4]["unique_id"]]
    ref = BENCH.score(responses, profile="reference", options={}).document
    strict = BENCH.score(responses, profile="strict", options={}).document
    assert [r.item.item_id for r in responses["sr"] if r.status == "missing"] == [dropped["id"]]
    assert ref["coverage"]["sr"]["incomplete_ids"] == 1
    assert ref["sr"]["Total"]["unique_samples"] == 5
    assert strict["coverage"]["sr"]["failed"] == 1 and strict["coverage"]["sr"]["missing"] == 1
    assert strict["sr"]["Total"]["ACR"] < 100.0
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rows[0]) + "\n")
    with pytest.raises(DatasetError, match=r"line 18: unique_id 'sr_0000@0' repeats an earlier line"):
        BENCH.read_predictions(tmp_path / "model", root, BENCH.select("sr"))
    with path.open("a", encoding="utf-8") as fh:
        fh.write("{torn\n")
    with pytest.raises(DatasetError, match=r"entry 18: line 19 is not valid JSON"):
        BENCH.read_predictions(tmp_path / "model", root, BENCH.select("sr"))


def test_published_numbers() -> None:
    paper = published_table("starbench")
    assert paper.row("gemini 2.5 pro", case_sensitive=False)["ma"] == 49.59
    assert paper.row("Random")["ma"] == 24.85
    with pytest.raises(KeyError, match="no published row for 'nobody'"):
        paper.row("nobody")
    assert paper.facts["data_version"] == "v0.5"
