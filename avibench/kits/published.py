"""Published rows kit: every benchmark's published table in one format, read by one reader.

A table is a CSV file shipped as data, ``prompts/published/<table>.csv``, one row per published result:

* ``model``: the name the source prints; ``headline``: its headline number (percent; empty: not published);
* ``source``: where the number comes from; ``note``: what a reader should know (``source; note`` on the pages);
* ``kind``: a label of the row's kind where the source gives one (``open``, ``closed``, ``human``, ``unverified``);
* ``task:<name>``: the score of one task under the benchmark's task name; ``group:<name>``: one group of a
  breakdown the source prints (an audio type, a modality).

An empty cell is a number the source does not give. :func:`table` reads a shipped table, :func:`read_table` any
file; :meth:`PublishedRow.as_published` is the row a plug-in's ``published()`` returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.kits.records import delimited_rows

_COLUMNS = ("model", "headline", "source", "note", "kind")


@dataclass(frozen=True)
class PublishedRow:
    """One published result (percentages; ``None`` where the source gives no number)."""

    model: str
    headline: float | None
    source: str
    note: str = ""
    kind: str = ""
    tasks: Mapping[str, float | None] = field(default_factory=dict)
    groups: Mapping[str, float | None] = field(default_factory=dict)

    def as_published(self) -> dict[str, Any]:
        """The row as a plug-in's ``published()`` gives it: model, headline, task scores and the source."""
        source = f"{self.source}; {self.note}" if self.note else self.source
        return {"model": self.model, "headline": self.headline, "tasks": dict(self.tasks), "source": source}


def _number(path: Path, index: int, name: str, cell: str | None) -> float | None:
    if cell is None or not cell.strip():
        return None
    try:
        return float(cell)
    except ValueError:
        raise DatasetError(path, f"{cell!r} is not a number", index=index, field=name) from None


def read_table(path: Path) -> tuple[PublishedRow, ...]:
    """The rows of a published table; raises DatasetError naming file, row and column."""
    rows = []
    for index, row in delimited_rows(Path(path)):
        unknown = [c for c in row if c not in _COLUMNS and not c.startswith(("task:", "group:"))]
        if unknown:
            raise DatasetError(path, "is not a published-table column", index=index, field=unknown[0])
        if not (row.get("model") or "").strip():
            raise DatasetError(path, "must name the model", index=index, field="model")
        rows.append(
            PublishedRow(
                model=row["model"],
                headline=_number(path, index, "headline", row.get("headline")),
                source=row.get("source") or "",
                note=row.get("note") or "",
                kind=row.get("kind") or "",
                tasks={c[5:]: _number(path, index, c, v) for c, v in row.items() if c.startswith("task:")},
                groups={c[6:]: _number(path, index, c, v) for c, v in row.items() if c.startswith("group:")},
            )
        )
    return tuple(rows)


def table(name: str) -> tuple[PublishedRow, ...]:
    """A published table shipped with the toolkit (``prompts/published/<name>.csv``)."""
    with resources.as_file(resources.files("avibench.prompts") / "published" / f"{name}.csv") as path:
        return read_table(path)
