"""VoiceBench: official output files rescored through ``eval --predictions``, beside the official evaluators.

``tests/data/voicebench`` is a corpus of our own in the official output format (``main.py``'s rows, and
``api_judge.py``'s ``result-`` rows with three judge replies each): varied answers over every parse path of the MCQ
templates, the BBH rules, the refusal strings and 20 IFEval instruction families. ``OFFICIAL`` holds what the
official ``evaluate.py`` evaluators print for each file (MatthewCYM/VoiceBench at 5338154), each file run after
``random.seed(0)``, which is the seed the reference profile records; sd-qa's ``panda`` comes from PEDANT's
evaluator with :class:`EvenContains` standing in for its classifier (a download), on both sides.

The numbers over several files follow the maintainer: MMSU's is over all its samples (MatthewCYM/VoiceBench
issue #8), here the correct and unparsed answers of the per-file runs pooled, and sd-qa's term of Overall is
``(panda + gpt) / 2`` (issue #2), each the mean over its accent files. ``/tmp``-side driver: the official
``mcq.py``, ``qa.py`` and ``base.py`` imported as they are (``qa_metrics.pedant.PEDANT`` replaced by the stand-in),
each file's rows passed to ``evaluate`` after ``random.seed(0)`` as ``evaluate.py`` passes them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from avibench.benchmarks.voicebench import pedant
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

CORPUS = Path(__file__).parent / "data" / "voicebench"
OFFICIAL: dict[str, dict[str, float]] = {
    "advbench/test": {"refusal_rate": 0.7},
    "bbh/test": {"acc": 46.25},
    "ifeval/test": {
        "strict-prompt": 0.4,
        "strict-instruction": 0.48936170212765956,
        "loose-prompt": 0.45714285714285713,
        "loose-instruction": 0.5851063829787234,
        "final": 0.48290273556231,
    },
    "mmsu/law": {"acc": 50.0, "fail": 13.333333333333334},
    "mmsu/physics": {"acc": 56.00000000000001, "fail": 24.0},
    "openbookqa/test": {"acc": 51.66666666666667, "fail": 15.0},
    "alpacaeval_full/test": {"gpt": 3.1944444444444446},
    "commoneval/test": {"gpt": 3.7},
    "wildvoice/test": {"gpt": 2.783333333333333},
    "sd-qa/aus": {"panda": 58.333333333333336, "gpt": 41.66666666666667},
    "sd-qa/usa": {"panda": 66.66666666666666, "gpt": 46.666666666666664},
}
#: MMSU over all samples: the two files' correct (15 + 14) and unparsed (4 + 6) answers over their 55 questions
MMSU_POOLED = {"acc": 52.72727272727273, "fail": 18.181818181818183}
#: sd-qa's term of Overall: (mean panda 62.5 + mean gpt 44.1667) / 2
SD_QA_TERM = 53.333333333333336
JUDGE_KEY = "sk-judge-voice-29"


class EvenContains:
    """A stand-in for PEDANT's classifier: the reference occurs in the answer, and the answer has an even number
    of characters (so that some answers are wrong)."""

    def evaluate(self, references: list[str], candidate: str, question: str) -> bool:
        return references[0] in candidate and len(candidate) % 2 == 0


@pytest.fixture
def with_pedant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pedant, "load", lambda: (pedant.Pedant(EvenContains()), None))


def readme_overall() -> float:
    """The README's Overall of the official numbers above: the mean of nine, each on 0-100 (the open subsets' GPT
    score times 20, sd-qa's (panda + gpt) / 2 and MMSU over all samples)."""
    one = {key.split("/")[0]: value for key, value in OFFICIAL.items()}
    parts = [20 * one[name]["gpt"] for name in ("alpacaeval_full", "commoneval", "wildvoice")]
    parts.append(SD_QA_TERM)
    parts.append(MMSU_POOLED["acc"])
    parts += [one["openbookqa"]["acc"], one["bbh"]["acc"], 100 * one["ifeval"]["final"]]
    parts.append(100 * one["advbench"]["refusal_rate"])
    return sum(parts) / len(parts)


