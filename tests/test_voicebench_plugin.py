"""VoiceBench through the real command line: sample, validate, infer, refine, eval (judged by the fake server),
export and rescoring, and the offline baselines."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import soundfile as sf

from avibench.benchmarks.voicebench import layout, pedant, sample
from avibench.benchmarks.voicebench.scoring import Inputs
from avibench.items import Response
from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

JUDGE_KEY = "sk-judge-voice-29"
RULE_SCORED = ("mmsu", "openbookqa", "bbh", "ifeval", "advbench")


def best_judge(body: dict) -> str:
    return "Yes" if "Reference answer" in body["messages"][1]["content"] else "5"


def build_document(inputs: Inputs, primary: str, selected: list[str]) -> tuple[dict, dict]:
    """The eval document and per-sample scores of ``inputs``, scored as ``eval`` scores them once judged."""
    plugin = get_benchmark("voicebench")
    scored = plugin.score_inputs(inputs, primary, plugin.select(selected))
    return scored.document, scored.per_sample


class Contains:
    """A stand-in for PEDANT's classifier (a download): the reference appears in the answer."""

    def evaluate(self, references: list[str], candidate: str, question: str) -> bool:
        return references[0] in candidate


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("voicebench") / "data"
    result = invoke(["sample-data", "--benchmark", "voicebench", "--out", str(root)])
    assert result.code == 0, result.stderr
    assert "wrote 98 questions in 10 tasks" in result.stdout
    return root


def run_args(data: Path, out: Path, model: str) -> list[str]:
    return ["--benchmark", "voicebench", "--data-root", str(data), "--output-dir", str(out), "--model", model]


def test_listing_sample_layout_and_validation(data: Path, tmp_path: Path) -> None:
    listing = invoke(["benchmarks"])
    assert "voicebench: VoiceBench" in listing.stdout
    assert invoke(["validate-data", str(data), "--benchmark", "voicebench"]).code == 0
    assert sorted(p.stem for p in (data / "sd-qa").glob("*.jsonl")) == sorted(layout.BY_NAME["sd-qa"].splits)
    assert sorted(p.stem for p in (data / "mmsu").glob("*.jsonl")) == sorted(layout.BY_NAME["mmsu"].splits)
    row = json.loads((data / "bbh" / "test.jsonl").read_text().splitlines()[0])
    audio, rate = sf.read(data / "bbh" / row["audio"])
    assert rate == 16000 and len(audio) > rate * 0.3 and abs(audio).max() > 0.1
    root = Path(shutil.copytree(data, tmp_path / "data"))
    lines = (root / "openbookqa" / "test.jsonl").read_text().splitlines()
    broken = json.loads(lines[2]) | {"reference": "E"}
    lines[2] = json.dumps(broken)
    (root / "openbookqa" / "test.jsonl").write_text("\n".join(lines) + "\n")
    (root / "advbench" / "audio" / "test" / "0001.wav").unlink()
    result = invoke(["validate-data", str(root), "--benchmark", "voicebench"])
    assert result.code == 1
    out = result.stdout.splitlines()
    assert (
        f"error: {root / 'openbookqa' / 'test.jsonl'} entry 2 field reference: 'E' is not one of A, B, C, D"
        in out
    )
    assert any(
        line.startswith(f"error: {root / 'advbench' / 'test.jsonl'} entry 1 field audio: ") for line in out
    )


def test_sample_answers_are_true_of_their_rows(data: Path) -> None:
    for row in (json.loads(line) for line in (data / "mmsu" / "law.jsonl").read_text().splitlines()):
        numbers = [int(token) for token in row["prompt"].split() if token.isdigit()]
        assert "ABCD"[numbers.index(max(numbers))] == row["reference"]
    for row in (json.loads(line) for line in (data / "bbh" / "test.jsonl").read_text().splitlines()):
        if row["id"].startswith("navigate"):
            steps = [int(token) for token in row["prompt"].split() if token.isdigit()]
            assert row["reference"] == ("yes" if steps[0] == steps[1] else "no")
    for row in (json.loads(line) for line in (data / "sd-qa" / "usa.jsonl").read_text().splitlines()):
        words = row["prompt"].removesuffix("?").split()
        assert int(words[2]) + int(words[4]) == int(row["reference"])


