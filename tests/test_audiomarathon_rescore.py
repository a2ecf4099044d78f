"""AudioMarathon end to end on the generated sample: oracle and random, official result files, published tables."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from avibench.benchmarks.audiomarathon import layout, results, sample
from avibench.benchmarks.audiomarathon.efficiency import TIMINGS, one_answer_s, prefill_counted_twice
from avibench.benchmarks.audiomarathon.plugin import read
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits.published import published_table
from avibench.level_metrics.audiomarathon import TASKS
from avibench.plugin import get_benchmark

MARATHON = get_benchmark("audiomarathon")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Item]]:
    root = tmp_path_factory.mktemp("marathon")
    sample.generate(root)
    return {t: layout.load_task(root, t) for t in TASKS}


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Item]]:
    root = tmp_path_factory.mktemp("marathon_full")
    assert sample.generate(root, full_size=True) == sample.FULL
    return {t: layout.load_task(root, t) for t in TASKS}


def answered(items: dict[str, list[Item]], name: str, seed: int = 0) -> dict[str, list[Response]]:
    rng = random.Random(seed)
    answer = {"oracle": MARATHON.oracle_answer, "random": MARATHON.random_answer}[name]
    return {t: [Response(i, "answered", raw=answer(i, rng)) for i in its] for t, its in items.items()}


def scored(responses: dict[str, list[Response]], profile: str = "reference") -> dict:
    """The eval document's top level: each task's official block, ``average`` and ``complete``."""
    return MARATHON.score(responses, profile=profile, options={}).document


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_oracle_scores_100_everywhere(small: dict[str, list[Item]], profile: str) -> None:
    block = scored(answered(small, "oracle"), profile)
    assert {t: block[t]["score"] for t in TASKS} == {t: 100.0 for t in TASKS}
    assert block["ASR"]["wer_mean"] == 0.0
    assert (block["average"], block["complete"]) == (100.0, True)


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_random_is_near_chance(full: dict[str, list[Item]], profile: str) -> None:
    assert {t: len(v) for t, v in full.items()} == sample.FULL
    block = scored(answered(full, "random"), profile)
    chance = scored(answered(full, "random"), profile)["summary"]["by_profile"][profile]["chance"]
    assert chance["SER"] == pytest.approx(25.0, abs=0.01) and chance["SAR"] == pytest.approx(20.0, abs=0.01)
    assert {t: round(block[t]["score"] - chance[t]) for t in TASKS} == pytest.approx(
        {t: 0 for t in TASKS}, abs=4
    )


def test_failed_and_missing_requests(small: dict[str, list[Item]]) -> None:
    responses = answered(small, "oracle")
    scr = responses["SCR"]
    scr[0] = Response(scr[0].item, "failed")
    ser = responses["SER"]
    ser[0] = Response(ser[0].item, "failed")
    ser[1] = Response(ser[1].item, "missing")
    # Reference: RACE drops the failed question; SLUE keeps it with an empty prediction (not valid); missing is left out.
    assert scored({"SCR": scr})["SCR"]["n"] == 3
    assert {k: scored({"SER": ser})["SER"][k] for k in ("n", "valid")} == {"n": 3, "valid": 2}
    # Strict counts both as wrong.
    strict = scored({"SER": ser}, "strict")["SER"]
    assert (strict["n"], strict["score"]) == (4, 50.0)


def test_round_trip_through_official_files(full: dict[str, list[Item]], tmp_path: Path) -> None:
    responses = answered(full, "random", seed=3)
    responses["MC"][5] = Response(responses["MC"][5].item, "failed")
    for task, rs in responses.items():
        results.write_results(tmp_path, task, rs)
    assert results.result_path(tmp_path, "SED").name == "SED_results.jsonl"
    back = {
        t: results.read_responses(results.result_path(tmp_path, t), t, items) for t, items in full.items()
    }
    assert back["MC"][5].status == "failed"
    for profile in ("reference", "strict"):
        assert {t: scored(back, profile)[t] for t in TASKS} == {
            t: scored(responses, profile)[t] for t in TASKS
        }


def _write(path: Path, body: object) -> Path:
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def test_reading_script_shaped_records(small: dict[str, list[Item]], tmp_path: Path) -> None:
    mc = small["MC"]
    records = [
        # GTZAN keeps full paths; the raw response is re-extracted ("Rock" -> C), never the stored prediction.
        {
            "sample_id": 0,
            "audio_path": str(mc[0].media[0]),
            "ground_truth": mc[0].answer,
            "model_response": "Rock",
            "predicted_answer": "A",
            "options": list(mc[0].options),
        },
        # Its error records carry no audio path: they join on the metadata position.
        {
            "sample_id": 1,
            "ground_truth": mc[1].answer,
            "model_response": "ERROR: CUDA out of memory",
            "predicted_answer": "",
        },
    ]
    got = results.read_responses(
        _write(tmp_path / "MC_results.json", {"detailed_results": records}), "MC", mc
    )
    assert [r.status for r in got] == ["answered", "failed", "missing", "missing"]
    assert read(got[0]) == "C"
    assert read(got[1]) == ""  # kept by the reference, unparsed
    had = small["SD"]
    fake = next(i for i in had if i.meta["gold"] == "fake")
    rows = [
        {
            "audio_file": fake.meta["file"],
            "audio_label": "fake",
            "ground_truth": "fake",
            "model_output": "ERROR",
            "extracted_answer": "error",
        }
    ]
    got = results.read_responses(_write(tmp_path / "SD_results.json", {"samples": rows}), "SD", had)
    assert [r.status for r in got if r.item == fake] == ["failed"]


def test_options_missing_from_records_come_from_metadata(
    small: dict[str, list[Item]], tmp_path: Path
) -> None:
    asc = small["ASC"]
    scene = asc[0].options[int("ABCD".index(asc[0].answer))]
    rows = [
        {
            "audio_file": asc[0].meta["file"],
            "ground_truth": asc[0].answer,
            "model_output": f"Probably {scene}.",
            "extracted_answer": "",
        }
    ]
    got = results.read_responses(_write(tmp_path / "ASC_results.json", {"samples": rows}), "ASC", asc)
    assert read(got[0]) == asc[0].answer


def test_record_faults(small: dict[str, list[Item]], tmp_path: Path) -> None:
    scr = small["SCR"]
    rows = [{"idx": 1, "audio_path": "middle/scr_0001.wav", "gt": "A", "raw_response": "A", "pred": "A"}]
    with pytest.raises(DatasetError, match="entry 0 field audio_path: matches several metadata items"):
        results.read_responses(_write(tmp_path / "SCR_results.json", {"samples": rows}), "SCR", scr)
    rows = [{"idx": 1, "audio_path": scr[1].meta["path"], "gt": "D", "raw_response": "A", "pred": "A"}]
    with pytest.raises(DatasetError, match="entry 0 field gt: ground truth 'D' differs"):
        results.read_responses(_write(tmp_path / "SCR_results.json", {"samples": rows}), "SCR", scr)
    with pytest.raises(DatasetError, match="expected an object with a 'samples' list"):
        results.read_responses(_write(tmp_path / "SCR_results.json", [rows]), "SCR", scr)


def test_published_tables() -> None:
    board = published_table("audiomarathon", "leaderboard")
    assert list(board.models)[:2] == ["Qwen2.5-Omni-7B", "Qwen2.5-Omni-3B"]
    for row in board.rows:
        present = [v for v in board.values(row, board.columns[2:-1]).values() if v is not None]
        assert sum(present) / len(present) == pytest.approx(row["average"], abs=0.06), row["model"]
    assert board.row("Human")["ASR"] is None
    race = next(r for r in TIMINGS.rows if r["task"] == "SCR" and r["model"] == "Qwen2.5-Omni")
    assert race["prefill_s"] + race["decode_s"] == pytest.approx(race["total_s"])
    assert (prefill_counted_twice(race), one_answer_s(race)) == (True, 0.396)
    desed = next(r for r in TIMINGS.rows if r["task"] == "SED" and r["model"] == "Qwen2.5-Omni")
    assert (prefill_counted_twice(desed), one_answer_s(desed)) == (False, 0.694)
