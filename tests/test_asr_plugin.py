"""The ASR suite through the real command line (sample, validate, the offline baselines, eval options) and its
two profiles on scripted replies."""

from __future__ import annotations

import json
import re
import shutil
import sys
import types
from pathlib import Path

import av
import pytest
import soundfile

from avibench.benchmarks.asr import layout, prompt
from avibench.declared import score_declared
from avibench.items import Response
from avibench.level_metrics.asr import utterance_errors
from avibench.plugin import get_benchmark
from avibench.refine.asr import transcript
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke

DOCS = Path(__file__).resolve().parents[1] / "docs" / "asr.md"

TASKS = tuple(layout.TASKS)
ENGLISH_TASKS = ("librispeech_test_clean", "librispeech_test_other", "fleurs_en", "commonvoice15_en")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("asr") / "data"
    result = invoke(["sample-data", "--benchmark", "asr", "--out", str(root)])
    assert result.code == 0, result.stderr
    assert "wrote 27 questions in 9 tasks" in result.stdout
    return root


def run_args(data: Path, out: Path, model: str) -> list[str]:
    return ["--benchmark", "asr", "--data-root", str(data), "--output-dir", str(out), "--model", model]


def _decoded_seconds(path: Path) -> float:
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return samples / stream.rate


def test_sample_is_in_the_official_layouts_with_real_media(data: Path) -> None:
    assert "asr: ASR" in invoke(["benchmarks"]).stdout
    transcripts = sorted((data / "LibriSpeech" / "test-clean").glob("*/*/*.trans.txt"))
    assert len(transcripts) == 1
    uid, text = transcripts[0].read_text().splitlines()[0].split(" ", 1)
    flac = transcripts[0].parent / f"{uid}.flac"
    assert uid.startswith(transcripts[0].stem.split(".")[0]) and text.isupper()
    assert (data / layout.AISHELL_TRANSCRIPT).is_file()
    wavs = sorted((data / "data_aishell" / "wav" / "test").glob("*/*.wav"))
    assert len(wavs) == 3 and " " in (data / layout.AISHELL_TRANSCRIPT).read_text().splitlines()[0]
    row = json.loads((data / "commonvoice15_zh.jsonl").read_text().splitlines()[0])
    assert set(row) == {"id", "audio", "text", "language"} and row["language"] == "zh"
    mp3 = data / row["audio"]
    assert mp3.suffix == ".mp3"
    for path, units in ((flac, len(text.split())), (wavs[0], None), (mp3, len(row["text"]))):
        with av.open(str(path)) as container:
            assert container.format.name.split(",")[0] in {"flac", "wav", "mp3"}
        seconds = _decoded_seconds(path)
        assert seconds > 0.3
        if units:  # a tone per word (per character in Chinese), 0.18 s each
            assert seconds == pytest.approx(units * 0.18, abs=0.12)


def test_oracle_scores_zero_and_random_is_far_from_it(data: Path, tmp_path: Path) -> None:
    for model in ("oracle", "random"):
        for stage in ("infer", "refine", "eval"):
            result = invoke([stage, *run_args(data, tmp_path, model)])
            assert result.code == 0, (model, stage, result.stderr)
    oracle = json.loads((tmp_path / "oracle" / "asr" / "eval.json").read_text())
    random_ = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    for task in TASKS:
        rate = "cer" if layout.layout_of(task).language == "zh" else "wer"
        assert oracle[task][rate] == 0.0 and oracle[task]["errors"] == 0, task
        assert oracle[task]["utterances"] == 3 and oracle[task]["words" if rate == "wer" else "chars"] > 0
        assert random_[task][rate] >= 80.0, (task, random_[task])
        for profile in ("reference", "strict"):
            assert oracle["summary"]["by_profile"][profile]["tasks"][task] == 0.0
        low, high = random_["summary"]["intervals"]["tasks"][task]
        assert low <= random_[task][rate] <= high
    assert oracle["summary"]["headline"] is None and "headline" not in oracle
    assert oracle["summary"]["scale"] == "percent error rate, lower is better"
    assert oracle["meta"]["options"] == {"asr_normaliser": "whisper"}