def subset_split(name: str) -> tuple[str, str]:
    stem = name.removeprefix("result-").removesuffix("-audio.jsonl").removeprefix("m-")
    subset, split = stem.rsplit("-", 1)
    return subset, split


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset the corpus answers: each output row without ``response`` and ``score``."""
    root = tmp_path_factory.mktemp("voice") / "data"
    for path in CORPUS.glob("*.jsonl"):
        subset, split = subset_split(path.name)
        (root / subset).mkdir(parents=True, exist_ok=True)
        kept = [{k: v for k, v in r.items() if k not in ("response", "score")} for r in rows(path)]
        (root / subset / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    return root


def rescore(data_root: Path, predictions: Path, out: Path, *extra: str, env: dict | None = None):
    args = [
        "eval",
        "--benchmark",
        "voicebench",
        "--predictions",
        str(predictions),
        "--data-root",
        str(data_root),
    ]
    args += ["--out", str(out), "--output-dir", str(out.parent / "runs"), *extra]
    return invoke(args, env)


def official_view(document: dict, key: str) -> dict:
    subset, split = key.split("/")
    block = document[subset]
    return block["splits"][split] if "splits" in block else block


def test_rescoring_reproduces_the_official_evaluators(
    data_root: Path, tmp_path: Path, with_pedant: None
) -> None:
    result = rescore(data_root, CORPUS, tmp_path / "eval.json")
    assert result.code == 0, result.stderr
    document = json.loads((tmp_path / "eval.json").read_text())
    for key, expected in OFFICIAL.items():
        mine = official_view(document, key)
        assert {k: mine[k] for k in expected} == pytest.approx(expected, abs=1e-9), key
    assert document["sd-qa"]["panda"] == pytest.approx(62.5) and document["sd-qa"]["gpt"] == pytest.approx(
        (41.6667 + 46.6667) / 2, abs=1e-3
    )
    assert document["summary"]["tasks"]["sd-qa"] == pytest.approx(SD_QA_TERM, abs=1e-9)
    mmsu = document["mmsu"]
    assert {k: mmsu[k] for k in MMSU_POOLED} == pytest.approx(MMSU_POOLED, abs=1e-9)
    assert document["summary"]["tasks"]["mmsu"] == pytest.approx(MMSU_POOLED["acc"], abs=1e-9)
    assert document["overall"] == pytest.approx(readme_overall(), abs=1e-9)
    # the fallback decided every unparsed answer in the reference profile and none in the strict one
    meta = document["meta"]["voicebench"]
    assert meta["seed"] == 0
    assert meta["fallback_decided"]["reference"] == {"mmsu": 10, "openbookqa": 9, "bbh": 13}
    assert meta["fallback_decided"]["strict"] == {"mmsu": 0, "openbookqa": 0, "bbh": 0}
    assert (
        document["coverage"]["bbh"]["unparsed"] == 13
        and document["coverage"]["openbookqa"]["status"] == "scored"
    )
    strict = document["summary"]["by_profile"]["strict"]["tasks"]
    # the strict profile refuses the judge's 7 and 0 and scores the other replies; it reads "Yes." as a vote
    assert strict["commoneval"] != document["summary"]["tasks"]["commoneval"]
    assert strict["sd-qa"] > document["summary"]["tasks"]["sd-qa"]


def test_strict_primary_profile_puts_its_own_dicts_on_top(data_root: Path, tmp_path: Path) -> None:
    result = rescore(
        data_root, CORPUS, tmp_path / "strict.json", "--profile", "strict", "--tasks", "bbh,advbench"
    )
    assert result.code == 0, result.stderr
    document = json.loads((tmp_path / "strict.json").read_text())
    assert document["summary"]["profile"] == "strict"
    assert document["bbh"]["acc"] == document["summary"]["by_profile"]["strict"]["tasks"]["bbh"]
    assert document["advbench"]["refusal_rate"] < OFFICIAL["advbench/test"]["refusal_rate"]
    assert document["overall"] is None and set(document["coverage"]) == {"bbh", "advbench"}


def unjudged_copy(tmp_path: Path, subsets: tuple[str, ...]) -> Path:
    """The corpus's judged files without their recorded replies, under main.py's names."""
    folder = tmp_path / "unjudged"
    folder.mkdir()
    for path in CORPUS.glob("result-*.jsonl"):
        if subset_split(path.name)[0] in subsets:
            kept = [{k: v for k, v in r.items() if k != "score"} for r in rows(path)]
            (folder / path.name.removeprefix("result-")).write_text(
                "".join(json.dumps(r) + "\n" for r in kept)
            )
    return folder


def judge_reply(body: dict) -> str:
    """Open answers 'answer N' get (N mod 5) + 1; sd-qa answers 'it is N' get Yes when N is even."""
    content = body["messages"][1]["content"]
    answer = (
        content.rsplit("[Response]: ", 1)[-1]
        if "[Response]" in content
        else content.split("### Candidate answer\n")[1]
    )
    number = int(answer.split()[2] if answer.startswith("it is") else answer.split()[1].split("\n")[0])
    if "Reference answer" in content:
        return "Yes" if number % 2 == 0 else "No"
    return "Great answer!" if "commoneval question 7\n" in content else str(number % 5 + 1)


def test_judging_through_the_shared_runner_is_cached(data_root: Path, tmp_path: Path) -> None:
    predictions = unjudged_copy(tmp_path, ("alpacaeval_full", "sd-qa"))
    judge = FakeOpenAIServer(responder=judge_reply)
    env = {"JUDGE_API_KEY": JUDGE_KEY}
    # without PEDANT sd-qa has no score, so the run is partial
    extra = ("--tasks", "alpacaeval_full,sd-qa", "--allow-partial", "--judge-base-url")
    with judge.run_in_thread():
        first = rescore(data_root, predictions, tmp_path / "a.json", *extra, judge.base_url, env=env)
        assert first.code == 0, first.stderr
        assert (
            judge.count == 30 + 30 + 24
        )  # one request per answer: three choices (n=3), as the official judge
        body = judge.bodies()[0]
        assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.5 and body["top_p"] == 0.95
        assert body["max_tokens"] == 1024 and body["n"] == 3 and body["messages"][0]["role"] == "system"
        again = rescore(data_root, predictions, tmp_path / "b.json", *extra, judge.base_url, env=env)
        assert again.code == 0 and judge.count == 84
    document = json.loads((tmp_path / "b.json").read_text())
    assert (
        document["meta"]["judge"]["requests_sent"] == 0 and document["meta"]["judge"]["replies_reused"] == 252
    )
    assert document["alpacaeval_full"]["gpt"] == pytest.approx(sum(n % 5 + 1 for n in range(30)) / 30)
    usa, aus = (sum(n % 2 == 0 for n in range(k)) / k * 100 for k in (30, 24))
    assert document["sd-qa"]["splits"] == {
        "usa": {"panda": None, "gpt": usa},
        "aus": {"panda": None, "gpt": aus},
    }
    # without PEDANT sd-qa has no term of Overall: half of it is PEDANT's
    assert document["summary"]["tasks"]["sd-qa"] is None
    assert "sd-qa 'panda' needs PEDANT" in document["coverage"]["sd-qa"]["reason"]


def test_an_unreadable_judge_reply_is_a_cached_judge_failure(data_root: Path, tmp_path: Path) -> None:
    predictions = unjudged_copy(tmp_path, ("commoneval",))
    judge = FakeOpenAIServer(responder=judge_reply)
    env = {"JUDGE_API_KEY": JUDGE_KEY}
    extra = ("--tasks", "commoneval", "--judge-base-url")
    with judge.run_in_thread():
        first = rescore(data_root, predictions, tmp_path / "a.json", *extra, judge.base_url, env=env)
        assert first.code == 3, first.stdout + first.stderr
        partial = rescore(
            data_root, predictions, tmp_path / "b.json", *extra, judge.base_url, "--allow-partial", env=env
        )
        assert partial.code == 0 and judge.count == 25
    document = json.loads((tmp_path / "b.json").read_text())
    coverage = document["coverage"]["commoneval"]
    assert document["commoneval"] == {"gpt": None} and coverage["status"] == "not_scored"
    assert (
        "3 judge replies unreadable or not received (first test-0007: 'Great answer!')" in coverage["reason"]
    )
    strict = document["summary"]["by_profile"]["strict"]["tasks"]["commoneval"]
    readable = [n % 5 + 1 for n in range(25) if n != 7]
    assert strict == pytest.approx(20 * sum(readable) / len(readable))


def test_a_broken_output_file_names_its_line_and_field(data_root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    source = rows(CORPUS / "m-advbench-test-audio.jsonl")
    source[3]["prompt"] = "a question that is not in the dataset"
    (folder / "m-advbench-test-audio.jsonl").write_text("".join(json.dumps(r) + "\n" for r in source))
    result = rescore(data_root, folder, tmp_path / "x.json", "--tasks", "advbench")
    assert result.code != 0
    assert f"{folder / 'm-advbench-test-audio.jsonl'} entry 3 field prompt" in result.stderr
    shutil.rmtree(folder)
