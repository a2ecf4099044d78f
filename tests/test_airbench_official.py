"""AIR-Bench scored as its authors score it, through the real command line, the real openai client and the local
fake server: the official judge template on the wire, blank answers judged, judge replies kept on record, judge
failures that leave Chat incomplete, Foundation's ``fail_num``, and the official two-order Chat procedure.

The expected Chat numbers are computed here by a restatement of the official procedure (``cal_score.py`` run
once per judge order, then the two orders averaged), independent of the project's scorer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
import yaml

from avibench.benchmarks.airbench import sample
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-judge-official-5d1e0a"
OFFICIAL_OPENING = "You are a helpful and precise assistant for checking the quality of the answer.\n"
FIRST = ("[The Start of Assistant 1s Answer]\n", "\n[The End of Assistant 1s Answer]")
SECOND = ("[The Start of Assistant 2s Answer]\n", "\n[The End of Assistant 2s Answer]")
CATEGORY = {
    "speech_QA": "speech",
    "speech_dialogue_QA": "speech",
    "sound_QA": "sound",
    "sound_generation_QA": "sound",
    "music_QA": "music",
    "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}


def shipped_template(template_id: str = "air-judge-official") -> str:
    text = resources.files("avibench.prompts").joinpath("airbench/judge.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["templates"][template_id]


def shown(body: dict) -> tuple[str, str]:
    """The two answers a judge request shows, in order."""
    content = body["messages"][0]["content"]
    return tuple(content.split(start)[1].split(end)[0] for start, end in (FIRST, SECOND))  # type: ignore[return-value]


@pytest.fixture(scope="module")
def chat_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Chat-only data root: 10 folders, 3 questions each."""
    return sample.generate(tmp_path_factory.mktemp("chat") / "data", per_subset=3, seed=11, foundation=False)


def chat_meta(root: Path) -> list[dict]:
    return json.loads((root / "Chat" / "Chat_meta.json").read_text(encoding="utf-8"))


