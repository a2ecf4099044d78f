"""The judged-answers kit: a judged toy benchmark on it (``judged_toy.py``) through sample data, infer, eval against
the local judge server, a re-run that sends nothing, the failure accounting in coverage and ``meta.judge``; and the
declaration read from its template data file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.errors import AvibenchError
from avibench.kits.judged import (
    Judge,
    JudgedParts,
    JudgeNotConfigured,
    JudgeSettings,
    Verdicts,
    judge_paragraph,
    judge_parts,
)
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins, run_args

KEY = "sk-judged-toy-5e1f"
HERE = Path(__file__).parent


@pytest.fixture
def toy(tmp_path: Path):
    with registered_plugins(
        tmp_path / "site", "judgedtoy", {"judged-toy": "judged_toy:JudgedToy"}, Path(__file__).parent
    ):
        yield


def _judge(body: dict) -> str:
    """7 for every answer but the one about q2's tone (660 Hz), which gets a reply no parser reads."""
    return "Seven out of ten" if "660 Hz" in body["messages"][0]["content"] else " 7\n"


def test_a_judged_benchmark_on_the_kit(toy: None, tmp_path: Path) -> None:
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "judged-toy", "--out", str(root)]).code == 0
    common = run_args("judged-toy", root, out, "run")
    assert invoke(["infer", *common, "--model", "random"]).code == 0
    judge = FakeOpenAIServer(responder=_judge)
    with judge.run_in_thread():
        args = ["eval", *common, "--judge-base-url", judge.base_url, "--judge-model", "j"]
        partial = invoke(args, {"JUDGE_API_KEY": KEY})
        sent = judge.count
        again = invoke([*args, "--allow-partial"], {"JUDGE_API_KEY": KEY})
    assert partial.code == 3, partial.stderr  # one reply unreadable: the task is partial
    assert sent == 4 and judge.count == sent  # one request per answer; the re-run sends none
    assert again.code == 0, again.stderr
    assert judge.requests[0].body["temperature"] == 0.0 and judge.requests[0].body["max_tokens"] == 16
    doc = json.loads((out / "run" / "judged-toy" / "eval.json").read_text())
    assert doc["summary"]["by_profile"]["reference"]["tasks"] == {"open": pytest.approx(70.0)}
    cover = doc["coverage"]["open"]
    assert cover["status"] == "partial"
    assert (
        cover["reason"]
        == "1 of 4 judge replies unreadable (reference parser); the judge replied 'Seven out of ten' x1"
    )
    meta = doc["meta"]["judge"]
    assert (meta["model"], meta["requests_sent"], meta["replies_reused"]) == ("j", 0, 4)
    assert meta["template"] == "judged-toy/judged_toy_judge.json"
    assert meta["departures"] == ["model j (official toy-judge-1)"]


def test_without_a_key_nothing_is_asked_and_the_error_names_the_variables(toy: None, tmp_path: Path) -> None:
    root, out = tmp_path / "data", tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", "judged-toy", "--out", str(root)]).code == 0
    common = run_args("judged-toy", root, out, "run")
    assert invoke(["infer", *common, "--model", "random"]).code == 0
    result = invoke(["eval", *common], {})
    assert result.code != 0 and "JUDGE_API_KEY or OPENAI_API_KEY" in result.stderr


def _file(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(fields), encoding="utf-8")
    return path


def test_the_settings_come_from_the_template_data_file(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        source="s",
        model="m0",
        user="u",
        samples=3,
        asks=2,
        temperature=0.5,
        top_p=0.95,
        max_tokens=64,
    )
    judge = Judge("bench", path, template_options=True, keep_empty=True)
    settings = judge.settings({"judge_temperature": 0.2}, env={"JUDGE_API_KEY": "k"})
    assert (settings.model, settings.samples, settings.temperature, settings.max_tokens) == ("m0", 3, 0.2, 64)
    assert settings.params() == {"temperature": 0.2, "max_tokens": 64, "top_p": 0.95, "n": 3}
    assert settings.retry.empty_retries == 0 and settings.api_key == "k" and judge.asks == 2
    assert judge.departures(settings, judge.template()) == ["temperature 0.2 (official 0.5)"]
    assert judge.journal(tmp_path) == tmp_path / "judge" / "bench.jsonl"
    with pytest.raises(AvibenchError, match="holds one judge template"):
        judge.template("other")


def test_a_template_file_without_its_source_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"judge\.json: field 'source' missing"):
        Judge("bench", _file(tmp_path, model="m", user="u")).template()


def test_named_templates_and_an_unknown_id(tmp_path: Path) -> None:
    path = _file(tmp_path, source="s", model="m", default="a", templates={"a": "A {x}", "b": "B {x}"})
    judge = Judge("bench", path)
    assert (judge.template().id, judge.template("b").text) == ("a", "B {x}")
    with pytest.raises(AvibenchError, match=r"unknown judge template 'c' .* known: a, b"):
        judge.template("c")


def test_failure_accounting() -> None:
    judge = Judge(
        "bench", HERE / "judged_toy_judge.json", parsers={"reference": lambda r: r if r.isdigit() else None}
    )
    verdicts = Verdicts(replies={"a": ["7"], "b": [None], "c": ["?"]}, failed=1, first_error="HTTP 500")
    assert verdicts.unreadable(judge.parsers["reference"]) == [("b", None), ("c", "?")]
    cover = judge.coverage({"status": "scored", "reason": ""}, verdicts, "reference")
    assert cover == {
        "status": "partial",
        "reason": "1 judge requests failed (HTTP 500); re-run eval to retry them; "
        "1 of 3 judge replies unreadable (reference parser); the judge replied '?' x1",
    }
    assert judge.coverage({"status": "scored"}, Verdicts(replies={"a": ["7"]}), "reference") == {
        "status": "scored"
    }
    assert JudgeSettings(model="m").params() == {"temperature": 0.0, "max_tokens": 1024}


def test_judge_parts_tell_a_missing_key_from_a_judge_that_cannot_run() -> None:
    def no_key() -> Verdicts:
        raise JudgeNotConfigured("no API key for the judge")

    def broken() -> Verdicts:
        raise AvibenchError("the template has no {response}")

    done = Verdicts(replies={"q1": ["7"]})
    parts = judge_parts({"a": no_key, "b": lambda: done, "c": broken, "d": no_key})
    assert parts.verdicts == {"b": done}
    assert parts.unjudged == {
        "a": "not judged: no API key for the judge",
        "c": "the template has no {response}",
        "d": "not judged: no API key for the judge",
    }
    # a missing key is a note naming every part left without a judge (partial); a broken judge an error
    assert parts.notes == ["not judged: a, d: no API key for the judge; the scores are partial without them"]
    assert parts.errors == ["c not scored: the template has no {response}"]
    assert judge_parts({}) == JudgedParts()


def test_judge_paragraph_states_the_judge_of_meta() -> None:
    meta = {
        "model": "m",
        "template": "t",
        "template_sha256": "abc",
        "temperature": 0.5,
        "max_tokens": 9,
        "n": 3,
    }
    meta |= {"departures": ["model m (official o)"], "requests_sent": 4, "replies_reused": 6}
    (paragraph,) = judge_paragraph({"meta": {"judge": meta}}, "both answer orders")
    assert paragraph.text == (
        "Judge: m, template t (sha256 abc), temperature 0.5, max tokens 9, 3 replies per request, both answer "
        "orders; departures from the official judge: model m (official o). 4 requests sent by this eval, 6 "
        "replies taken from the judge journal."
    )
    assert judge_paragraph({"meta": {}}) == []