def test_the_open_asr_leaderboard_normaliser_is_an_eval_option(data: Path, tmp_path: Path) -> None:
    for stage in ("infer", "refine"):
        assert invoke([stage, *run_args(data, tmp_path, "random")]).code == 0
    help_text = invoke(["eval", "--benchmark", "asr", "--help"]).stdout
    assert "--asr-normaliser" in help_text
    result = invoke(["eval", *run_args(data, tmp_path, "random"), "--asr-normaliser", "whisper-english"])
    assert result.code == 0, result.stderr
    doc = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    assert doc["meta"]["options"] == {"asr_normaliser": "whisper-english"}


def _leaderboard_folder(root: Path, normaliser_body: str) -> Path:
    """A stand-in for a checkout's ``normalizer/`` folder: ``normalizer.py`` importing its neighbour the way the
    leaderboard's does, with an English normaliser written here."""
    folder = root / "normalizer"
    folder.mkdir(parents=True)
    (folder / "english_abbreviations.py").write_text('english_spelling_normalizer = {"colour": "color"}\n')
    (folder / "normalizer.py").write_text(
        "from .english_abbreviations import english_spelling_normalizer\n\n\n"
        "class EnglishTextNormalizer:\n"
        "    def __init__(self, spelling):\n"
        "        self.spelling = spelling\n\n"
        f"    def __call__(self, text):\n        {normaliser_body}\n"
    )
    return folder


def test_the_leaderboard_normaliser_is_read_from_a_checkout(data: Path, tmp_path: Path) -> None:
    for stage in ("infer", "refine"):
        assert invoke([stage, *run_args(data, tmp_path, "random")]).code == 0
    assert invoke(["eval", *run_args(data, tmp_path, "random")]).code == 0
    plain = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    folder = _leaderboard_folder(tmp_path / "checkout", 'return "same words" if self.spelling else text')
    result = invoke(
        ["eval", *run_args(data, tmp_path, "random"), "--asr-normaliser", f"open-asr-leaderboard={folder}"]
    )
    assert result.code == 0, result.stderr
    doc = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    assert doc["meta"]["options"] == {"asr_normaliser": f"open-asr-leaderboard={folder.resolve()}"}
    for task in TASKS:  # every English text normalises to the same words: no errors; Chinese is untouched
        expected = 0.0 if task in ENGLISH_TASKS else plain[task]["cer"]
        assert doc[task].get("wer", doc[task].get("cer")) == expected, task
    assert invoke(["eval", *run_args(data, tmp_path, "random")]).code == 0  # back to the default, as before
    again = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    assert [again[t] for t in TASKS] == [plain[t] for t in TASKS]


def test_a_leaderboard_folder_that_cannot_be_used_is_named(data: Path, tmp_path: Path) -> None:
    for stage in ("infer", "refine"):
        assert invoke([stage, *run_args(data, tmp_path, "random")]).code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke(
        ["eval", *run_args(data, tmp_path, "random"), "--asr-normaliser", f"open-asr-leaderboard={empty}"]
    )
    assert result.code == 2 and f"{empty}: no normalizer.py" in result.stderr
    broken = _leaderboard_folder(tmp_path / "broken", "return text")
    (broken / "english_abbreviations.py").write_text("raise ValueError('not a spelling map')\n")
    result = invoke(
        ["eval", *run_args(data, tmp_path, "random"), "--asr-normaliser", f"open-asr-leaderboard={broken}"]
    )
    assert result.code == 2, result.stderr
    assert f"{broken}/normalizer.py: cannot build" in result.stderr and "not a spelling map" in result.stderr
    assert "Traceback" not in result.stderr
    assert invoke(["eval", *run_args(data, tmp_path, "random")]).code == 0  # the default still works after it


