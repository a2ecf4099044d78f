"""Per-sample scores, confidence intervals and run-to-run spread of AIR-Bench and STAR-Bench, through the CLI.

Every asked question gets a score in both profiles in samples.jsonl (``None`` where a profile leaves it out), eval.json
holds an interval for every task and the headline, and the viewer page carries the scores. The AIR-Bench Chat judge is
the local fake server with fixed replies, so every Chat number is known in advance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from statistics import fmean

import pytest

from avibench.benchmarks.airbench.layout import CHAT_SECTION, FOUNDATION_SECTION, load
from avibench.level_metrics.airbench import LETTERS, summarize
from avibench.level_metrics.starbench import chance_block
from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, journal_lines

PROFILES = {"reference", "strict"}
REFERENCE_START = "The recording mainly features"
FIRST = "[The Start of Assistant 1s Answer]\n"


def reference_first(body: dict) -> bool:
    return body["messages"][0]["content"].split(FIRST)[1].startswith(REFERENCE_START)


def fixed_judge(body: dict) -> str:
    """The model gets 3 with the reference shown first and 5 when it is shown first."""
    return "8 3" if reference_first(body) else "5 8"


def half_broken_judge(body: dict) -> str:
    """Parses with the reference first (the model gets 3); never parses with the model first."""
    return "8 3" if reference_first(body) else "I cannot rate these."


@pytest.fixture(scope="module")
def air_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("air") / "data"
    assert invoke(["sample-data", "--benchmark", "airbench", "--out", str(root)]).code == 0
    return root


@pytest.fixture(scope="module")
def star_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("star") / "data"
    assert invoke(["sample-data", "--benchmark", "starbench", "--out", str(root)]).code == 0
    return root


def run(
    bench: str,
    data: Path,
    out: Path,
    model: str,
    judge: Callable[[dict], str] = fixed_judge,
    edit: Callable[[Path], None] | None = None,
) -> tuple[dict, list[dict]]:
    """infer, optionally edit the infer journals, refine, eval; eval.json and samples.jsonl."""
    args = ["--benchmark", bench, "--data-root", str(data), "--output-dir", str(out), "--model", model]
    assert invoke(["infer", *args]).code == 0
    root = out / model / bench
    if edit is not None:
        edit(root / "infer")
    assert invoke(["refine", *args, "--mode", "rules"]).code == 0
    server = FakeOpenAIServer(responder=judge)
    with server.run_in_thread():
        result = invoke(
            ["eval", *args, "--judge-base-url", server.base_url, "--allow-partial"], {"JUDGE_API_KEY": "sk-j"}
        )
    assert result.code == 0, result.stderr  # edited runs are partial on purpose
    samples = [json.loads(line) for line in (root / "samples.jsonl").read_text().splitlines()]
    return json.loads((root / "eval.json").read_text()), samples


def scores(samples: list[dict], task: str) -> dict[str, dict[str, float | None]]:
    return {row["key"]: row["scores"] for row in samples if row["task"] == task}


def rewrite(journal: Path, change: Callable[[list[dict]], list[dict]]) -> None:
    lines = change(journal_lines(journal))
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def viewer_rows(out: Path, bench: str, label: str) -> list[dict]:
    result = invoke(["view", "--benchmark", bench, "--label", label, "--output-dir", str(out)])
    assert result.code == 0, result.stderr
    page = (out / label / bench / "viewer.html").read_text()
    found = re.search(r'<script type="application/json" id="samples">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))["rows"]


def test_airbench_oracle_and_random_every_question_scored_with_intervals(
    air_data: Path, tmp_path: Path
) -> None:
    foundation = load(FOUNDATION_SECTION, air_data)
    chat = load(CHAT_SECTION, air_data)
    doc, samples = run("airbench", air_data, tmp_path, "oracle")
    assert len(samples) == len(foundation) + len(chat) == 70
    assert all(set(row["scores"]) == PROFILES for row in samples)
    assert set(scores(samples, "foundation")) == {i.key for i in foundation}
    assert set(scores(samples, "chat")) == {i.key for i in chat}
    # the oracle's Chat answer is the reference itself, so the judge replies "8 3" in both orders: the model gets
    # 3 with the reference first and 8 with itself first, (3 + 8) / 2 / 10
    assert {v for s in scores(samples, "foundation").values() for v in s.values()} == {1.0}
    assert {v for s in scores(samples, "chat").values() for v in s.values()} == {0.55}
    intervals = doc["summary"]["intervals"]
    assert intervals["items"] == {"foundation": 50, "chat": 20}
    assert intervals["tasks"] == {"foundation": [100.0, 100.0], "chat": [55.0, 55.0]}
    assert intervals["aggregates"] == {"headline": [77.5, 77.5]} and doc["summary"]["headline"] == 77.5
    assert intervals["spread"] == {}
    shown = viewer_rows(tmp_path, "airbench", "oracle")
    assert [r["scores"] for r in shown] == [r["scores"] for r in samples]

    doc, samples = run("airbench", air_data, tmp_path, "random")
    by_task: dict[str, list[float]] = {}
    for item in foundation:
        by_task.setdefault(item.meta["task_name"], []).append(1.0 / len(item.options))
    chance = 100 * summarize({task: sum(v) / len(v) for task, v in by_task.items()})["average"]
    low, high = doc["summary"]["intervals"]["tasks"]["foundation"]
    assert low < chance < high and low < doc["summary"]["tasks"]["foundation"] < high and high - low > 10
    # a random answer never begins like the reference: 3 and 5 in the two orders
    assert {v for s in scores(samples, "chat").values() for v in s.values()} == {0.4}
    assert doc["summary"]["intervals"]["tasks"]["chat"] == [40.0, 40.0]
    low, high = doc["summary"]["intervals"]["aggregates"]["headline"]
    assert low < doc["summary"]["headline"] < high


def test_airbench_left_out_answers_are_none_where_the_profile_drops_them(
    air_data: Path, tmp_path: Path
) -> None:
    first = load(FOUNDATION_SECTION, air_data)[0]
    wrong = next(i for i, o in enumerate(first.options) if o != first.answer)
    dropped_chat = load(CHAT_SECTION, air_data)[0].key

    def edit(infer: Path) -> None:
        # "the answer is B" has no letter where the official rule looks (first or second-to-last character)
        rewrite(
            infer / "foundation.jsonl",
            lambda lines: [
                {**x, "predict": f"the answer is {LETTERS[wrong]}"} if x["key"] == first.key else x
                for x in lines
            ],
        )
        rewrite(infer / "chat.jsonl", lambda lines: [x for x in lines if x["key"] != dropped_chat])

    # a random answer never begins like the reference, so the judge tells the two orders apart
    doc, samples = run("airbench", air_data, tmp_path, "random", half_broken_judge, edit)
    foundation = scores(samples, "foundation")
    assert foundation[first.key] == {"reference": None, "strict": 0.0}
    assert all(s["strict"] in (0.0, 1.0) for s in foundation.values())
    kept = [k for k, s in foundation.items() if s["reference"] is not None]
    assert first.key not in kept and doc["foundation"]["total_sum"] == len(kept)
    chat = scores(samples, "chat")
    assert chat.pop(dropped_chat) == {"reference": None, "strict": 0.0}
    # only the reference-first order parsed: the reference averages what parsed (3 / 10), strict needs both
    assert {tuple(s.values()) for s in chat.values()} == {(0.3, None)}
    intervals = doc["summary"]["intervals"]
    assert intervals["items"] == {"foundation": len(kept), "chat": 19}
    assert intervals["tasks"]["chat"] == [30.0, 30.0] and doc["summary"]["tasks"]["chat"] == 30.0
    assert set(intervals["tasks"]) == {"foundation", "chat"} and set(intervals["aggregates"]) == {"headline"}


def test_starbench_runs_scored_per_profile_with_intervals_and_run_spread(
    star_data: Path, tmp_path: Path
) -> None:
    bench = get_benchmark("starbench")
    items = {t.name: bench.load(star_data, t) for t in bench.default_tasks()}
    dropped = "pc_0000@1"
    two_options = next(i for i in items["sr"] if len(i.options) == 2 and i.meta["rotate_id"] == 2)

    def edit(infer: Path) -> None:
        rewrite(infer / "pc.jsonl", lambda lines: [x for x in lines if x["key"] != dropped])

    doc, samples = run("starbench", star_data, tmp_path, "oracle", edit=edit)
    assert len(samples) == sum(map(len, items.values())) == 84
    assert all(set(row["scores"]) == PROFILES for row in samples)
    assert all(row["run"] == str(row["variant"]).removeprefix("r") for row in samples)
    pc = scores(samples, "pc")
    # the reference leaves the incomplete id out entirely; strict counts its missing run wrong
    assert pc.pop(dropped) == {"reference": None, "strict": 0.0}
    for key in [k for k in pc if k.startswith("pc_0000@")]:
        assert pc.pop(key) == {"reference": None, "strict": 1.0}
    assert {v for s in pc.values() for v in s.values()} == {1.0}
    # a two-option spatial item's third shift repeats its first: strict counts that presentation once
    assert scores(samples, "sr")[two_options.key] == {"reference": 1.0, "strict": None}
    intervals = doc["summary"]["intervals"]
    assert intervals["tasks"] == {t: [100.0, 100.0] for t in ("pc", "tr", "sr")}
    assert intervals["aggregates"] == {"headline": [100.0, 100.0]}
    assert intervals["items"] == {"pc": 13, "tr": 10, "sr": 6}
    assert {t: (s["runs"], s["sd"]) for t, s in intervals["spread"].items()} == {
        "pc": (4, 0.0),
        "tr": (3, 0.0),
        "sr": (3, 0.0),
    }
    shown = viewer_rows(tmp_path, "starbench", "oracle")
    assert [r["scores"] for r in shown] == [r["scores"] for r in samples]

    doc, samples = run("starbench", star_data, tmp_path, "random")
    intervals = doc["summary"]["intervals"]
    for task, (low, high) in intervals["tasks"].items():
        assert low <= doc["summary"]["tasks"][task] <= high and high - low > 5
    chance = fmean(chance_block(t, its)["Total"]["AA"] for t, its in items.items())  # Final MA's
    low, high = intervals["aggregates"]["headline"]
    assert low < chance < high and low < doc["summary"]["headline"] < high
    sr_runs = {
        run: 100 * fmean(r["scores"]["reference"] for r in samples if r["task"] == "sr" and r["run"] == run)
        for run in ("0", "1", "2")
    }
    spread = intervals["spread"]["sr"]
    assert (spread["min"], spread["max"]) == (
        round(min(sr_runs.values()), 2),
        round(max(sr_runs.values()), 2),
    )
    assert spread["sd"] > 0 and spread["mean"] == round(fmean(sr_runs.values()), 2)

    report = invoke(
        ["report", "--benchmark", "starbench", "--label", "random", "--output-dir", str(tmp_path)]
    )
    assert report.code == 0, report.stderr
    page = (tmp_path / "random" / "starbench" / "report.md").read_text()
    headline, (low, high) = doc["summary"]["headline"], intervals["aggregates"]["headline"]
    # Final MA rests on the default datasets, all scored here: no incomplete badge
    assert f"| {headline:.2f} | [{low:.1f}, {high:.1f}] |" in page
    row = (
        f"| sr | 3 | {spread['mean']:.2f} | {spread['sd']:.2f} | {spread['min']:.2f} | {spread['max']:.2f} |"
    )
    assert "## Run-to-run spread of AA (0–100)" in page and row in page
