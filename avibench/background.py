"""Work a command hands to a second process while it goes on with its own, where that is safe and can help.

eval writes samples.jsonl (encoding about 10 MB of JSON for a full AVI-Bench run) while it computes the
bootstrap intervals; the two need nothing from each other, and each took about a fifth of an eval. The work runs
in a forked child: it sees the parent's memory as it was at the fork, so nothing is copied or pickled, and the
child only writes a file the parent opened. A fork is taken only where it is safe and useful: on Linux, with
more than one CPU to run on, while the process runs no other thread (a lock another thread held at the fork
would stay held in the child forever), and with memory available for a second copy of the process. Anywhere
else the work runs at once, in this process, as it always did.

The child reports how it ended through a pipe; :meth:`Background.join` waits for it and raises an
:class:`~avibench.errors.AvibenchError` with the child's own message when it failed (or was killed). Leaving the
``with`` block on an exception stops the child first, so no process outlives the command's failure.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import TracebackType

from avibench.errors import AvibenchError

#: The most of a failed child's message that is passed back.
MESSAGE_BYTES = 4096


def forking_helps() -> bool:
    """Whether work handed to a child would run beside this process safely: Linux, several CPUs for this
    process, no other thread running, and memory for a second copy of this process (a child shares the parent's
    pages until either writes to them, and reading Python objects writes their reference counts)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cpus > 1 and threading.active_count() == 1 and room_for_a_copy()


def room_for_a_copy() -> bool:
    """Whether the memory the system has available holds twice this process's resident memory."""
    available, resident = available_bytes(), resident_bytes()
    return available is not None and resident is not None and available > 2 * resident


def available_bytes() -> int | None:
    """The memory the system can give without swapping (Linux's ``MemAvailable``), or None unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def resident_bytes() -> int | None:
    """This process's resident memory, or None unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class Background:
    """``work`` in a child process from the ``with`` block's start (see the module); :meth:`join` waits for it.

    ``what`` names the work in the error a failure raises (``"writing samples.jsonl"``)."""

    def __init__(self, work: Callable[[], None], what: str) -> None:
        self._work, self._what = work, what
        self._pid: int | None = None
        self._reader: int | None = None

    def __enter__(self) -> Background:
        if not forking_helps():
            self._work()
            return self
        reader, writer = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if (
            pid == 0
        ):  # the child: do the work, say how it went, and leave without running the parent's exit code
            os.close(reader)
            code = 0
            try:
                self._work()
            except BaseException as exc:  # every failure, an interrupt too, is reported to the parent
                code = 1
                os.write(writer, (str(exc) or type(exc).__name__).encode("utf-8", "replace")[:MESSAGE_BYTES])
            finally:
                os._exit(code)
        os.close(writer)
        self._pid, self._reader = pid, reader
        return self

    def join(self) -> None:
        """Wait for the work; raises AvibenchError naming it with the child's message when it failed."""
        if self._pid is None or self._reader is None:
            return
        chunks = []
        # read to the end before waiting: a child blocked on a full pipe would never end
        while chunk := os.read(self._reader, MESSAGE_BYTES):
            chunks.append(chunk)
        os.close(self._reader)
        self._reader = None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            said = b"".join(chunks).decode("utf-8", "replace").strip()
            why = said or (f"killed by signal {-code}" if code < 0 else f"exit status {code}")
            raise AvibenchError(f"{self._what} failed: {why}")

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc is None:
                self.join()
        finally:  # the command failed, or was interrupted while it waited: the child goes with it
            self._stop()

    def _stop(self) -> None:
        """Kill and reap a child still running, and close its pipe (nothing to do after :meth:`join`)."""
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None