def write_chat_results(root: Path, path: Path, answer: Callable[[int, dict], str | None]) -> Path:
    """An official Chat result file: every meta entry with ``response`` = ``answer(index, entry)``."""
    rows = [entry | {"response": answer(i, entry)} for i, entry in enumerate(chat_meta(root))]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def rescore(root: Path, out: Path, results: Path, server: FakeOpenAIServer, *extra: str):
    args = ["eval", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
    args += [
        "--predictions",
        str(results),
        "--judge-base-url",
        server.base_url,
        "--out",
        str(out / "eval.json"),
        "--tasks",
        "chat",
    ]
    return invoke([*args, *extra], {"JUDGE_API_KEY": KEY})


def eval_json(out: Path) -> dict:
    return json.loads((out / "eval.json").read_text(encoding="utf-8"))


ANSWERS = (
    "It is a dog barking.",
    "",
    "   ",
    "\n",
    "Same as XAssistant2X, about XQuestionX.",
    "I don't know.",
)


def varied_answer(index: int, entry: dict) -> str | None:
    return ANSWERS[index % len(ANSWERS)]


def test_the_official_template_reaches_the_wire(chat_root: Path, tmp_path: Path) -> None:
    results = write_chat_results(chat_root, tmp_path / "Chat_result_modelx.jsonl", varied_answer)
    server = FakeOpenAIServer(responder=lambda body: "7 6")
    with server.run_in_thread():
        result = rescore(chat_root, tmp_path, results, server, "--allow-partial")
    assert result.code == 0, result.stderr
    template = shipped_template()
    assert template.startswith(OFFICIAL_OPENING)
    expected = []
    for i, entry in enumerate(chat_meta(chat_root)):
        answer = varied_answer(i, entry)
        for first, second in ((entry["answer_gt"], answer), (answer, entry["answer_gt"])):
            content = template
            for name, value in zip(
                ("XAudioX", "XQuestionX", "XAssistant1X", "XAssistant2X"),
                (entry["meta_info"], entry["question"], first, second),
                strict=True,
            ):
                content = content.replace(name, value)
            expected.append(content)
    sent = [b["messages"] for b in server.bodies()]
    assert all(len(m) == 1 and m[0]["role"] == "user" for m in sent)
    assert sorted(m[0]["content"] for m in sent) == sorted(expected)
    assert {(b["model"], b["temperature"], b["max_tokens"]) for b in server.bodies()} == {
        ("gpt-4-0125-preview", 1.0, 1024)
    }
    judge = eval_json(tmp_path)["meta"]["judge"]
    assert judge["template"] == "air-judge-official" and judge["departures"] == []
    assert judge["template_sha256"] == hashlib.sha256(template.encode("utf-8")).hexdigest()


def test_the_reworded_template_is_opt_in_and_recorded(chat_root: Path, tmp_path: Path) -> None:
    results = write_chat_results(chat_root, tmp_path / "Chat_result_modelx.jsonl", varied_answer)
    server = FakeOpenAIServer(responder=lambda body: "7 6")
    with server.run_in_thread():
        argv = ("--judge-template", "air-judge-reworded", "--judge-temperature", "0")
        result = rescore(chat_root, tmp_path, results, server, *argv)
        unknown = rescore(chat_root, tmp_path, results, server, "--judge-template", "nope")
    assert result.code == 0, result.stderr
    assert unknown.code == 2 and "air-judge-official, air-judge-reworded" in unknown.stderr
    reworded = shipped_template("air-judge-reworded").split("\n", 1)[0]
    assert {b["messages"][0]["content"].split("\n", 1)[0] for b in server.bodies()} == {reworded}
    assert {b["temperature"] for b in server.bodies()} == {0.0}
    judge = eval_json(tmp_path)["meta"]["judge"]
    assert judge["template"] == "air-judge-reworded" and judge["temperature"] == 0.0
    assert judge["departures"] == ["template air-judge-reworded", "temperature 0.0 (official 1.0)"]


def test_blank_answers_are_judged_and_only_null_ones_are_skipped(chat_root: Path, tmp_path: Path) -> None:
    def answer(index: int, entry: dict) -> str | None:
        return None if index == 0 else varied_answer(index, entry)

    results = write_chat_results(chat_root, tmp_path / "Chat_result_modelx.jsonl", answer)
    server = FakeOpenAIServer(responder=lambda body: "8 2" if not shown(body)[1].strip() else "6 6")
    with server.run_in_thread():
        result = rescore(chat_root, tmp_path, results, server)
    assert result.code == 3  # the null answer is a question without an answer: Chat is partial
    entries = chat_meta(chat_root)
    judged = [i for i in range(len(entries)) if answer(i, entries[i]) is not None]
    assert server.count == 2 * len(judged) == 2 * (len(entries) - 1)
    shown_answers = {a for b in server.bodies() for a in shown(b)}
    assert {"", "   ", "\n"} <= shown_answers
    doc = eval_json(tmp_path)
    for category in {CATEGORY[e["task_name"]] for e in entries}:
        members = [i for i in judged if CATEGORY[entries[i]["task_name"]] == category]
        assert doc["chat"]["categories"][category]["n"] == len(members)
    assert doc["coverage"]["chat"]["failed"] == 1 and doc["coverage"]["chat"]["answered"] == len(judged)


def test_an_empty_judge_reply_is_a_judgement_on_record(chat_root: Path, tmp_path: Path) -> None:
    results = write_chat_results(chat_root, tmp_path / "Chat_result_modelx.jsonl", varied_answer)
    server = FakeOpenAIServer(responder=lambda body: "7 6")
    server.plan = FaultPlan(markers={"I don't know.": Fault("empty")})
    entries = chat_meta(chat_root)
    empty = sum(varied_answer(i, e) == "I don't know." for i, e in enumerate(entries))
    with server.run_in_thread():
        first = rescore(chat_root, tmp_path, results, server)
        sent = server.count
        assert sent == 2 * len(entries)  # each judgement asked once, an empty reply included
        again = rescore(chat_root, tmp_path, results, server)
        assert server.count == sent  # a finished eval sends nothing, the empty replies included
        accepted = rescore(chat_root, tmp_path, results, server, "--allow-partial")
    assert first.code == 3 and again.code == 3 and accepted.code == 0, first.stderr
    assert "judge requests failed" not in first.stderr + first.stdout
    doc = eval_json(tmp_path)
    assert doc["meta"]["judge"]["requests_sent"] == 0 and doc["meta"]["judge"]["replies_reused"] == 2 * len(
        entries
    )
    assert doc["coverage"]["chat"]["judge_failures"] == 2 * empty
    (journal,) = tmp_path.glob("*/airbench/judge/chat.jsonl")
    records = journal_lines(journal)
    blank = [r for r in records if r["reply"] == ""]
    assert len(blank) == 2 * empty and all(r["error"] is None for r in blank)


def _oracle_args(root: Path, out: Path) -> list[str]:
    """The oracle's run of AIR-Bench on ``root``, kept under ``out``."""
    return [
        "--benchmark",
        "airbench",
        "--data-root",
        str(root),
        "--output-dir",
        str(out),
        "--model",
        "oracle",
    ]


def test_a_judge_that_never_gives_scores_leaves_chat_incomplete(tmp_path: Path) -> None:
    root = sample.generate(tmp_path / "data", per_subset=1, seed=3)
    out = tmp_path / "out"
    args = _oracle_args(root, out)
    assert invoke(["infer", *args]).code == 0 and invoke(["refine", *args, "--mode", "rules"]).code == 0
    server = FakeOpenAIServer(responder=lambda body: "Assistant 1 is more detailed.")
    with server.run_in_thread():
        judged = [*args, "--judge-base-url", server.base_url]
        result = invoke(["eval", *judged], {"JUDGE_API_KEY": KEY})
        allowed = invoke(["eval", *judged, "--allow-partial"], {"JUDGE_API_KEY": KEY})
    assert result.code == 3 and allowed.code == 0 and server.count == 20
    reason = (
        "20 of 20 judge replies give no scores (reference parser); the judge replied 'Assistant 1 is more "
    )
    assert f"chat: partial: {reason}detailed.' x20" in result.stdout
    doc = json.loads((out / "oracle" / "airbench" / "eval.json").read_text())
    assert doc["coverage"]["chat"]["status"] == "partial" and doc["summary"]["tasks"]["chat"] is None
    assert doc["summary"]["incomplete"]["numbers"]["headline"]["tasks"] == ["chat"]


def test_blank_and_none_foundation_answers_count_in_fail_num(tmp_path: Path) -> None:
    root = sample.generate(tmp_path / "data", per_subset=2, seed=4, chat=False)
    out = tmp_path / "out"
    args = _oracle_args(root, out)
    assert invoke(["infer", *args]).code == 0
    assert invoke(["export", *args, "--stage", "infer", "--out", str(tmp_path / "ref")]).code == 0
    path = tmp_path / "ref" / "Foundation_result_modelx.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    blanks = {0: "", 3: "None", 7: "  \n", 12: " None\n"}
    for index, response in blanks.items():
        rows[index]["response"] = response
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    common = ["eval", "--benchmark", "airbench", "--data-root", str(root), "--output-dir", str(out)]
    result = invoke(
        [*common, "--predictions", str(path), "--out", str(tmp_path / "e.json"), "--tasks", "foundation"]
    )
    assert result.code == 0, result.stderr
    doc = json.loads((tmp_path / "e.json").read_text())
    assert doc["foundation"]["fail_num"] == len(blanks) and doc["foundation"]["total_sum"] == 50 - len(blanks)
    assert doc["coverage"]["foundation"]["status"] == "scored"
    assert not doc["summary"]["incomplete"]["tasks"]  # the headline only names Chat, not selected
    strict = doc["summary"]["by_profile"]["strict"]["foundation"]
    assert doc["summary"]["by_profile"]["reference"]["tasks"]["foundation"] == 100.0
    assert min(strict["tasks"].values()) < 100.0
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[1:]))  # a question never answered is missing
    missing = invoke([*common, "--predictions", str(path), "--out", str(tmp_path / "m.json")])
    doc = json.loads((tmp_path / "m.json").read_text())
    assert missing.code == 3 and doc["foundation"]["fail_num"] == len(blanks) - 1
    assert doc["coverage"]["foundation"]["missing"] == 1


