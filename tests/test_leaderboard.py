"""`avibench leaderboard`: schema v2 entries and validation, and the ranking beside the published results."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from test_report_data import make_eval_doc, parse_page, write_run

from avibench.benchmarks.avibench.submission import (
    BENCHMARK_VERSION,
    PAPER,
    SCHEMA_VERSION,
    EntryFields,
    run_entry,
    validate_entry,
    validate_results,
)
from avibench.benchmarks.avibench.table import TAXONOMY_KEYS, summary_numbers
from avibench.cli import main

LEADERBOARD_MODELS: tuple[str, ...] = tuple(PAPER.facts["leaderboard_models"])
"""The models of the official leaderboard file, in its order; their rows carry that file's facts."""


def published_entry(row: dict) -> dict:
    """The official leaderboard file's entry of a published model, from its row in the published table."""
    return {
        "id": row["entry_id"],
        "model_name": row["model"],
        "provider": row["provider"],
        "model_id": f"{row['model']} (paper label)",
        "model_release_date": row["release_date"],
        "model_release_source_url": row["release_url"],
        "benchmark_version": BENCHMARK_VERSION,
        "source": {"type": "paper", "url": PAPER.source.url},
        "evaluation_date": None,
        "coverage": {
            "status": "full",
            "tasks_completed": 14,
            "tasks_total": 14,
            "samples_completed": None,
            "samples_total": None,
        },
        "scores": {
            "overall": row["overall"],
            "stages": PAPER.values(row, ("perception", "understanding", "reasoning", "sensation")),
            "taxonomy": PAPER.values(row, TAXONOMY_KEYS),
            "tasks": {},
        },
        "notes": "Scores as reported in the paper, which names no dated API snapshot and no sample counts.",
    }


def published_results() -> dict:
    """The official leaderboard file, rebuilt from the published table."""
    return {
        "schema_version": SCHEMA_VERSION,
        "chart_benchmark_version": BENCHMARK_VERSION,
        "entries": [published_entry(PAPER.row(name)) for name in LEADERBOARD_MODELS],
    }


FIELDS = EntryFields(
    model_name="Gemini Test",
    provider="Test Lab",
    release_date="2025-06-17",
    release_url="https://example.org/release",
    source_url="https://example.org/results",
    submitter="someone",
)
ENTRY_FLAGS = [
    "--model-name",
    "Gemini Test",
    "--provider",
    "Test Lab",
    "--release-date",
    "2025-06-17",
    "--release-url",
    "https://example.org/release",
    "--source-url",
    "https://example.org/results",
]


def _valid_entry() -> dict:
    return published_entry(PAPER.row("Gemini-2.5-Pro"))


