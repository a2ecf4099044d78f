"""``avibench run`` and the card: the oracle through every installed benchmark's sample in one command (AVI-Bench
partial, as its AVC is not scored with FENSE off, so the exit code is 3), the same command with --allow-partial
asking nothing, a complete run, benchmarks without data, option routing, and ``avibench cards`` setting the
models side by side."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from avibench.benchmarks.voicebench import pedant
from avibench.contracts import RunPaths
from avibench.evaluate.card import (
    CARD_SCHEMA,
    CARD_SCHEMA_VERSION,
    MEDIA_NOT_VERIFIED,
    SCORED_KEYS,
    TASKS_INSTEAD,
    build_card,
    card_document,
    write_card,
)
from avibench.evaluate.document import to_markdown
from avibench.infer.backends.baselines import OracleBackend
from avibench.plugin import PROFILES, benchmark_names, get_benchmark, lower_is_better
from avibench.run_command import StageOption, route_options
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CliResult, invoke

JUDGE_KEY = "sk-judge-card-51b7"
PERFECT = 100.0
#: FENSE is off (its models take most of a run's time), so AVI-Bench's AVC is not scored and AVI-Bench is the one
#: partial benchmark; every other task of every benchmark must be perfect.
UNSCORED = {"avibench": {"AVC"}}


class Contains:
    """A stand-in for PEDANT's classifier (a download; VoiceBench's sd-qa score is half PEDANT's): the reference
    appears in the answer."""

    def evaluate(self, references: list[str], candidate: str, question: str) -> bool:
        return references[0] in candidate


def perfect_judge(body: dict) -> str:
    """The top mark in each judge protocol: AIR-Bench's pairwise scores (both answers 10, the oracle answering
    with the reference), a yes/no judgement against a reference answer, else a 1-5 rating."""
    content = " ".join(str(m.get("content")) for m in body["messages"])
    if "Assistant 1s Answer]" in content:
        return "10 10"
    return "Yes" if "Reference answer" in content else "5"


@dataclass
class Counter:
    calls: int = 0


@pytest.fixture(scope="module")
def counted() -> Iterator[Counter]:
    """Counts the questions the oracle backend is asked (the offline backend's requests)."""
    counter = Counter()
    original = OracleBackend.answer

    async def answer(self, item, request):  # type: ignore[no-untyped-def]
        counter.calls += 1
        return await original(self, item, request)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(OracleBackend, "answer", answer)
        yield counter


@dataclass
class Runs:
    base: Path
    out: Path
    first: CliResult
    again: CliResult
    asked_first: int
    asked_again: int
    judged_first: int
    judged_again: int
    journals_before: dict[str, bytes]
    journals_after: dict[str, bytes]


def _journals(label_dir: Path) -> dict[str, bytes]:
    """Every journal of the label (answers, refinements, judge replies), not the log of invocations."""
    return {
        str(p.relative_to(label_dir)): p.read_bytes()
        for p in sorted(label_dir.rglob("*.jsonl"))
        if p.name != "runs.jsonl"
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, counted: Counter) -> Iterator[Runs]:
    """The oracle through every benchmark on its generated sample (made by the run itself), then once more."""
    base = tmp_path_factory.mktemp("card")
    here = Path.cwd()
    os.chdir(base)  # the benchmarks' download and sample folders are relative to the working folder
    try:
        judge = FakeOpenAIServer(responder=perfect_judge)
        with judge.run_in_thread(), pytest.MonkeyPatch.context() as patch:
            patch.setattr(pedant, "load", lambda: (pedant.Pedant(Contains()), None))
            args = [
                "run",
                "--model",
                "oracle",
                "--benchmarks",
                "all",
                "--sample",
                "--output-dir",
                "out",
                "--mode",
                "rules",
                "--fense",
                "off",
                "--judge-base-url",
                judge.base_url,
                "--eval.judge-concurrency=4",
            ]
            env = {"JUDGE_API_KEY": JUDGE_KEY}
            first = invoke(args, env)
            asked_first, judged_first = counted.calls, judge.count
            before = _journals(base / "out" / "oracle")
            again = invoke([*args, "--allow-partial"], env)
            yield Runs(
                base=base,
                out=base / "out",
                first=first,
                again=again,
                asked_first=asked_first,
                asked_again=counted.calls - asked_first,
                judged_first=judged_first,
                judged_again=judge.count - judged_first,
                journals_before=before,
                journals_after=_journals(base / "out" / "oracle"),
            )
    finally:
        os.chdir(here)


def _roots(runs: Runs, *names: str) -> list[str]:
    """``--data-root`` options for the samples the oracle's run made."""
    return [a for b in names for a in ("--data-root", f"{b}={runs.base / 'data' / (b + '-sample')}")]


def _card(out: Path, label: str) -> dict:
    return json.loads((out / label / "card.json").read_text(encoding="utf-8"))


def test_the_oracle_card_holds_every_benchmark_at_100(runs: Runs) -> None:
    card = _card(runs.out, "oracle")
    assert card["schema"] == CARD_SCHEMA and card["schema_version"] == CARD_SCHEMA_VERSION
    assert card["label"] == "oracle" and card["model"] == "oracle" and card["status"] == "partial"
    names = [row["benchmark"] for row in card["benchmarks"]]
    assert sorted(names) == benchmark_names() and names[0] == "avibench"
    for row in card["benchmarks"]:
        name = row["benchmark"]
        unscored = UNSCORED.get(name, set())
        assert row["status"] == ("partial" if unscored else "complete"), name
        assert set(row["completeness"]["incomplete_tasks"]) == unscored, name
        assert row["dataset"]["kind"] == "sample", name
        assert Path(row["data_root"]) == runs.base / get_benchmark(name).sample_root  # recorded absolute
        assert f"[{names.index(name) + 1}/{len(names)}] {name}: sample-data" in runs.first.stderr
        assert row["stages"] == {"infer": 0, "refine": 0, "eval": 0, "report": 0, "view": 0}  # the re-run's
        benchmark = get_benchmark(name)
        perfect = 0.0 if lower_is_better(benchmark) else PERFECT  # an error rate's best is 0
        for profile in PROFILES:
            tasks = row["tasks"][profile]
            assert {t for t, v in tasks.items() if v is None} == unscored, (name, profile)
            scored = [v for t, v in tasks.items() if t not in unscored]
            assert scored and all(v == perfect for v in scored), (name, profile, tasks)
            if not unscored and benchmark.has_headline:
                assert row["headline"][profile] == PERFECT, (name, profile)
            elif not benchmark.has_headline:
                assert row["headline"][profile] is None and row["headline_name"] == TASKS_INSTEAD, name
        assert row["settings"]["infer"][0]["settings"]["model"] == "oracle"
        assert set(row["settings"]["refine_modes"]) <= {"rules", "passthrough"}
        for link in ("eval", "report", "viewer"):
            assert (runs.out / "oracle" / row["links"][link]).is_file(), (name, link)
        published = get_benchmark(name).published()
        assert len(row["closest_published"]) == min(3, len(published)), name
    # AVI-Bench's headline is its Overall, with a chance level through its own aggregation, resting on AVC
    avi = card["benchmarks"][0]
    assert avi["headline_name"] == "overall" and 0 < avi["chance"] < 50
    assert "overall" in avi["completeness"]["numbers"] and "headline" in avi["completeness"]["numbers"]
    meta = json.loads((runs.out / "oracle" / "avibench" / "eval.json").read_text())["meta"]
    assert avi["settings"]["fense"] == meta["fense"] and avi["settings"]["profile"] == "reference"
    air = next(r for r in card["benchmarks"] if r["benchmark"] == "airbench")
    assert air["tasks"]["reference"]["chat"] == PERFECT and runs.judged_first > 0


def test_every_scored_task_of_every_benchmark_has_an_interval(runs: Runs) -> None:
    for name in benchmark_names():
        summary = json.loads((runs.out / "oracle" / name / "eval.json").read_text(encoding="utf-8"))[
            "summary"
        ]
        scored = {task: value for task, value in summary["tasks"].items() if value is not None}
        intervals = summary["intervals"]["tasks"]
        assert scored and set(scored) <= set(intervals), (name, sorted(set(scored) - set(intervals)))
        for task, value in scored.items():
            low, high = intervals[task]
            assert low <= value <= high, (name, task, value, intervals[task])


def test_one_partial_benchmark_exits_3_unless_allowed(runs: Runs) -> None:
    assert runs.first.code == 3, runs.first.stderr
    assert "exit code 3: a benchmark is partial or not run; pass --allow-partial" in runs.first.stderr
    assert runs.again.code == 0, runs.again.stderr
    line = next(x for x in (runs.out / "oracle" / "card.md").read_text().splitlines() if "AVI-Bench" in x)
    assert "| partial (AVC) |" in line and "(incomplete)" in line


def test_the_card_pages_show_every_benchmark_with_links_and_the_media_probe(runs: Runs) -> None:
    card = _card(runs.out, "oracle")
    md = (runs.out / "oracle" / "card.md").read_text(encoding="utf-8")
    page = (runs.out / "oracle" / "card.html").read_text(encoding="utf-8")
    for row in card["benchmarks"]:
        line = next(x for x in md.splitlines() if x.startswith(f"| {row['title']} |"))
        assert f"[report]({row['benchmark']}/report.html)" in line
        assert "sample (not comparable)" in line
        probe = row["media_probe"] or {}
        assert (MEDIA_NOT_VERIFIED in line) == all(v == "skipped" for v in probe.values())
        assert f'href="{row["benchmark"]}/viewer.html"' in page
    assert "100.00" in md and "Closest published" in md


def test_a_finished_run_asks_nothing_again(runs: Runs) -> None:
    assert runs.asked_first > 0
    assert runs.asked_again == 0 and runs.judged_again == 0
    assert runs.journals_after == runs.journals_before
    assert f"[1/{len(benchmark_names())}] avibench: infer" in runs.again.stderr
    assert "sample-data" not in runs.again.stderr  # the samples the first run made are used as they are


def test_progress_names_the_benchmark_stage_and_counts(runs: Runs) -> None:
    names = [row["benchmark"] for row in _card(runs.out, "oracle")["benchmarks"]]
    for index, name in enumerate(names, start=1):
        for stage in ("infer", "refine", "eval", "report", "view"):
            assert f"[{index}/{len(names)}] {name}: {stage}" in runs.first.stderr
    assert "answered=" in runs.first.stdout
    table = runs.first.stdout.splitlines()
    assert any(line.startswith("avibench") and "partial" in line for line in table)


@pytest.fixture(scope="module")
def complete(runs: Runs) -> CliResult:
    """The random baseline through MMAR and MMAU on the samples the oracle's run made: complete, exit 0."""
    args = ["run", "--model", "random", "--benchmarks", "mmar,mmau", "--output-dir", str(runs.out)]
    return invoke([*args, *_roots(runs, "mmar", "mmau")])


def test_a_complete_run_exits_0(runs: Runs, complete: CliResult) -> None:
    assert complete.code == 0, complete.stderr
    card = _card(runs.out, "random")
    assert card["status"] == "complete" and [r["benchmark"] for r in card["benchmarks"]] == ["mmar", "mmau"]
    assert all(0 <= r["headline"]["strict"] < PERFECT for r in card["benchmarks"])


def test_a_benchmark_without_data_is_reported_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(["run", "--model", "oracle", "--benchmarks", "mmar", "--output-dir", "out"])
    assert result.code == 3
    assert "mmar: not run: no data at data/mmar" in result.stderr
    row = _card(tmp_path / "out", "oracle")["benchmarks"][0]
    assert row["status"] == "not run" and "--sample" in row["reason"] and row["headline"] is None
    assert set(SCORED_KEYS) < set(row) and row["stages"] == {} and row["links"] == {}
    assert "not run" in (tmp_path / "out" / "oracle" / "card.md").read_text()
    assert not (tmp_path / "data").exists()  # nothing was generated without --sample


def test_a_stage_error_fails_the_run_after_every_benchmark_is_taken_as_far_as_it_goes(
    runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no API key: infer stops on a user error for each benchmark, and each one is still tried
    args = ["run", "--model", "gpt-x", "--benchmarks", "mmar,mmau", "--output-dir", str(runs.out)]
    stopped = invoke([*args, *_roots(runs, "mmar", "mmau")])
    assert stopped.code == 2
    assert stopped.stderr.count("needs OPENAI_API_KEY") == 2 and "[2/2] mmau: infer" in stopped.stderr
    rows = _card(runs.out, "gpt-x")["benchmarks"]
    assert [r["status"] for r in rows] == ["failed"] * 2
    assert all(
        r["reason"].startswith("infer exited with 2: the openai backend needs OPENAI_API_KEY") for r in rows
    )

    # some questions of MMAR fail: its later stages still run on the rest (partial), MMAU completes, exit 1
    original = OracleBackend.answer

    async def flaky(self, item, request):  # type: ignore[no-untyped-def]
        if item.task == "MMAR" and item.key.endswith("1"):
            raise RuntimeError("backend broke")
        return await original(self, item, request)

    monkeypatch.setattr(OracleBackend, "answer", flaky)
    args = ["run", "--model", "oracle", "--label", "flaky", "--benchmarks", "mmar,mmau", "--output-dir"]
    failed = invoke([*args, str(runs.out), *_roots(runs, "mmar", "mmau"), "--max-attempts", "1"])
    assert failed.code == 1, failed.stderr
    mmar, mmau = _card(runs.out, "flaky")["benchmarks"]
    assert mmar["stages"] == {"infer": 1, "refine": 0, "eval": 0, "report": 0, "view": 0}
    assert mmar["status"] == "partial" and mmar["headline"]["reference"] is not None
    assert mmau["status"] == "complete" and mmau["headline"]["reference"] == PERFECT


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--benchmarks", "nope"], "unknown nope"),
        (["--frobnicate", "1"], "no such option: --frobnicate"),
        (["--tasks", "AVL"], "--tasks is set by 'avibench run' itself"),
        (["--data-root", "mmar"], "expected BENCH=DIR"),
        (["--benchmarks", "mmar", "--data-root", "mmau=x"], "mmau is not among --benchmarks"),
        (["--report.mode", "rules"], "not an option of the report stage"),
    ],
)
def test_usage_errors_exit_2_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(["run", "--model", "oracle", "--output-dir", "out", *args])
    assert result.code == 2
    assert message in result.stderr
    assert not (tmp_path / "out").exists()