def test_validate_names_file_entry_and_field(data: Path, tmp_path: Path) -> None:
    root = Path(shutil.copytree(data, tmp_path / "data"))
    manifest = root / "fleurs_en.jsonl"
    lines = manifest.read_text().splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    lines[1] = json.dumps({**second, "language": "zh"})
    lines[2] = json.dumps({k: v for k, v in first.items() if k != "text"} | {"id": "x"})
    manifest.write_text("\n".join([*lines, json.dumps({**first, "audio": "nowhere.wav", "id": "y"})]) + "\n")
    cv = root / "commonvoice15_en.jsonl"
    cv_lines = cv.read_text().splitlines()
    cv.write_text("\n".join([cv_lines[0], '{"id": "a",', cv_lines[1], "[1, 2"]) + "\n")
    transcript_file = next((root / "LibriSpeech" / "test-other").glob("*/*/*.trans.txt"))
    transcript_file.write_text(transcript_file.read_text() + "ONLYONEWORD\n")
    next((root / "data_aishell" / "wav" / "test").glob("*/*.wav")).rename(
        root / "data_aishell" / "wav" / "test" / "S0764" / "BAC009S0764W9999.wav"
    )
    result = invoke(["validate-data", str(root), "--benchmark", "asr"])
    assert result.code == 1
    out = result.stdout
    assert f"error: {manifest} entry 1 field language: 'zh' is not this task's language 'en'" in out
    assert f"error: {manifest} entry 2 field text: is missing" in out
    assert f"error: {manifest} entry 3 field audio: audio file not found: nowhere.wav" in out
    assert f"error: {cv} entry 1: not valid JSON" in out and f"error: {cv} entry 3: not valid JSON" in out
    assert f"{cv} entry 0" not in out and f"{cv} entry 2" not in out  # the good lines around them are read
    assert f"error: {transcript_file} entry 3: expected '<utterance id> <TRANSCRIPT>'" in out
    assert "BAC009S0764W9999.wav: not in the transcript file: left out" in out
    assert "warning:" in out
    load = invoke(["infer", *run_args(root, tmp_path / "out", "oracle"), "--tasks", "fleurs_en"])
    assert load.code != 0 and f"{manifest}" in load.stderr and "language" in load.stderr


def test_prompts_are_the_qwen_omni_wordings(data: Path) -> None:
    bench = get_benchmark("asr")
    assert bench.templates[0] == "qwen2.5-omni"
    english = bench.load(data, bench.task("librispeech_test_clean"))[0]
    chinese = bench.load(data, bench.task("aishell1_test"))[0]
    assert english.system == chinese.system == "You are a speech recognition model."
    assert english.parts[0].kind == "audio" and english.max_tokens == 256
    assert english.parts[1].value == "Transcribe the English audio into text without any punctuation marks."
    assert chinese.parts[1].value == "请将这段中文语音转换为纯文本，去掉标点符号。"
    other = bench.load(data, bench.task("fleurs_zh"), "qwen3-omni")[0]
    assert other.system is None and other.parts[1].value == "请将这段中文语音转换为纯文本。"
    assert prompt.user_text("qwen3-omni", "fr") == "Transcribe the French audio into text."
    lmms = bench.load(data, bench.task("commonvoice15_zh"), "lmms-eval")[0]
    assert lmms.parts[1].value == "Please recognize the speech and only output the recognized content:"
    assert lmms.template == "lmms-eval" and lmms.system is None


REPLIES = [  # (reply, strict reads it, refine method)
    ('Sure! The transcription is: "{text}"', "{text}", "rule"),
    ("I'm sorry, I cannot hear any speech in this audio.", None, "unparsed"),
    ("", "", "rule"),
]