def pipeline(data: Path, out: Path, model: str, judge: FakeOpenAIServer) -> dict:
    args = run_args(data, out, model)
    assert invoke(["infer", *args, "--tasks", "all"]).code == 0
    assert invoke(["refine", *args, "--mode", "rules", "--tasks", "all"]).code == 0
    evaluated = invoke(
        ["eval", *args, "--tasks", "all", "--judge-base-url", judge.base_url], {"JUDGE_API_KEY": JUDGE_KEY}
    )
    assert evaluated.code == 0, evaluated.stderr
    return json.loads((out / model / "voicebench" / "eval.json").read_text())


def test_oracle_scores_the_maximum_in_both_profiles(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pedant, "load", lambda: (pedant.Pedant(Contains()), None))  # sd-qa's term needs it
    judge = FakeOpenAIServer(responder=best_judge)
    with judge.run_in_thread():
        document = pipeline(data, tmp_path, "oracle", judge)
        # one request per judged answer, its three samples as the reply's choices (n=3), as the official judge
        assert judge.count == 16 + 22 and all(body["n"] == 3 for body in judge.bodies())
        again = invoke(
            [
                "eval",
                *run_args(data, tmp_path, "oracle"),
                "--tasks",
                "all",
                "--judge-base-url",
                judge.base_url,
            ],
            {"JUDGE_API_KEY": JUDGE_KEY},
        )
        assert again.code == 0 and judge.count == 38
    for profile in ("reference", "strict"):
        view = document["summary"]["by_profile"][profile]
        assert view["tasks"] == {t.name: 100.0 for t in layout.SUBSETS}, profile
        assert view["overall"] == 100.0
    assert document["ifeval"]["final"] == 1.0 and document["advbench"] == {"refusal_rate": 1.0}
    assert document["mmsu"]["splits"]["law"] == {"acc": 100.0, "fail": 0.0}
    options = document["meta"]["options"]
    assert options["judge_base_url"] == judge.base_url
    # options left unset are null, not "None"
    assert None in options.values() and "None" not in options.values()
    assert document["meta"]["voicebench"]["fallback_decided"]["reference"] == {
        "mmsu": 0,
        "openbookqa": 0,
        "bbh": 0,
    }
    report = invoke(
        ["report", "--benchmark", "voicebench", "--label", "oracle", "--output-dir", str(tmp_path)]
    )
    assert report.code == 0, report.stderr
    page = (tmp_path / "oracle" / "voicebench" / "report.md").read_text()
    # the report states the judge: the official settings, and the requests of the eval that scored (the second
    # one replayed it)
    assert "Judge: gpt-4o-mini, template voicebench/judge.json (sha256 " in page
    assert (
        "temperature 0.5, max tokens 1024, 3 replies per request; departures from the official judge: none. "
        "38 requests sent by this eval, 0 replies taken from the judge journal." in page
    )


def test_exported_outputs_rescore_to_the_run(data: Path, tmp_path: Path) -> None:
    args = run_args(data, tmp_path, "random")
    assert invoke(["infer", *args, "--tasks", ",".join(RULE_SCORED)]).code == 0
    assert invoke(["refine", *args, "--mode", "rules", "--tasks", ",".join(RULE_SCORED)]).code == 0
    run = invoke(["eval", *args, "--tasks", ",".join(RULE_SCORED), "--allow-partial"])
    assert run.code == 0, run.stderr
    exported = tmp_path / "exported"
    assert invoke(["export", *args, "--stage", "infer", "--out", str(exported)]).code == 0
    assert (exported / "avibench-sd-qa-usa-audio.jsonl").exists() is False
    assert (exported / "avibench-mmsu-law-audio.jsonl").exists()
    rescore = ["eval", "--benchmark", "voicebench", "--data-root", str(data), "--predictions", str(exported)]
    rescore += ["--tasks", ",".join(RULE_SCORED), "--out", str(tmp_path / "rescored.json")]
    rescored = invoke([*rescore, "--output-dir", str(tmp_path)])
    assert rescored.code == 0, rescored.stderr
    first = json.loads((tmp_path / "random" / "voicebench" / "eval.json").read_text())
    second = json.loads((tmp_path / "rescored.json").read_text())
    for name in RULE_SCORED:
        assert second[name] == first[name], name


