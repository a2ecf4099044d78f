"""MMSU: official inference output rescored through ``eval --predictions``, beside the official scorer.

``tests/data/mmsu/mmsu-predictions.jsonl`` is a corpus of our own in the format ``mmsu_inference.py`` writes (the
dataset's columns but ``audio``, plus ``response``): 83 questions in 8 task names under both categories, two-option
questions with null options, two questions whose gold text is also another option's, and replies over every path of
the official reading (letters first or second-to-last, lowercase letters, ``Answer: B``, ``**B**``, hedges, empty
and ``None`` replies, replies that are numbers or lists, and rows without ``response``).

``OFFICIAL`` is what dingdongwang/MMSU ``mmsu_evaluation.py`` at 698fac8 computes on that file: its
``calculate_accuracy_per_task_and_category`` imported as it is and run on the file's rows, its results dumped at
full precision; ``TASK_NAMES`` is the same function run on each task name's rows alone (the official script does
not print a per-task number).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import soundfile as sf

from avibench.contracts import RunPaths
from avibench.level_metrics.mmsu import official_document, reference_reading
from avibench.plugin import EvalRequest, get_benchmark
from avibench.testing.harness import invoke

CORPUS = Path(__file__).parent / "data" / "mmsu" / "mmsu-predictions.jsonl"
OFFICIAL = {
    "Overall Accuracy": 0.5192307692307693,
    "Total count": 52,
    "task_average_accuracies": {
        "perception": {"total_correct": 15, "total_count": 31, "average_accuracy": 0.4838709677419355},
        "reasoning": {"total_correct": 12, "total_count": 21, "average_accuracy": 0.5714285714285714},
    },
    "task_category_accuracies": {
        "perception": {
            "semantics": 0.42857142857142855,
            "phonology": 0.375,
            "paralinguistics": 0.6666666666666666,
        },
        "reasoning": {"semantics": 0.5, "phonology": 0.5714285714285714, "paralinguistics": 0.625},
    },
}
TASK_NAMES = {
    "word_recognition": 0.4,
    "homophone_choice": 0.4444444444444444,
    "stress_position": 0.5,
    "pitch_contour": 0.25,
    "emotion_perception": 0.6666666666666666,
    "intent_reasoning": 0.5,
    "rhyme_reasoning": 0.5714285714285714,
    "sarcasm_reasoning": 0.625,
}


def corpus_rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset the corpus answers, as the hub lays it out: two Parquet shards with a short wav per row."""
    root = tmp_path_factory.mktemp("mmsu") / "data-root"
    (root / "data").mkdir(parents=True)
    rows = []
    for k, row in enumerate(corpus_rows()):
        wav = io.BytesIO()
        sf.write(wav, 0.3 * np.sin(np.arange(1600) * (k + 1) / 50), 16000, format="WAV", subtype="PCM_16")
        kept = {key: value for key, value in row.items() if key not in ("response", "audio_path")}
        rows.append({**kept, "audio": {"bytes": wav.getvalue(), "path": row["audio_path"]}})
    for s in range(2):
        pq.write_table(pa.Table.from_pylist(rows[s::2]), root / "data" / f"train-{s:05d}-of-00002.parquet")
    return root


