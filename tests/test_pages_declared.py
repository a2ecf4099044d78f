"""The one report and the one leaderboard draw what a plug-in declares: a Board's rows, ranking, introduction and
blocks (over the ranked rows and over the runs on other data), and a ReportPage's sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_report_data import parse_page
from toy_benchmark import ToyBench

from avibench.contracts import RunPaths
from avibench.evaluate.document import DASH, Heading, Paragraph, Table, write_document
from avibench.evaluate.leaderboard import Board, BoardBlock, Section, headline_board, write_leaderboard
from avibench.evaluate.report import ReportPage, ReportRun, build_report


def _write_eval(out: Path, label: str, headline: float, kind: str) -> None:
    path = RunPaths(out, label, "toy").eval_json
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "summary": {"profile": "reference", "headline": headline, "tasks": {"event": headline}},
        "meta": {"model": f"{label}-model", "dataset": {"kind": kind, "why": "test"}},
        "coverage": {"event": {"questions": 4, "answered": 4, "scored": 4, "status": "complete"}},
    }
    path.write_text(json.dumps(doc), encoding="utf-8")


def _names(section: Section) -> list[Any]:
    kind = "apart" if section.apart else "ranked"
    rows = [
        [DASH if rank is None else str(rank), r["name"], f"{r['headline']:.1f}"] for rank, r in section.rows
    ]
    return [Heading(f"Names ({kind})"), Table(["#", "Name", "Headline"], rows)]


class BoardToy(ToyBench):
    """The toy benchmark with a leaderboard of its own: halves ranked, one names table, a keyed block."""

    def published(self) -> list[dict[str, Any]]:
        return [{"model": "Paper model", "headline": 70.0, "tasks": {"event": 70.0}, "source": "Toy paper"}]

    def leaderboard(self) -> Board:
        base = headline_board(self.name)
        return Board(
            blocks=(
                BoardBlock(_names),
                BoardBlock(
                    lambda s: [], key="halves", data=lambda rows: [r["headline"] / 2 for _, r in rows]
                ),
            ),
            run_row=base.run_row,
            published_rows=base.published_rows,
            rank=lambda rows: [(None if r["headline"] < 50 else i, r) for i, r in enumerate(rows, start=1)],
            intro=lambda runs: [Paragraph(f"{len(runs.ranked)} ranked run(s) from {runs.output_dir.name}.")],
            json_row=None,
            json_head=lambda title: {"title": title},
            stem="toy-board",
            filter_label=None,
        )

    def report_page(self) -> ReportPage:
        def headline(run: ReportRun) -> list[Any]:
            return [Heading("Toy headline"), Paragraph(f"{run.run_name}: {run.summary['headline']:.1f}")]

        return ReportPage(headline=headline, definitions=(("toy term", "what it means"),))


def test_a_declared_board_draws_its_blocks_for_ranked_rows_and_runs_apart(tmp_path: Path) -> None:
    _write_eval(tmp_path, "good", 80.0, "official")
    _write_eval(tmp_path, "weak", 40.0, "official")
    _write_eval(tmp_path, "demo", 90.0, "sample")
    md, html, data_path = write_leaderboard(BoardToy(), tmp_path)
    assert (md.name, html.name, data_path.name) == ("toy-board.md", "toy-board.html", "toy-board.json")
    page = parse_page(html.read_text(encoding="utf-8"))
    ranked, apart = page.tables
    assert ranked[0] == apart[0] == ["#", "Name", "Headline"]
    assert ranked[1:] == [["1", "good", "80.0"], ["–", "weak", "40.0"], ["3", "Paper model", "70.0"]]
    assert apart[1:] == [["–", "demo", "90.0"]]
    text = md.read_text(encoding="utf-8")
    assert "2 ranked run(s) from" in text and "Runs on other data (not comparable)" in text
    assert "Names (ranked)" in text and "Names (apart)" in text and "demo: sample data, test" in text
    data = json.loads(data_path.read_text(encoding="utf-8"))
    assert data == {"title": "Toy yes/no audio QA leaderboard", "halves": [40.0, 20.0, 35.0],
                    "other_data": {"halves": [45.0]}}  # fmt: skip


def test_the_default_board_ranks_headlines_and_sets_other_data_apart(tmp_path: Path) -> None:
    _write_eval(tmp_path, "good", 80.0, "official")
    _write_eval(tmp_path, "demo", 90.0, "sample")
    *_, data_path = write_leaderboard(ToyBench(), tmp_path)
    data = json.loads(data_path.read_text(encoding="utf-8"))
    assert data_path.name == "leaderboard-toy.json"
    assert [r["name"] for r in data["rows"]] == ["good"] and [r["name"] for r in data["other_data"]] == [
        "demo"
    ]


def test_a_declared_report_section_replaces_the_generic_one(tmp_path: Path) -> None:
    _write_eval(tmp_path, "good", 80.0, "official")
    paths = RunPaths(tmp_path, "good", "toy")
    write_document(build_report(BoardToy(), paths), paths.report_md, paths.report_html)
    text = paths.report_md.read_text(encoding="utf-8")
    assert "Toy headline" in text and "good-model: 80.0" in text and "Headline (0–100)" not in text
    assert "Scores per task" in text and "Coverage" in text  # the sections it does not declare stay generic
    assert "toy term" in text and "what it means" in text
    generic = build_report(ToyBench(), paths)
    assert any(isinstance(b, Heading) and b.text == "Headline (0–100)" for b in generic.blocks)