def _run(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


# ------------------------------------------------------------------------------------------------ published data


def test_published_results_file_is_valid_and_holds_the_five_entries() -> None:
    doc = published_results()
    assert validate_results(doc) == []
    assert [e["model_name"] for e in doc["entries"]] == list(LEADERBOARD_MODELS)
    pro = doc["entries"][0]
    assert pro["id"] == "gemini-2-5-pro-paper-2606-07643"
    assert pro["scores"]["overall"] == 57.21 and pro["scores"]["taxonomy"]["l4_domain"] == 32.97
    assert pro["coverage"] == {
        "status": "full",
        "tasks_completed": 14,
        "tasks_total": 14,
        "samples_completed": None,
        "samples_total": None,
    }
    assert [e["model_release_date"] for e in doc["entries"]] == [
        "2025-03-25",
        "2025-04-17",
        "2024-12-11",
        "2025-03-26",
        "2024-05-13",
    ]


def test_published_numbers_are_consistent_with_the_aggregation_rules() -> None:
    """Overall is the mean of the stages (spec 5.1) and L1 the mean of the familiar stages (5.2)."""
    checked = 0
    for row in PAPER.rows:
        if row["perception"] is None or row["approximate"]:
            continue
        stages = PAPER.values(row, ("perception", "understanding", "reasoning", "sensation"))
        assert row["overall"] == pytest.approx(sum(stages.values()) / 4, abs=0.0051), row["model"]
        if row["l1_task"] is not None:
            familiar = (stages["perception"] + stages["understanding"] + stages["reasoning"]) / 3
            assert row["l1_task"] == pytest.approx(familiar, abs=0.011), row["model"]
        checked += 1
    assert checked == 9


# ------------------------------------------------------------------------------------------------ entries


def test_entry_from_eval_json_passes_the_schema(tmp_path: Path) -> None:
    doc = make_eval_doc()
    entry = run_entry(doc, "gem", FIELDS)
    assert validate_entry(entry) == []
    assert entry["id"] == "gemini-test-paper-2606-07643"
    assert entry["evaluation_date"] == "2026-11-20"
    assert entry["source"] == {"type": "participant", "url": "https://example.org/results"}
    assert entry["coverage"] == {
        "status": "full",
        "tasks_completed": 14,
        "tasks_total": 14,
        "samples_completed": 150,
        "samples_total": 150,
    }
    numbers = summary_numbers(doc["summary"])
    assert entry["scores"]["overall"] == round(numbers["overall"], 2)
    assert entry["scores"]["stages"]["understanding"] == round(numbers["stages"]["understanding"], 2)
    assert entry["scores"]["tasks"] == {}
    with_tasks = run_entry(doc, "gem", EntryFields(**{**FIELDS.__dict__, "with_tasks": True}))
    assert with_tasks["scores"]["tasks"]["AVM"] == 76.8 and validate_entry(with_tasks) == []


def test_partial_run_gives_a_valid_partial_entry() -> None:
    entry = run_entry(make_eval_doc(drop=("AVL", "VSQA_I")), "gem", FIELDS)
    assert entry["coverage"] == {
        "status": "partial",
        "tasks_completed": 12,
        "tasks_total": 14,
        "samples_completed": 130,
        "samples_total": 150,
    }
    assert entry["scores"]["overall"] is not None
    assert validate_entry(entry) == []


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda e: e.update(id="-bad id"), "entry.id"),
        (lambda e: e.update(id="x"), "entry.id"),
        (lambda e: e.update(model_release_date="2025-02-30"), "entry.model_release_date"),
        (lambda e: e.update(model_release_date="2025-2-3"), "entry.model_release_date"),
        (lambda e: e.update(evaluation_date="2025-13-01"), "entry.evaluation_date"),
        (
            lambda e: e.update(model_release_source_url="http://example.org/x"),
            "entry.model_release_source_url",
        ),
        (lambda e: e["source"].update(url="http://arxiv.org/abs/1"), "entry.source.url"),
        (lambda e: e["source"].update(type="blog"), "entry.source.type"),
        (lambda e: e["source"].update(extra="x"), "entry.source"),
        (lambda e: e.update(homepage="https://x.org"), "entry: unsupported fields homepage"),
        (lambda e: e.update(provider="  "), "entry.provider"),
        (lambda e: e.pop("model_id"), "entry.model_id"),
        (lambda e: e["coverage"].update(tasks_completed=13), "entry.coverage.status"),
        (
            lambda e: e["coverage"].update(tasks_completed=15, status="partial"),
            "entry.coverage.tasks_completed",
        ),
        (lambda e: e["coverage"].update(tasks_total=0, tasks_completed=0), "entry.coverage.tasks_total"),
        (lambda e: e["coverage"].update(samples_completed=3), "entry.coverage.samples_completed"),
        (lambda e: e["coverage"].update(samples_completed=3, samples_total=4), "entry.coverage.status"),
        (lambda e: e["coverage"].update(status="partial"), "entry.coverage.status"),
        (lambda e: e["coverage"].update(status="done"), "entry.coverage.status"),
        (lambda e: e["coverage"].update(tasks_total=True), "entry.coverage.tasks_total"),
        (lambda e: e["scores"]["stages"].update(reasoning=101), "entry.scores.stages.reasoning"),
        (lambda e: e["scores"].update(overall=-0.5), "entry.scores.overall"),
        (lambda e: e["scores"].update(overall=float("nan")), "entry.scores.overall"),
        (lambda e: e["scores"]["taxonomy"].update(l1_task="64"), "entry.scores.taxonomy.l1_task"),
        (lambda e: e["scores"].update(extra={}), "entry.scores: unsupported keys extra"),
        (lambda e: e.update(notes="n" * 1001), "entry.notes"),
        (lambda e: e.update(submitter=7), "entry.submitter"),
    ],
)
def test_each_broken_rule_is_reported_with_its_field(mutate, field: str) -> None:
    entry = _valid_entry()
    mutate(entry)
    problems = validate_entry(entry)
    assert len(problems) == 1, problems
    assert problems[0].startswith(field)


