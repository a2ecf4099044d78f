"""Builders shared by the metric tests (no tests here)."""

from __future__ import annotations

from typing import Any

from avibench.level_metrics import Item


def make_items(
    task: str, rows: list[tuple[Any, ...]], *, options: Any = "", question_text: Any = "q?"
) -> list[Item]:
    """Items from ``(id, answer, predict)`` rows (an optional 4th element overrides the options)."""
    out = []
    for index, row in enumerate(rows):
        entry_id, answer, predict = row[:3]
        row_options = row[3] if len(row) > 3 else options
        out.append(
            Item(
                index=index,
                id=str(entry_id),
                answer=answer,
                predict=predict,
                options=row_options,
                question_text=question_text,
                task=task,
            )
        )
    return out