# ---- the official two-order procedure -------------------------------------------------------------------------

REPLIES = (
    "8 6",
    "7 7",
    " 5 9\n",
    "3 10",
    "+7 08",
    "-2 6",
    "1_0 4",
    "\u0667 \u0665",
    "6\t 9",
    "9  3",
    "11 4",
    "4 12",
    "",
    "Assistant 1: 8\nAssistant 2: 6",
    "7.5 6",
    "0 6",
    "6 4 ",
    "10 10",
)


def official_judge(body: dict) -> str:
    """A reply picked by a hash of the request's text: the same request always gets the same reply."""
    digest = hashlib.sha256(body["messages"][0]["content"].encode("utf-8")).digest()
    return REPLIES[digest[0] % len(REPLIES)]


def cal_score(rows: list[tuple[str, str]], model_first: bool) -> dict[str, dict[str, float | int]]:
    """One run of the official ``cal_score.py`` over (task_name, judge reply) rows, restated: per category the
    parsed replies, the mean of each assistant's score and the model's win rate (the model is Assistant 2,
    or Assistant 1 in the swapped, 'cir', run)."""
    sums: dict[str, list[float]] = {}
    for task_name, reply in rows:
        tokens = reply.strip().replace("\n", "").split(" ")
        if len(tokens) != 2:
            continue
        try:
            one, two = int(tokens[0]), int(tokens[1])
        except ValueError:
            continue
        if one > 10 or two > 10:
            continue
        model, reference = (one, two) if model_first else (two, one)
        total = sums.setdefault(CATEGORY[task_name], [0, 0, 0, 0])
        total[0] += 1
        total[1] += model
        total[2] += reference
        total[3] += model > reference
    return {
        c: {"n": t[0], "model": t[1] / t[0], "reference": t[2] / t[0], "win": t[3] / t[0]}
        for c, t in sums.items()
    }