def test_rescoring_reproduces_the_official_scorer(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    args = ["eval", "--benchmark", "mmsu", "--predictions", str(CORPUS), "--data-root", str(data_root)]
    result = invoke([*args, "--out", str(out), "--output-dir", str(tmp_path / "runs"), "--allow-partial"])
    assert result.code == 0, result.stderr
    document = json.loads(out.read_text())
    assert {k: document[k] for k in OFFICIAL} == OFFICIAL
    assert document["task_name_accuracies"] == pytest.approx(TASK_NAMES, abs=1e-12)
    assert document["summary"]["tasks"]["MMSU"] == pytest.approx(100 * OFFICIAL["Overall Accuracy"])
    # the strict profile counts every question: the 4 non-string replies are failures, and so wrong
    strict = document["summary"]["by_profile"]["strict"]["official"]
    assert strict["Total count"] == 83
    assert document["coverage"]["MMSU"]["failed"] == 4


def _scores(data_root: Path, tmp_path: Path) -> dict[str, dict[str, float | None]]:
    plugin = get_benchmark("mmsu")
    request = EvalRequest(
        data_root=data_root,
        tasks=plugin.tasks(),
        profile="reference",
        paths=RunPaths(tmp_path / "runs", "m", "mmsu"),
        predictions=CORPUS,
    )
    return plugin.evaluate(request).per_sample["MMSU"]


@pytest.mark.parametrize(
    ("reply", "reference", "strict"),
    [
        ("Answer: {gold}", 0.0, 1.0),  # the official first character is the A of "Answer" (not gold here)
        ("**{gold}**", None, 1.0),  # wrong format: left out officially, read strictly
        ("({low})", None, 1.0),
        ("{low}", None, 1.0),
        ("The answer is {gold}.", 1.0, 1.0),
        ("{gold} or {other}", 1.0, 0.0),  # two letters: the first officially, unread strictly
        ("", 0.0, 0.0),
        (" None\n", 0.0, 0.0),
        ("I am not sure.", None, 0.0),
    ],
)
def test_each_reading_in_both_profiles(
    data_root: Path, tmp_path: Path, reply: str, reference: float | None, strict: float
) -> None:
    """One question of the corpus (its gold not A) answered ``reply``: its score in each profile."""
    rows = corpus_rows()
    row = next(r for r in rows if r["choice_c"] is not None and r["answer_gt"] != r["choice_a"])
    gold = "ABCD"[[row[f"choice_{x}"] for x in "abcd"].index(row["answer_gt"])]
    other = next(x for x in "BCD" if x != gold)
    changed = {**row, "response": reply.format(gold=gold, low=gold.lower(), other=other)}
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(changed) + "\n")
    plugin = get_benchmark("mmsu")
    request = EvalRequest(
        data_root=data_root,
        tasks=plugin.tasks(),
        profile="reference",
        paths=RunPaths(tmp_path / "runs", "m", "mmsu"),
        predictions=path,
    )
    score = plugin.evaluate(request).per_sample["MMSU"][row["id"]]
    assert score["reference"] == reference
    assert score["strict"] == strict


def test_a_gold_text_shown_twice_is_right_at_either_position_only_officially(
    data_root: Path, tmp_path: Path
) -> None:
    scores = _scores(data_root, tmp_path)
    assert scores["sarcasm_reasoning_005"] == {"reference": 1.0, "strict": 0.0}


@pytest.mark.parametrize("field", ["answer_gt", "choice_b", "category"])
def test_a_broken_prediction_file_names_its_line_and_field(
    data_root: Path, tmp_path: Path, field: str
) -> None:
    """A row whose fields the official scorer reads differ from the dataset's is refused."""
    rows = corpus_rows()
    rows[5][field] = "something else"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["eval", "--benchmark", "mmsu", "--predictions", str(path), "--data-root", str(data_root)]
    result = invoke([*args, "--out", str(tmp_path / "x.json"), "--output-dir", str(tmp_path / "runs")])
    assert result.code == 2
    assert f"{path} entry 5 field {field}: differs from the dataset's" in result.stderr


def test_an_empty_prediction_file_is_refused(data_root: Path, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n")
    args = ["eval", "--benchmark", "mmsu", "--predictions", str(path), "--data-root", str(data_root)]
    result = invoke([*args, "--out", str(tmp_path / "x.json"), "--output-dir", str(tmp_path / "runs")])
    assert result.code == 2 and f"{path}: holds no rows" in result.stderr


def test_official_document_pools_by_hand() -> None:
    """Three counted questions and one left out: pooled per pair, per category and overall, as fractions."""
    metas = [
        {"category": "perception", "sub-category": "phonology", "task_name": "t1"},
        {"category": "perception", "sub-category": "semantics", "task_name": "t2"},
        {"category": "perception", "sub-category": "semantics", "task_name": "t2"},
        {"category": "reasoning", "sub-category": "semantics", "task_name": "t3"},
    ]
    document = official_document(metas, [1.0, 0.0, 1.0, None])
    assert document == {
        "Overall Accuracy": 2 / 3,
        "Total count": 3,
        "task_average_accuracies": {
            "perception": {"total_correct": 2, "total_count": 3, "average_accuracy": 2 / 3}
        },
        "task_category_accuracies": {"perception": {"phonology": 1.0, "semantics": 0.5}},
        "task_name_accuracies": {"t1": 1.0, "t2": 0.5},
    }
    assert official_document([], []) == {
        "Overall Accuracy": 0,
        "Total count": 0,
        "task_average_accuracies": {},
        "task_category_accuracies": {},
        "task_name_accuracies": {},
    }


@pytest.mark.parametrize(
    ("response", "letter", "expected"),
    [
        (None, None, None),
        (3, "A", None),
        ("", None, ""),
        (" None\n", None, ""),
        ("x", None, None),
        ("B", "B", "B"),
    ],
)
def test_reference_reading(response: object, letter: str | None, expected: str | None) -> None:
    assert reference_reading(response, letter) == expected