def test_every_broken_rule_is_listed_at_once() -> None:
    entry = _valid_entry()
    entry.update(id="?", model_release_date="2025-02-30", notes="n" * 1001)
    entry["scores"]["overall"] = 101
    problems = validate_entry(entry)
    assert [p.split(":")[0] for p in problems] == [
        "entry.id",
        "entry.model_release_date",
        "entry.scores.overall",
        "entry.notes",
    ]


def test_notes_of_exactly_1000_chars_and_null_fields_are_allowed() -> None:
    entry = _valid_entry()
    entry.update(notes="n" * 1000, submitter=None, evaluation_date=None)
    entry["scores"]["stages"]["sensation"] = None
    assert validate_entry(entry) == []


# ------------------------------------------------------------------------------------------------ results files


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["entries"].append(copy.deepcopy(d["entries"][0])), "entries[5].id: duplicate id"),
        (lambda d: d.update(chart_benchmark_version="paper-1"), "root.chart_benchmark_version"),
        (lambda d: d.update(schema_version=1), "root.schema_version"),
        (lambda d: d.update(schema_version=True), "root.schema_version"),
        (lambda d: d.update(extra=1), "root: must have exactly"),
        (lambda d: d.update(entries={}), "root.entries"),
        (lambda d: d["entries"][2].update(model_release_date="2024-02-30"), "entries[2].model_release_date"),
    ],
)
def test_results_file_rules(mutate, message: str) -> None:
    doc = published_results()
    mutate(doc)
    problems = validate_results(doc)
    assert len(problems) == 1, problems
    assert problems[0].startswith(message)


def test_validate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = tmp_path / "results.json", tmp_path / "broken.json"
    good.write_text(json.dumps(published_results()), encoding="utf-8")
    doc = published_results()
    doc["entries"][1]["id"] = doc["entries"][0]["id"]
    doc["entries"][3]["model_release_source_url"] = "http://github.com/QwenLM/Qwen2.5-Omni"
    bad.write_text(json.dumps(doc), encoding="utf-8")

    assert _run(["leaderboard", "--validate", str(good)]) == 0
    assert "valid leaderboard file (schema v2, 5 entries)" in capsys.readouterr().out
    assert _run(["leaderboard", "--validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "breaks 2 leaderboard schema rule(s)" in err
    assert (
        "entries[1].id: duplicate id" in err
        and "entries[3].model_release_source_url: must be an https" in err
    )
    assert _run(["leaderboard", "--validate", str(tmp_path / "none.json")]) == 2
    assert "no such file" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ commands


def test_entry_command_prints_a_valid_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, "gem", make_eval_doc(fense="real"))
    assert _run(["leaderboard", "--output-dir", str(tmp_path), "--entry", "gem", *ENTRY_FLAGS]) == 0
    entry = json.loads(capsys.readouterr().out)
    assert validate_entry(entry) == []
    assert entry["provider"] == "Test Lab" and entry["coverage"]["status"] == "full"
    assert entry["benchmark_version"] == "paper-2606.07643"


def test_entry_command_lists_every_missing_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_run(tmp_path, "gem", make_eval_doc(fense="real"))
    argv = ["leaderboard", "--output-dir", str(tmp_path), "--entry", "gem", "--release-date", "2025-02-30"]
    assert _run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert "breaks 4 leaderboard schema rule(s)" in err
    for text in (
        "entry.provider: must be a non-empty string (set it with --provider)",
        "entry.model_release_date: must be a real calendar date",
        "(set it with --release-date)",
        "entry.model_release_source_url: must be a non-empty string (set it with --release-url)",
        "entry.source.url: must be a non-empty string (set it with --source-url)",
    ):
        assert text in err


def test_entry_command_without_eval_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["leaderboard", "--output-dir", str(tmp_path), "--entry", "ghost", *ENTRY_FLAGS]) == 2
    assert "avibench eval --benchmark avibench --label ghost" in capsys.readouterr().err


