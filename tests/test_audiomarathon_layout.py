"""AudioMarathon layout: loading the generated sample, prompts, balancing, and validation of injected faults."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avibench.benchmarks.audiomarathon import layout, sample
from avibench.errors import DatasetError


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("marathon")
    sample.generate(root)
    return root


@pytest.fixture
def root(pristine: Path, tmp_path: Path) -> Path:
    """A private copy of the sample that a test may damage."""
    return Path(shutil.copytree(pristine, tmp_path / "copy"))


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_sample_loads_clean(pristine: Path) -> None:
    assert [str(p) for p in layout.validate(pristine)] == []
    counts = {t: len(layout.load_task(pristine, t)) for t in layout.TASKS}
    assert counts == sample.SMALL


def test_item_shape(pristine: Path) -> None:
    item = layout.load_task(pristine, "SER")[1]
    assert [p.kind for p in item.parts] == ["audio", "text"]
    assert item.parts[0].path == pristine / "SER" / "audio" / "ser_0001.wav"
    assert item.parts[1].value.startswith(
        "You are a helpful assistant that analyzes speech audio for named entity"
    )
    assert item.parts[1].value.endswith("Reply with only the letter (A, B, C, or D).")
    assert f"\n\nA. {item.options[0]}\nB. {item.options[1]}\n" in item.parts[1].value
    assert item.system.startswith("You are Qwen, a virtual human")
    assert (item.answer, item.meta["gold"], item.max_tokens) == ("B", "B", 5)


def test_prompt_formats_and_limits(pristine: Path) -> None:
    asc = layout.load_task(pristine, "ASC")[0]
    assert f"Choose the most appropriate option.\nA: {asc.options[0]}\n" in asc.parts[1].value
    er = layout.load_task(pristine, "ER")[0]
    assert f"\n\nA) {er.options[0]}\n" in er.parts[1].value and er.max_tokens == 10
    asr = layout.load_task(pristine, "ASR")[0]
    assert asr.max_tokens == 1100 and asr.parts[1].value.endswith("Spoken Content: <transcribed text here>")
    mc = layout.load_task(pristine, "MC")[0]
    assert mc.system.endswith(
        "as well as generating text and speech. You are a helpful audio analysis assistant."
    )


def test_race_shares_passages_and_reads_subsets(pristine: Path) -> None:
    items = layout.load_task(pristine, "SCR")
    assert [i.item_id for i in items] == [
        "high/scr_0000.wav",
        "high/scr_0000.wav#1",
        "middle/scr_0001.wav",
        "middle/scr_0001.wav#1",
    ]
    assert [i.meta["group"] for i in items] == ["high", "high", "middle", "middle"]


def test_balanced_subsets_are_deterministic(pristine: Path) -> None:
    had = layout.load_task(pristine, "SD")
    assert sorted(i.meta["gold"] for i in had) == ["fake", "fake", "real", "real"]
    assert len(list((pristine / "SD" / "real").glob("*.wav"))) == 3  # one real clip is cut
    assert [i.item_id for i in had] == [i.item_id for i in layout.load_task(pristine, "SD")]
    gender = layout.load_task(pristine, "SGR")
    assert sorted(i.meta["gold"] for i in gender) == ["female", "female", "male", "male"]
    assert {i.answer for i in gender if i.meta["gold"] == "female"} == {"B"}


def test_asr_transcripts(root: Path) -> None:
    items = layout.load_task(root, "ASR")
    first = items[0]
    chapter = first.parts[0].path.parent
    line = next(
        x
        for x in (chapter / f"{chapter.parent.name}-{chapter.name}.trans.txt").read_text().splitlines()
        if x.startswith(first.item_id)
    )
    assert first.answer == line.split(" ", 1)[1]
    (chapter / f"{first.item_id}.txt").write_text("OWN FILE WINS\n", encoding="utf-8")
    assert layout.load_task(root, "ASR")[0].answer == "OWN FILE WINS"


def test_vesus_drops_person_2_and_10_happy(root: Path) -> None:
    meta = root / "ER" / "audio_emotion_dataset.json"
    _edit(meta, lambda d: d[0].update(person_id=10, emotion_label="Happy"))
    assert len(layout.load_task(root, "ER")) == sample.SMALL["ER"] - 1


@pytest.mark.parametrize(
    ("task", "change", "message"),
    [
        ("SER", lambda d: d[1].pop("choice_c"), "entry 1 field choice_c: is missing"),
        (
            "MC",
            lambda d: d[2].update(answer_gt="E"),
            "entry 2 field answer_gt: answer 'E' is not one of the options",
        ),
        ("SAR", lambda d: d[0].update(answer_gt="Teenager"), "entry 0 field answer_gt: answer 'Teenager'"),
        ("SGR", lambda d: d[3].update(answer_gt="other"), "entry 3 field answer_gt"),
        ("SED", lambda d: d.pop("tasks"), "field tasks: expected an object with a 'tasks' list"),
        (
            "SCR",
            lambda d: d[0].update(options="A B C D"),
            "entry 0 field options: must be a list of strings",
        ),
        ("ASC", lambda d: d[1].update(path="audio/nowhere.wav"), "entry 1 field path: audio file not found"),
    ],
)
def test_faults_name_file_entry_and_field(root: Path, task: str, change, message: str) -> None:
    meta = layout.data_path(root, task)
    _edit(meta, change)
    with pytest.raises(DatasetError) as caught:
        layout.load_task(root, task)
    assert str(caught.value).startswith(str(meta))
    assert message in str(caught.value)
    assert any(message in str(p) for p in layout.validate(root, [task]))


def test_unreadable_files(root: Path) -> None:
    (root / "ER" / "audio_emotion_dataset.json").write_text("[{", encoding="utf-8")
    with pytest.raises(DatasetError, match="invalid JSON at line 1"):
        layout.load_task(root, "ER")
    shutil.rmtree(root / "SD" / "fake")
    assert [str(p) for p in layout.validate(root, ["SD"])] == [
        f"error: {root / 'SD' / 'fake'}: folder not found"
    ]
    shutil.rmtree(root / "SGR")
    assert "task folder not found" in str(layout.validate(root, ["SGR"])[0])


def test_duration_warnings(root: Path) -> None:
    short = root / "ASC" / "audio" / "asc_0002.wav"
    sf.write(short, np.zeros(1000 * 30), 1000, subtype="PCM_U8")
    short.with_name("asc_0003.wav").write_bytes(b"not audio")
    problems = layout.validate(root, ["ASC"])
    assert [(p.severity, p.path) for p in problems] == [
        ("warning", str(short)),
        ("error", str(short.with_name("asc_0003.wav"))),
    ]
    assert "clip lasts 30.0 s, outside 60-330 s" in str(problems[0])


def test_metadata_alone_gives_the_same_questions(root: Path) -> None:
    with_audio = {t: [i.key for i in layout.load_task(root, t)] for t in layout.TASKS}
    for flac in (root / "ASR").rglob("*.flac"):
        flac.unlink()
    (root / "MC" / "wav" / "genres" / "mc_0000.wav").unlink()
    without = {t: [i.key for i in layout.load_task(root, t, check_audio=False)] for t in layout.TASKS}
    assert without == with_audio
    assert layout.load_task(root, "ASR") == []  # the scripts walk the audio files
    with pytest.raises(DatasetError, match="entry 0 field path: audio file not found"):
        layout.load_task(root, "MC")
