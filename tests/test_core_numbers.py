"""The core owns the numbers: task metrics recomputed on resampled items, aggregates with question counts, and
comparisons whose differences are the eval files' differences."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from avibench.level_metrics.audiomarathon import TASKS, Record, get_profile, score_task, task_score
from avibench.level_metrics.task_metrics import (
    corpus_wer,
    macro_f1,
    mean_of_tasks,
    micro_mean,
    official,
    recall_at,
    weighted_f1,
)
from avibench.testing.harness import invoke

# ---- pure metrics ----------------------------------------------------------------------------------------------


def test_label_f1_wer_and_recall_on_hand_computed_values() -> None:
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("c", None)]
    # F1 a = 2/3, b = 2/3, c = 0 -> macro 44.44; supports 2, 1, 1 -> weighted (4/3 + 2/3) / 4 = 50
    assert macro_f1(pairs) == pytest.approx(100 * 4 / 9)
    assert weighted_f1(pairs) == pytest.approx(50.0)
    assert corpus_wer([(1, 10), (3, 10)]) == pytest.approx(80.0) and corpus_wer([(5, 2)]) == 0.0
    assert recall_at(2)([1, 2, 3, None]) == 50.0 and macro_f1([]) is None


def test_aggregates_weigh_by_questions_round_and_skip_unscored_members() -> None:
    scores, counts = {"a": 100.0, "b": 0.0, "c": None}, {"a": 3, "b": 1}
    assert mean_of_tasks("a", "b", "c")(scores, counts) == 50.0
    assert micro_mean("a", "b", "c")(scores, counts) == 75.0
    assert official(lambda s: s["a"] - s.get("c", 0), "a", "c", digits=1)(scores, counts) == 100.0
    assert mean_of_tasks("c")(scores, counts) is None


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_audiomarathon_score_alone_equals_the_official_block(profile: str) -> None:
    rng = random.Random(7)
    options = ("male", "female", "child", "adult")
    for task in TASKS:
        for _ in range(20):
            records = []
            for _ in range(rng.randrange(0, 12)):
                gold = rng.choice("ABCD")
                pred = rng.choice(["A", "B", "C", "D", "", None, "E"])
                text = rng.choice(["the cat sat", "a dog", ""])
                if task == "ASR":
                    records.append(Record("", text or "x", rng.choice([text, "the cat", None])))
                else:
                    records.append(Record(gold, gold, pred, options))
            expected = score_task(task, records, get_profile(profile))["score"]
            assert task_score(task, records, profile) == pytest.approx(expected), (task, records)


# ---- through the command line ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def marathon(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """An oracle run of every AudioMarathon task and a random run of four of them."""
    base = tmp_path_factory.mktemp("numbers")
    root, out = base / "data", base / "out"
    assert invoke(["sample-data", "--benchmark", "audiomarathon", "--out", str(root)]).code == 0
    common = ["--benchmark", "audiomarathon", "--data-root", str(root), "--output-dir", str(out)]
    for model, tasks in (("oracle", []), ("random", ["--tasks", "SER,ASR,MC,SGR"])):
        assert invoke(["infer", *common, "--model", model, *tasks]).code == 0
        assert invoke(["eval", *common, "--model", model, *tasks]).code == 0
    return root, out


def _eval(out: Path, label: str) -> dict:
    return json.loads((out / label / "audiomarathon" / "eval.json").read_text())


def test_audiomarathon_gets_intervals_for_every_task(marathon: tuple[Path, Path]) -> None:
    intervals = _eval(marathon[1], "oracle")["summary"]["intervals"]
    assert set(intervals["tasks"]) == set(TASKS) and "headline" in intervals["aggregates"]
    assert intervals["tasks"]["ASR"] == [100.0, 100.0]  # every resample of perfect transcripts is perfect
    random_run = _eval(marathon[1], "random")["summary"]
    low, high = random_run["intervals"]["tasks"]["SGR"]
    assert low <= random_run["tasks"]["SGR"] <= high and low < high


def test_comparison_headline_difference_is_the_eval_files_difference(marathon: tuple[Path, Path]) -> None:
    out = marathon[1]
    result = invoke(["compare", "oracle", "random", "--benchmark", "audiomarathon", "--output-dir", str(out)])
    assert result.code == 0, result.stderr
    data = json.loads((out / "compare-audiomarathon-oracle-vs-random.json").read_text())
    differences = data["comparisons"][0]["differences"]
    a, b = (_eval(out, label)["summary"] for label in ("oracle", "random"))
    assert differences["headline"]["delta"] == pytest.approx(round(b["headline"] - a["headline"], 2))
    assert set(differences) == {"SER", "ASR", "MC", "SGR", "headline"}
    assert differences["MC"]["delta"] == pytest.approx(round(b["tasks"]["MC"] - a["tasks"]["MC"], 2))
