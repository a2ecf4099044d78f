"""Work handed to a forked child while the command goes on: it runs there, its failure (an exception or a kill)
comes back as an error naming the work, a failure of the command stops it, and where a fork is not safe or
useless it runs at once in this process. eval's samples.jsonl is the same written either way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_avibench_fast_metric import _corpus
from test_avibench_pinned import _write_prediction_files

from avibench import background
from avibench.background import Background, forking_helps
from avibench.errors import AvibenchError
from avibench.plugin import get_benchmark

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork whatever the machine (a test process runs helper threads, which keep eval itself from forking)."""
    monkeypatch.setattr(background, "forking_helps", lambda: True)


@needs_fork
def test_the_work_runs_in_a_child_and_is_waited_for(forking: None, tmp_path: Path) -> None:
    out = tmp_path / "pid"

    def work() -> None:
        time.sleep(0.2)
        out.write_text(str(os.getpid()))

    with Background(work, "writing pid") as job:
        assert not out.exists()  # the caller goes on while the child works
        job.join()
        assert int(out.read_text()) != os.getpid()


@needs_fork
def test_a_failed_child_says_why(forking: None) -> None:
    def work() -> None:
        raise AvibenchError("no space left on device")

    failed = pytest.raises(AvibenchError, match=r"^writing samples.jsonl failed: no space left on device$")
    with failed, Background(work, "writing samples.jsonl"):
        pass


@needs_fork
def test_a_killed_child_is_a_failure(forking: None) -> None:
    killed = pytest.raises(AvibenchError, match=r"writing samples.jsonl failed: killed by signal 9")
    with killed, Background(lambda: os.kill(os.getpid(), signal.SIGKILL), "writing samples.jsonl"):
        pass


def _lingering(out: Path) -> Callable[[], None]:
    """Work that writes its process id to ``out``, then lingers a minute (unless it is stopped)."""

    def work() -> None:
        out.write_text(str(os.getpid()))
        time.sleep(60)

    return work


@needs_fork
def test_a_failing_caller_stops_the_child(forking: None, tmp_path: Path) -> None:
    out = tmp_path / "pid"
    work = _lingering(out)
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="intervals failed"), Background(work, "writing"):
        while not out.exists():
            time.sleep(0.01)
        raise RuntimeError("intervals failed")
    assert time.monotonic() - started < 30
    with pytest.raises(ProcessLookupError):
        os.kill(int(out.read_text()), 0)  # stopped and reaped


def test_without_a_fork_the_work_runs_here_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "forking_helps", lambda: False)
    ran: list[int] = []
    with Background(lambda: ran.append(os.getpid()), "work") as job:
        assert ran == [os.getpid()]
        job.join()
    with pytest.raises(ValueError, match="bad row"), Background(lambda: int("bad row"), "work"):
        pass


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        assert not forking_helps()
    finally:
        stop.set()
        helper.join()


def _eval(sample: Path, out: Path, cpus: set[int] | None) -> bytes:
    """eval of the oracle's prediction files in a fresh process (``cpus``: the CPUs it may run on)."""
    command = [sys.executable, "-m", "avibench.cli", "eval", "--predictions", str(sample / "preds")]
    command += ["--data-root", str(sample / "data"), "--output-dir", str(out), "--fense", "stand-in"]
    subprocess.run(
        [*command, "--allow-partial"],
        check=True,
        capture_output=True,
        preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus),
    )
    return next(out.glob("*/avibench/samples.jsonl")).read_bytes()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's")
def test_eval_writes_the_same_samples_with_or_without_a_child(tmp_path: Path) -> None:
    plugin = get_benchmark("avibench")
    plugin.generate_sample(tmp_path / "data", seed=5)
    responses = _corpus(plugin, tmp_path / "data", "adversarial")
    _write_prediction_files(plugin, tmp_path / "preds", responses)
    one_cpu = {min(os.sched_getaffinity(0))}
    beside = _eval(tmp_path, tmp_path / "beside", None)
    alone = _eval(tmp_path, tmp_path / "alone", one_cpu)
    assert beside == alone
    assert beside.count(b"\n") >= 100


@needs_fork
def test_an_interrupt_while_waiting_stops_the_child(forking: None, tmp_path: Path) -> None:
    out = tmp_path / "pid"
    work = _lingering(out)

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt), Background(work, "writing"):
            while not out.exists():
                time.sleep(0.01)
            signal.setitimer(signal.ITIMER_REAL, 0.2)  # fires while the block's end waits for the child
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with pytest.raises(ProcessLookupError):
        os.kill(int(out.read_text()), 0)  # stopped and reaped


def test_no_fork_without_memory_for_a_second_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(background, "resident_bytes", lambda: 300 << 20)
    monkeypatch.setattr(background, "available_bytes", lambda: 500 << 20)
    assert not background.room_for_a_copy()
    monkeypatch.setattr(background, "available_bytes", lambda: 700 << 20)
    assert background.room_for_a_copy()
    monkeypatch.setattr(background, "available_bytes", lambda: None)  # not Linux, or /proc unreadable
    assert not background.room_for_a_copy()


@pytest.mark.skipif(not Path("/proc/self/statm").is_file(), reason="Linux's /proc")
def test_the_memory_figures_are_read() -> None:
    resident, available = background.resident_bytes(), background.available_bytes()
    assert (
        resident is not None and 10 << 20 < resident < 64 << 30
    )  # a test process holds tens of MiB at least
    assert available is not None and available > 0
