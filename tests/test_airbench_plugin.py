"""AIR-Bench through the real command line: sample, validate, infer, refine, eval, report, export, leaderboard.

The Chat judge is the local fake server; its replies are fixed by answer order, so every Chat number below is
computed by hand from the answers the run recorded.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from importlib import resources
from pathlib import Path

import pytest
import yaml

from avibench.benchmarks.airbench import sample
from avibench.benchmarks.airbench.layout import FOUNDATION_SECTION, load
from avibench.level_metrics.airbench import summarize
from avibench.level_metrics.airbench_chat import CHAT_CATEGORIES
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, journal_lines

JUDGE_KEY = "sk-judge-air-7c41d2"
REFERENCE_START = "The recording mainly features"


def judge_answers(body: dict) -> tuple[str, str]:
    """The two answers a judge request shows, in order (the official template's markers)."""
    content = body["messages"][0]["content"]
    first = content.split("[The Start of Assistant 1s Answer]\n")[1].split(
        "\n[The End of Assistant 1s Answer]"
    )
    second = content.split("[The Start of Assistant 2s Answer]\n")[1].split(
        "\n[The End of Assistant 2s Answer]"
    )
    return first[0], second[0]


def fixed_judge(body: dict) -> str:
    """Reference first: the reference gets 8, the model 3. Model first: the model gets 5, the reference 8."""
    first, _ = judge_answers(body)
    return "8 3" if first.startswith(REFERENCE_START) else "5 8"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("air") / "data"
    result = invoke(["sample-data", "--benchmark", "airbench", "--out", str(root)])
    assert result.code == 0, result.stderr
    assert "wrote 70 questions in 2 tasks" in result.stdout
    return root


def run_args(data: Path, out: Path, model: str) -> list[str]:
    return ["--benchmark", "airbench", "--data-root", str(data), "--output-dir", str(out), "--model", model]


def pipeline(data: Path, out: Path, model: str, judge: FakeOpenAIServer, *extra_infer: str) -> dict:
    args = run_args(data, out, model)
    assert invoke(["infer", *args, *extra_infer]).code == 0
    assert invoke(["refine", *args, "--mode", "rules"]).code == 0
    evaluated = invoke(
        ["eval", *args, "--judge-base-url", judge.base_url, "--judge-concurrency", "4"],
        {"JUDGE_API_KEY": JUDGE_KEY},
    )
    assert evaluated.code == 0, evaluated.stderr
    target = out / model / "airbench" / "eval.json"
    assert evaluated.stdout.strip().splitlines()[-1] == f"wrote {target}"
    return json.loads(target.read_text())


def test_listing_validation_and_unknown_tasks(data: Path) -> None:
    listing = invoke(["benchmarks"])
    assert (
        "airbench: AIR-Bench" in listing.stdout
        and "air-official, air-clean (default air-official)" in listing.stdout
    )
    assert invoke(["validate-data", str(data), "--benchmark", "airbench"]).code == 0
    tasks = invoke(["tasks", "--benchmark", "airbench", "--data-root", str(data), "--json"])
    assert {r["task"]: r["found"] for r in json.loads(tasks.stdout)} == {"foundation": 50, "chat": 20}
    unknown = invoke(["infer", *run_args(data, data.parent / "o", "oracle"), "--tasks", "speech"])
    assert unknown.code == 2 and "known tasks: foundation, chat" in unknown.stderr


def test_validation_names_file_entry_and_field(data: Path, tmp_path: Path) -> None:
    root = Path(shutil.copytree(data, tmp_path / "data"))
    meta = FOUNDATION_SECTION.meta_path(root)
    entries = json.loads(meta.read_text())
    entries[3]["answer_gt"] = "nothing like it"
    del entries[5]["task_name"]
    meta.write_text(json.dumps(entries))
    FOUNDATION_SECTION.audio_path(root, entries[7]).unlink()
    result = invoke(["validate-data", str(root), "--benchmark", "airbench"])
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert f"error: {meta} entry 3 field answer_gt: 'nothing like it' is not one of the choices" in lines
    assert f"error: {meta} entry 5 field task_name: is missing or not a string" in lines
    assert any(line.startswith(f"error: {meta} entry 7 field path: audio file ") for line in lines)
    assert lines[-1].endswith("2 task(s) checked, 3 error(s), 0 warning(s)")


def test_oracle_is_perfect_on_foundation_and_chat_is_judged_in_both_orders(
    data: Path, tmp_path: Path
) -> None:
    judge = FakeOpenAIServer(responder=fixed_judge)
    with judge.run_in_thread():
        doc = pipeline(data, tmp_path, "oracle", judge)
    by_profile = doc["summary"]["by_profile"]
    assert set(doc["summary"]["intervals"]["tasks"]) == {"foundation", "chat"}
    assert by_profile["reference"]["tasks"]["foundation"] == 100.0
    assert by_profile["strict"]["tasks"]["foundation"] == 100.0
    assert doc["foundation"]["fail_num"] == 0 and doc["foundation"]["total_sum"] == 50
    assert doc["foundation"]["tasks"]["Audio_Grounding_AudioGrounding"] == {
        "correct": 2,
        "n": 2,
        "accuracy": 1.0,
    }
    # the oracle answers with the reference itself, so the judge replies "8 3" in both orders: the model gets 3
    # with the reference first and 8 with itself first, and wins the second order
    assert judge.count == 40
    for category in CHAT_CATEGORIES:
        row = doc["chat"]["categories"][category]
        assert row["score"] == 5.5 and row["reference_score"] == 5.5 and row["win_rate"] == 0.5
    assert doc["chat"]["average"] == 5.5 and doc["summary"]["tasks"]["chat"] == 55.0
    assert doc["summary"]["headline"] == 77.5
    assert doc["meta"]["template"] == "air-official"
    judge_meta = doc["meta"]["judge"]
    official = yaml.safe_load(resources.files("avibench.prompts").joinpath("airbench/judge.yaml").read_text())
    digest = hashlib.sha256(official["templates"]["air-judge-official"].encode()).hexdigest()
    assert judge_meta["model"] == "gpt-4-0125-preview" and judge_meta["temperature"] == 1.0
    assert judge_meta["max_tokens"] == 1024 and judge_meta["departures"] == []
    assert judge_meta["template"] == "air-judge-official" and judge_meta["template_sha256"] == digest
    assert {(b["model"], b["temperature"], b["max_tokens"]) for b in judge.bodies()} == {
        ("gpt-4-0125-preview", 1.0, 1024)
    }
    assert doc["coverage"]["chat"]["status"] == "scored" and doc["coverage"]["foundation"]["scored"] == 50

    report = invoke(["report", "--benchmark", "airbench", "--label", "oracle", "--output-dir", str(tmp_path)])
    assert report.code == 0
    page = (tmp_path / "oracle" / "airbench" / "report.md").read_text()
    assert "| Audio grounding | sound | 100.00 | 100.00 |" in page
    assert "| speech_and_music | 5.50 | 5.50 | 5.50 | 50.00 | 2 | 0 |" in page
    assert (
        f"Judge: gpt-4-0125-preview, template air-judge-official (sha256 {digest}), temperature 1.0, "
        "max tokens 1024, both answer orders; departures from the official judge: none." in page
    )
    assert "Prompt template: air-official." in page


def test_random_is_near_chance_and_chat_scores_follow_the_judge(tmp_path: Path) -> None:
    root = sample.generate(tmp_path / "data", per_subset=8, seed=3)
    judge = FakeOpenAIServer(responder=fixed_judge)
    with judge.run_in_thread():
        doc = pipeline(root, tmp_path / "out", "random", judge)
    items = load(FOUNDATION_SECTION, root)
    assert len(items) == 200
    by_task: dict[str, list[float]] = {}
    for item in items:
        by_task.setdefault(item.meta["task_name"], []).append(1.0 / len(item.options))
    chance = summarize({task: sum(levels) / len(levels) for task, levels in by_task.items()})["average"]
    for profile in ("reference", "strict"):
        assert abs(doc["summary"]["by_profile"][profile]["tasks"]["foundation"] - 100 * chance) < 10
    # a random answer never begins like the reference: 3 with the reference first, 5 with the model first
    assert doc["chat"]["average"] == 4.0 and doc["summary"]["tasks"]["chat"] == 40.0
    assert doc["chat"]["categories"]["speech"]["n"] == 32 and judge.count == 160


def test_one_part_data_root_reports_the_other_as_absent(tmp_path: Path) -> None:
    root = sample.generate(tmp_path / "data", per_subset=1, chat=False)
    tasks = invoke(["tasks", "--benchmark", "airbench", "--data-root", str(root), "--json"])
    assert {r["task"]: r["found"] for r in json.loads(tasks.stdout)} == {"foundation": 25, "chat": None}
    args = run_args(root, tmp_path / "out", "oracle")
    assert invoke(["infer", *args]).code == 0
    evaluated = invoke(["eval", *args])
    assert evaluated.code == 3 and "chat: no chat data under" in evaluated.stderr, evaluated.stderr
    doc = json.loads((tmp_path / "out" / "oracle" / "airbench" / "eval.json").read_text())
    assert doc["summary"]["incomplete"]["numbers"]["headline"]["tasks"] == ["chat"]
    assert doc["chat"] is None and doc["summary"]["tasks"] == {"foundation": 100.0, "chat": None}
    assert (
        doc["coverage"]["chat"]["status"] == "absent"
        and "Chat_meta.json" in doc["coverage"]["chat"]["reason"]
    )
    assert "judge" not in doc["meta"]


def test_clean_template_is_sent_and_recorded(data: Path, tmp_path: Path) -> None:
    model = FakeOpenAIServer(responder=lambda body: "A")
    with model.run_in_thread():
        args = [*run_args(data, tmp_path, "m"), "--base-url", model.base_url, "--tasks", "foundation"]
        args += ["--skip-probe"]  # every body below is a question's
        result = invoke(["infer", *args, "--prompt-template", "air-clean"], {"OPENAI_API_KEY": "sk-m"})
        assert result.code == 0, result.stderr
    texts = [json.dumps(b) for b in model.bodies()]
    assert len(texts) == 50 and not any("C. None" in t for t in texts)
    assert any("from options A and B to respond" in t for t in texts)
    records = journal_lines(tmp_path / "m" / "airbench" / "infer" / "foundation.jsonl")
    assert {r["params"]["template"] for r in records} == {"air-clean"}
    assert invoke(["eval", *run_args(data, tmp_path, "m"), "--tasks", "foundation"]).code == 0
    doc = json.loads((tmp_path / "m" / "airbench" / "eval.json").read_text())
    assert doc["meta"]["template"] == "air-clean"
    bad = invoke(["infer", *run_args(data, tmp_path, "x"), "--prompt-template", "nope"])
    assert bad.code == 2 and "air-official, air-clean" in bad.stderr


VARIED = ("B", "The answer is C.", "the answer is a", "Dog barking", "I would say (D) here", "Answer: A")


def varied_model(body: dict) -> str:
    """Answers in many shapes: the official rule and the strict extractor read some of them differently."""
    content = json.dumps(body)
    if "You read the reply a model gave" in content:
        return "B"  # the refine fallback's letter
    return VARIED[sum(map(ord, content)) % len(VARIED)]


def test_rescoring_exported_files_reproduces_each_profile(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    server = FakeOpenAIServer(responder=varied_model)
    with server.run_in_thread():
        args = [*run_args(data, out, "m"), "--tasks", "foundation"]
        env = {"OPENAI_API_KEY": "sk-m", "REFINE_BASE_URL": server.base_url, "REFINE_API_KEY": "sk-r"}
        assert invoke(["infer", *args, "--base-url", server.base_url], env).code == 0
        refined = invoke(["refine", *args], env)
        assert refined.code == 0 and "llm=" in refined.stdout
        assert invoke(["eval", *args]).code == 0
    fallback = [json.dumps(b) for b in server.bodies() if "You read the reply" in json.dumps(b)]
    assert fallback and not any("C. None" in b for b in fallback)  # only the real options
    run = json.loads((out / "m" / "airbench" / "eval.json").read_text())["summary"]["by_profile"]
    assert run["reference"]["tasks"]["foundation"] != run["strict"]["tasks"]["foundation"]
    audio_free = Path(
        shutil.copytree(data, tmp_path / "meta_only", ignore=shutil.ignore_patterns("*.wav", "*.flac"))
    )
    for stage, profile in (("infer", "reference"), ("refine", "strict")):
        target = tmp_path / stage
        exported = invoke(["export", *args, "--stage", stage, "--out", str(target)])
        assert exported.code == 0 and "Chat_result_modelx.jsonl" not in exported.stdout
        rescored = invoke(
            [
                "eval",
                "--benchmark",
                "airbench",
                "--data-root",
                str(audio_free),
                "--output-dir",
                str(out),
                "--predictions",
                str(target / "Foundation_result_modelx.jsonl"),
                "--out",
                str(tmp_path / f"{stage}.json"),
                "--tasks",
                "foundation",
            ]
        )
        assert rescored.code == 0, rescored.stderr
        doc = json.loads((tmp_path / f"{stage}.json").read_text())
        assert doc["summary"]["by_profile"][profile] == run[profile]
        assert doc["coverage"]["chat"]["status"] == "absent" and doc["meta"]["source"] == "predictions"


def test_rescoring_chat_uses_the_judge_journal(data: Path, tmp_path: Path) -> None:
    judge = FakeOpenAIServer(responder=fixed_judge)
    with judge.run_in_thread():
        run = pipeline(data, tmp_path, "random", judge)
        args = run_args(data, tmp_path, "random")
        assert invoke(["export", *args, "--stage", "infer"]).code == 0
        folder = tmp_path / "random" / "airbench" / "reference"
        before = judge.count
        rescored = invoke(
            [
                "eval",
                "--benchmark",
                "airbench",
                "--data-root",
                str(data),
                "--output-dir",
                str(tmp_path),
                "--predictions",
                str(folder),
                "--judge-base-url",
                judge.base_url,
                "--out",
                str(tmp_path / "r.json"),
            ],
            {"JUDGE_API_KEY": JUDGE_KEY},
        )
        assert rescored.code == 0, rescored.stderr
        assert judge.count == before  # same answers, same judge requests: every reply comes from the journal
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["summary"]["by_profile"] == run["summary"]["by_profile"]
    assert doc["chat"] == run["chat"] and doc["foundation"] == run["foundation"]


def test_bad_prediction_rows_name_file_line_and_field(data: Path, tmp_path: Path) -> None:
    args = run_args(data, tmp_path, "oracle")
    assert invoke(["infer", *args, "--tasks", "foundation"]).code == 0
    assert invoke(["export", *args, "--stage", "infer", "--out", str(tmp_path / "ref")]).code == 0
    path = tmp_path / "ref" / "Foundation_result_modelx.jsonl"
    lines = path.read_text().splitlines()
    row = json.loads(lines[2]) | {"uniq_id": 999}
    path.write_text("\n".join([*lines[:2], json.dumps(row), *lines[3:]]) + "\n")
    common = ["eval", "--benchmark", "airbench", "--data-root", str(data), "--output-dir", str(tmp_path)]
    result = invoke([*common, "--predictions", str(path)])
    assert result.code == 2
    assert f"{path} entry 3 field uniq_id: '999' is not a question of " in result.stderr
    unnamed = tmp_path / "answers.jsonl"
    unnamed.write_text(lines[0] + "\n")
    assert "cannot tell its section" in invoke([*common, "--predictions", str(unnamed)]).stderr


def test_leaderboard_sets_runs_beside_both_published_tables(data: Path, tmp_path: Path) -> None:
    judge = FakeOpenAIServer(responder=fixed_judge)
    with judge.run_in_thread():
        pipeline(data, tmp_path, "oracle", judge)
    assert invoke(["leaderboard", "--benchmark", "airbench", "--output-dir", str(tmp_path)]).code == 0
    board = json.loads((tmp_path / "leaderboard-airbench.json").read_text())
    # the oracle ran on the generated sample: listed apart, not ranked with the published models
    assert board["foundation"][0]["name"] == "Qwen-Audio-Turbo"
    assert board["other_data"]["foundation"][0]["name"] == "oracle"
    argv = ["leaderboard", "--benchmark", "airbench", "--output-dir", str(tmp_path), "--include-unofficial"]
    assert invoke(argv).code == 0
    board = json.loads((tmp_path / "leaderboard-airbench.json").read_text())
    assert board["foundation"][0]["name"] == "oracle" and board["foundation"][0]["average"] == 100.0
    assert (
        "; media: audio n/a" in board["foundation"][0]["origin"]
    )  # the media probe's verdict beside the numbers
    assert [r["name"] for r in board["foundation"][1:3]] == ["Qwen-Audio-Turbo", "Qwen-Audio"]
    chat = {r["name"]: r for r in board["chat"]}
    assert chat["Qwen2-Audio"]["average"] == 6.93 and chat["oracle"]["average"] == 5.5
    assert [r["name"] for r in board["chat"]][-1] == "Whisper+GPT-4"