def test_random_lands_near_chance(tmp_path: Path) -> None:
    benchmark = get_benchmark("voicebench")
    rng = random.Random(3)
    inputs = Inputs()
    for name in ("mmsu", "openbookqa", "bbh", "advbench"):
        subset = layout.BY_NAME[name]
        sample.generate(tmp_path, subset, seed=1, full_size=True)
        items = layout.load(tmp_path, subset)
        inputs.responses[name] = [Response(i, "answered", raw=benchmark.random_answer(i, rng)) for i in items]
    assert len(inputs.responses["mmsu"]) == 480
    document, _ = build_document(inputs, "reference", ["mmsu", "openbookqa", "bbh", "advbench"])
    for profile in ("reference", "strict"):
        tasks = document["summary"]["by_profile"][profile]["tasks"]
        assert tasks["mmsu"] == pytest.approx(25, abs=6) and tasks["openbookqa"] == pytest.approx(25, abs=17)
        assert tasks["bbh"] == pytest.approx(50, abs=20) and tasks["advbench"] == pytest.approx(50, abs=20)


def test_an_ifeval_row_without_its_arguments_is_not_scored(tmp_path: Path) -> None:
    row = {
        "key": 1,
        "prompt": "List things.",
        "instruction_id_list": ["detectable_format:number_bullet_lists"],
    }
    row["kwargs"] = [{"num_bullets": None}]
    (tmp_path / "ifeval").mkdir()
    (tmp_path / "ifeval" / "test.jsonl").write_text(json.dumps(row) + "\n")
    items = layout.load(tmp_path, layout.BY_NAME["ifeval"])
    inputs = Inputs(responses={"ifeval": [Response(items[0], "answered", raw="* a\n* b")]})
    document, per_sample = build_document(inputs, "reference", ["ifeval"])
    assert document["ifeval"] is None and document["coverage"]["ifeval"]["status"] == "not_scored"
    assert (
        document["coverage"]["ifeval"]["reason"]
        == "test-0000: detectable_format:number_bullet_lists needs the argument 'num_bullets'"
    )
    assert per_sample["ifeval"] == {"test-0000": {"reference": None, "strict": None}}


def test_sd_qa_panda_covers_every_answer_beside_the_judge(tmp_path: Path) -> None:
    from avibench.benchmarks.voicebench.pedant import Pedant
    from avibench.kits.judged import Verdicts

    class Contains:
        def evaluate(self, references: list[str], candidate: str, question: str) -> bool:
            return references[0] in candidate

    subset = layout.BY_NAME["sd-qa"]
    (tmp_path / "sd-qa").mkdir()
    lines = [json.dumps({"prompt": f"What is {n} plus 1?", "reference": str(n + 1)}) for n in range(4)]
    subset.split_path(tmp_path, "usa").write_text("\n".join(lines) + "\n")
    items = layout.load(tmp_path, subset)
    answers = ["It is 1.", "It is 3.", "It is 3.", "No idea."]
    responses = [Response(i, "answered", raw=a) for i, a in zip(items, answers, strict=True)]
    votes = [["Yes"] * 3, ["No"] * 3, ["Yes", "Yes", "No"], ["Maybe", "No", "No"]]
    judging = Verdicts(replies={i.key: v for i, v in zip(items, votes, strict=True)})
    inputs = Inputs(responses={"sd-qa": responses}, judging={"sd-qa": judging}, pedant=Pedant(Contains()))
    document, _ = build_document(inputs, "strict", ["sd-qa"])
    # PEDANT reads every answer (1, 3 right of 4); the strict judge drops "Maybe" and keeps the majority "No"
    assert document["sd-qa"]["splits"]["usa"] == {"panda": 50.0, "gpt": 50.0}
    assert document["coverage"]["sd-qa"]["status"] == "partial"


def test_an_unreadable_split_file_is_reported_not_raised(data: Path, tmp_path: Path) -> None:
    root = Path(shutil.copytree(data, tmp_path / "data"))
    (root / "bbh" / "test.jsonl").write_bytes(b'{"prompt": "caf\xe9"}\n')
    lines = (root / "openbookqa" / "test.jsonl").read_text().splitlines()
    (root / "openbookqa" / "test.jsonl").write_text("\n".join([lines[0], "", "[1]", *lines[1:]]) + "\n")
    result = invoke(["validate-data", str(root), "--benchmark", "voicebench"])
    assert result.code == 1 and "Traceback" not in result.stderr
    out = result.stdout.splitlines()
    assert any(line.startswith(f"error: {root / 'bbh' / 'test.jsonl'}: not UTF-8 text (") for line in out)
    # the blank line is skipped: the list is the second row (entry 1), on line 3
    assert f"error: {root / 'openbookqa' / 'test.jsonl'} entry 1: line 3 is not a JSON object" in out