def test_options_go_to_the_stages_that_declare_them() -> None:
    options = {
        "--concurrency": StageOption(("infer", "refine"), True),
        "--mode": StageOption(("refine",), True),
        "--stream": StageOption(("infer",), False),
    }
    routed = route_options(
        ["--concurrency", "4", "--mode=rules", "--stream", "--infer.concurrency", "9"], options
    )
    assert routed["infer"] == ["--concurrency", "4", "--stream", "--concurrency", "9"]
    assert routed["refine"] == ["--concurrency", "4", "--mode=rules"]
    assert routed["eval"] == routed["report"] == routed["view"] == []
    with pytest.raises(click.UsageError, match="requires a value"):
        route_options(["--mode"], options)


def test_cards_set_models_side_by_side_with_their_marks(runs: Runs, complete: CliResult) -> None:
    result = invoke(["cards", "--output-dir", str(runs.out), "--labels", "oracle,random"])
    assert result.code == 0, result.stderr
    table = json.loads((runs.out / "cards.json").read_text())
    assert [r["label"] for r in table["rows"]] == ["oracle", "random"]
    assert next(iter(table["benchmarks"])) == "avibench" and len(table["benchmarks"]) == len(
        benchmark_names()
    )
    oracle, rand = (r["cells"] for r in table["rows"])
    sample = "sample data, not comparable"
    assert oracle["mmar"]["headline"] == PERFECT and oracle["mmar"]["marks"] == [sample]
    assert oracle["avibench"]["marks"] == ["incomplete", sample]
    assert rand["mmar"]["headline"] < PERFECT and rand["starbench"] is None
    md = (runs.out / "cards.md").read_text()
    assert f"[100.00](oracle/mmar/report.html) ({sample})" in md and "not in card" in md
    everyone = invoke(["cards", "--output-dir", str(runs.out), "--profile", "strict"])
    assert everyone.code == 0 and json.loads((runs.out / "cards.json").read_text())["profile"] == "strict"
    missing = invoke(["cards", "--output-dir", str(runs.out), "--labels", "nobody"])
    assert missing.code == 2 and "no card" in missing.stderr


