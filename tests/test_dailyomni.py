"""Daily-Omni: the API tester's statistics and the local script's rule pinned on our corpus, the strict profile,
records files cut short, the prompt as the official scripts send it, and the sample through every command."""

from __future__ import annotations

import json
from pathlib import Path

import av
import dailyomni_corpus
import numpy as np
import pytest

from avibench.benchmarks.dailyomni import layout, sample
from avibench.benchmarks.dailyomni.plugin import DailyOmni
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

KEY = "sk-daily-omni-3c1"


def _cells(*triples: tuple[str, int, int]) -> dict:
    return {g: {"correct": c, "total": t, "accuracy": round(100 * c / t, 2)} for g, c, t in triples}


#: print_statistics of the official test_utils.py on tests/dailyomni_corpus.py's records (see its docstring):
#: "Overall Accuracy: 8/13 = 61.54%", requested 18, skipped 2, attempted 16, API failures 3, evaluated 13.
PINNED_API = {
    "Overall Accuracy": 61.54,
    "Overall Correct": 8,
    "Items Requested": 18,
    "Items Skipped (Missing fields/video)": 2,
    "Items Attempted (Processed)": 16,
    "API Call Failures (Errors/Retries exceeded)": 3,
    "Items Evaluated for Accuracy": 13,
    "Accuracy by QA Type": _cells(
        ("AV Event Alignment", 1, 3), ("Comparative", 2, 3), ("Event Sequence", 3, 4), ("Reasoning", 2, 4)
    ),
    "Accuracy by Video Category": _cells(("Education", 4, 4), ("Music", 1, 4), ("Sports", 3, 6)),
    "Accuracy by Video Duration": _cells(("30s", 5, 8), ("60s", 3, 6)),
    "rule": "api",
}
#: The Qwen2.5-Omni script's reading and counting on the same replies: 8/14 (four failures out once).
PINNED_LOCAL_OVERALL = (57.14, 8, 14)


def _rescore(tmp_path: Path, *extra: str) -> dict:
    records = dailyomni_corpus.write(tmp_path / "data")
    out = tmp_path / "out"
    args = ["eval", "--benchmark", "dailyomni", "--data-root", str(tmp_path / "data"), "--predictions",
            str(records), "--output-dir", str(out), "--model", "m", "--allow-partial", *extra]  # fmt: skip
    result = invoke(args)
    assert result.code == 0, result.stderr
    return json.loads((out / "m" / "dailyomni" / "eval.json").read_text())


def test_reference_is_print_statistics(tmp_path: Path) -> None:
    doc = _rescore(tmp_path)
    assert {k: doc[k] for k in PINNED_API} == PINNED_API
    assert doc["summary"]["headline"] == 61.54
    assert doc["meta"]["dataset"]["kind"] == "other"  # 18 questions, not the release's 1,197
    # the groups count answered records only: 14, one more than the overall denominator (the missing video)
    assert sum(c["total"] for c in doc["Accuracy by QA Type"].values()) == 14
    strict = doc["summary"]["by_profile"]["strict"]
    # strict: all 18 in the denominator; right: B, (B), c, **D**, Answer: C (gold C), a. The drummer, D (gold D);
    # "Based on the video, A" reads A, "B or C", "BC" and "assistant\nA" none
    assert strict["official"]["Items Evaluated for Accuracy"] == 18
    assert strict["official"]["Overall Correct"] == 7 and strict["headline"] == 38.89


def test_local_rule_is_an_option_and_recorded(tmp_path: Path) -> None:
    doc = _rescore(tmp_path, "--dailyomni-rule", "local")
    assert (doc["Overall Accuracy"], doc["Overall Correct"], doc["Items Evaluated for Accuracy"]) == (
        PINNED_LOCAL_OVERALL
    )
    assert doc["rule"] == "local" and doc["meta"]["options"] == {"dailyomni_rule": "local"}
    assert list(doc["Accuracy by Video Duration"]) == ["30s", "60s"]


