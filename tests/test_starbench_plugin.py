"""STAR-Bench through the real command line: groups, baselines on every dataset, the request wire format (several
audio clips, channel-split binaural audio), rotations off, rescoring an official work directory, and its errors."""

from __future__ import annotations

import base64
import io
import json
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from avibench.benchmarks.starbench import layout
from avibench.benchmarks.starbench.predictions import official_row
from avibench.errors import AvibenchError
from avibench.kits.records import write_jsonl
from avibench.level_metrics.starbench import chance_block
from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-star-5e0c"
ALL = ("pc", "pc_sp", "pc_nsp", "tr", "tr_cap", "tr_uncut", "sr", "sr_ch")
BENCH = get_benchmark("starbench")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("starbench") / "data"
    assert invoke(["sample-data", "--benchmark", "starbench", "--out", str(path)]).code == 0
    return path


def _common(root: Path, out: Path, label: str) -> list[str]:
    return ["--benchmark", "starbench", "--data-root", str(root), "--output-dir", str(out), "--label", label]


def _eval(args: list[str], *, partial: bool = False) -> dict[str, Any]:
    """eval's document; ``partial`` runs rest on failed or unrefined answers on purpose (eval exits 3 without
    --allow-partial, and 0 with it)."""
    if partial:
        assert invoke(["eval", *args]).code == 3
    result = invoke(["eval", *args, *(["--allow-partial"] if partial else [])])
    assert result.code == 0, result.stderr
    target = Path(result.stdout.strip().splitlines()[-1].removeprefix("wrote "))
    return json.loads(target.read_text())


# ---- tasks and groups -----------------------------------------------------------------------------------------


def test_groups_plus_lists_and_unknown_names() -> None:
    names = lambda tasks: [t.name for t in tasks]  # noqa: E731
    assert names(BENCH.select(None)) == ["pc", "tr", "sr"]
    assert names(BENCH.select("sr+pc")) == ["pc", "sr"]
    assert names(BENCH.select("starbench_all")) == [
        "pc_sp",
        "pc_nsp",
        "tr",
        "tr_cap",
        "tr_uncut",
        "sr",
        "sr_ch",
    ]
    assert names(BENCH.select("spatial_all,pc")) == ["pc", "sr", "sr_ch"]
    with pytest.raises(AvibenchError, match=r"unknown STAR-Bench dataset or group 'sp'.*starbench_default"):
        BENCH.select("pc+sp")


def test_validate_and_tasks_commands(root: Path) -> None:
    checked = invoke(["validate-data", str(root), "--benchmark", "starbench", "--tasks", "starbench_all"])
    assert checked.code == 0 and "7 task(s) checked, 0 error(s)" in checked.stdout
    listing = invoke(["tasks", "--benchmark", "starbench", "--data-root", str(root), "--json"])
    found = {row["task"]: row["found"] for row in json.loads(listing.stdout)}
    # runs: pc one per option, the others three per item (14, 4 and 10 perception items; 6 spatial; 10 temporal)
    assert found == {"pc": 36, "pc_sp": 10, "pc_nsp": 26, "tr": 30, "tr_cap": 30, "tr_uncut": 30,
                     "sr": 18, "sr_ch": 18}  # fmt: skip


# ---- baselines ------------------------------------------------------------------------------------------------