def test_a_card_row_reads_the_media_probe_official_data_and_the_nearest_published(tmp_path: Path) -> None:
    bench = get_benchmark("mmar")
    paths = RunPaths(tmp_path, "m", "mmar")
    paths.root.mkdir(parents=True)
    summary = {
        "profile": "reference",
        "headline": 67.0,
        "by_profile": {
            p: {"tasks": {"MMAR": v}, "headline": v} for p, v in zip(PROFILES, (67.0, 61.5), strict=True)
        },
        "chance": {"MMAR": 30.0},
        "intervals": {"aggregates": {"headline": [64.0, 70.0]}},
    }
    meta = {
        "model": "m",
        "profile": "reference",
        "dataset": {"kind": "official", "why": "its files"},
        "media_probe": {"audio": "counted", "image": "skipped"},
    }
    coverage = {"MMAR": {"status": "scored", "questions": 1000, "scored": 1000}}
    paths.eval_json.write_text(json.dumps({"summary": summary, "meta": meta, "coverage": coverage}))
    card = build_card(tmp_path, "m", [bench])
    row = card["benchmarks"][0]
    assert card["model"] == "m" and card["status"] == row["status"] == "complete"
    assert row["headline"] == {"reference": 67.0, "strict": 61.5} and row["interval"] == [64.0, 70.0]
    assert row["chance"] == 30.0 and row["links"] == {"eval": "mmar/eval.json"}
    distances = [abs(p["headline"] - 67.0) for p in row["closest_published"]]
    assert distances == sorted(distances) and len(distances) == 3
    nearest = min(abs(r["headline"] - 67.0) for r in bench.published())
    assert distances[0] == nearest
    line = next(x for x in to_markdown(card_document(card)).splitlines() if x.startswith("| MMAR |"))
    assert "| official |" in line and "audio counted; image not verified" in line and "incomplete" not in line


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "card.json: invalid JSON at line 1"),
        ('{"schema": "other"}', "not an avibench card"),
        (json.dumps({"schema": CARD_SCHEMA, "schema_version": CARD_SCHEMA_VERSION + 1}), "is newer than"),
        (json.dumps({"schema": CARD_SCHEMA, "schema_version": 1, "benchmarks": []}), "card.json field label"),
        (
            json.dumps({"schema": CARD_SCHEMA, "schema_version": 1, "label": "m"}),
            "card.json field benchmarks",
        ),
        (
            json.dumps({"schema": CARD_SCHEMA, "schema_version": 1, "label": "m", "benchmarks": [{}]}),
            "card.json entry 0 of benchmarks",
        ),
    ],
)
def test_a_broken_card_is_a_user_error_naming_the_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "card.json").write_text(text, encoding="utf-8")
    result = invoke(["cards", "--output-dir", str(tmp_path)])
    assert result.code == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def _mmar_eval(paths: RunPaths, headline: float) -> None:
    by_profile = {p: {"tasks": {"MMAR": headline}, "headline": headline} for p in PROFILES}
    summary = {"profile": "reference", "headline": headline, "by_profile": by_profile}
    coverage = {"MMAR": {"status": "scored", "questions": 10, "scored": 10}}
    doc = {"summary": summary, "meta": {"model": "m", "profile": "reference"}, "coverage": coverage}
    paths.eval_json.write_text(json.dumps(doc))


def test_cards_show_an_eval_run_again_after_the_card_not_the_cards_numbers(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path, "m", "mmar")
    paths.root.mkdir(parents=True)
    _mmar_eval(paths, 67.0)
    write_card(build_card(tmp_path, "m", [get_benchmark("mmar")]), tmp_path / "m")
    card_time = (tmp_path / "m" / "card.json").stat().st_mtime_ns
    _mmar_eval(paths, 41.0)  # 'avibench eval' again, after the card
    os.utime(paths.eval_json, ns=(card_time + 10**9, card_time + 10**9))
    result = invoke(["cards", "--output-dir", str(tmp_path)])
    assert result.code == 0, result.stderr
    (row,) = json.loads((tmp_path / "cards.json").read_text())["rows"]
    assert row["cells"]["mmar"]["headline"] == 41.0
    assert "eval.json is newer than" in result.stderr
    paths.eval_json.unlink()
    gone = invoke(["cards", "--output-dir", str(tmp_path)])
    assert gone.code == 0, gone.stderr
    (row,) = json.loads((tmp_path / "cards.json").read_text())["rows"]
    assert row["cells"]["mmar"]["headline"] is None and "is gone since" in gone.stderr
