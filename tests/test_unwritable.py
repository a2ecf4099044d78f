"""Unwritable folders: every command says in one line which path it cannot write and what to pass instead.

Tests run as root in some places, and root writes through permission bits; the commands then run in a child
process whose capability bounding set lacks the permission overrides, so a read-only folder is read-only to it.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.testing.harness import CLEARED_ENV, invoke

PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _drop_overrides() -> None:
    """In the child, before exec: root loses the capabilities that ignore permission bits."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED_ENV}
    return subprocess.run(
        [sys.executable, "-m", "avibench.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_drop_overrides if os.geteuid() == 0 else None,
    )


def read_only(folder: Path) -> None:
    for path in [folder, *folder.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def tree(folder: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def colleague(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(data root, output dir): two finished oracle runs in a folder the user cannot write."""
    base = tmp_path_factory.mktemp("unwritable")
    root = build_dataset(base / "levels", {"AMIC": 4})
    out = base / "out"
    for label in ("a", "b"):
        common = ["--label", label, "--output-dir", str(out)]
        assert invoke(["infer", "--model", "oracle", "--data-root", str(root), *common]).code == 0
        assert invoke(["refine", "--data-root", str(root), *common]).code == 0
        assert invoke(["eval", "--tasks", "AMIC", "--data-root", str(root), *common]).code == 0
    read_only(out)
    return root, out


@pytest.mark.parametrize(
    ("command", "hint"),
    [
        (
            ["infer", "--model", "oracle", "--label", "a", "--tasks", "AMIC"],
            "pass --output-dir DIR, a folder you can write",
        ),
        (
            ["refine", "--label", "a", "--reparse"],
            "copy the run into a folder you can write and pass --output-dir DIR",
        ),
        (
            ["eval", "--label", "a", "--tasks", "AMIC"],
            "pass --out FILE to write eval.json (and its samples) where you can write",
        ),
        (["report", "--label", "a"], "pass --out DIR to write the report pages where you can write"),
        (["view", "--label", "a"], "pass --out FILE to write the page where you can write"),
        (["compare", "a", "b"], "pass --out DIR to write the comparison where you can write"),
        (["export", "--label", "a"], "pass --out DIR to write the predictions where you can write"),
        (["leaderboard"], "pass --out DIR to write the leaderboard where you can write"),
    ],
)
def test_every_command_names_the_path_and_the_option(colleague, command: list[str], hint: str) -> None:
    root, out = colleague
    before = tree(out)
    data = ["--data-root", str(root)] if command[0] in ("infer", "refine", "eval", "export") else []
    result = cli([*command, *data, "--output-dir", str(out)])
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: cannot write {out}/"), result.stderr
    assert "(Permission denied); " in result.stderr and result.stderr.endswith(hint + "\n")
    assert tree(out) == before


def test_reading_commands_write_where_out_says(colleague, tmp_path: Path) -> None:
    root, out = colleague
    before = tree(out)
    target = tmp_path / "e.json"
    args = ["--label", "a", "--tasks", "AMIC", "--data-root", str(root), "--output-dir", str(out)]
    scored = cli(["eval", *args, "--out", str(target)])
    assert scored.returncode == 0, scored.stderr
    assert json.loads((tmp_path / "e.json").read_text())["summary"]["tasks"]["AMIC"] == 100.0
    assert (tmp_path / "e.samples.jsonl").is_file()
    for command in (["report", "--label", "a"], ["compare", "a", "b"], ["leaderboard"]):
        result = cli([*command, "--output-dir", str(out), "--out", str(tmp_path / command[0])])
        assert result.returncode == 0, result.stderr
    assert (tmp_path / "report" / "report.html").is_file()
    assert (tmp_path / "compare" / "compare-avibench-a-vs-b.html").is_file()
    assert (tmp_path / "leaderboard" / "leaderboard.html").is_file()
    assert tree(out) == before, "nothing written under the unwritable output dir, no cache either"


def test_a_full_disk_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 3})
    common = ["--label", "o", "--output-dir", str(tmp_path / "out")]
    assert invoke(["infer", "--model", "oracle", "--data-root", str(root), *common]).code == 0
    assert invoke(["refine", "--data-root", str(root), *common]).code == 0

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("avibench.store.os.fsync", full)
    result = invoke(["eval", "--tasks", "AMIC", "--data-root", str(root), *common])
    assert result.code == 2
    eval_json = tmp_path / "out" / "o" / "avibench" / "eval.json"
    assert result.stderr.endswith(f"error: cannot write {eval_json} (No space left on device); pass --out FILE to "
                                  "write eval.json (and its samples) where you can write\n")  # fmt: skip