def test_reference_scores_the_reply_as_is_and_strict_cuts_chatter_and_counts_refusals(data: Path) -> None:
    bench = get_benchmark("asr")
    task = bench.task("librispeech_test_clean")
    items = bench.load(data, task)
    responses = []
    for item, (reply, strict, method) in zip(items, REPLIES, strict=True):
        raw = reply.format(text=item.answer)
        assert transcript(raw) == (None if strict is None else strict.format(text=item.answer))
        read = transcript(raw)
        responses.append(Response(item, "answered", raw=raw, refined=read, method=method))
    scored = score_declared(bench, {task.name: responses}, primary="reference", tasks=[task])
    doc, values = scored.document, scored.values[task.name]
    words = [len(i.answer.split()) for i in items]
    chatter = 4  # "sure the transcription is"
    reference = [values[i.key]["reference"] for i in items]
    strict = [values[i.key]["strict"] for i in items]
    assert reference[0] == (chatter, words[0])  # the lead-in's four words are insertions
    assert reference[1][1] == words[1] and reference[1][0] >= max(words[1], 11) - 1  # the refusal's 11 words
    assert reference[2] == (words[2], words[2])  # an empty reply deletes every word
    assert strict == [(0, words[0]), (words[1], words[1]), (words[2], words[2])]
    assert doc[task.name]["utterances"] == 3 and doc[task.name]["words"] == sum(words)
    assert doc["coverage"][task.name]["unparsed"] == 1
    expected_strict = 100 * (words[1] + words[2]) / sum(words)
    assert doc["summary"]["by_profile"]["strict"]["tasks"][task.name] == pytest.approx(expected_strict)
    assert doc[task.name]["wer"] > expected_strict  # the chatter and the refusal's words count as errors


def test_the_official_results_file_is_exported_and_rescored(data: Path, tmp_path: Path) -> None:
    for stage in ("infer", "refine", "eval"):
        assert invoke([stage, *run_args(data, tmp_path, "random")]).code == 0
    exported = tmp_path / "exported"
    result = invoke(["export", *run_args(data, tmp_path, "random"), "--out", str(exported)])
    assert result.code == 0, result.stderr
    rows = json.loads((exported / "fleurs_en.json").read_text())
    assert set(rows[0]) == {"gt", "response", "source", "audio_path"} and rows[0]["source"] == "fleurs_en"
    run_doc = json.loads((tmp_path / "random" / "asr" / "eval.json").read_text())
    rescored = tmp_path / "rescored.json"
    args = ["--benchmark", "asr", "--data-root", str(data), "--output-dir", str(tmp_path)]
    result = invoke(["eval", *args, "--predictions", str(exported), "--out", str(rescored)])
    assert result.code == 0, result.stderr
    doc = json.loads(rescored.read_text())
    assert {t: doc[t] for t in TASKS} == {t: run_doc[t] for t in TASKS}
    rows[0] = {
        **rows[0],
        "response": rows[0]["gt"],
        "gt": rows[0]["gt"] + " again",
    }  # the file's own gt counts
    (exported / "fleurs_en.json").write_text(json.dumps(rows))
    assert invoke(["eval", *args, "--predictions", str(exported), "--out", str(rescored)]).code == 0
    fleurs = json.loads(rescored.read_text())["fleurs_en"]
    assert fleurs["words"] == run_doc["fleurs_en"]["words"] + 1 and fleurs["utterances"] == 3
    rows.append({**rows[1], "audio_path": "elsewhere/none.wav"})
    (exported / "fleurs_en.json").write_text(json.dumps(rows))
    result = invoke(["eval", *args, "--predictions", str(exported), "--out", str(rescored)])
    assert result.code != 0
    assert f"{exported / 'fleurs_en.json'}" in result.stderr and "entry 3" in result.stderr
    assert "audio_path" in result.stderr
    (exported / "fleurs_en.json").write_text("[]\n")  # an empty results file is refused, not all missing
    result = invoke(
        ["eval", *args, "--predictions", str(exported / "fleurs_en.json"), "--out", str(rescored)]
    )
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert f"{exported / 'fleurs_en.json'}: must be a non-empty JSON list" in result.stderr