def test_readings_of_each_rule(root: Path) -> None:
    from avibench.level_metrics.dailyomni import api_tester_correct, local_answer

    assert api_tester_correct("Based on the video", "B") and not api_tester_correct("(B)", "B")
    assert api_tester_correct("Answer: C", "A") and not api_tester_correct("error_max_retries", "E")
    assert [local_answer(t) for t in ("assistant\n b", "Based", "(B)", "x assistant C")] == [
        "B",
        "B",
        "(B)",
        "C",
    ]
    item = DailyOmni().load(root, DailyOmni().tasks()[0])[0]
    gold = item.answer
    other = next(x for x in "ABCD" if x != gold)
    bench = DailyOmni()
    for reply in (f"({gold})", f"**{gold}**", f"Answer: {gold}", gold):
        assert bench.extract(item, reply) == gold, reply
    for reply in ("Based on the video", f"{gold} or {other}", f"{gold}{other}", "I cannot tell"):
        assert bench.extract(item, reply) is None, reply


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dailyomni") / "sample"
    assert invoke(["sample-data", "--benchmark", "dailyomni", "--out", str(out)]).code == 0
    return out


def test_truncated_records_name_file_and_line(tmp_path: Path, root: Path) -> None:
    records = dailyomni_corpus.write(tmp_path / "data")
    text = records.read_text()
    records.write_text(text[: len(text) - 40])
    result = invoke(["eval", "--benchmark", "dailyomni", "--data-root", str(tmp_path / "data"), "--predictions",
                     str(records), "--output-dir", str(tmp_path / "o"), "--model", "m"])  # fmt: skip
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1
    assert str(records) in lines[0] and "line 18 is not valid JSON" in lines[0]


def test_an_empty_records_file_is_refused(tmp_path: Path, root: Path) -> None:
    empty = tmp_path / "records.jsonl"
    empty.write_text("")
    result = invoke(["eval", "--benchmark", "dailyomni", "--data-root", str(root), "--predictions", str(empty),
                     "--output-dir", str(tmp_path / "o"), "--model", "m"])  # fmt: skip
    assert result.code == 2 and f"{empty}: holds no records" in result.stderr


def _streams(path: Path) -> tuple[int, int, tuple[float, float, float]]:
    with av.open(str(path)) as container:
        frame = next(container.decode(video=0)).to_ndarray(format="rgb24")
        return len(container.streams.video), len(container.streams.audio), tuple(frame.reshape(-1, 3).mean(0))


