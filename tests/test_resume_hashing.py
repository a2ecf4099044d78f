"""Resuming: the content hash a journal record carries stays the same from one version to the next (resumed runs
compare it with the dataset) and still sees an edited media file, and a no-op resume that skips the checks of a
finished task still finds every edit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from avibench.infer.fingerprint import content_hash
from avibench.items import Item, Part


def _item(root: Path) -> Item:
    return Item(
        benchmark="b",
        task="T",
        item_id="1",
        parts=(
            Part.audio(root / "data/input/a.wav", 1),
            Part.image(root / "data//input/./b.png"),
            Part.video(root / "data/input/missing.mp4"),
            Part.text("What?"),
        ),
        system="sys",
    )


@pytest.fixture
def media(tmp_path: Path) -> Path:
    (tmp_path / "data/input").mkdir(parents=True)
    (tmp_path / "data/input/a.wav").write_bytes(b"abc" * 5000)
    (tmp_path / "data/input/b.png").write_bytes(b"xyz")
    return tmp_path


def test_the_hash_is_the_one_earlier_versions_recorded(media: Path) -> None:
    assert content_hash(_item(media)) == "68d376d524fa24d4"


def test_an_edited_media_file_changes_the_hash(media: Path) -> None:
    before = content_hash(_item(media))
    wav = media / "data/input/a.wav"
    wav.write_bytes(b"abd" * 5000)
    os.utime(wav, ns=(1, 1))  # a new time as well: the fingerprint is kept per size and time
    assert content_hash(_item(media)) != before


def _infer(root: Path, out: Path) -> Any:
    from avibench.testing.harness import invoke

    args = ["infer", "--model", "oracle", "--data-root", str(root), "--output-dir", str(out)]
    return invoke(args, {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})


@pytest.fixture
def finished(tmp_path: Path) -> tuple[Path, Path]:
    """A finished oracle run, resumed once (which records that its task was found finished)."""
    from tiny_dataset import build_dataset

    root = build_dataset(tmp_path / "levels", {"AMIC": 8})
    out = tmp_path / "out"
    assert _infer(root, out).code == 0
    assert _infer(root, out).code == 0
    return root, out


def _no_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    from avibench.benchmarks.avibench.plugin import AVIBench

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the task was loaded and checked again")

    monkeypatch.setattr(AVIBench, "load", refuse)


def test_a_no_op_resume_of_a_finished_task_checks_nothing_again(
    finished: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out = finished
    _no_loading(monkeypatch)
    again = _infer(root, out)
    assert again.code == 0, again.stderr
    assert "8" in again.stdout  # the closing table, a result: stdout


def test_an_edited_media_file_is_still_found_after_a_no_op_resume(finished: tuple[Path, Path]) -> None:
    root, out = finished
    data = next(root.rglob("AMIC/data.json"))
    entries = json.loads(data.read_text())
    wav = data.parent / entries[6]["input"]["audio_list"][0]
    wav.write_bytes(wav.read_bytes()[:-2000])
    replaced = _infer(root, out)
    assert replaced.code == 2 and "entry 6" in replaced.stderr and "content hash differs" in replaced.stderr


def test_an_edited_question_is_still_found_after_a_no_op_resume(finished: tuple[Path, Path]) -> None:
    root, out = finished
    data = next(root.rglob("AMIC/data.json"))
    entries = json.loads(data.read_text())
    entries[4]["input"]["question"]["text"] += " (edited)"
    data.write_text(json.dumps(entries))
    edited = _infer(root, out)
    assert edited.code == 2 and "entry 4" in edited.stderr


def test_a_changed_journal_is_planned_in_full(finished: tuple[Path, Path]) -> None:
    from avibench.store import read_records

    root, out = finished
    journal = out / "oracle" / "avibench" / "infer" / "AMIC.jsonl"
    records = list(read_records(journal))
    failed = {**records[3], "predict": None, "error": "HTTP 500: injected"}
    with journal.open("a") as fh:
        fh.write(json.dumps(failed) + "\n")
    again = _infer(root, out)
    assert again.code == 0, again.stderr
    latest = [r for r in read_records(journal) if r["key"] == records[3]["key"]][-1]
    assert latest["error"] is None and latest["predict"]  # asked again, not taken as finished


def _refine(out: Path, root: Path, *extra: str) -> Any:
    from avibench.testing.harness import invoke

    args = ["refine", "--label", "oracle", "--data-root", str(root), "--output-dir", str(out), *extra]
    return invoke(args, {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "REFINE_BASE_URL": ""})


def test_a_no_op_refine_of_a_finished_task_reads_nothing_again(
    finished: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out = finished
    first = _refine(out, root)
    assert first.code == 0, first.stderr
    second = _refine(out, root)  # finds nothing to do, and records that
    with monkeypatch.context() as patched:
        _no_loading(patched)
        third = _refine(out, root)
        assert third.code == 0, third.stderr
        assert (third.stdout, third.stderr) == (second.stdout, second.stderr)
        with pytest.raises(AssertionError, match="loaded"):  # another mode is another question
            _refine(out, root, "--mode", "rules")


def test_a_refine_after_new_answers_refines_them(finished: tuple[Path, Path]) -> None:
    from avibench.store import read_records

    root, out = finished
    assert _refine(out, root).code == 0
    assert _refine(out, root).code == 0
    infer = out / "oracle" / "avibench" / "infer" / "AMIC.jsonl"
    records = list(read_records(infer))
    with infer.open("a") as fh:
        fh.write(json.dumps({**records[2], "predict": '{"dog": "7"}'}) + "\n")
    assert _refine(out, root).code == 0
    refine = out / "oracle" / "avibench" / "refine" / "AMIC.jsonl"
    latest = [r for r in read_records(refine) if r["key"] == records[2]["key"]][-1]
    assert latest["raw"] == '{"dog": "7"}'


def test_a_run_that_answered_everything_is_not_checked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tiny_dataset import build_dataset

    root = build_dataset(tmp_path / "levels", {"AMIC": 5})
    assert _infer(root, tmp_path / "out").code == 0
    _no_loading(monkeypatch)
    again = _infer(root, tmp_path / "out")
    assert again.code == 0, again.stderr