def test_an_empty_reply_over_http_is_an_empty_transcript_and_a_filtered_one_a_failure(
    data: Path, tmp_path: Path
) -> None:
    """Through the real client and a local server: the model answers nothing (after the client's one re-ask)
    for every clip of one task and is content-filtered on another."""
    empty = FaultPlan(rate=1.0, random_faults=(Fault("empty"),))
    env = {"OPENAI_API_KEY": "sk-asr"}
    for model, plan in (
        ("silent", empty),
        ("filtered", FaultPlan(rate=1.0, random_faults=(Fault("filtered"),))),
    ):
        server = FakeOpenAIServer(plan=plan)
        args = [*run_args(data, tmp_path, model), "--tasks", "librispeech_test_clean"]
        with server.run_in_thread():
            infer = invoke(["infer", *args, "--base-url", server.base_url, "--concurrency", "1"], env)
        journal = tmp_path / model / "asr" / "infer" / "librispeech_test_clean.jsonl"
        records = [json.loads(line) for line in journal.read_text().splitlines()]
        assert [r["attempts"] for r in records] == [2, 2, 2]  # each clip asked again once
        if model == "silent":
            assert infer.code == 0, infer.stderr
            assert invoke(["refine", *args, "--mode", "rules"]).code == 0
            assert invoke(["eval", *args]).code == 0
            doc = json.loads((tmp_path / model / "asr" / "eval.json").read_text())
            entry = doc["librispeech_test_clean"]
            assert entry["wer"] == 100.0 and entry["errors"] == entry["words"] and entry["utterances"] == 3
            coverage = doc["coverage"]["librispeech_test_clean"]
            assert (coverage["answered"], coverage["failed"], coverage["unparsed"]) == (3, 0, 0)
            assert doc["summary"]["by_profile"]["strict"]["tasks"]["librispeech_test_clean"] == 100.0
            assert all(r["predict"] == "" and r["error"] is None for r in records)
            assert again_asks_nothing(args, env)
        else:
            assert infer.code != 0  # a filtered reply is no answer
            assert all(r["error"] and r["predict"] is None for r in records)


def again_asks_nothing(args: list[str], env: dict[str, str]) -> bool:
    server = FakeOpenAIServer()
    with server.run_in_thread():
        result = invoke(["infer", *args, "--base-url", server.base_url], env)
    return result.code == 0 and server.count == 0


def test_the_llm_fallback_reads_only_the_chatter_rules_cannot_cut(data: Path, tmp_path: Path) -> None:
    def model(body: dict) -> str:
        text = json.dumps(body)
        if "You are a speech recognition model." in text:  # the model under test
            return "The transcription of this clip follows he hoped there would be stew"
        return "he hoped there would be stew"  # the refine model, asked for the transcript alone

    server = FakeOpenAIServer(responder=model)
    env = {"OPENAI_API_KEY": "sk-m", "REFINE_BASE_URL": "", "REFINE_API_KEY": "sk-r"}
    args = [*run_args(data, tmp_path, "chatty"), "--tasks", "fleurs_en"]
    with server.run_in_thread():
        env["REFINE_BASE_URL"] = server.base_url
        assert invoke(["infer", *args, "--base-url", server.base_url], env).code == 0
        before = server.count
        refined = invoke(["refine", *args], env)
        assert refined.code == 0, refined.stderr
        # the three answers carry the same chatter: refine's first request goes alone (until its model has
        # answered once), so the other two are the same request, answered from refine's cache
        assert server.count - before == 1 and "llm=" in refined.stdout
        assert invoke(["eval", *args]).code == 0
    doc = json.loads((tmp_path / "chatty" / "asr" / "eval.json").read_text())
    references = [
        item.answer for item in get_benchmark("asr").load(data, get_benchmark("asr").task("fleurs_en"))
    ]
    said = "he hoped there would be stew"
    lead_in = "The transcription of this clip follows "

    def rate(hypothesis: str) -> float:
        counts = [utterance_errors(ref, hypothesis, "en") for ref in references]
        return 100 * sum(e for e, _ in counts) / sum(n for _, n in counts)

    assert doc["coverage"]["fleurs_en"]["unparsed"] == 0
    assert doc["summary"]["by_profile"]["strict"]["tasks"]["fleurs_en"] == pytest.approx(rate(said))
    assert doc["fleurs_en"]["wer"] == pytest.approx(rate(lead_in + said))  # the reference scores the chatter
    assert doc["fleurs_en"]["wer"] > rate(said)


