"""Output files respect the umask; journal syncs are batched, never one per record."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from avibench import store
from avibench.store import JournalWriter, atomic_write_json, read_records


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_atomic_write_respects_umask(tmp_path: Path, mask: int, mode: int) -> None:
    old = os.umask(mask)
    try:
        atomic_write_json(tmp_path / "eval.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "eval.json").stat().st_mode) == mode


def _count_syncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(store.os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    return calls


def test_append_many_syncs_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_syncs(monkeypatch)
    with JournalWriter(tmp_path / "j.jsonl") as writer:
        writer.append_many({"index": i} for i in range(50))
        assert len(calls) == 1
    assert len(calls) == 1  # nothing new to sync on close
    assert [r["index"] for r in read_records(tmp_path / "j.jsonl")] == list(range(50))


def test_sync_interval_defers_syncs_but_flushes_every_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_syncs(monkeypatch)
    path = tmp_path / "j.jsonl"
    writer = JournalWriter(path, sync_interval=3600)
    for i in range(20):
        writer.append({"index": i})
        assert len(list(read_records(path))) == i + 1  # flushed: another reader sees it at once
    assert calls == []
    writer.close()
    assert len(calls) == 1


@pytest.mark.parametrize(("command", "heavy"), [("refine", "inflect"), ("report", "matplotlib")])
def test_help_does_not_import_heavy_modules(command: str, heavy: str) -> None:
    import subprocess
    import sys

    code = (
        "import sys\nfrom avibench.cli import cli\ntry:\n"
        f"    cli(['{command}', '--help'])\nexcept SystemExit:\n    pass\n"
        f"print('{heavy}' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
