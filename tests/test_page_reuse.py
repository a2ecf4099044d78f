"""report and view of an unchanged run print what they printed and leave their pages as they are; anything a page
is built from that changes (a journal, eval.json, a media file, an option, the code, the page itself) builds it
again, and what every invocation rewrites (stage logs, locks) does not."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from tiny_dataset import build_dataset

from avibench.evaluate import page_reuse, reuse
from avibench.testing.harness import CliResult, invoke

PAGES = {"report": ("report.md", "report.html"), "view": ("viewer.html",)}


def _run(args: list[str]) -> CliResult:
    return invoke(args, {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "REFINE_BASE_URL": ""})


@pytest.fixture
def run(tmp_path: Path) -> dict[str, Any]:
    """A scored oracle run of two AMIC questions with both pages written once."""
    root = build_dataset(tmp_path / "levels", {"AMIC": 2})
    out = tmp_path / "out"
    where = ["--data-root", str(root), "--output-dir", str(out)]
    for args in (
        ["infer", "--model", "oracle"],
        ["refine", "--label", "oracle"],
        ["eval", "--label", "oracle", "--tasks", "AMIC"],
    ):
        result = _run([*args, *where])
        assert result.code == 0, result.stderr
    folder = out / "oracle" / "avibench"
    first = {stage: _run([stage, "--label", "oracle", "--output-dir", str(out)]) for stage in PAGES}
    for result in first.values():
        assert result.code == 0, result.stderr
    return {"root": root, "out": out, "folder": folder, "where": where, "first": first}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each page actually built (report's document, the viewer's page)."""
    from avibench.evaluate import report_cli, viewer

    built: list[str] = []
    real_report, real_view = report_cli.build_report, viewer.viewer_html

    def report(*args: Any, **kwargs: Any) -> Any:
        built.append("report")
        return real_report(*args, **kwargs)

    def view(*args: Any, **kwargs: Any) -> Any:
        built.append("view")
        return real_view(*args, **kwargs)

    monkeypatch.setattr(report_cli, "build_report", report)
    monkeypatch.setattr(viewer, "viewer_html", view)
    return built


