from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from avibench.store import JournalWriter, _umask, atomic_write_json, latest_by_index, read_records


def test_append_and_latest_wins(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with JournalWriter(path) as w:
        w.append({"index": 0, "predict": None, "error": "boom"})
        w.append({"index": 1, "predict": "a"})
        w.append({"index": 0, "predict": "b", "error": None})
    latest = latest_by_index(path)
    assert latest[0]["predict"] == "b"
    assert latest[1]["predict"] == "a"


def test_torn_tail_is_ignored_then_cut_before_append(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"index": 0, "predict": "x"}\n{"index": 1, "pred')
    assert [r["index"] for r in read_records(path)] == [0]
    with JournalWriter(path) as w:
        w.append({"index": 1, "predict": "y"})
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[1]) == {"index": 1, "predict": "y"}


def test_torn_single_line_file(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"index": 0')
    assert list(read_records(path)) == []
    with JournalWriter(path) as w:
        w.append({"index": 0})
    assert path.read_text() == '{"index":0}\n'


def test_garbage_lines_and_non_objects_skipped(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'[1, 2]\n\xff\xfe\nnot json\n{"index": true}\n{"index": 2}\n')
    assert list(read_records(path)) == [{"index": True}, {"index": 2}]
    assert list(latest_by_index(path)) == [2]


def test_missing_file_reads_empty(tmp_path: Path) -> None:
    assert list(read_records(tmp_path / "none.jsonl")) == []


def test_atomic_write_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "eval.json"
    atomic_write_json(target, {"a": 1})
    atomic_write_json(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert [p.name for p in target.parent.iterdir()] == ["eval.json"]


def test_concurrent_writers_never_tear_each_other(tmp_path: Path) -> None:
    """Several processes appending to one journal (shards) while new writers open it: every line stays whole."""
    import multiprocessing

    path = tmp_path / "j.jsonl"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_write_many, args=(path, k)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    lines = path.read_bytes().splitlines()
    assert len(lines) == 4 * 200
    assert {json.loads(line)["index"] for line in lines} == {
        k * 1000 + i for k in range(4) for i in range(200)
    }


def _write_many(path: Path, shard: int) -> None:
    for i in range(200):
        # re-open now and then: opening cuts a torn tail, which must never be another writer's line in progress
        with JournalWriter(path, fsync=False) as w:
            w.append({"index": shard * 1000 + i, "pad": "x" * 5000})


def test_a_page_with_the_same_bytes_is_left_as_it_is(tmp_path: Path) -> None:
    from avibench.store import write_if_changed

    page = tmp_path / "report.md"
    write_if_changed(page, "# one\n")
    os.utime(page, ns=(1, 1))
    write_if_changed(page, "# one\n")
    assert page.stat().st_mtime_ns == 1
    write_if_changed(page, "# two\n")
    assert page.read_text() == "# two\n" and page.stat().st_mtime_ns != 1
    page.unlink()
    page.symlink_to(tmp_path / "elsewhere.md")
    (tmp_path / "elsewhere.md").write_text("# two\n")
    write_if_changed(page, "# two\n")
    assert not page.is_symlink() and (tmp_path / "elsewhere.md").read_text() == "# two\n"


def test_lines_are_written_whole_or_not_at_all(tmp_path: Path) -> None:
    from avibench.store import atomic_write_lines

    path = tmp_path / "rows.jsonl"
    assert atomic_write_lines(path, (json.dumps({"i": i}) for i in range(600))) == 600
    assert [json.loads(line)["i"] for line in path.read_text().splitlines()] == list(range(600))

    def broken() -> Iterator[str]:
        yield "{}"
        raise RuntimeError("row 2")

    with pytest.raises(RuntimeError):
        atomic_write_lines(path, broken())
    assert len(path.read_text().splitlines()) == 600 and list(tmp_path.iterdir()) == [path]


def test_pending_lines_appear_whole_under_the_name_chosen_last_or_not_at_all(tmp_path: Path) -> None:
    from avibench.store import PendingLines

    old = tmp_path / "samples.jsonl"
    old.write_text('{"old": true}\n')
    with pytest.raises(RuntimeError), PendingLines(tmp_path) as pending:
        pending.write('{"i": 0}')
        raise RuntimeError("eval stopped before naming the file")
    assert old.read_text() == '{"old": true}\n' and list(tmp_path.iterdir()) == [old]

    with PendingLines(tmp_path) as pending:
        for i in range(3):
            pending.write(json.dumps({"i": i}))
        assert old.read_text() == '{"old": true}\n'  # nothing named until the commit
        pending.commit(tmp_path / "eval-partial.samples.jsonl")
    assert pending.count == 3
    written = tmp_path / "eval-partial.samples.jsonl"
    assert [json.loads(line)["i"] for line in written.read_text().splitlines()] == [0, 1, 2]
    assert sorted(tmp_path.iterdir()) == [written, old]
    assert oct(written.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def test_the_sink_writes_on_when_a_writer_waiting_for_the_disk_is_cancelled(tmp_path: Path) -> None:
    """A run that stops cancels the workers waiting for their record to reach the disk: the record is written
    all the same, and so is every record queued after it (the counts already hold them)."""
    import asyncio

    from avibench.store import JournalSink

    path = tmp_path / "T.jsonl"

    async def scenario() -> None:
        sink = JournalSink()
        first = asyncio.create_task(sink.write(path, {"key": "a"}))
        await asyncio.sleep(0)  # queued, waiting for the disk
        first.cancel()
        writer = asyncio.create_task(sink.run())
        await asyncio.sleep(0.05)
        await asyncio.wait_for(sink.write(path, {"key": "b"}), 5)  # a dead writer would never write it
        sink.stop()
        await writer
        sink.close()

    asyncio.run(scenario())
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
