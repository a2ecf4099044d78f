"""Progress for a stage: a tqdm bar on a terminal; plain lines at a steady interval in a batch job; a run log.

Without a terminal (a batch job, output piped to a file) a bar prints nothing useful until the end, so a line is
printed every ``AVIBENCH_PROGRESS_INTERVAL`` seconds (default 30) instead: done, failed, rate, ETA and the
commonest failure. Each new kind of failure is printed the first time it happens, in both modes, and every line
also goes to the stage's ``run.log`` beside its journals.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tqdm import tqdm

from avibench.errors import AvibenchError
from avibench.failures import commonest, error_kind

if TYPE_CHECKING:
    from avibench.infer.runner import TaskOutcome

_ERROR_WIDTH = 70
ENV_INTERVAL = "AVIBENCH_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 30.0


@dataclass
class Answered:
    """The result of one question, as reported to progress listeners."""

    task: str
    ok: bool
    tokens: int = 0
    error: str | None = None


class RunLog:
    """Appends timestamped lines to a stage's ``run.log`` (nothing when ``path`` is None)."""

    def __init__(self, path: Path | None):
        self._fh: TextIO | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = path.open("a", encoding="utf-8")

    def write(self, line: str) -> None:
        if self._fh is not None:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            self._fh.write(f"{stamp} {line}\n")
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def progress_interval(env: dict[str, str] | None = None) -> float:
    value = (os.environ if env is None else env).get(ENV_INTERVAL)
    if not value:
        return DEFAULT_INTERVAL
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise AvibenchError(f"environment variable {ENV_INTERVAL}: expected seconds (>= 0), got {value!r}")
    return seconds


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class StageProgress:
    """Counts a stage's questions and shows them: a bar on a terminal, else a line every ``interval`` seconds.

    ``echo`` prints a line for the user (stderr by default); ``tty`` overrides the terminal check.
    """

    def __init__(
        self,
        stage: str,
        total: int,
        already_done: int = 0,
        *,
        log: RunLog | None = None,
        tty: bool | None = None,
        interval: float | None = None,
        echo: Callable[[str], None] | None = None,
        enabled: bool = True,
    ):
        self.stage = stage
        self.total = total
        self.already_done = already_done
        self.done = 0
        self.failed = 0
        self.tokens = 0
        self.errors: Counter[str] = Counter()
        self.log = log or RunLog(None)
        self.echo = echo or (lambda line: print(line, file=sys.stderr, flush=True))
        self.interval = progress_interval() if interval is None else interval
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.enabled = enabled
        self.start = self._last = time.monotonic()
        self.bar = (
            tqdm(total=total, initial=already_done, unit="question", desc=stage, dynamic_ncols=True)
            if self.tty and enabled
            else None
        )

    def _say(self, line: str) -> None:
        self.log.write(line)
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        elif self.enabled:
            self.echo(line)

    def __call__(self, answered: Answered) -> None:
        self.tokens += answered.tokens
        self.done += 1
        if not answered.ok:
            self.failed += 1
            kind = error_kind(answered.error or "failed")
            if kind not in self.errors:
                self._say(f"{self.stage}: new failure ({answered.task}): {kind}")
            self.errors[kind] += 1
        if self.bar is not None:
            self.bar.set_postfix(failed=self.failed, tokens=self.tokens, refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._say(self.line())

    @property
    def commonest(self) -> str | None:
        return commonest(self.errors)

    def line(self) -> str:
        """``done/total``, failures, rate, ETA and the commonest failure, in one line."""
        finished = self.already_done + self.done
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.done / elapsed
        left = self.total - finished
        eta = _duration(left / rate) if rate > 0 and left > 0 else "-"
        text = (
            f"{self.stage}: {finished}/{self.total} done, {self.failed} failed, {rate:.1f}/s, "
            f"elapsed {_duration(elapsed)}, ETA {eta}"
        )
        return text + (f"; commonest failure: {self.commonest}" if self.errors else "")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.log.write(self.line())


def summary_table(outcomes: Iterable[TaskOutcome]) -> str:
    """A plain-text table: per task, samples done now, failed (with the commonest error), skipped, and in a
    ``--shard`` run the selected samples left to the other shards, so each row adds up to ``selected``."""
    outcomes = list(outcomes)
    sharded = any(o.other_shards for o in outcomes)
    counts = ("selected", "done", "failed", "skipped", *(("other shards",) if sharded else ()))
    rows = [("task", *counts, "commonest error")]
    totals = [0] * len(counts)
    for o in outcomes:
        error = o.commonest_error or ""
        if len(error) > _ERROR_WIDTH:
            error = error[: _ERROR_WIDTH - 3] + "..."
        values = (o.selected, o.done, o.failed, o.skipped, *((o.other_shards,) if sharded else ()))
        rows.append((o.task, *(str(v) for v in values), error))
        for i, value in enumerate(values):
            totals[i] += value
    rows.append(("total", *(str(v) for v in totals), ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            cell.ljust(w) if i in (0, len(row) - 1) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0 or n == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
