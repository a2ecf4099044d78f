"""MMSU through the real command line: sample data in the hub's layout, validation, the official prompt with the
shard's audio bytes, the offline baselines through infer, refine and eval, and ``avibench run`` with its card."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from avibench.benchmarks.mmsu import layout, sample
from avibench.items import Response
from avibench.plugin import get_benchmark
from avibench.testing.harness import invoke

OFFICIAL_INSTRUCTION = (
    "Choose the most suitable answer from options A, B, C, and D. You must respond with only A, B, C, or D."
)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmsu") / "data"
    result = invoke(["sample-data", "--benchmark", "mmsu", "--out", str(root)])
    assert result.code == 0, result.stderr
    return root


def _rows(root: Path) -> list[dict]:
    return [row for shard in layout.shards(root) for row in pq.read_table(shard).to_pylist()]


def test_listing_layout_and_answers_true_of_the_audio(data: Path) -> None:
    assert "mmsu: MMSU" in invoke(["benchmarks"]).stdout
    assert [p.name for p in layout.shards(data)] == [
        "train-00000-of-00002.parquet",
        "train-00001-of-00002.parquet",
    ]
    rows = _rows(data)
    assert len(rows) == sample.SMALL and {r["task_name"] for r in rows} == set(sample.TASKS)
    assert set(rows[0]) == {"id", "task_name", "audio", "question", *layout.OPTIONS, "answer_gt", "category",
                            "sub-category", "sub-sub-category", "linguistics_sub_discipline"}  # fmt: skip
    for row in rows:
        signal, rate = sf.read(io.BytesIO(row["audio"]["bytes"]))
        frames = np.abs(signal[: len(signal) // 160 * 160]).reshape(-1, 160).max(axis=1)  # 10 ms envelope
        loud = frames > 0.05
        onsets = int(np.sum(loud[1:] & ~loud[:-1]) + loud[0])
        if row["task_name"] == "tone_count":
            assert rate == 16000 and str(onsets) == row["answer_gt"]
        if row["task_name"] == "pitch_direction":
            half = len(signal) // 2
            crossings = [np.sum(np.diff(np.sign(part)) != 0) for part in (signal[:half], signal[half:])]
            assert row["answer_gt"] == ("higher" if crossings[1] > crossings[0] else "lower")
            assert row["choice_c"] is None and row["choice_d"] is None


def test_items_carry_the_official_prompt_and_the_shard_bytes(data: Path) -> None:
    plugin = get_benchmark("mmsu")
    items = plugin.load(data, plugin.tasks()[0])
    rows = {r["id"]: r for r in _rows(data)}
    item = next(i for i in items if rows[i.item_id]["choice_c"] is None)
    row = rows[item.item_id]
    assert item.parts[1].value == (
        f"{OFFICIAL_INSTRUCTION}\n\nQuestion: {row['question']}\n\n"
        f"A. {row['choice_a']}\nB. {row['choice_b']}\nC. None\nD. None"
    )
    assert item.parts[0].path.read_bytes() == row["audio"]["bytes"] and item.parts[0].path.suffix == ".wav"
    assert item.meta["category"] == row["category"] and item.answer in ("A", "B")


def test_validation_names_file_row_and_field(data: Path, tmp_path: Path) -> None:
    assert invoke(["validate-data", str(data), "--benchmark", "mmsu"]).code == 0
    shard = layout.shards(data)[1]
    rows = pq.read_table(shard).to_pylist()
    rows[2]["answer_gt"] = "none of these"
    rows[3]["question"] = ""
    rows[4]["audio"] = {"bytes": b"", "path": "x.wav"}
    broken = tmp_path / "data" / "data" / shard.name
    broken.parent.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(rows), broken)
    result = invoke(["validate-data", str(tmp_path / "data"), "--benchmark", "mmsu"])
    assert result.code == 1
    assert f"{broken} entry 2 field answer_gt: 'none of these' is none of the options" in result.stdout
    assert f"{broken} entry 3 field question: must be a non-empty string" in result.stdout
    assert f"{broken} entry 4 field audio: holds no audio bytes" in result.stdout


def _pipeline(data: Path, out: Path, model: str) -> dict:
    args = ["--benchmark", "mmsu", "--data-root", str(data), "--output-dir", str(out), "--model", model]
    assert invoke(["infer", *args]).code == 0
    assert invoke(["refine", *args, "--mode", "rules"]).code == 0
    result = invoke(["eval", *args])
    assert result.code == 0, result.stderr
    return json.loads((out / model / "mmsu" / "eval.json").read_text())


def test_oracle_scores_everything_and_random_is_near_chance(tmp_path: Path) -> None:
    root = tmp_path / "full"
    sample.generate(root, seed=3, full_size=False)
    oracle = _pipeline(root, tmp_path, "oracle")
    for profile in ("reference", "strict"):
        official = oracle["summary"]["by_profile"][profile]["official"]
        assert official["Overall Accuracy"] == 1.0 and official["Total count"] == sample.SMALL
    assert oracle["task_category_accuracies"]["perception"]["phonology"] == 1.0
    assert oracle["summary"]["chance"]["MMSU"] == 25.0
    big = tmp_path / "big"
    (big / "data").mkdir(parents=True)
    rows = sample.rows(400, seed=9)
    pq.write_table(pa.Table.from_pylist(rows), big / "data" / "train-00000-of-00001.parquet")
    guessed = _pipeline(big, tmp_path, "random")
    strict = guessed["summary"]["by_profile"]["strict"]["official"]
    assert strict["Total count"] == 400 and 0.18 < strict["Overall Accuracy"] < 0.32


def test_run_puts_mmsu_on_the_card(data: Path, tmp_path: Path) -> None:
    args = ["run", "--model", "oracle", "--benchmarks", "mmsu", "--data-root", f"mmsu={data}"]
    result = invoke([*args, "--output-dir", str(tmp_path)])
    assert result.code == 0, result.stdout + result.stderr
    card = json.loads((tmp_path / "oracle" / "card.json").read_text())
    row = next(r for r in card["benchmarks"] if r["benchmark"] == "mmsu")
    assert row["headline"] == {"reference": 100.0, "strict": 100.0}


def test_export_writes_the_official_inference_output_that_eval_reads_back(data: Path, tmp_path: Path) -> None:
    run = _pipeline(data, tmp_path, "random")
    out = tmp_path / "exported"
    result = invoke(["export", "--benchmark", "mmsu", "--model", "random", "--output-dir", str(tmp_path),
                     "--out", str(out)])  # fmt: skip
    assert result.code == 0, result.stderr
    lines = (out / "mmsu-predictions.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == sample.SMALL and "audio" not in rows[0]
    assert set(rows[0]) == {"id", "task_name", "question", *layout.OPTIONS, "answer_gt", "category", "sub-category",
                            "sub-sub-category", "linguistics_sub_discipline", "response"}  # fmt: skip
    rescored = tmp_path / "rescored.json"
    args = ["eval", "--benchmark", "mmsu", "--predictions", str(out / "mmsu-predictions.jsonl")]
    result = invoke([*args, "--data-root", str(data), "--out", str(rescored)])
    assert result.code == 0, result.stderr
    again = json.loads(rescored.read_text())
    for profile in ("reference", "strict"):
        assert (
            again["summary"]["by_profile"][profile]["official"]
            == run["summary"]["by_profile"][profile]["official"]
        )


def test_strict_reads_no_null_option_from_its_shown_text(data: Path) -> None:
    bench = get_benchmark("mmsu")
    items = bench.load(data, bench.task("MMSU"))
    item = next(
        i for i in items if i.source["choice_c"] is None
    )  # a two-option question, C and D shown as None
    read = lambda reply: bench.read(Response(item, "answered", reply), "strict")  # noqa: E731
    assert item.options[2:] == ("None", "None")
    assert read("None") is None and read("The answer is none of them.") is None
    assert read("C") == 2 and read(item.options[0]) == 0
