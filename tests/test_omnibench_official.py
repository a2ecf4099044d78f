"""OmniBench reference profile pinned to the official scorer on an adversarial corpus, and the strict profile.

The letters and the printed output below are what the official ``answer_parsing.py`` and ``calculate_metrics.py``
(run with ``python -O``: with asserts its message reads a field the dataset lacks and it crashes on the first gold
answer it cannot parse) gave on ``omnibench_corpus``, outside the project.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omnibench_corpus import (
    EMPTY_QUESTION,
    GOLD,
    MISSING_EVERY,
    OPTION_SETS,
    REPLY_STYLES,
    cases,
    dataset_lines,
    inference_rows,
    official_lines,
    official_list,
    reply,
    sample_corpus,
)

from avibench.benchmarks.omnibench.layout import DATASET
from avibench.benchmarks.omnibench.plugin import OmniBench
from avibench.evaluate.document import Paragraph
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.omnibench import official_letter
from avibench.testing.harness import invoke

#: Per option set: the letter the official parser reads from the gold answer text ("-": N/A), then from each reply
#: style in order.
OFFICIAL_LETTERS: dict[int, tuple[str, str]] = {
    0: ("C", "CCC--C-C-CCCCCCCCCDDCD--CDCC--C--CCCAC--"),
    1: ("A", "CCC--C-C-CCCCAACACDDCD--CDCC--C--AAAAC--"),
    2: ("-", "BBB--B-B-BBBBB--BBCCBC--BCBB--B--BBBAB--"),
    3: ("-", "AAA--A-A-AAAAA--AABBAB--ABAA--A--AAAAA--"),
    4: ("D", "DDD--D-D-DDDDDDDDDAADA--AADD--D--DDBAD--"),
    5: ("-", "BBB--B-B-BBBBB--BBCCBC--BCBB--B--BBBAB--"),
}

#: What ``python -O inference/calculate_metrics.py`` printed for the corpus (the file name line aside).
OFFICIAL_OUTPUT = """\
========================================
Total number of questions: 240
Correct response: 83; Invalid response: 15, Wrong response: 142
{file}
Accuracy, Invalid Rate
0.3458, 0.0625
Stats by audio type:
music total: 48
Correct, Invalid, Wrong Response Rate:
music: 0.3125, 0.0833, 0.6042
speech total: 96
Correct, Invalid, Wrong Response Rate:
speech: 0.3438, 0.0521, 0.6042
sound event total: 96
Correct, Invalid, Wrong Response Rate:
sound event: 0.3646, 0.0625, 0.5729"""

#: Reply styles the strict extractor must leave unparsed: hedges, two letters, refusals, a reply naming a
#: distractor's text beside the answer's, a reasoning clause after the letter, an empty reply, "none of them".
STRICT_UNPARSED = frozenset({17, 18, 19, 20, 21, 22, 23, 35, 37, 38, 39})


def _letter(code: str) -> str | None:
    return None if code == "-" else code


@pytest.mark.parametrize("set_index", sorted(OFFICIAL_LETTERS))
def test_official_parser_reads_every_reply_as_the_official_script(set_index: int) -> None:
    options = OPTION_SETS[set_index]
    gold_code, reply_codes = OFFICIAL_LETTERS[set_index]
    assert len(reply_codes) == len(REPLY_STYLES)
    assert official_letter(options[GOLD[set_index]], options) == _letter(gold_code)
    for style, code in zip(REPLY_STYLES, reply_codes, strict=True):
        text = reply(style, options, GOLD[set_index])
        assert official_letter(text, options) == _letter(code), (style, text)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("omnibench_corpus")
    root = base / "data"
    (root / DATASET).parent.mkdir(parents=True)
    (root / DATASET).write_text(dataset_lines(), encoding="utf-8")
    rows = inference_rows()
    jsonl = base / "inference.jsonl"
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    listed = base / "inference.json"
    listed.write_text(json.dumps(official_list(rows, len(cases()))), encoding="utf-8")
    return {"root": root, "jsonl": jsonl, "list": listed, "base": base}


def _rescore(corpus: dict[str, Path], predictions: Path, profile: str = "reference") -> dict:
    out = corpus["base"] / f"{predictions.stem}-{profile}.json"
    args = ["eval", "--benchmark", "omnibench", "--data-root", str(corpus["root"]), "--predictions"]
    args += [str(predictions), "--out", str(out), "--profile", profile, "--allow-partial"]
    result = invoke(args)
    assert result.code == 0, result.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("kind", ["jsonl", "list"])
def test_rescoring_the_corpus_prints_the_official_numbers(corpus: dict[str, Path], kind: str) -> None:
    doc = _rescore(corpus, corpus[kind])
    assert "\n".join(official_lines(doc, "{file}")) == OFFICIAL_OUTPUT
    assert (doc["total"], doc["n_correct_response"], doc["n_invalid_response"], doc["n_wrong_response"]) == (
        240,
        83,
        15,
        142,
    )
    assert doc["Accuracy"] == 83 / 240 and doc["Invalid Rate"] == 15 / 240
    assert doc["stats_by_audio_type"]["music"]["n_invalid_response"] == 4
    assert doc["summary"]["headline"] == pytest.approx(100 * 83 / 240, abs=1e-4)
    assert doc["coverage"]["OmniBench"]["status"] == "partial"
    assert "stats_by_task_type" not in doc


def test_rows_without_an_answer_are_invalid_and_the_run_is_partial(corpus: dict[str, Path]) -> None:
    out = corpus["base"] / "partial.json"
    args = ["eval", "--benchmark", "omnibench", "--data-root", str(corpus["root"])]
    result = invoke([*args, "--predictions", str(corpus["jsonl"]), "--out", str(out)])
    assert result.code == 3
    notes = json.loads(out.read_text())["coverage"]["OmniBench"]["notes"]
    assert any("rows with an empty question: 1 " in n for n in notes)
    assert any(f"questions without a row: {240 // MISSING_EVERY} of 240 " in n for n in notes)


def _strict_expected() -> tuple[int, int, int]:
    """Correct, invalid and wrong counts that the strict profile must give on the corpus."""
    correct = invalid = wrong = 0
    for index, (_s, style, _text) in enumerate(cases()):
        if index % MISSING_EVERY == MISSING_EVERY - 1 or index == EMPTY_QUESTION:
            invalid += 1
        elif style in STRICT_UNPARSED:
            wrong += 1
        else:
            correct += 1
    return correct, invalid, wrong


def test_strict_profile_scores_what_each_reply_commits_to(corpus: dict[str, Path]) -> None:
    for s, options in enumerate(OPTION_SETS):
        for k, style in enumerate(REPLY_STYLES):
            chosen = mc.strict_choice(reply(style, options, GOLD[s]), options, lowercase_letters=True)
            assert chosen == (None if k in STRICT_UNPARSED else GOLD[s]), (s, style)
    doc = _rescore(corpus, corpus["jsonl"], "strict")
    counts = (doc["n_correct_response"], doc["n_invalid_response"], doc["n_wrong_response"])
    assert counts == _strict_expected()
    assert doc["summary"]["unparsed"]["strict"] == doc["coverage"]["OmniBench"]["unparsed"] == counts[2]
    assert sum(v["total"] for v in doc["stats_by_task_type"].values()) == 240
    assert set(doc["stats_by_task_type"]) == {
        "Action and Activity",
        "Count and Quantity",
        "Plot Inference",
        "Text and Symbols",
    }
    reference = doc["summary"]["by_profile"]["reference"]["headline"]
    assert reference == pytest.approx(100 * 83 / 240, abs=1e-4)
    assert doc["summary"]["headline"] > reference


def _scored(cases: list[tuple[int, str, str | None]]) -> dict:
    """The eval document of (option set, gold option text, reply: ``None`` for no answer), all music questions."""
    items = [
        Item("omnibench", "OmniBench", str(k), (), answer, index=k, options=OPTION_SETS[s], meta=META)
        for k, (s, answer, _) in enumerate(cases)
    ]
    responses = [
        Response(item, "missing") if r is None else Response(item, "answered", r)
        for item, (_, _, r) in zip(items, cases, strict=True)
    ]
    return OmniBench().score({"OmniBench": responses}, profile="reference", options={}).document


META = {"audio type": "music", "task type": "Plot Inference"}


def test_each_profile_reads_gold_and_reply_as_it_says() -> None:
    misread = OPTION_SETS[1][2]  # "A man is ..." at position C: the official parser reads A
    doc = _scored(
        [
            (2, "Guitar", "I cannot tell."),  # both read as N/A: right officially, unread strictly
            (1, misread, misread),  # the gold text read as A, as is the reply: right in both
            (1, misread, "C"),  # the answer's position: right strictly only
            (0, OPTION_SETS[0][2], "c"),  # a lowercase letter: the official parser reads nothing
            (0, OPTION_SETS[0][2], None),  # invalid in both
        ]
    )
    counts = ("n_correct_response", "n_invalid_response", "n_wrong_response")
    strict = doc["summary"]["by_profile"]["strict"]["official"]
    assert [doc[k] for k in counts] == [2, 1, 2]
    assert [strict[k] for k in counts] == [3, 1, 1]
    assert "stats_by_task_type" in strict and "stats_by_task_type" not in doc
    assert doc["stats_by_audio_type"]["music"]["Correct Rate"] == 2 / 5
    (note,) = [b for b in OmniBench().report_blocks(doc, None) if isinstance(b, Paragraph)]
    assert note.text.startswith("1 answers are right by the official parser only (a gold answer read as")
    assert ", 2 by the strict extractor only (bold or lowercase" in note.text
    # an audio type without questions has no rates
    assert doc["stats_by_audio_type"]["speech"] == {
        "total": 0,
        "n_correct_response": 0,
        "n_invalid_response": 0,
        "n_wrong_response": 0,
        "Correct Rate": None,
        "Invalid Rate": None,
        "Wrong Rate": None,
    }


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ([{"index": 0, "response": "A"}, {"index": 0, "response": "B"}], "field index", "second row"),
        ([{"index": 2, "question": ""}, {"index": 2, "response": "B"}], "entry 1 field index", "second row"),
        ([{"index": 999, "response": "A"}], "field index", "outside"),
        ([{"index": "0", "response": "A"}], "field index", "integer"),
        ([{"index": 1, "response": None}], "field response", "string"),
        ([{"index": 1}], "field response", "missing"),
    ],
)
def test_broken_inference_rows_fail_with_file_entry_and_field(
    corpus: dict[str, Path], rows: list, field: str, message: str
) -> None:
    path = corpus["base"] / "broken.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [
        "eval",
        "--benchmark",
        "omnibench",
        "--data-root",
        str(corpus["root"]),
        "--predictions",
        str(path),
    ]
    result = invoke([*args, "--out", str(corpus["base"] / "never.json")])
    assert result.code == 2, result.stderr
    assert str(path) in result.stderr and field in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_an_answer_that_is_no_option_loads_and_only_strict_counts_it_wrong(tmp_path: Path) -> None:
    records = [json.loads(line) for line in dataset_lines().splitlines()[:2]]
    records[0]["answer"] = (
        "  THE MAN IN JEANS is playing a crossword puzzle. "  # option C up to case and spacing
    )
    records[1]["answer"] = "Nobody in the picture is doing anything."
    (tmp_path / DATASET).parent.mkdir(parents=True)
    (tmp_path / DATASET).write_text("".join(json.dumps(r) + "\n" for r in records))
    bench = OmniBench()
    problems = [str(p) for p in bench.validate(tmp_path, bench.tasks())]
    assert any("entry 0 field answer: equals option C only up to case" in p for p in problems)
    assert any(
        p.startswith("error:") and "entry 1 field answer: is not one of the options" in p for p in problems
    )
    items = bench.load(tmp_path, bench.tasks()[0])
    replies = ["C", "I do not know."]  # the second reads as N/A, as does its gold answer text
    responses = [Response(i, "answered", r) for i, r in zip(items, replies, strict=True)]
    doc = bench.score({"OmniBench": responses}, profile="reference", options={}).document
    # the parser reads C from the first answer text and N/A from the second, as from the replies
    assert doc["n_correct_response"] == 2
    strict = doc["summary"]["by_profile"]["strict"]["official"]
    assert (strict["n_correct_response"], strict["n_wrong_response"]) == (1, 1)


#: What ``python -O inference/calculate_metrics.py`` printed for ``sample_corpus()`` (the file name line aside).
SAMPLE_CORPUS_OUTPUT = """\
========================================
Total number of questions: 1142
Correct response: 258; Invalid response: 22, Wrong response: 862
{file}
Accuracy, Invalid Rate
0.2259, 0.0193
Stats by audio type:
music total: 381
Correct, Invalid, Wrong Response Rate:
music: 0.2021, 0.0184, 0.7795
speech total: 381
Correct, Invalid, Wrong Response Rate:
speech: 0.2703, 0.0210, 0.7087
sound event total: 380
Correct, Invalid, Wrong Response Rate:
sound event: 0.2053, 0.0184, 0.7763"""


def test_rescoring_the_sample_corpus_prints_the_official_numbers(tmp_path: Path) -> None:
    records, rows = sample_corpus()
    (tmp_path / DATASET).parent.mkdir(parents=True)
    (tmp_path / DATASET).write_text("".join(json.dumps(r) + "\n" for r in records))
    path = tmp_path / "inference.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = {"root": tmp_path, "base": tmp_path}
    doc = _rescore(corpus, path)
    assert "\n".join(official_lines(doc, "{file}")) == SAMPLE_CORPUS_OUTPUT
    by_index = {r["index"]: r for r in rows}
    expected = 0
    for index, record in enumerate(records):
        if index not in by_index:
            continue
        for k, style in enumerate(REPLY_STYLES):  # which style and option made the reply
            named = [
                n
                for n in range(4)
                if reply(style, tuple(record["options"]), n) == by_index[index]["response"]
            ]
            if named:
                gold = record["options"].index(record["answer"])
                expected += k not in STRICT_UNPARSED and gold in named
                break
    strict = _rescore(corpus, path, "strict")
    assert strict["n_correct_response"] == expected