def test_leaderboard_ranks_runs_beside_the_published_results(tmp_path: Path) -> None:
    write_run(tmp_path, "strong", make_eval_doc(model="strong-model", scale=1.3))
    write_run(tmp_path, "weak", make_eval_doc(model="weak-model", scale=0.5, drop=("AVL",), profile="strict"))
    (tmp_path / "not-a-run").mkdir()
    assert _run(["leaderboard", "--output-dir", str(tmp_path)]) == 0
    md_path, html_path, json_path = (tmp_path / f"leaderboard.{ext}" for ext in ("md", "html", "json"))

    data = json.loads(json_path.read_text(encoding="utf-8"))
    rows = data["rows"]
    overall = [r["overall"] for r in rows if r["overall"] is not None]
    assert overall == sorted(overall, reverse=True)
    assert [r["overall"] for r in rows[-2:]] == [None, None]  # taxonomy-only published rows come last
    by_model = {r["name"]: r for r in rows}  # runs by label, published rows by model
    assert not by_model["strong"]["published"] and by_model["Gemini-2.5-Pro"]["published"]
    assert by_model["Human-Omni"]["source"] == "published [SUMMARY]"
    assert by_model["Human (subset)"]["rank"] is None
    assert by_model["weak"]["coverage"].startswith("partial (13/14 tasks")
    ranks = [r["rank"] for r in rows if r["rank"] is not None]
    assert ranks == list(range(1, len(ranks) + 1))

    page = parse_page(html_path.read_text(encoding="utf-8"))
    stage_table, taxonomy_table = page.tables
    strong = next(r for r in stage_table if r[1] == "strong")
    assert strong[2] == "run of strong-model; media not verified (no media probe on record)"
    assert strong[4] == "reference"
    assert strong[-2] == f"{by_model['strong']['overall']:.2f}"
    turbo = next(r for r in stage_table if r[1] == "Qwen-Omni-Turbo")
    assert turbo[0] == "–" and turbo[-6:] == ["–"] * 6
    assert next(r for r in taxonomy_table if r[1] == "Qwen-Omni-Turbo")[-4:] == [
        "46.50",
        "45.15",
        "37.70",
        "26.13",
    ]
    assert next(r for r in taxonomy_table if r[1] == "NExTGPT")[-4:] == ["–"] * 4
    assert next(r for r in stage_table if r[1] == "Human (subset)")[-2:] == ["~92.60", "–"]
    # one chart: every model with an Overall, its stages and Overall as series; no image files
    html_text = html_path.read_text(encoding="utf-8")
    assert not page.images and html_text.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 1
    assert 'data-series="Perception,Understanding,Reasoning,Sensation (PriSe),Overall"' in html_text
    assert 'data-category="strong (run)"' in html_text and 'data-category="Qwen-Omni-Turbo"' not in html_text

    md = md_path.read_text(encoding="utf-8")
    assert "| Gemini-2.5-Pro | published |" in md and "57.21" in md


def test_leaderboard_command_with_no_runs_lists_the_published_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(["leaderboard", "--output-dir", str(tmp_path)]) == 0
    assert "leaderboard.html" in capsys.readouterr().out
    data = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    assert len(data["rows"]) == len(PAPER.rows) and all(r["published"] for r in data["rows"])


def test_entry_options_need_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["leaderboard", "--output-dir", str(tmp_path), "--provider", "X"]) == 2
    assert "only apply with --entry" in capsys.readouterr().err
    assert not (tmp_path / "leaderboard.json").exists()


def test_entry_coverage_reads_the_older_coverage_fields() -> None:
    from avibench.benchmarks.avibench.submission import entry_coverage
    from avibench.benchmarks.avibench.tasks import AVIBENCH

    folders = [f for t in AVIBENCH.paper_tasks() for f in AVIBENCH.folders_of(t)]
    coverage = {f.name: {"entries": 10, "predictions": 10, "status": "scored"} for f in folders}
    coverage[folders[0].name]["predictions"] = 7
    doc = {"coverage": coverage, "summary": {"tasks": dict.fromkeys(AVIBENCH.paper_tasks(), 50.0)}}
    found = entry_coverage(doc)
    assert found["samples_total"] == 10 * len(folders) and found["samples_completed"] == 10 * len(folders) - 3
    assert found["tasks_completed"] == len(AVIBENCH.paper_tasks()) - 1 and found["status"] == "partial"
