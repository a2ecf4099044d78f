"""Per-sample rows, chart marks, the viewer page and its server, `avibench runs` and `avibench compare`."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from avibench.cli import main
from avibench.contracts import RunPaths
from avibench.evaluate.badges import Status, aggregate_cell, score_cell
from avibench.evaluate.runs import list_runs
from avibench.evaluate.samples import outcome_of, write_samples
from avibench.evaluate.svg import Series, grouped_bars
from avibench.evaluate.viewer import make_server, media_base_for, viewer_html


@pytest.mark.parametrize(
    ("infer", "method", "score", "outcome"),
    [
        (None, None, None, "missing"),
        ({"predict": None, "error": "HTTP 500"}, "failed", None, "failed"),
        ({"predict": "x", "error": None}, "unparsed", 0.0, "unparsed"),
        ({"predict": "x", "error": None}, "rule", None, "not_scored"),
        ({"predict": "x", "error": None}, "rule", 1.0, "correct"),
        ({"predict": "x", "error": None}, "rule", 0.4, "partial"),
        ({"predict": "x", "error": None}, "rule", 0.0, "incorrect"),
    ],
)
def test_outcome_of_a_sample(infer, method, score, outcome) -> None:
    assert outcome_of(infer, method, score) == outcome


def test_chart_draws_no_bar_for_an_unscored_value_and_marks_chance_and_intervals() -> None:
    svg = grouped_bars(
        ["AMIC", "AVC"], [Series("run", [40.0, None], [(30.0, 50.0), None]), Series("paper", [60.0, 55.0])],
        chance=[2.5, None],
    )  # fmt: skip
    assert (
        svg.count('class="bar"') == 3 and 'class="bar missing" data-series="run" data-category="AVC"' in svg
    )
    assert 'data-category="AVC" data-value="0' not in svg
    assert svg.count('class="chance"') == 1 and 'data-value="2.50"' in svg
    assert 'class="ci" data-series="run" data-category="AMIC" data-low="30.00" data-high="50.00"' in svg
    sizes = [int(s.split('"')[0]) for s in svg.split('font-size="')[1:]]
    assert min(sizes) >= 12 and "<title>" not in svg.split("<rect", 1)[0]  # no chart title of its own


def test_badges() -> None:
    assert str(score_cell(41.0, Status("partial", "8 of 10 scored"))) == "41.00 (partial)"
    assert str(score_cell(None, Status("not_scored", "no predictions"))) == "– (not scored)"
    statuses = {"A": Status("scored"), "B": Status("partial", "x")}
    assert aggregate_cell(50.0, ["A"], statuses).badge == ""
    cell = aggregate_cell(50.0, ["A", "B", "C"], statuses)
    assert cell.badge == "incomplete" and cell.hint == "rests on incomplete tasks: B (partial), C (not run)"


def test_viewer_page_holds_rows_safely_and_serves_only_the_data_root(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "t").mkdir(parents=True)
    (root / "t" / "a.wav").write_bytes(b"RIFF....")
    (tmp_path / "secret.txt").write_text("no")
    rows = [
        {
            "task": "T",
            "key": "0",
            "question": "</script><b>hi</b>",
            "media": [{"kind": "audio", "path": "t/a.wav"}],
        }
    ]
    page = viewer_html("V", rows, tasks=["T"], profile="reference", media_base="/media/")
    assert page.count("</script>") == 4 and "<\\/script><b>hi<\\/b>" in page
    assert media_base_for(tmp_path / "out" / "run" / "viewer.html", root) == "../../data/"
    server = make_server(page, root, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert urllib.request.urlopen(base + "/").read().decode() == page
        assert urllib.request.urlopen(base + "/media/t/a.wav").read() == b"RIFF...."
        for bad in ("/media/../secret.txt", "/media/%2e%2e/secret.txt", "/media/t/none.wav"):
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(base + bad)
            assert err.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_runs_lists_stage_states(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path, "gem", "avibench")
    _jsonl(
        paths.infer_journal("AMIC"),
        [
            {"index": 0, "predict": "a", "error": None},
            {"index": 1, "predict": "b", "error": None},
            {"index": 2, "predict": None, "error": "HTTP 500"},
        ],
    )
    _jsonl(paths.refine_journal("AMIC"), [{"index": 0, "raw": "a", "predict": "{}", "method": "rule"}])
    paths.run_json.write_text(
        json.dumps({"model": "gem-1", "data_root": str(tmp_path / "gone"), "tasks": ["AMIC"]})
    )
    (status,) = list_runs(tmp_path)
    assert (status.label, status.benchmark, status.model) == ("gem", "avibench", "gem-1")
    assert (status.infer, status.refine, status.eval) == ("failed 1", "pending 1", "pending")
    assert status.dataset.startswith("missing")


def _scored_run(output_dir: Path, label: str, scores: list[float]) -> None:
    paths = RunPaths(output_dir, label, "avibench")
    rows = [
        {"task": "AVM", "reported_task": "AVM", "key": str(i), "group": f"AVM/{i}", "scores": {"reference": s},
         "outcome": "correct" if s else "incorrect", "question": "q", "media": []}
        for i, s in enumerate(scores)
    ]  # fmt: skip
    paths.root.mkdir(parents=True)
    write_samples(paths.root / "samples.jsonl", rows)
    summary = {"profile": "reference", "tasks": {"AVM": 100 * sum(scores) / len(scores)}}
    paths.eval_json.write_text(json.dumps({"summary": summary, "meta": {"data_root": str(output_dir)}}))


def test_compare_reports_paired_differences_and_flipped_samples(tmp_path: Path, capsys) -> None:
    _scored_run(tmp_path, "a", [0.0] * 30 + [1.0] * 10)
    _scored_run(tmp_path, "b", [1.0] * 30 + [1.0] * 10)
    main(["compare", "a", "b", "--output-dir", str(tmp_path)])
    assert "compare-avibench-a-vs-b.html" in capsys.readouterr().out
    data = json.loads((tmp_path / "compare-avibench-a-vs-b.json").read_text())
    (comparison,) = data["comparisons"]
    avm = comparison["differences"]["AVM"]
    assert avm["delta"] == 75.0 and avm["significant"] and avm["items"] == 40
    assert [c["key"] for c in comparison["changed"]] == sorted((str(i) for i in range(30)), key=str)
    html = (tmp_path / "compare-avibench-a-vs-b.html").read_text()
    assert (
        'href="a/avibench/viewer.html#sample=AVM/0"' in html
        and (tmp_path / "b/avibench/viewer.html").is_file()
    )