def _pages_state(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {
        name: ((folder / name).stat().st_mtime_ns, (folder / name).read_bytes())
        for names in PAGES.values()
        for name in names
    }


def _again(run: dict[str, Any], stage: str, *extra: str) -> CliResult:
    result = _run([stage, "--label", "oracle", "--output-dir", str(run["out"]), *extra])
    assert result.code == 0, result.stderr
    return result


def test_an_unchanged_run_is_not_built_again(run: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    built = _counting(monkeypatch)
    before = _pages_state(run["folder"])
    for stage in PAGES:
        again = _again(run, stage)
        assert (again.stdout, again.stderr) == (run["first"][stage].stdout, run["first"][stage].stderr)
    assert built == []
    assert _pages_state(run["folder"]) == before


def test_a_no_op_infer_and_refine_leave_the_pages_reused(
    run: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each invocation appends to the stage logs and takes the locks; the pages read neither."""
    logs = [run["folder"] / "infer" / "run.log", run["folder"] / "infer" / "runs.jsonl"]
    before = [p.stat().st_size for p in logs]
    assert _run(["infer", "--model", "oracle", *run["where"]]).code == 0
    assert _run(["refine", "--label", "oracle", *run["where"]]).code == 0
    assert [p.stat().st_size for p in logs] != before  # the logs did grow
    built = _counting(monkeypatch)
    for stage in PAGES:
        _again(run, stage)
    assert built == []


def _touch_media(run: dict[str, Any]) -> None:
    media = next(p for p in sorted(run["root"].rglob("*.wav")))
    media.write_bytes(media.read_bytes() + b"\0\0")


def _edit_journal(run: dict[str, Any]) -> None:
    journal = run["folder"] / "refine" / "AMIC.jsonl"
    lines = journal.read_text().splitlines()
    record = json.loads(lines[-1])
    record["refined"] = "answer={'dog': 9}"
    journal.write_text("\n".join([*lines, json.dumps(record)]) + "\n")


def _edit_code(run: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir(exist_ok=True)
    (code / "report.py").write_text("VERSION = 2\n")
    monkeypatch.setattr(reuse, "code_roots", lambda: [code])


@pytest.mark.parametrize("change", ["media", "journal", "eval", "page", "code", "environment", "stamp"])
@pytest.mark.parametrize("stage", list(PAGES))
def test_a_page_is_built_again_when_what_it_reads_changed(
    run: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, change: str, stage: str
) -> None:
    page = run["folder"] / PAGES[stage][0]
    if change == "media":
        _touch_media(run)
    elif change == "journal":
        _edit_journal(run)
    elif change == "eval":
        eval_json = run["folder"] / "eval.json"
        eval_json.write_text(eval_json.read_text().replace('"reference"', '"reference" ', 1))
    elif change == "page":
        page.write_text("edited by hand")
    elif change == "code":
        _edit_code(run, monkeypatch, tmp_path)
    elif change == "environment":
        monkeypatch.setenv("AVIBENCH_FENSE", "off")
    else:  # a stamp torn or edited by hand: built again, no traceback
        stamp = reuse.stamp_path(page)
        stamp.write_text(json.dumps(json.loads(stamp.read_text()) | {"lines": [["stderr", 3]]}))
    built = _counting(monkeypatch)
    again = _again(run, stage)
    assert built == [stage], again.stderr
    assert "edited by hand" not in page.read_text()
    built.clear()
    _again(run, stage)
    assert built == []  # and the new stamp is taken next time


def test_another_option_builds_the_report_again(run: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    built = _counting(monkeypatch)
    _again(run, "report", "--price-in", "1", "--price-out", "2")
    assert built == ["report"]
    assert "cost" in (run["folder"] / "report.md").read_text().lower()
    _again(run, "report")
    assert built == ["report", "report"]


def test_a_page_that_failed_leaves_no_stamp(run: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from avibench.evaluate import report_cli

    _edit_journal(run)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk full")

    monkeypatch.setattr(report_cli, "build_report", broken)
    with pytest.raises(RuntimeError):
        _run(["report", "--label", "oracle", "--output-dir", str(run["out"])])
    assert not reuse.stamp_path(run["folder"] / "report.md").exists()
    monkeypatch.undo()
    built = _counting(monkeypatch)
    _again(run, "report")
    assert built == ["report"]


def test_the_page_names_are_the_pages_written() -> None:
    from avibench.contracts import RunPaths
    from avibench.evaluate.viewer import VIEWER_NAME

    paths = RunPaths(Path("out"), "label", "avibench")
    assert {paths.report_md.name, paths.report_html.name, VIEWER_NAME} == page_reuse.PAGE_NAMES


def test_the_walk_sees_links_follows_linked_folders_once_and_ends_on_a_loop(tmp_path: Path) -> None:
    data, media = tmp_path / "data", tmp_path / "media"
    media.mkdir()
    (media / "a.wav").write_bytes(b"1")
    data.mkdir()
    (data / "clips").symlink_to(media, target_is_directory=True)
    (data / "again").symlink_to(media, target_is_directory=True)
    (data / "loop").symlink_to(data, target_is_directory=True)
    (data / "dangling").symlink_to(tmp_path / "nowhere")
    states = dict(reuse.walk_files(str(data)))
    assert states[str(data / "dangling")] == f"missing -> {tmp_path / 'nowhere'}"
    assert states[str(data / "clips")] == f" -> {media}"
    walked = [p for p in states if p.endswith("a.wav")]
    assert len(walked) == 1  # the folder two links point to is read once
    before = reuse.tree_state([data])
    (media / "a.wav").write_bytes(b"22")
    assert reuse.tree_state([data]) != before  # a file reached through a link counts
    changed = reuse.tree_state([data])
    os.remove(data / "again")
    (data / "again").symlink_to(tmp_path, target_is_directory=True)
    assert reuse.tree_state([data]) != changed  # so does where a link points


def test_runs_kept_inside_the_data_root_do_not_count_as_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 2})
    out = root / "outputs"
    where = ["--data-root", str(root), "--output-dir", str(out)]
    for args in (["infer", "--model", "oracle"], ["refine", "--label", "oracle"]):
        assert _run([*args, *where]).code == 0
    assert _run(["eval", "--label", "oracle", "--tasks", "AMIC", *where]).code == 0
    assert _run(["report", "--label", "oracle", "--output-dir", str(out)]).code == 0
    built = _counting(monkeypatch)
    assert _run(["report", "--label", "oracle", "--output-dir", str(out)]).code == 0
    assert built == []  # writing the page and its stamp changed no data
