"""Published rows say what they are: a number a model never published is "not published" (not "not scored"), a
headline resting on one part is marked, two results of one model are told apart, and a task without a chance level
(AVC) enters no chance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.plugin import benchmark_names, get_benchmark
from avibench.testing.harness import invoke


@pytest.fixture(scope="module")
def air(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("air")
    data, out = base / "data", base / "out"
    assert invoke(["sample-data", "--benchmark", "airbench", "--out", str(data)]).code == 0
    args = [
        "--benchmark",
        "airbench",
        "--data-root",
        str(data),
        "--output-dir",
        str(out),
        "--model",
        "oracle",
    ]
    assert invoke(["infer", *args]).code == 0
    assert invoke(["refine", *args]).code == 0
    invoke(["eval", *args, "--allow-partial"])  # Chat is not judged here
    where = ["--benchmark", "airbench", "--label", "oracle", "--output-dir", str(out)]
    assert invoke(["report", *where, "--published", "Qwen2-Audio,Qwen-Audio"]).code == 0
    assert (
        invoke(
            ["leaderboard", "--benchmark", "airbench", "--output-dir", str(out), "--include-unofficial"]
        ).code
        == 0
    )
    return out


def test_a_number_never_published_is_said_so_on_the_charts(air: Path) -> None:
    page = (air / "oracle" / "airbench" / "report.html").read_text(encoding="utf-8")
    assert "Qwen2-Audio: not published" in page
    assert "Qwen2-Audio: not scored" not in page


def test_a_published_headline_of_one_part_is_marked(air: Path, tmp_path: Path) -> None:
    data = air.parent / "data"
    args = ["run", "--model", "oracle", "--benchmarks", "airbench", "--data-root", f"airbench={data}"]
    invoke(
        [*args, "--output-dir", str(tmp_path)]
    )  # its exit code (Chat not judged) is another test's subject
    card = json.loads((tmp_path / "oracle" / "card.json").read_text())
    (row,) = card["benchmarks"]
    marked = {r["model"]: r.get("note") for r in row["closest_published"]}
    assert marked["Qwen2-Audio"] == "foundation not published"
    assert all(note is None for model, note in marked.items() if model.startswith("Qwen-Audio"))
    assert "Qwen2-Audio 69.30 (foundation not published)" in (tmp_path / "oracle" / "card.md").read_text()


@pytest.mark.parametrize("name", benchmark_names())
def test_published_rows_can_be_told_apart(name: str) -> None:
    names = [str(r["model"]) for r in get_benchmark(name).published()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_avc_has_no_chance_level_on_the_pages_or_the_card(sample_root: Path, tmp_path: Path) -> None:
    args = ["run", "--model", "oracle", "--benchmarks", "avibench", "--data-root", f"avibench={sample_root}"]
    ran = invoke([*args, "--output-dir", str(tmp_path), "--fense", "off"])
    assert ran.code in (0, 3), ran.stderr  # AVC is not scored without FENSE
    (row,) = json.loads((tmp_path / "oracle" / "card.json").read_text())["benchmarks"]
    doc = json.loads((tmp_path / "oracle" / "avibench" / "eval.json").read_text())
    with_avc = get_benchmark("avibench").aggregate_scores(doc["summary"]["chance"])["overall"]
    without = {k: v for k, v in doc["summary"]["chance"].items() if k != "AVC"}
    assert row["chance"] == get_benchmark("avibench").aggregate_scores(without)["overall"] != with_avc
    report = (tmp_path / "oracle" / "avibench" / "report.md").read_text(encoding="utf-8")
    (avc,) = [line for line in report.splitlines() if line.startswith("| Understanding | AVC |")]
    (avr,) = [line for line in report.splitlines() if line.startswith("| Understanding | AVR |")]
    assert "0.00" not in avc.split("|")[5] and avc.split("|")[5].strip() == "–"
    assert avr.split("|")[5].strip() not in ("–", "0.00")
