"""A declared plug-in's own eval option reaches its reading, another plug-in's default is no option given, and
summary numbers are made from unrounded task scores."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from avibench.declared import score_declared
from avibench.items import Item, Response
from avibench.level_metrics.task_metrics import Aggregate, accuracy, macro_f1, micro_mean
from avibench.plugin import Benchmark, Problem, Task
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, registered_plugins


@pytest.fixture
def toys_installed(tmp_path: Path) -> None:
    """Both toys registered through an installed distribution's entry points, as a third party ships them."""
    with registered_plugins(
        tmp_path / "site",
        "toys",
        {"toy": "toy_benchmark:ToyBench", "strict-toy": "strict_toy_benchmark:StrictToyBench"},
        Path(__file__).parent,
    ):
        yield


def _answered_run(benchmark: str, tmp_path: Path, reply: str) -> list[str]:
    root, out = tmp_path / benchmark, tmp_path / "outputs"
    assert invoke(["sample-data", "--benchmark", benchmark, "--out", str(root)]).code == 0
    common = ["--benchmark", benchmark, "--data-root", str(root), "--output-dir", str(out), "--label", "run"]
    server = FakeOpenAIServer(responder=lambda body: reply)
    with server.run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(args, {"OPENAI_API_KEY": "sk-toy"}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    return ["eval", *common, "--profile", "strict"]


def test_a_declared_plugins_option_reaches_its_reading(toys_installed: None, tmp_path: Path) -> None:
    args = _answered_run("strict-toy", tmp_path, "Yes, I hear it.")
    scores = {}
    for strictness in ("lenient", "exact"):
        out = tmp_path / f"{strictness}.json"
        result = invoke([*args, "--strictness", strictness, "--out", str(out)])
        assert result.code == 0, result.stderr
        document = json.loads(out.read_text(encoding="utf-8"))
        assert document["meta"]["options"] == {"strictness": strictness}
        scores[strictness] = document["summary"]["tasks"]
    assert scores["lenient"] == {"event": 50.0, "attribute": 100.0, "temporal": 0.0}  # "yes" read everywhere
    assert scores["exact"] == {"event": 0.0, "attribute": 0.0, "temporal": 0.0}  # nothing read, all scored 0


def test_another_plugins_option_left_at_its_default_is_not_noted(
    toys_installed: None, tmp_path: Path
) -> None:
    args = _answered_run("toy", tmp_path, "Yes.")
    quiet = invoke(args)
    assert quiet.code == 0 and "not an option" not in quiet.stderr
    given = invoke([*args, "--strictness", "exact", "--out", str(tmp_path / "given.json")])
    assert "note: --strictness: not an option of benchmark toy, ignored" in given.stderr


class _Sixes(Benchmark):
    """Two tasks of six text questions each, whose answer is always ``y``."""

    name: ClassVar[str] = "sixes"
    aggregates: ClassVar[dict[str, Aggregate]] = {"headline": micro_mean("a", "b")}

    def tasks(self) -> tuple[Task, ...]:
        return (Task("a", "a", "text", metric=accuracy), Task("b", "b", "text", metric=accuracy))

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [
            Item(
                benchmark=self.name, task=task.name, item_id=str(i), variant="", index=i, parts=(), answer="y"
            )
            for i in range(6)
        ]

    def available(self, root: Path) -> tuple[Task, ...]:
        return self.tasks()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return ()

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return []

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        return {}

    def extract(self, item: Item, text: str) -> str | None:
        return text

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return "n"

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return "y"


def test_a_micro_mean_is_made_from_unrounded_task_scores() -> None:
    bench = _Sixes()
    right = {"a": 3, "b": 2}
    responses = {
        t.name: [
            Response(item, "answered", raw=reply, refined=reply, method="rule")
            for item in bench.load(Path("."), t)
            for reply in ["y" if item.index < right[t.name] else "n"]
        ]
        for t in bench.tasks()
    }
    document = score_declared(bench, responses, primary="reference", tasks=bench.tasks()).document
    assert document["summary"]["tasks"] == {"a": 50.0, "b": 33.33}
    assert document["headline"] == 41.67  # 5 of 12 questions; from the rounded 33.33 it came out 41.66


class _UnroundedSixes(_Sixes):
    score_digits: ClassVar[int | None] = None


def test_no_score_digits_keep_task_scores_and_summary_numbers_as_computed() -> None:
    bench = _UnroundedSixes()
    responses = {
        t.name: [
            Response(item, "answered", raw=reply, refined=reply, method="rule")
            for item in bench.load(Path("."), t)
            for reply in ["y" if item.index < 2 else "n"]
        ]
        for t in bench.tasks()
    }
    document = score_declared(bench, responses, primary="reference", tasks=bench.tasks()).document
    assert document["summary"]["tasks"] == {"a": 100 * 2 / 6, "b": 100 * 2 / 6}
    assert document["headline"] == 100 * 4 / 12 and document["summary"]["chance"] == {}


def test_a_task_whose_every_answer_is_unread_is_incomplete(toys_installed: None, tmp_path: Path) -> None:
    args = _answered_run("toy", tmp_path, "Maybe.")
    result = invoke(["eval", *args[1:-2]])  # the reference profile, which leaves unread answers out
    assert result.code == 3, result.stderr
    document = json.loads((tmp_path / "outputs" / "run" / "toy" / "eval.json").read_text(encoding="utf-8"))
    assert document["coverage"]["event"]["status"] == "not_scored"
    assert document["summary"]["incomplete"]["numbers"]["headline"]["tasks"] == [
        "attribute",
        "event",
        "temporal",
    ]


class _F1Sixes(_Sixes):
    """Task ``a`` scored by accuracy, task ``b`` by macro F1 over the labels; every question offers y or n."""

    def tasks(self) -> tuple[Task, ...]:
        return (Task("a", "a", "text", metric=accuracy), Task("b", "b", "text", metric=macro_f1))

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [replace(item, options=("y", "n")) for item in super().load(root, task, template)]

    def item_value(self, answer: object, item: Item) -> object:
        return (item.answer, answer) if item.task == "b" else self.item_score(answer, item)


class _F1SixesWithChance(_F1Sixes):
    def chance(self, item: Item) -> float | None:
        return 0.25


def _chance_levels(bench: Benchmark) -> dict:
    responses = {
        t.name: [
            Response(item, "answered", raw="y", refined="y", method="rule")
            for item in bench.load(Path("."), t)
        ]
        for t in bench.tasks()
    }
    return score_declared(bench, responses, primary="reference", tasks=bench.tasks()).document["summary"][
        "chance"
    ]


def test_one_over_the_options_is_no_chance_level_of_an_f1() -> None:
    # a mean of item chances is the chance of a mean of item scores only; an F1 task has none unless declared
    assert _chance_levels(_F1Sixes()) == {"a": 50.0}  # b has none, so it is left out
    assert _chance_levels(_F1SixesWithChance()) == {"a": 25.0, "b": 25.0}


class _UnroundedSixes(_Sixes):
    """A scorer that prints full floats, and scores only the answers there are in both profiles."""

    score_digits: ClassVar[int | None] = None
    strict_drops_unanswered: ClassVar[bool] = True


def _first_failed(bench: _Sixes) -> dict[str, list[Response]]:
    """Question 0 failed, 1 right, 2 unread by refine, the rest wrong."""

    def response(item: Item) -> Response:
        if item.index == 0:
            return Response(item, "failed")
        reply = {1: "y", 2: "?"}.get(item.index, "n")
        return Response(item, "answered", raw=reply, refined=None if reply == "?" else reply, method="rule")

    return {t.name: [response(item) for item in bench.load(Path("."), t)] for t in bench.tasks()}


def test_unrounded_scores_and_a_strict_profile_that_leaves_unanswered_questions_out() -> None:
    bench = _UnroundedSixes()
    scored = score_declared(bench, _first_failed(bench), primary="strict", tasks=bench.tasks())
    summary = scored.document["summary"]
    # both profiles score the five answers (strict: the unread one wrong), neither the failed question
    assert summary["by_profile"]["strict"]["tasks"]["a"] == 100.0 / 5
    assert summary["tasks"]["b"] == 100.0 / 5 == summary["by_profile"]["reference"]["tasks"]["a"]
    assert scored.per_sample["a"]["0"] == {"reference": None, "strict": None}
    assert scored.per_sample["a"]["2"] == {"reference": 0.0, "strict": 0.0}
    assert scored.document["coverage"]["a"]["scored"] == 5 and summary["chance"] == {}
    default = score_declared(_Sixes(), _first_failed(_Sixes()), primary="strict", tasks=_Sixes().tasks())
    assert default.document["summary"]["tasks"]["a"] == round(100.0 / 6, 2)
    assert default.per_sample["a"]["0"]["strict"] == 0.0


class _NoScoreSixes(_Sixes):
    """Task ``a``'s metric gives no score (an official number undefined on these answers)."""

    def tasks(self) -> tuple[Task, ...]:
        return (Task("a", "a", "text", metric=lambda values: None), Task("b", "b", "text", metric=accuracy))


def test_a_task_whose_metric_gives_no_score_is_not_scored() -> None:
    bench = _NoScoreSixes()
    responses = {
        t.name: [Response(item, "answered", raw="y") for item in bench.load(Path("."), t)]
        for t in bench.tasks()
    }
    coverage = score_declared(bench, responses, primary="reference", tasks=bench.tasks()).document["coverage"]
    assert coverage["a"]["status"] == "not_scored" and coverage["a"]["scored"] == 6
    assert coverage["a"]["reason"] == "its metric gives no score from the 6 answers scored"
    assert coverage["b"]["status"] == "scored"
