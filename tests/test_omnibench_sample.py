"""The generated OmniBench sample and the plug-in through every command: layout, media that answer their
questions, oracle and random, an endpoint that sees the official prompt with both media, export and rescore."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PIL import Image
from scipy import ndimage

from avibench.benchmarks.omnibench import layout, sample
from avibench.benchmarks.omnibench.plugin import OmniBench
from avibench.items import Response
from avibench.kits.published import published_table
from avibench.level_metrics.omnibench import AUDIO_TYPES
from avibench.testing.fake_openai import FakeOpenAIServer, request_text
from avibench.testing.harness import invoke

PUBLISHED = published_table("omnibench")
AUDIO_TYPE_COUNTS: dict[str, int] = PUBLISHED.facts["audio_type_counts"]

KEY = "sk-omni-51f0aa"
FRAME = 160  # 10 ms at 16 kHz


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("omnibench") / "sample"
    assert invoke(["sample-data", "--benchmark", "omnibench", "--out", str(out)]).code == 0
    return out


def _records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / layout.DATASET).read_text().splitlines()]


def test_official_layout_and_fields(root: Path) -> None:
    records = _records(root)
    assert len(records) == sample.SMALL_SIZE
    for k, record in enumerate(records):
        assert list(record) == [
            "task type", "audio type", "question", "audio content", "image content",
            "audio_path", "image_path", "index", "answer", "options",
        ]  # fmt: skip
        assert record["index"] == k and len(record["options"]) == 4 and record["answer"] in record["options"]
        assert (root / layout.AUDIO_DIR / record["audio_path"]).is_file()
        assert (root / layout.IMAGE_DIR / record["image_path"]).is_file()
    assert {r["audio type"].strip().lower() for r in records} == set(AUDIO_TYPES)
    assert any(r["audio type"] != r["audio type"].strip().lower() for r in records)
    assert {r["task type"] for r in records} == set(sample.TASK_TYPES)
    assert {r["options"].index(r["answer"]) for r in records} == {0, 1, 2, 3}
    assert invoke(["validate-data", str(root), "--benchmark", "omnibench"]).code == 0


def test_deterministic(root: Path, tmp_path: Path) -> None:
    OmniBench().generate_sample(tmp_path / "again")
    for path in root.rglob("*"):
        if path.is_file() and path.name != ".avibench-sample.json":
            assert (tmp_path / "again" / path.relative_to(root)).read_bytes() == path.read_bytes(), path
    OmniBench().generate_sample(tmp_path / "other", seed=1)
    assert (tmp_path / "other" / layout.DATASET).read_bytes() != (root / layout.DATASET).read_bytes()


def _counts(answer: str) -> tuple[int, int]:
    """The shapes and sounds an answer states, in that order."""
    words = re.findall(r"\b(one|two|three|four)\b", answer.lower())
    assert len(words) == 2, answer
    return sample.WORDS.index(words[0]), sample.WORDS.index(words[1])


def _bursts(audio: np.ndarray) -> int:
    n = len(audio) // FRAME
    loud = np.sqrt((audio[: n * FRAME].reshape(n, FRAME) ** 2).mean(axis=1)) > 0.02
    return int(np.count_nonzero(np.diff(np.concatenate([[0], loud.astype(int)])) == 1))


def test_the_media_answer_their_questions(root: Path) -> None:
    for record in _records(root):
        shapes, sounds = _counts(record["answer"])
        pixels = np.asarray(Image.open(root / layout.IMAGE_DIR / record["image_path"]).convert("RGB"))
        _labels, found = ndimage.label(pixels.max(axis=2) > 100)
        assert found == shapes, record["image_path"]
        audio, rate = sf.read(root / layout.AUDIO_DIR / record["audio_path"])
        assert rate == 16_000 and _bursts(audio) == sounds, record["audio_path"]
        others = [_counts(o) for o in record["options"] if o != record["answer"]]
        assert (shapes, sounds) not in others


def test_items_send_image_audio_and_the_official_prompt(root: Path) -> None:
    item = OmniBench().load(root, OmniBench().tasks()[0])[0]
    assert [p.kind for p in item.parts] == ["image", "audio", "text"]
    record = _records(root)[0]
    lines = "\n".join(f"{c}. {o}" for c, o in zip("ABCD", record["options"], strict=True))
    assert item.parts[2].value == (
        "Please answer the following question based on the given image and audio:\n"
        f"{record['question']}.\nPlease choose only one answer from the following options:\n{lines}."
    )


def _eval(out: Path, label: str) -> dict:
    return json.loads((out / label / "omnibench" / "eval.json").read_text())


def test_oracle_is_perfect_and_random_near_chance_in_both_profiles(root: Path, tmp_path: Path) -> None:
    common = ["--benchmark", "omnibench", "--data-root", str(root), "--output-dir", str(tmp_path)]
    for model in ("oracle", "random"):
        assert invoke(["infer", *common, "--model", model]).code == 0
        assert invoke(["refine", *common, "--model", model, "--mode", "rules"]).code == 0
        result = invoke(["eval", *common, "--model", model])
        assert result.code == 0, result.stderr
        assert (
            result.stdout.strip().splitlines()[-1] == f"wrote {tmp_path / model / 'omnibench' / 'eval.json'}"
        )
    oracle = _eval(tmp_path, "oracle")
    for profile in ("reference", "strict"):
        assert oracle["summary"]["by_profile"][profile]["headline"] == 100.0
    assert (oracle["total"], oracle["n_correct_response"], oracle["Accuracy"]) == (24, 24, 1.0)
    assert oracle["meta"]["dataset"]["kind"] == "sample"
    answers = [
        json.loads(line)["predict"]
        for line in (tmp_path / "oracle" / "omnibench" / "infer" / "OmniBench.jsonl").read_text().splitlines()
    ]
    assert (
        len(set(answers) - {r["answer"] for r in _records(root)}) >= 10
    )  # phrased, not only the bare answers
    random_doc = _eval(tmp_path, "random")
    assert random_doc["summary"]["chance"] == {"OmniBench": 25.0}
    for profile in ("reference", "strict"):
        assert random_doc["summary"]["by_profile"][profile]["headline"] < 60


def test_random_baseline_lands_near_chance_at_full_size(tmp_path: Path) -> None:
    root = tmp_path / "full"
    (root / layout.DATASET).parent.mkdir(parents=True)
    found = sample.questions(layout.OFFICIAL_COUNT, seed=3, unit=sample.FULL_UNIT, wh=sample.FULL_WH)
    (root / layout.DATASET).write_text("".join(json.dumps(q.record) + "\n" for q in found))
    bench = OmniBench()
    items = bench.load(root, bench.tasks()[0])
    rng = random.Random(0)
    responses = [Response(i, "answered", bench.random_answer(i, rng)) for i in items]
    doc = bench.score({"OmniBench": responses}, profile="reference", options={}).document
    strict = doc["summary"]["by_profile"]["strict"]["headline"]
    assert abs(strict - 25.0) < 4
    # an eighth of the gold answers read as no letter, which no letter guess matches
    assert abs(doc["summary"]["headline"] - 25.0 * 7 / 8) < 3
    assert bench.dataset_kind(root, bench.tasks())["kind"] == "other"  # a third of each audio type
    kinds = [kind for kind, n in AUDIO_TYPE_COUNTS.items() for _ in range(n)]
    records = [{**q.record, "audio type": kind} for q, kind in zip(found, kinds, strict=True)]
    (root / layout.DATASET).write_text("".join(json.dumps(r) + "\n" for r in records))
    assert bench.dataset_kind(root, bench.tasks())["kind"] == "official"


@pytest.mark.parametrize("row", PUBLISHED.rows, ids=lambda r: r["model"])
def test_published_totals_are_the_count_weighted_audio_type_means(row: dict) -> None:
    assert sum(AUDIO_TYPE_COUNTS.values()) == layout.OFFICIAL_COUNT
    weighted = sum(row[t] * n for t, n in AUDIO_TYPE_COUNTS.items()) / layout.OFFICIAL_COUNT
    assert weighted == pytest.approx(row["overall"], abs=0.01)
    for audio_type, n in AUDIO_TYPE_COUNTS.items():  # each percentage is a whole number of questions
        assert round(row[audio_type] * n / 100) / n * 100 == pytest.approx(row[audio_type], abs=0.006)


def test_endpoint_sees_both_media_and_export_rescores_to_the_same_numbers(root: Path, tmp_path: Path) -> None:
    def answer(body: dict) -> str:
        return "The answer is (C)." if "circle" in request_text(body) else "b"

    server = FakeOpenAIServer(responder=answer)
    common = ["--benchmark", "omnibench", "--data-root", str(root), "--output-dir", str(tmp_path)]
    with server.run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
    assert len(server.requests) == sample.SMALL_SIZE
    for request in server.requests:
        kinds = [p["type"] for p in request.body["messages"][-1]["content"]]
        assert kinds == ["image_url", "input_audio", "text"]
    for step in (["refine", "--mode", "rules"], ["eval"], ["export"]):
        assert invoke([*step, *common, "--model", "m"]).code == 0
    exported = tmp_path / "m" / "omnibench" / "reference" / "omnibench-inference.jsonl"
    rows = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(rows) == sample.SMALL_SIZE and {"index", "response", "question", "options"} <= set(rows[0])
    rescored = tmp_path / "rescored.json"
    args = ["eval", "--benchmark", "omnibench", "--data-root", str(root), "--predictions", str(exported)]
    result = invoke([*args, "--out", str(rescored)])
    assert result.code == 0, result.stderr
    original, again = _eval(tmp_path, "m"), json.loads(rescored.read_text())
    for profile in ("reference", "strict"):
        assert again["summary"]["by_profile"][profile] == original["summary"]["by_profile"][profile]
    # "b" is a letter only to the strict extractor
    strict, reference = (original["summary"]["by_profile"][p]["headline"] for p in ("strict", "reference"))
    assert strict != reference


def test_bad_data_is_reported_with_file_entry_and_field(root: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    (broken / layout.DATASET).parent.mkdir(parents=True)
    records = _records(root)
    records[1]["answer"] = "not an option"
    records[2]["audio type"] = "smell"
    records[3]["options"] = records[3]["options"][:3]
    (broken / layout.DATASET).write_text("".join(json.dumps(r) + "\n" for r in records))
    result = invoke(["validate-data", str(broken), "--benchmark", "omnibench"])
    assert result.code == 1
    text = result.stdout
    assert (
        "entry 1 field answer" in text
        and "entry 2 field audio type" in text
        and "entry 3 field options" in text
    )
    assert "field audio_path" in text and "Traceback" not in text