def test_rescoring_reproduces_the_official_two_order_procedure(chat_root: Path, tmp_path: Path) -> None:
    def answer(index: int, entry: dict) -> str:
        """A distinct answer per question, blank ones included (spaces; the empty string once)."""
        if index % 5 in (1, 3):
            return " " * (index - 1)
        return f"{('A dog barks twice.', 'Music with drums.', 'Someone laughs.')[index % 3]} ({index})"

    entries = chat_meta(chat_root)
    results = write_chat_results(chat_root, tmp_path / "Chat_result_modelx.jsonl", answer)
    by_answer = {answer(i, e): e for i, e in enumerate(entries)}
    assert len(by_answer) == len(entries) and "" in by_answer
    server = FakeOpenAIServer(responder=official_judge)
    with server.run_in_thread():
        result = rescore(chat_root, tmp_path, results, server, "--allow-partial")
    assert result.code == 0, result.stderr
    reference_first: list[tuple[str, str]] = []
    model_first: list[tuple[str, str]] = []
    assert server.count == 2 * len(entries)  # one request per judgement: an empty reply is not asked again
    for body in server.bodies():
        first, second = shown(body)
        rows, entry = (
            (model_first, by_answer[first]) if first in by_answer else (reference_first, by_answer[second])
        )
        rows.append((entry["task_name"], official_judge(body)))
    assert len(reference_first) == len(model_first) == len(chat_meta(chat_root))
    plain, cir = cal_score(reference_first, False), cal_score(model_first, True)
    doc = eval_json(tmp_path)
    for category, row in doc["chat"]["categories"].items():
        assert row["n"] == sum(CATEGORY[e["task_name"]] == category for e in entries)
        for name, official in (("reference_first", plain), ("model_first", cir)):
            order = row["orders"][name]
            assert order["n"] == official.get(category, {}).get("n", 0)
        both = [o[category] for o in (plain, cir) if category in o]
        assert row["score"] == pytest.approx(sum(o["model"] for o in both) / len(both), abs=1e-12)
        assert row["reference_score"] == pytest.approx(
            sum(o["reference"] for o in both) / len(both), abs=1e-12
        )
        assert row["win_rate"] == pytest.approx(sum(o["win"] for o in both) / len(both), abs=1e-12)
    parsed = sum(o["n"] for o in plain.values()) + sum(o["n"] for o in cir.values())
    assert 0 < parsed < 2 * len(entries)  # some replies failed to parse, so the check reaches that path
    assert doc["coverage"]["chat"]["judge_failures"] == 2 * len(entries) - parsed
