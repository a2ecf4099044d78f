"""Progress for a run: one tqdm bar on stderr while it runs, a per-task table when it ends."""

from __future__ import annotations

from collections.abc import Iterable

from tqdm import tqdm

from avibench.infer.runner import Answered, TaskOutcome

_ERROR_WIDTH = 70


class RunProgress:
    """A bar over every selected sample: done/total, rate, ETA, and failures and tokens in the postfix."""

    def __init__(self, total: int, already_done: int, *, disable: bool | None = None):
        self.failed = 0
        self.tokens = 0
        self.bar = tqdm(
            total=total,
            initial=already_done,
            unit="sample",
            desc="infer",
            dynamic_ncols=True,
            disable=disable,
        )

    def __call__(self, answered: Answered) -> None:
        self.tokens += answered.tokens
        if not answered.ok:
            self.failed += 1
        self.bar.set_postfix(failed=self.failed, tokens=self.tokens, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def summary_table(outcomes: Iterable[TaskOutcome]) -> str:
    """A plain-text table: per task, samples done now, failed (with the commonest error), skipped."""
    rows = [("task", "selected", "done", "failed", "skipped", "commonest error")]
    totals = [0, 0, 0, 0]
    for o in outcomes:
        error = o.commonest_error or ""
        if len(error) > _ERROR_WIDTH:
            error = error[: _ERROR_WIDTH - 3] + "..."
        rows.append((o.task, str(o.selected), str(o.done), str(o.failed), str(o.skipped), error))
        for i, value in enumerate((o.selected, o.done, o.failed, o.skipped)):
            totals[i] += value
    rows.append(("total", *(str(v) for v in totals), ""))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            cell.ljust(w) if i in (0, 5) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0 or n == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