def test_run_card_and_cards_show_each_task_for_want_of_a_headline(data: Path, tmp_path: Path) -> None:
    args = [
        "--model",
        "oracle",
        "--benchmarks",
        "asr",
        "--data-root",
        f"asr={data}",
        "--output-dir",
        str(tmp_path),
    ]
    result = invoke(["run", *args])
    assert result.code == 0, result.stderr
    assert "  librispeech_test_clean        0.00     0.00" in result.stdout
    card = (tmp_path / "oracle" / "card.md").read_text()
    assert "librispeech_test_clean 0.00; librispeech_test_other 0.00" in card
    assert "reference (each task, lower is better)" in card
    row = json.loads((tmp_path / "oracle" / "card.json").read_text())["benchmarks"][0]
    assert row["lower_is_better"] is True and row["tasks"]["strict"]["aishell1_test"] == 0.0
    assert invoke(["cards", "--output-dir", str(tmp_path)]).code == 0
    assert "commonvoice15_zh 0.00" in (tmp_path / "cards.md").read_text()
    report = (tmp_path / "oracle" / "asr" / "report.md").read_text()
    assert "## Headline" not in report and "Error rates in percent (lower is better)" in report


def test_tasks_are_selected_by_language_or_corpus() -> None:
    bench = get_benchmark("asr")
    names = lambda group: [t.name for t in bench.select(group)]  # noqa: E731
    assert names("zh") == names("cer") == ["fleurs_zh", "aishell1_test", "wenetspeech_test_net",
                                           "wenetspeech_test_meeting", "commonvoice15_zh"]  # fmt: skip
    assert names("en") == [
        "librispeech_test_clean",
        "librispeech_test_other",
        "fleurs_en",
        "commonvoice15_en",
    ]
    assert names("LibriSpeech,aishell1") == [
        "librispeech_test_clean",
        "librispeech_test_other",
        "aishell1_test",
    ]
    assert names("fleurs_en") == ["fleurs_en"] and {t.group for t in bench.tasks()} == {"en", "zh"}


class _Rows(list):
    """What the documented recipe uses of a ``datasets`` split: iteration and ``cast_column``."""

    def cast_column(self, name: str, feature: object) -> _Rows:
        return self


def test_the_documented_export_recipe_writes_manifests_that_validate(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/asr.md's FLEURS and Common Voice recipe, run on a stand-in for the hub's splits (the sample's clips)."""
    recipe = re.search(r"```python\n(import json, pathlib, soundfile.*?)```", DOCS.read_text(), re.S)
    assert recipe is not None
    manifests = {t: [json.loads(line) for line in (data / f"{t}.jsonl").read_text().splitlines()]
                 for t in ("fleurs_en", "fleurs_zh", "commonvoice15_en", "commonvoice15_zh")}  # fmt: skip

    def load_dataset(name: str, config: str, split: str) -> _Rows:
        task = {
            "en_us": "fleurs_en",
            "cmn_hans_cn": "fleurs_zh",
            "en": "commonvoice15_en",
            "zh-CN": "commonvoice15_zh",
        }
        rows = manifests[task[config]]
        if name == "google/fleurs":
            return _Rows({"id": k, "path": f"/cache/{r['id']}.wav", "transcription": r["text"],
                          "audio": {"array": soundfile.read(data / r["audio"])[0]}} for k, r in enumerate(rows))  # fmt: skip
        return _Rows({"path": f"cv/{Path(r['audio']).name}", "sentence": r["text"],
                      "audio": {"bytes": (data / r["audio"]).read_bytes()}} for r in rows)  # fmt: skip

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset, Audio=dict))
    monkeypatch.chdir(tmp_path)
    exec(recipe.group(1), {})
    result = invoke(["validate-data", "data/asr", "--benchmark", "asr", "--tasks", "fleurs,commonvoice15"])
    assert "4 task(s) checked, 0 error(s)" in result.stdout, result.stdout
    found = get_benchmark("asr").available(Path("data/asr"))
    assert [t.name for t in found] == ["fleurs_en", "fleurs_zh", "commonvoice15_en", "commonvoice15_zh"]
