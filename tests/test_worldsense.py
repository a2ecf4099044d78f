"""WorldSense: VLMEvalKit's exact matching and judge fallback pinned on our corpus (xlsx and tsv), the strict
profile, prediction files cut short, the prompt as VLMEvalKit builds it, and the sample through every command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import av
import pytest
import worldsense_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from avibench.benchmarks.worldsense import layout
from avibench.benchmarks.worldsense.plugin import WorldSense, matching
from avibench.level_metrics.worldsense import can_infer, exact_letter, strict_letter
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

KEY = "sk-worldsense-7e2"
FIELDS = ("domain", "sub_category", "task_domain", "task_type", "audio_class")

#: VLMEvalKit's rating of tests/worldsense_corpus.py with exact matching (see its docstring), the cells that are
#: not "nan" (every other listed group is "nan"), as fractions.
PINNED_EXACT = {
    "<1min": (0.6, {"Music": 0.6}, {"Covers": 0.6}, {"Recognition": 0.667, "Understanding": 1.0, "Reasoning": 0.0},
              {"Event Sorting": 1.0, "Causal Reasoning": 0.0, "Object Counting": 1.0, "Audio Recognition": 0.5},
              {"Speech": 0.6}),
    "1-2min": (0.2, {"Sports": 0.2}, {"Basketball": 0.2}, {"Recognition": 0.0, "Understanding": 0.5, "Reasoning": 0.0},
               {"Event Sorting": 0.5, "Causal Reasoning": 0.0, "Object Counting": 0.0, "Audio Recognition": 0.0},
               {"Event": 0.2, "Music": 0.2}),
    "2-4min": (0.2, {"Daily Life": 0.2}, {"Cooking": 0.2}, {"Recognition": 0.5, "Understanding": 0.0, "Reasoning": 0.0},
               {"Event Sorting": 0.0, "Causal Reasoning": 0.0, "Object Counting": 1.0, "Audio Recognition": 0.0},
               {"Event": 0.2}),
    "4-6min": (0.8, {"Film & TV": 0.8}, {"Short Films": 0.8}, {"Recognition": 1.0, "Understanding": 0.0, "Reasoning": 1.0},
               {"Event Sorting": 0.0, "Causal Reasoning": 1.0, "Object Counting": 1.0, "Audio Recognition": 1.0},
               {"Speech": 0.8, "Event": 0.8, "Music": 0.8}),
    "6-8min": (0.4, {"Music": 0.4}, {"Covers": 0.4}, {"Recognition": 0.333, "Understanding": 0.0, "Reasoning": 1.0},
               {"Event Sorting": 0.0, "Causal Reasoning": 1.0, "Object Counting": 1.0, "Audio Recognition": 0.0},
               {"Speech": 0.4}),
    ">8min": (0.0, {"Sports": 0.0}, {"Basketball": 0.0}, {"Understanding": 0.0}, {"Event Sorting": 0.0},
              {"Event": 0.0, "Music": 0.0}),
    "overall": (0.423, {"Daily Life": 0.2, "Film & TV": 0.8, "Sports": 0.167, "Music": 0.5},
                {"Cooking": 0.2, "Short Films": 0.8, "Basketball": 0.167, "Covers": 0.5},
                {"Recognition": 0.538, "Understanding": 0.286, "Reasoning": 0.333},
                {"Event Sorting": 0.286, "Causal Reasoning": 0.333, "Object Counting": 0.833, "Audio Recognition": 0.286},
                {"Speech": 0.6, "Event": 0.375, "Music": 0.455}),
}  # fmt: skip
#: VLMEvalKit's per-row scores, exact matching; with the stand-in judge only row 20 changes (to 1).
PINNED_SCORES = [1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0]
#: With the stand-in judge: the overall bucket (the other cells as above), and the 25 prompts VLMEvalKit sent
#: (three each for the five rows without a prediction and for "the red car" and "(b)", one for four others).
PINNED_JUDGE_OVERALL = (0.462, {"Recognition": 0.615, "Understanding": 0.286, "Reasoning": 0.333},
                        {"Speech": 0.667, "Event": 0.375, "Music": 0.455})  # fmt: skip
PINNED_JUDGE_ASKS = {"nan": 15, "the red car": 3, "(b)": 3, "I cannot determine the answer": 1, "b": 1,
                     "It is definitely the second one, the one with the man on the left of it": 1,
                     "I think it's a string instrument": 1}  # fmt: skip
#: VLMEvalKit's first judge prompt, as its stand-in received it.
FIRST_PROMPT = (
    "You are an AI assistant who will help me to match an answer with several options of a single-choice question."
    " You are provided with a question, several options, and an answer, and you need to find which option is most "
    "similar to the answer. If the meaning of all options are significantly different from the answer, output Z. "
    "Your should output a single uppercase character in A, B, C, D (if they are valid options), and Z. \nExample 1: "
    "\nQuestion: What is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\nAnswer: a cute "
    "teddy bear\nYour output: A\nExample 2: \nQuestion: What is the main object in image?\nOptions: A. teddy bear B. "
    "rabbit C. cat D. dog\nAnswer: Spider\nYour output: Z\nExample 3: \nQuestion: What happens in clip 7??\nOptions: "
    "There are several options: \n\nAnswer: nan\nYour output: "
)


def _nonempty(doc: dict, bucket: str) -> tuple:
    cell = doc[bucket]
    return (cell["overall"], *({g: v for g, v in cell[f].items() if v is not None} for f in FIELDS))


def _eval(tmp_path: Path, predictions: Path, label: str, *extra: str, env: dict | None = None) -> dict:
    out = tmp_path / "out"
    args = ["eval", "--benchmark", "worldsense", "--data-root", str(predictions.parent), "--predictions",
            str(predictions), "--output-dir", str(out), "--model", label, "--allow-partial", *extra]  # fmt: skip
    result = invoke(args, env)
    assert result.code == 0, result.stderr
    return json.loads((out / label / "worldsense" / "eval.json").read_text())


def _row_scores(tmp_path: Path, label: str, profile: str = "reference") -> list[float]:
    rows = [json.loads(line) for line in (tmp_path / "out" / label / "worldsense" / "samples.jsonl").open()]
    return [r["scores"][profile] for r in sorted(rows, key=lambda r: int(r["key"]))]


@pytest.mark.parametrize("suffix", ["xlsx", "tsv"])
def test_exact_matching_is_vlmevalkit(tmp_path: Path, suffix: str) -> None:
    xlsx, tsv = worldsense_corpus.write(tmp_path / "data")
    doc = _eval(tmp_path, xlsx if suffix == "xlsx" else tsv, suffix)
    assert list(doc)[:7] == ["<1min", "1-2min", "2-4min", "4-6min", "6-8min", ">8min", "overall"]
    for bucket, expected in PINNED_EXACT.items():
        assert _nonempty(doc, bucket) == expected, bucket
    assert len(doc["overall"]["sub_category"]) == 67 and doc["overall"]["sub_category"]["Auto"] is None
    assert _row_scores(tmp_path, suffix) == PINNED_SCORES
    assert doc["summary"]["headline"] == 42.3
    assert doc["meta"]["dataset"]["kind"] == "other"  # 26 questions, not the release's 3,172
    assert doc["meta"]["judge"]["model"] is None
    notes = doc["coverage"]["worldsense"]["notes"]
    assert doc["coverage"]["worldsense"]["failed"] == 5 and "5 rows without a prediction" in notes[0]


def test_strict_fixes_the_quirks(tmp_path: Path) -> None:
    xlsx, _ = worldsense_corpus.write(tmp_path / "data")
    doc = _eval(tmp_path, xlsx, "s")
    strict = dict(enumerate(_row_scores(tmp_path, "s", "strict")))
    # "ANSWER: C" and "Best option: D" read right; "Failed to obtain...", "Answer: Bass guitar" and
    # "Cannot determine" no longer score; rows without a prediction are failed, scored 0
    assert (strict[2], strict[4]) == (1.0, 1.0)
    assert (strict[11], strict[22], strict[23]) == (0.0, 0.0, 0.0)
    assert doc["summary"]["by_profile"]["strict"]["headline"] == 34.6


def test_readings() -> None:
    m = matching()
    cases = {"ANSWER: C": ("A", "C"), "Best option: D": ("B", "D"), "Cannot determine": ("C", None),
             "Failed to obtain answer via API.": ("A", None), "Answer: Bass guitar": ("B", None),
             "The answer is **D**.": ("D", "D"), "(b)": ("", None), "I'm sorry, but without the image provided": ("", None)}  # fmt: skip
    assert {text: (exact_letter(text, m), strict_letter(text, m)) for text in cases} == cases


def test_strict_reads_no_letter_from_a_reply_that_says_not_available() -> None:
    bench, item = WorldSense(), None
    replies = ("N/A", " n/a ", "NA", "None", "A", "(A)")
    assert [bench.extract(item, r) for r in replies] == [None, None, None, None, "A", "A"]  # type: ignore[arg-type]


def test_judge_fallback_with_a_stand_in_judge(tmp_path: Path) -> None:
    xlsx, _ = worldsense_corpus.write(tmp_path / "data")

    def stand_in(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        said = prompt.rsplit("\nAnswer: ", 1)[1].rsplit("\nYour output: ", 1)[0]
        return worldsense_corpus.STAND_IN.get(said, "Z")

    server = FakeOpenAIServer(responder=stand_in)
    with server.run_in_thread():
        extra = ("--judge-model", "stand-in", "--judge-base-url", server.base_url)
        doc = _eval(tmp_path, xlsx, "j", *extra, env={"OPENAI_API_KEY": KEY})
        prompts = [b["messages"][-1]["content"] for b in server.bodies()]
        again = _eval(tmp_path, xlsx, "j", *extra, "--profile", "strict", env={"OPENAI_API_KEY": KEY})
        assert len(server.bodies()) == len(prompts)  # cached: nothing sent again
    reference = [p for p in prompts if "choice A" not in p]  # strict prompts show the candidates
    asked: dict[str, int] = {}
    for p in reference:
        said = p.rsplit("\nAnswer: ", 1)[1].rsplit("\nYour output: ", 1)[0]
        asked[said] = asked.get(said, 0) + 1
    assert asked == PINNED_JUDGE_ASKS and FIRST_PROMPT in reference
    overall = doc["overall"]
    assert (overall["overall"], overall["task_domain"], overall["audio_class"]) == PINNED_JUDGE_OVERALL
    expected = list(PINNED_SCORES)
    expected[20] = 1
    assert _row_scores(tmp_path, "j") == expected
    assert doc["meta"]["judge"]["model"] == "stand-in" and again["meta"]["judge"]["replies_reused"] > 0


def test_files_cut_short_name_file_and_line(tmp_path: Path) -> None:
    xlsx, tsv = worldsense_corpus.write(tmp_path / "data")
    text = tsv.read_text()
    tsv.write_text(text[: text.rindex("\t")])
    data = xlsx.read_bytes()
    xlsx.write_bytes(data[: len(data) // 2])
    for path, where in ((tsv, "line 35 has 15 of 16 columns"), (xlsx, "not a readable xlsx workbook")):
        args = ["eval", "--benchmark", "worldsense", "--data-root", str(tmp_path / "data"), "--predictions",
                str(path), "--output-dir", str(tmp_path / "o"), "--model", "m"]  # fmt: skip
        result = invoke(args)
        lines = result.stderr.strip().splitlines()
        assert result.code == 2 and len(lines) == 1 and str(path) in lines[0] and where in lines[0], lines


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("worldsense") / "sample"
    assert invoke(["sample-data", "--benchmark", "worldsense", "--out", str(out)]).code == 0
    return out


def test_sample_layout_and_media(root: Path) -> None:
    data = json.loads((root / layout.DATASET).read_text())
    assert len(data) == 6 and sum(len([k for k in r if "task" in k]) for r in data.values()) == 30
    for video, record in data.items():
        with av.open(str(root / "videos" / f"{video}.mp4")) as container:
            assert (len(container.streams.video), len(container.streams.audio)) == (1, 1)
            first = next(container.decode(video=0)).to_ndarray(format="rgb24").reshape(-1, 3).mean(0)
        assert (root / "audios" / f"{video}.wav").is_file()
        srt = (root / "subtitles" / f"{video}.srt").read_text()
        colour = re.search(r"Now the screen is (\w+)\.", srt).group(1)
        task = record["task0"]
        assert task["candidates"]["ABCD".index(task["answer"])].endswith(colour)
        from avibench.benchmarks.worldsense.sample import COLOURS

        nearest = min(
            COLOURS, key=lambda c: sum((a - b) ** 2 for a, b in zip(COLOURS[c], first, strict=True))
        )
        assert nearest == colour
        assert len(record["task4"]["candidates"]) == 3
    assert invoke(["validate-data", str(root), "--benchmark", "worldsense"]).code == 0


def test_oracle_is_perfect_and_random_near_chance(root: Path, tmp_path: Path) -> None:
    common = ["--benchmark", "worldsense", "--data-root", str(root), "--output-dir", str(tmp_path)]
    docs = {}
    for model in ("oracle", "random"):
        assert invoke(["infer", *common, "--model", model]).code == 0
        assert invoke(["refine", *common, "--model", model, "--mode", "rules"]).code == 0
        assert invoke(["eval", *common, "--model", model]).code == 0
        docs[model] = json.loads((tmp_path / model / "worldsense" / "eval.json").read_text())
    for profile in ("reference", "strict"):
        assert docs["oracle"]["summary"]["by_profile"][profile]["headline"] == 100.0
        assert docs["random"]["summary"]["by_profile"][profile]["headline"] <= 55.0
    assert docs["oracle"]["overall"]["overall"] == 1.0
    assert docs["random"]["summary"]["chance"] == {"worldsense": 26.7}
    exported = invoke(
        ["export", *common, "--model", "oracle", "--format", "reference", "--out", str(tmp_path / "x")]
    )
    assert exported.code == 0, exported.stderr
    tsv = next((tmp_path / "x").rglob("*.tsv"))
    again = _eval(tmp_path, tsv.rename(root / "exported.tsv"), "rescored")
    assert again["overall"] == docs["oracle"]["overall"]


def test_the_prompt_and_the_video_with_its_soundtrack_are_sent(root: Path, tmp_path: Path) -> None:
    item = WorldSense().load(root, WorldSense().tasks()[0])[0]
    row = item.source
    assert [p.kind for p in item.parts] == ["text", "video", "audio", "text", "text"]
    assert item.parts[0].value == (
        "Carefully watch this video and pay attention to every detail. Based on your observations, select the best "
        "option that accurately addresses the question."
    )
    assert item.parts[3].value == (
        "\nThese are the frames of a video and the corresponding audio. Select the best answer to the following "
        "multiple-choice question based on the video. Respond with only the letter (A, B, C, or D) of the correct "
        "option.\n"
    )
    assert (
        item.parts[4].value == f"Question: {row['question']}\n" + "\n".join(row["candidates"]) + "\nAnswer: "
    )
    plain = WorldSense().load(root, WorldSense().tasks()[0], "plain")[0]
    assert [p.kind for p in plain.parts] == ["text", "video", "text", "text"]
    server = FakeOpenAIServer(responder=lambda body: "A")
    with server.run_in_thread():
        args = ["infer", "--benchmark", "worldsense", "--data-root", str(root), "--model", "m", "--base-url",
                server.base_url, "--output-dir", str(tmp_path), "--media", "frames:8", "--shard", "0/30",
                "--skip-probe"]  # fmt: skip
        assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
    kinds = [p["type"] for p in server.bodies()[0]["messages"][-1]["content"]]
    # the system text, 8 frames and the video's soundtrack, the audio track, the frames template, the question
    assert kinds == ["text", *["image_url"] * 8, "input_audio", "input_audio", "text", "text"]
    manifest = json.loads((tmp_path / "m" / "worldsense" / "manifest.json").read_text())
    assert "frames:8" in json.dumps(manifest)


def test_the_media_probe_runs_the_video_modality(root: Path) -> None:
    server = FakeOpenAIServer()
    with server.run_in_thread():
        args = ["probe", "--model", "m", "--base-url", server.base_url, "--benchmark", "worldsense",
                "--data-root", str(root), "--timeout", "20"]  # fmt: skip
        result = invoke(args, {"OPENAI_API_KEY": KEY})
    assert result.code == 0, result.stderr
    assert re.search(r"^video: ", result.stdout, re.M) and re.search(r"^audio: ", result.stdout, re.M)


def test_both_appear_in_run_and_the_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the samples go to the benchmarks' sample folders, under the working folder
    args = [
        "run",
        "--model",
        "oracle",
        "--benchmarks",
        "dailyomni,worldsense",
        "--sample",
        "--output-dir",
        "out",
    ]
    result = invoke(args)
    assert result.code == 0, result.stdout + result.stderr
    card = (tmp_path / "out" / "oracle" / "card.md").read_text()
    assert (
        "| Daily-Omni | complete | 100.00 | 100.00 |" in card
        and "| WorldSense | complete | 100.00 | 100.00 |" in card
    )


def test_validate_names_the_video_and_the_field(tmp_path: Path) -> None:
    worldsense_corpus.write(tmp_path / "data")
    path = tmp_path / "data" / "worldsense_qa.json"
    data = json.loads(path.read_text())
    data["vid01"]["task2"]["answer"] = "E"
    del data["vid03"]["domain"]
    del data["vid02"]["task1"]["candidates"]
    path.write_text(json.dumps(data))
    result = invoke(["validate-data", str(tmp_path / "data"), "--benchmark", "worldsense"])
    assert result.code != 0
    assert f"{path} entry 1 field task2.answer: 'E' is not one of A, B, C, D" in result.stdout + result.stderr
    assert f"{path} entry 3 field domain: is missing" in result.stdout + result.stderr
    assert f"{path} entry 2 field task1.candidates: is missing" in result.stdout
    assert (
        "task1.answer" not in result.stdout
    )  # no second problem for the answer of a question without options


#: VLMEvalKit's subtitle lines for this SRT on a sample video (30 frames at 10 fps): its build_prompt selection
#: run outside the project with pysubs2 1.8.1, the frame count and rate read with PyAV.
SRT = (
    "1\r\n00:00:00,250 --> 00:00:00,700\r\nfirst line\r\nsecond line\r\n\r\n2\r\n00:00:00.900 --> 00:00:01,300\r\n"
    "middle\r\n\r\n3\r\n00:00:01,300 --> 00:00:02,950\r\n  spaced  \r\n"
)
PINNED_SUBTITLES = {
    "8frame": "first line second line\nfirst line second line\nmiddle\nspaced\nspaced\nspaced\nspaced",
    "1fps": "middle\nspaced",
    "0.5fps": "",
}


def test_subtitle_settings_pick_vlmevalkits_lines(root: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    bench = WorldSense()
    first = bench.load(copy, bench.tasks()[0], "plain")[0]
    (copy / "subtitles" / f"{first.meta['video']}.srt").write_text(SRT, encoding="utf-8", newline="")
    template = layout.protocol("prompt")["frames"]["subtitles"]
    for setting, lines in PINNED_SUBTITLES.items():
        item = bench.load(copy, bench.tasks()[0], f"subtitles-{setting}")[0]
        assert [p.kind for p in item.parts] == ["text", "video", "text", "text"]
        assert item.parts[2].value == template.format(subtitles=lines), setting
    assert template.startswith(
        "\nThese are the frames of a video. This video's subtitles are listed below:\n"
    )


@settings(max_examples=200, deadline=None)
@given(st.text(), st.dictionaries(st.sampled_from("ABCD"), st.text(max_size=8), max_size=4))
def test_readers_never_crash_and_read_letters_only(text: str, choices: dict[str, str]) -> None:
    m = matching()
    assert exact_letter(text, m) in ("", "A", "B", "C", "D")
    assert strict_letter(text, m) in (None, "A", "B", "C", "D")
    assert can_infer(text, choices, m) in (None, "Z", *choices)