def test_oracle_and_random_on_every_dataset(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for model in ("oracle", "random"):
        args = [*_common(root, out, model), "--tasks", "starbench_all+pc"]
        assert invoke(["infer", *args, "--model", model]).code == 0
        assert invoke(["refine", *args, "--mode", "rules"]).code == 0
        doc = _eval(args)
        assert [k for k in doc if k in ALL] == list(ALL) and doc["meta"]["rotations"] == "on"
        for alias in ALL:
            assert doc["coverage"][alias]["status"] == "scored"
            assert doc["coverage"][alias]["scored"] == doc[alias]["Total"]["total_runs"]
        by_profile = doc["summary"]["by_profile"]
        if model == "oracle":
            for profile in ("reference", "strict"):
                assert set(by_profile[profile]["tasks"].values()) == {100.0}
                assert set(by_profile[profile]["acr"].values()) == {100.0}
                assert by_profile[profile]["headline"] == by_profile[profile]["headline_acr"] == 100.0
        else:
            chance = {a: chance_block(a, BENCH.load(root, BENCH.task(a)))["Total"]["AA"] for a in ALL}
            assert abs(doc["Final MA"]["AA"] - sum(chance.values()) / len(ALL)) < 10
            assert doc["summary"]["chance"] == chance  # the red lines
            assert doc["Final MA"]["AA"] == pytest.approx(by_profile["reference"]["headline"])
    refined = journal_lines(out / "oracle" / "starbench" / "refine" / "sr_ch.jsonl")
    items = {i.key: i for i in BENCH.load(root, BENCH.task("sr_ch"))}
    assert all(r["method"] == "rule" and r["predict"] == items[r["key"]].answer for r in refined)


# ---- the wire format ------------------------------------------------------------------------------------------


def _wav(part: dict[str, Any]) -> tuple[int, np.ndarray]:
    with wave.open(io.BytesIO(base64.b64decode(part["input_audio"]["data"]))) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        return w.getnchannels(), frames


def _shape(content: list[dict[str, Any]]) -> list[str]:
    return [p["text"] if p["type"] == "text" else p["type"] for p in content]


def test_requests_carry_every_clip_in_the_official_order(root: Path, tmp_path: Path) -> None:
    server = FakeOpenAIServer(responder=lambda body: "Answer: A")
    with server.run_in_thread():
        args = [*_common(root, tmp_path / "out", "wire"), "--tasks", "pc+tr_uncut+sr_ch"]
        args += ["--model", "m", "--base-url", server.base_url, "--concurrency", "1", "--n-samples", "6"]
        args += ["--skip-probe"]
        assert invoke(["infer", *args], {"OPENAI_API_KEY": KEY}).code == 0
    bodies = server.bodies()
    journal = tmp_path / "out" / "wire" / "starbench" / "infer"
    records = [r for task in ("pc", "tr_uncut", "sr_ch") for r in journal_lines(journal / f"{task}.jsonl")]
    assert len(bodies) == len(records) == 3 * 6
    items = {
        (i.task, i.key): i for task in ("pc", "tr_uncut", "sr_ch") for i in BENCH.load(root, BENCH.task(task))
    }
    asked = {(r["task"], r["key"]): body for r, body in zip(records, bodies, strict=True)}

    # a perception item with two audios: "Audio i:" before each, the question after them, 256 tokens
    item = items[("pc", "pc_0000@1")]
    body = asked[("pc", "pc_0000@1")]
    content = body["messages"][1]["content"]
    assert _shape(content) == ["Audio 1:", "input_audio", "Audio 2:", "input_audio", item.parts[-1].value]
    assert content[-1]["text"].startswith("Which audio has the higher pitch?\n<A>: ")
    audio = [p for p in item.parts if p.kind == "audio"]
    assert [base64.b64decode(c["input_audio"]["data"]) for c in content[1:4:2]] == [
        a.path.read_bytes() for a in audio
    ]
    assert body["max_tokens"] == 256

    # temporal with the uncut recording: question, the uncut audio between its two notes, then the permuted clips
    item = items[("tr_uncut", "tr_OSM_0@2")]
    content = asked[("tr_uncut", "tr_OSM_0@2")]["messages"][1]["content"]
    assert _shape(content) == [
        item.parts[0].value,
        "An uncut audio of the entire sound scene is provided:",
        "input_audio",
        "\n The three clips are extracted from it, please arrange them in the correct order:\n",
        *(x for n in (1, 2, 3) for x in (f"\nclip {n}:", "input_audio")),
    ]
    order = [int(k) for k in item.meta["shuffled_seg_order"].split("-")]
    clips = [base64.b64decode(p["input_audio"]["data"]) for p in content[5::2]]
    folder = root / "starbench_audios/holistic_reasoning/temporal/tr_OSM_0"
    assert clips == [(folder / f"segment_{k}.wav").read_bytes() for k in order]
    assert asked[("tr_uncut", "tr_OSM_0@2")]["max_tokens"] == 1024

    # binaural split: two mono clips, the left and the right ear of the one stereo file, which differ
    item = items[("sr_ch", "sr_0000@0")]
    content = asked[("sr_ch", "sr_0000@0")]["messages"][1]["content"]
    note = "Audio 1 is the left-ear channel and Audio 2 is the right-ear channel.\n"
    assert _shape(content) == [
        "Audio 1:",
        "input_audio",
        "Audio 2:",
        "input_audio",
        note,
        item.parts[-1].value,
    ]
    (left_channels, left), (right_channels, right) = _wav(content[1]), _wav(content[3])
    stereo, _rate = sf.read(item.parts[1].path, dtype="int16")
    assert left_channels == right_channels == 1
    assert np.array_equal(left, stereo[:, 0]) and np.array_equal(right, stereo[:, 1])
    assert not np.array_equal(left, right)
    assert not any(p.name.endswith(("_left.wav", "_right.wav")) for p in root.rglob("*.wav"))


# ---- rotations off --------------------------------------------------------------------------------------------


def test_first_variants_only_is_scored_as_rotations_off_and_resumes_to_all(
    root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    server = FakeOpenAIServer(responder=lambda body: "Answer: A")
    with server.run_in_thread():
        args = [*_common(root, out, "r0"), "--tasks", "sr+pc"]
        infer = ["infer", *args, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke([*infer, "--variants", "first"], {"OPENAI_API_KEY": KEY}).code == 0
        asked = len(server.requests)
        keys = {r["key"] for r in journal_lines(out / "r0" / "starbench" / "infer" / "sr.jsonl")}
        assert keys == {f"sr_{k:04d}@0" for k in range(6)} and asked == 6 + 14
        doc = _eval(args)
        assert doc["meta"]["rotations"] == "off" and doc["coverage"]["sr"]["runs"] == "first"
        assert doc["coverage"]["sr"]["status"] == "scored" and doc["coverage"]["sr"]["missing"] == 0
        # "Answer: A" is right exactly where the gold is the first option of run 0
        for alias in ("sr", "pc"):
            first = [i for i in BENCH.load(root, BENCH.task(alias)) if i.variant == "r0"]
            hits = [i.options[0] == i.answer for i in first]
            assert doc[alias]["Total"]["total_runs"] == len(first)
            if alias == "sr":
                assert doc["sr"]["Total"]["AA"] == round(100 * sum(hits) / len(hits), 2)
                assert doc["sr"]["Total"]["ACR"] == doc["sr"]["Total"]["AA"]  # one run per item
        assert invoke(infer, {"OPENAI_API_KEY": KEY}).code == 0  # the rest of the rotations
        assert len(server.requests) == asked + (18 - 6) + (36 - 14)
    doc = _eval(args)
    assert doc["meta"]["rotations"] == "on" and doc["sr"]["Total"]["total_runs"] == 18


# ---- rescoring an official work directory ---------------------------------------------------------------------


def _failing_run(root: Path, out: Path) -> list[str]:
    """A run of every default dataset where two requests fail for good, two are retried, and some answers parse to
    nothing."""
    replies = iter(["(B)", "I cannot tell.", "answer is (b)", "Answer: A"] * 1000)
    server = FakeOpenAIServer(responder=lambda body: next(replies))
    server.plan = FaultPlan(
        by_request={3: Fault("400"), 7: Fault("503"), 8: Fault("reset"), 40: Fault("400")}
    )
    with server.run_in_thread():
        args = [*_common(root, out, "run"), "--tasks", "starbench_default"]
        infer = ["infer", *args, "--model", "m", "--base-url", server.base_url, "--concurrency", "1"]
        infer += ["--skip-probe"]
        assert invoke([*infer, "--retry-delay", "0.001"], {"OPENAI_API_KEY": KEY}).code == 1
        assert server.count == 36 + 30 + 18 + 2  # the 503 and the reset were retried, the 400s are not
    return args


def test_export_then_rescore_gives_the_same_reference_block(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = _failing_run(root, out)
    own = _eval(args, partial=True)
    assert sum(own["coverage"][a]["failed"] for a in ("pc", "tr", "sr")) == 2
    assert invoke(["export", *args]).code == 0
    exported = out / "run" / "starbench" / "reference"
    rows = journal_lines(exported / "pc" / "infer_results.jsonl")
    assert {"unique_id", "model_response", "prediction", "is_correct", "answer_letter", "rotate_id"} <= set(
        rows[0]
    )
    # stored verdicts are never trusted: make them all wrong, the rescore must not change
    for alias in ("pc", "tr", "sr"):
        path = exported / alias / "infer_results.jsonl"
        tampered = [dict(r, prediction="Z", is_correct=False) for r in journal_lines(path)]
        path.write_text("".join(json.dumps(r) + "\n" for r in tampered))
    rescored = _eval(
        ["--benchmark", "starbench", "--data-root", str(root), "--output-dir", str(tmp_path / "o2"),
         "--predictions", str(exported)],
        partial=True,
    )  # fmt: skip
    assert rescored["meta"]["label"] == "run" and rescored["meta"]["source"] == "predictions"
    for key in ("pc", "tr", "sr", "Final MA"):
        assert rescored[key] == own[key]
    assert rescored["summary"]["by_profile"] == own["summary"]["by_profile"]
    for alias in ("pc", "tr", "sr"):
        assert rescored["coverage"][alias] == own["coverage"][alias]
    # the lower-case "(b)" counts in strict only, so the profiles differ
    assert (
        own["summary"]["by_profile"]["strict"]["headline"]
        != own["summary"]["by_profile"]["reference"]["headline"]
    )


def test_official_error_rows_are_failures_in_strict_and_answers_in_reference(
    root: Path, tmp_path: Path
) -> None:
    items = BENCH.load(root, BENCH.task("sr"))
    gold = "ABC"[items[0].options.index(items[0].answer)]
    # the first run's request failed and the official runner stored its error, which happens to hold the gold letter
    rows = [
        official_row(i, f"ERROR: [{gold}] timed out" if n == 0 else "Answer: A") for n, i in enumerate(items)
    ]
    work = tmp_path / "eval_results" / "model-x"
    write_jsonl(work / "sr" / "infer_results.jsonl", rows)
    doc = _eval(["--benchmark", "starbench", "--data-root", str(root), "--output-dir", str(tmp_path / "o"),
                 "--predictions", str(work), "--tasks", "sr"], partial=True)  # fmt: skip
    assert doc["meta"]["label"] == "model-x" and doc["coverage"]["sr"]["failed"] == 1
    hits = [i.options[0] == i.answer for i in items]
    reference = 1 + sum(hits[1:])  # the reference parses "[gold]" out of the error string: right
    assert doc["sr"]["Total"]["AA"] == round(100 * reference / len(items), 2)
    # strict: the failed run is wrong, and a two-option item's third run (the first one again) counts once
    kept = [n for n, i in enumerate(items) if not (len(i.options) == 2 and i.variant == "r2")]
    strict = sum(hits[n] for n in kept if n != 0)
    assert doc["summary"]["by_profile"]["strict"]["tasks"]["sr"] == pytest.approx(100 * strict / len(kept))


def test_a_row_for_another_dataset_version_names_file_line_and_field(root: Path, tmp_path: Path) -> None:
    work = tmp_path / "model-y"
    rows = [official_row(i, "Answer: A") for i in BENCH.load(root, BENCH.task("sr"))]
    rows[4] = dict(rows[4], unique_id="sr_9999@0", id="sr_9999")
    path = work / "sr" / "infer_results.jsonl"
    write_jsonl(path, rows)
    result = invoke(["eval", "--benchmark", "starbench", "--data-root", str(root), "--output-dir",
                     str(tmp_path / "o"), "--predictions", str(work), "--tasks", "sr"])  # fmt: skip
    assert result.code == 2
    assert f"{path} field unique_id: line 5: unique_id 'sr_9999@0' is not a run of the data" in result.stderr
    missing = invoke(["eval", "--benchmark", "starbench", "--data-root", str(root), "--output-dir",
                      str(tmp_path / "o"), "--predictions", str(work), "--tasks", "tr"])  # fmt: skip
    assert (
        missing.code == 2
        and "no <dataset>/infer_results.jsonl for the selected datasets (tr)" in missing.stderr
    )


def test_max_tokens_follow_the_official_rule(root: Path) -> None:
    assert {i.max_tokens for i in BENCH.load(root, BENCH.task("pc"))} == {layout.DEFAULT_TOKENS}
    for alias in ("tr", "sr_ch"):
        assert {i.max_tokens for i in BENCH.load(root, BENCH.task(alias))} == {layout.REASONING_TOKENS}
