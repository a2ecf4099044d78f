"""One process per part of a run: two processes on one label never ask the same question twice.

A stage holds an exclusive ``flock`` on ``<run>/.lock-<stage>-<i>of<n>`` while it works on shard ``i/n`` (a stage
that is not sharded holds ``0of1``). The kernel drops the lock when the process ends, however it ends, so a lock
file left by a killed process is stale by construction and simply taken over. Before starting, a process also
probes the locks of every other shard that shares questions with its own (``i/n`` and ``j/m`` share questions
when ``i`` and ``j`` are equal modulo the greatest common divisor of ``n`` and ``m``), so ``0/1`` and ``1/2``
exclude each other while ``0/2`` and ``1/2`` run side by side. The file holds the holder's pid, host, command and
start time, which the refusal names.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from avibench.errors import AvibenchError

_NAME = re.compile(r"^\.lock-(?P<stage>[a-z]+)-(?P<i>\d+)of(?P<n>\d+)$")


class RunBusyError(AvibenchError):
    """Another live process works on the same questions of the run."""


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether shards ``a`` and ``b`` (index, count) share questions."""
    return (a[0] - b[0]) % math.gcd(a[1], b[1]) == 0


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"another process (see {path})"
    return (
        f"pid {info.get('pid')} on {info.get('host')} since {info.get('started')} "
        f"({info.get('command') or 'avibench'})"
    )


def _held(path: Path) -> bool:
    """Whether a live process holds the lock at ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


@contextmanager
def run_lock(root: Path, stage: str, label: str, shard: tuple[int, int] = (0, 1)) -> Iterator[None]:
    """Hold shard ``shard`` of ``stage`` on the run at ``root`` for the body; refuse while another process holds
    any shard that shares questions with it."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f".lock-{stage}-{shard[0]}of{shard[1]}"

    def busy(other: Path) -> RunBusyError:
        return RunBusyError(
            f"run {label!r} ({root}) is already being worked on by {_holder(other)}; wait for it to finish, or "
            "split the work between processes with --shard i/n"
        )

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise busy(path) from None
        for other in root.glob(f".lock-{stage}-*"):
            match = _NAME.match(other.name)
            if other == path or match is None:
                continue
            if overlaps(shard, (int(match["i"]), int(match["n"]))) and _held(other):
                raise busy(other)
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": " ".join(["avibench", *sys.argv[1:]])[:300],
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "shard": f"{shard[0]}/{shard[1]}",
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        yield
    finally:
        os.close(fd)  # closing drops the flock; the file stays (removing it would race a process opening it)