def _beeps(path: Path) -> int:
    with av.open(str(path)) as container:
        pcm = np.concatenate([f.to_ndarray().reshape(-1) for f in container.decode(audio=0)])
        rate = container.streams.audio[0].rate
    frame = rate // 100
    loud = np.abs(pcm[: len(pcm) // frame * frame]).reshape(-1, frame).max(axis=1) > 0.1
    return int(np.sum(loud[1:] & ~loud[:-1]) + loud[0])


def test_sample_layout_and_media_answer_their_questions(root: Path) -> None:
    questions = json.loads((root / layout.DATASET).read_text())
    assert len(questions) == 24 and questions[0] == questions[1]  # one question asked twice, as released
    items = DailyOmni().load(root, DailyOmni().tasks()[0])
    assert len({i.key for i in items}) == 24
    for q in questions:
        video = layout.video_path(root, q["video_id"])
        videos, audios, mean = _streams(video)
        assert (videos, audios) == (1, 1)
        right = q["Choice"]["ABCD".index(q["Answer"])].split(". ", 1)[1]
        if q["Question"] == "Which colour fills the screen first?":
            nearest = min(
                sample.COLOURS,
                key=lambda c: sum((a - b) ** 2 for a, b in zip(sample.COLOURS[c], mean, strict=True)),
            )
            assert nearest == right
        if q["Question"] == "How many beeps are heard in the video?":
            assert sample.WORDS[_beeps(video) - 1] == right
    assert invoke(["validate-data", str(root), "--benchmark", "dailyomni"]).code == 0


def test_oracle_is_perfect_and_random_near_chance(root: Path, tmp_path: Path) -> None:
    common = ["--benchmark", "dailyomni", "--data-root", str(root), "--output-dir", str(tmp_path)]
    docs = {}
    for model in ("oracle", "random"):
        assert invoke(["infer", *common, "--model", model]).code == 0
        assert invoke(["refine", *common, "--model", model, "--mode", "rules"]).code == 0
        assert invoke(["eval", *common, "--model", model]).code == 0
        docs[model] = json.loads((tmp_path / model / "dailyomni" / "eval.json").read_text())
    for profile in ("reference", "strict"):
        assert docs["oracle"]["summary"]["by_profile"][profile]["headline"] == 100.0
        assert docs["random"]["summary"]["by_profile"][profile]["headline"] <= 50.0
    assert docs["random"]["summary"]["chance"] == {"dailyomni": 25.0}
    exported = invoke(
        ["export", *common, "--model", "random", "--format", "reference", "--out", str(tmp_path / "x")]
    )
    assert exported.code == 0, exported.stderr
    records = next((tmp_path / "x").rglob("*.jsonl"))
    rescored = tmp_path / "rescored.json"
    args = ["eval", *common, "--model", "again", "--predictions", str(records), "--out", str(rescored)]
    assert invoke(args).code == 0
    again = json.loads(rescored.read_text())
    assert again["Overall Accuracy"] == docs["random"]["Overall Accuracy"]
    assert again["Accuracy by QA Type"] == docs["random"]["Accuracy by QA Type"]
    assert invoke(["eval", *common, "--model", "oracle", "--dailyomni-rule", "local"]).code == 0
    local = json.loads((tmp_path / "oracle" / "dailyomni" / "eval.json").read_text())
    assert local["Overall Accuracy"] == 100.0 and local["rule"] == "local"


def test_the_prompt_and_the_video_with_its_soundtrack_are_sent(root: Path, tmp_path: Path) -> None:
    item = DailyOmni().load(root, DailyOmni().tasks()[0])[0]
    q = json.loads((root / layout.DATASET).read_text())[0]
    assert [p.kind for p in item.parts] == ["video", "text"]
    assert item.parts[1].value == (
        f"Given the video, answer the question below. \n    Question: {q['Question']}\n    Choices: {q['Choice']!r}"
    )
    assert item.system.startswith("\n    Your task is to accurately answer multiple-choice questions")
    server = FakeOpenAIServer(responder=lambda body: "A")
    with server.run_in_thread():
        for media, label in (("data-uri", "uri"), ("frames:2", "frames")):
            args = ["infer", "--benchmark", "dailyomni", "--data-root", str(root), "--model", "m", "--label",
                    label, "--base-url", server.base_url, "--output-dir", str(tmp_path), "--media", media,
                    "--shard", "0/24", "--skip-probe"]  # fmt: skip
            assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
    kinds = [[p["type"] for p in body["messages"][-1]["content"]] for body in server.bodies()]
    assert kinds[0] == ["image_url", "text"]  # the mp4 as a data URI, its soundtrack inside
    assert kinds[1] == ["image_url", "image_url", "input_audio", "text"]  # two frames and the audio track
    assert server.bodies()[0]["messages"][0] == {"role": "system", "content": item.system}
    manifest = json.loads((tmp_path / "frames" / "dailyomni" / "manifest.json").read_text())
    assert "frames:2" in json.dumps(manifest)


def test_the_media_probe_runs_the_video_modality(root: Path) -> None:
    server = FakeOpenAIServer()
    with server.run_in_thread():
        args = ["probe", "--model", "m", "--base-url", server.base_url, "--benchmark", "dailyomni",
                "--data-root", str(root), "--timeout", "20"]  # fmt: skip
        result = invoke(args, {"OPENAI_API_KEY": KEY})
    assert result.code == 0, result.stderr
    assert "video: " in result.stdout and "audio: " not in result.stdout


def test_validate_names_the_entry_and_the_field(tmp_path: Path) -> None:
    dailyomni_corpus.write(tmp_path / "data")
    path = tmp_path / "data" / "qa.json"
    data = json.loads(path.read_text())
    data[3]["Answer"] = "E"
    del data[5]["Type"]
    path.write_text(json.dumps(data))
    result = invoke(["validate-data", str(tmp_path / "data"), "--benchmark", "dailyomni"])
    out = result.stdout + result.stderr
    assert result.code != 0
    assert f"{path} entry 3 field Answer: 'E' is not one of A, B, C, D" in out
    assert f"{path} entry 5 field Type: is missing" in out
    assert "video not found" in out  # the corpus ships no videos
    video = data[0]["video_id"]
    assert f"{path} entry 0 field video_id: video not found: Videos/{video}/{video}_video.mp4" in out


def test_is_correct_is_computed_again_and_a_disagreement_noted(tmp_path: Path) -> None:
    records = dailyomni_corpus.write(tmp_path / "data")
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    answered = next(r for r in rows if not r["skipped"] and not r["api_call_failed"])
    answered["is_correct"] = not answered["is_correct"]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    args = ["eval", "--benchmark", "dailyomni", "--data-root", str(tmp_path / "data"), "--predictions",
            str(records), "--output-dir", str(out), "--model", "m", "--allow-partial"]  # fmt: skip
    assert invoke(args).code == 0
    doc = json.loads((out / "m" / "dailyomni" / "eval.json").read_text())
    assert doc["Overall Accuracy"] == PINNED_API["Overall Accuracy"]
    assert any("1 records' is_correct disagrees" in n for n in doc["coverage"]["dailyomni"]["notes"])


def test_the_official_leaderboard_is_published_beside_runs(tmp_path: Path) -> None:
    rows = {r["model"]: r for r in DailyOmni().published()}
    assert len(rows) == 14  # the README's omni models with visual and audio
    assert rows["Qwen2.5-Omni-7B-Instruct (Open)"]["headline"] == 62.07
    assert rows["Gemini 2.5 Flash (Closed)"]["tasks"] == {"dailyomni": 73.06}
    result = invoke(["leaderboard", "--benchmark", "dailyomni", "--output-dir", str(tmp_path)])
    assert result.code == 0, result.stderr
    board = (tmp_path / "leaderboard-dailyomni.md").read_text()
    assert "| 1 | Qwen3-Omni-30B-A3B-Thinking (Open) |" in board and "73.60" in board


def test_a_run_counts_a_missing_video_as_the_testers_skip(tmp_path: Path) -> None:
    """Infer records a question whose video is absent as a failed request; the tester skips it as "Video file not
    found", which leaves the denominator twice (a skip and a failure): eval and export count it so."""
    root = tmp_path / "data"
    assert invoke(["sample-data", "--benchmark", "dailyomni", "--out", str(root)]).code == 0
    video = json.loads((root / layout.DATASET).read_text())[0]["video_id"]
    gone = [i for i in DailyOmni().load(root, DailyOmni().tasks()[0]) if i.meta["video_id"] == video]
    (root / "Videos" / video / f"{video}_video.mp4").unlink()
    server = FakeOpenAIServer(responder=lambda body: "A")
    args = [
        "--benchmark",
        "dailyomni",
        "--data-root",
        str(root),
        "--model",
        "m",
        "--output-dir",
        str(tmp_path),
    ]
    with server.run_in_thread():
        infer = ["infer", *args, "--base-url", server.base_url, "--skip-probe"]
        invoke(infer, {"OPENAI_API_KEY": KEY})
    assert invoke(["refine", *args, "--mode", "rules"]).code == 0
    assert invoke(["eval", *args, "--allow-partial"]).code == 0
    doc = json.loads((tmp_path / "m" / "dailyomni" / "eval.json").read_text())
    n, skipped = len(DailyOmni().load(root, DailyOmni().tasks()[0])), len(gone)
    assert doc["Items Skipped (Missing fields/video)"] == skipped
    assert doc["Items Attempted (Processed)"] == n - skipped
    assert doc["API Call Failures (Errors/Retries exceeded)"] == skipped
    assert doc["Items Evaluated for Accuracy"] == n - 2 * skipped
    assert invoke(["export", *args]).code == 0
    exported = tmp_path / "m" / "dailyomni" / "reference" / "dailyomni-records.jsonl"
    skips = [json.loads(line) for line in exported.read_text().splitlines() if '"skipped": true' in line]
    assert len(skips) == skipped and all(s["reason"] == "Video file not found" for s in skips)
