"""`avibench report`: report.md and a self-contained report.html from eval.json and the journals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_report_data import REFERENCE_SHAPED, make_eval_doc, parse_page, write_jsonl, write_report, write_run

from avibench.benchmarks.avibench.table import summary_numbers
from avibench.cli import main
from avibench.testing.harness import invoke


def _row(tables: list[list[list[str]]], first_cell: str, header: str) -> list[str]:
    """The row starting with ``first_cell`` in the table whose header row contains ``header``."""
    for table in tables:
        if header in table[0]:
            for row in table[1:]:
                if row[0] == first_cell:
                    return row
    raise AssertionError(f"no row {first_cell!r} in a table with column {header!r}")


@pytest.fixture
def run(tmp_path: Path) -> tuple[Path, dict]:
    doc = make_eval_doc(model="<b>gem&ini</b>")
    run_dir = write_run(tmp_path, "gem", doc)
    base = {
        "id": "x",
        "subtask": None,
        "raw_hash": "h",
        "error": None,
        "refine_model": None,
        "time": "t",
        "version": "0",
    }
    write_jsonl(
        run_dir / "refine" / "AMIC.jsonl",
        [
            {
                **base,
                "index": 0,
                "task": "AMIC",
                "raw": "a",
                "predict": None,
                "method": "failed",
                "error": "boom",
            },
            {
                **base,
                "index": 0,
                "task": "AMIC",
                "raw": "a",
                "predict": "{}",
                "method": "llm",
                "llm_output": "{}",
            },
            {**base, "index": 1, "task": "AMIC", "raw": "b", "predict": "{}", "method": "rule"},
            {**base, "index": 2, "task": "AMIC", "raw": "c", "predict": "{}", "method": "rule"},
            {**base, "index": 3, "task": "AMIC", "raw": "d", "predict": "d", "method": "unparsed"},
        ],
    )
    write_jsonl(
        run_dir / "refine" / "AVM.jsonl",
        [
            {**base, "index": i, "task": "AVM", "raw": "r", "predict": "r", "method": "passthrough"}
            for i in range(3)
        ],
    )
    rec = {
        "id": "x",
        "task": "AMIC",
        "subtask": None,
        "backend": "openai",
        "model": "m",
        "params": {},
        "prompt_hash": "p",
    }
    usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
    write_jsonl(
        run_dir / "infer" / "AMIC.jsonl",
        [
            {
                **rec,
                "index": 0,
                "predict": None,
                "error": "HTTP 500",
                "latency_s": 1.0,
                "usage": None,
                "attempts": 5,
            },
            {**rec, "index": 0, "predict": "two dogs", "error": None, "latency_s": 2.0, "usage": usage},
            {
                **rec,
                "index": 1,
                "predict": "a man",
                "error": None,
                "latency_s": 3.0,
                "usage": usage,
                "attempts": 2,
            },
            {**rec, "index": 2, "predict": None, "error": "timeout", "latency_s": 4.0, "usage": None},
        ],
    )
    write_jsonl(
        run_dir / "infer" / "VMIC.jsonl",
        [
            {
                **rec,
                "task": "VMIC",
                "index": 0,
                "predict": "a cat",
                "error": None,
                "latency_s": 0.5,
                "usage": None,
            }
        ],
    )
    (run_dir / "infer" / "run.json").write_text(
        json.dumps({"backend": "openai", "base_url": "http://127.0.0.1:9"})
    )
    return tmp_path, doc


def test_html_report_is_self_contained_and_shows_the_numbers(run: tuple[Path, dict]) -> None:
    output_dir, doc = run
    _, html_path = write_report(output_dir, "gem")
    assert html_path == output_dir / "gem" / "avibench" / "report.html"
    page = parse_page(html_path.read_text(encoding="utf-8"))

    # two inline SVG charts (stages beside published models, then tasks), each titled once by its caption
    text = html_path.read_text(encoding="utf-8")
    assert not page.images and text.count('class="chart"') == 2
    assert text.count("<figcaption>Stages and Overall beside published models</figcaption>") == 1
    assert (
        'data-series="&lt;b&gt;gem&amp;ini&lt;/b&gt;,Gemini-2.5-Pro,Gemini-2.5-Flash,Gemini-2.0-Flash"'
        in text
    )
    assert text.count('class="bar" data-series="&lt;b&gt;gem&amp;ini&lt;/b&gt;" data-category="AMIC"') == 1
    assert not {"script", "link", "iframe", "img"} & set(page.tags)

    summary = doc["summary"]
    numbers = summary_numbers(summary)
    headline = _row(page.tables, f"{numbers['stages']['perception']:.2f}", "Perception")
    expected = [
        f"{numbers['stages'][s]:.2f}" for s in ("perception", "understanding", "reasoning", "sensation")
    ]
    expected += [f"{numbers['overall']:.2f}"] + [f"{v:.2f}" for v in numbers["taxonomy"].values()]
    assert headline == expected

    for task, score in summary["tasks"].items():
        row = next(r for t in page.tables for r in t if len(r) > 1 and r[1] == task)
        assert row[2] == f"{score:.2f}"
    amic = next(r for t in page.tables for r in t if len(r) > 1 and r[1] == "AMIC")
    for value in REFERENCE_SHAPED["perception"]["amic"].values():
        assert f"{value:.5f}" in amic[6]
    avc = next(r for t in page.tables for r in t if len(r) > 1 and r[1] == "AVC")
    assert "n_samples 280" in avc[6]

    strict = doc["summary"]["by_profile"]["strict"]["tasks"]["AVQA"]
    reference = doc["summary"]["by_profile"]["reference"]["tasks"]["AVQA"]
    assert _row(page.tables, "AVQA", "Strict − reference") == [
        "AVQA",
        f"{reference:.2f}",
        f"{strict:.2f}",
        f"{strict - reference:+.2f}",
    ]

    avqa = _row(page.tables, "AVQA", "Unparsed")
    assert avqa[:8] == ["AVQA", "10", "10", "0", "0", "0", "8", "scored"]
    # each note is said once, in the notes list, and the coverage table points to it
    marker = _row(page.tables, "AVH", "Unparsed")[8]
    assert marker.startswith("[") and text.count("AVH: double-confirm pair out of order") == 1
    notes = text.split('<ol class="notes">', 1)[1].split("</ol>", 1)[0]
    assert notes.count("<li>") >= int(marker.strip("[]")) and "double-confirm pair out of order" in notes

    # the user-derived model name is escaped, never markup
    assert "<b>gem" not in text and "&lt;b&gt;gem&amp;ini&lt;/b&gt;" in text


def test_refine_and_usage_sections_read_the_latest_journal_records(run: tuple[Path, dict]) -> None:
    output_dir, _ = run
    _, html_path = write_report(output_dir, "gem")
    page = parse_page(html_path.read_text(encoding="utf-8"))
    # rules / LLM / unparsed / passthrough / failed / other / samples: the failed record of index 0 was superseded
    assert _row(page.tables, "AMIC", "Passthrough")[1:] == ["2", "1", "1", "0", "0", "0", "4"]
    assert _row(page.tables, "AVM", "Passthrough")[1:] == ["0", "0", "0", "3", "0", "0", "3"]
    assert _row(page.tables, "Total", "Passthrough")[1:] == ["2", "1", "1", "3", "0", "0", "7"]
    # every record counts for tokens and latency: latencies 1, 2, 3, 4 -> p50 2.5, p95 3.85, max 4; requests sent
    # count each record's attempts (5 + 1 + 2 + 1; a record without attempts is one request)
    usage = _row(page.tables, "AMIC", "Latency p50 (s)")
    assert usage[1:] == ["9", "4", "2", "1", "200", "20", "220", "2.50", "3.85", "4.00"]
    # a journal whose requests report no usage shows dashes, not zero tokens
    assert _row(page.tables, "VMIC", "Latency p50 (s)")[1:] == [
        "1",
        "1",
        "1",
        "0",
        "–",
        "–",
        "–",
        "0.50",
        "0.50",
        "0.50",
    ]
    assert _row(page.tables, "Total", "Latency p50 (s)")[1:8] == ["10", "5", "3", "1", "200", "20", "220"]
    provenance = {
        (r[0], r[1]): r[2] for t in page.tables if t[0] == ["File", "Field", "Value"] for r in t[1:]
    }
    assert provenance[("eval.json", "fense.status")] == "stand-in"
    assert provenance[("eval.json", "dataset_fingerprint")] == "sha256:abc123"
    assert provenance[("infer/run.json", "base_url")] == "http://127.0.0.1:9"


def test_markdown_report_holds_the_headline_numbers(run: tuple[Path, dict]) -> None:
    output_dir, doc = run
    md_path, _ = write_report(output_dir, "gem")
    text = md_path.read_text(encoding="utf-8")
    summary = summary_numbers(doc["summary"])
    numbers = [summary["overall"], *summary["stages"].values(), *summary["taxonomy"].values()]
    headline = next(line for line in text.splitlines() if f"{summary['overall']:.2f}" in line)
    for value in numbers:
        assert f"{value:.2f}" in headline
    assert "## Coverage" in text and "| AVQA | 10 | 10 | 0 | 0 | 0 | 8 | scored |" in text
    assert "&lt;b&gt;gem&amp;ini&lt;/b&gt;" in text


def test_sections_without_journals_say_not_available(tmp_path: Path) -> None:
    doc = make_eval_doc(drop=("AVL", "VSQA_I", "VSQA_V"))
    write_run(tmp_path, "rescored", doc)
    md_path, html_path = write_report(tmp_path, "rescored")
    text = md_path.read_text(encoding="utf-8")
    assert text.count("Not available: no") == 2
    assert "Not scored (no bar drawn): AVL, VSQA." in text
    html_text = html_path.read_text(encoding="utf-8")
    page = parse_page(html_text)
    # an unscored task draws no bar (never a bar at 0) and says so; stages resting on it are badged incomplete
    assert 'class="bar missing" data-series="gemini-test" data-category="AVL" data-value=""' in html_text
    assert 'data-category="AVL" data-value="0' not in html_text
    headline = next(t for t in page.tables if "Perception" in t[0])[1]
    assert headline[0].endswith("incomplete") and headline[4].endswith("incomplete")  # Perception, Overall
    written = json.loads((tmp_path / "rescored" / "avibench" / "eval.json").read_text())
    assert headline[2] == f"{summary_numbers(written['summary'])['stages']['reasoning']:.2f}"
    # the three unscored folders share one reason, said once in the notes
    refs = {_row(page.tables, name, "Unparsed")[8] for name in ("AVL", "VSQA_I", "VSQA_V")}
    assert len(refs) == 1 and _row(page.tables, "VSQA_I", "Unparsed")[7] == "not_scored"
    assert html_text.count("<li>no predictions</li>") == 1
    task_row = next(r for t in page.tables for r in t if len(r) > 1 and r[1] == "AVL")
    assert task_row[2] == "–not scored" and task_row[6] == "not scored"


def test_missing_eval_json_tells_the_user_to_run_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = invoke(["report", "--output-dir", str(tmp_path), "--label", "nothing"])
    assert missing.code == 2 and "avibench eval --benchmark avibench --label nothing" in missing.stderr
    with pytest.raises(SystemExit) as exit_info:
        main(["report", "--model", "org/none", "--output-dir", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert (
        "eval.json" in err
        and "avibench eval --benchmark avibench --label org_none" in err
        and "Traceback" not in err
    )


def test_report_command_writes_both_files(run: tuple[Path, dict], capsys: pytest.CaptureFixture[str]) -> None:
    output_dir, _ = run
    main(["report", "--label", "gem", "--output-dir", str(output_dir)])
    out = capsys.readouterr().out
    assert "report.md" in out and "report.html" in out
    assert (output_dir / "gem" / "avibench" / "report.md").is_file() and (
        output_dir / "gem" / "avibench" / "report.html"
    ).is_file()
    assert not list((output_dir / "gem" / "avibench").glob(".*.tmp"))


def test_broken_eval_json_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad" / "avibench").mkdir(parents=True)
    (tmp_path / "bad" / "avibench" / "eval.json").write_text('{"summary": ', encoding="utf-8")
    broken = invoke(["report", "--output-dir", str(tmp_path), "--label", "bad"])
    assert broken.code == 2 and re.search(r"eval\.json: invalid JSON at line 1", broken.stderr)
