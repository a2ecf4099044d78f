"""Published-rows kit: every benchmark's published tables in one data format, read by one reader.

A benchmark's published numbers are data, copied exactly from their source, in
``prompts/<benchmark>/published.json``::

    {
      "about": "what the tables are and how to read them",
      "tables": {
        "leaderboard": {
          "source": {"cite": "...", "kind": "leaderboard", "title": "...", "url": "...", "revision": "...",
                     "date": "2025-10-09"},
          "note": "...",
          "facts": {"any": "fact about the table, e.g. questions per group"},
          "columns": ["model", "total", "speech", ...],
          "rows": [["Model A", 57.8, 63.4, ...], {"model": "Model B", "total": 54.5}]
        }
      }
    }

``source.cite`` is the one-line citation the pages print beside a row; ``kind`` is one of :data:`SOURCE_KINDS`;
``title``, ``url``, ``revision`` and ``date`` are optional. A row is a list aligned with ``columns`` or an object
naming some of them (the others are ``null``); ``null`` is a number the source does not print. The first column is
``model``. A row's own ``source`` and ``note`` columns, where a table has them, add to the table's citation; its
``edition`` column, where a source gives two numbers for one model, names the row's number after the model (so the
pages tell the rows apart).

:func:`published_table` reads one table (errors name the file, the table, the row and the column);
:func:`board_rows` turns a table into the rows :meth:`avibench.plugin.Benchmark.published` returns, so that a
plug-in's ``published()`` is one call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from avibench.errors import DatasetError

#: What a table's numbers come from.
SOURCE_KINDS = ("paper", "leaderboard", "readme", "summary", "third-party")
_SOURCE_FIELDS = ("cite", "kind", "title", "url", "revision", "date")
_TABLE_FIELDS = ("source", "note", "facts", "columns", "rows")


@dataclass(frozen=True)
class Source:
    """Where a table's numbers come from."""

    cite: str
    kind: str
    title: str | None = None
    url: str | None = None
    revision: str | None = None
    date: str | None = None


@dataclass(frozen=True)
class PublishedTable:
    """One published table: its source, its columns and its rows (``{column: value}``, every column present)."""

    benchmark: str
    name: str
    source: Source
    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    note: str = ""
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(r["model"] for r in self.rows)

    def row(self, model: str, *, case_sensitive: bool = True) -> dict[str, Any]:
        """The row of ``model``; raises KeyError naming the table and the models it has."""
        fold = (lambda s: s) if case_sensitive else str.lower
        for row in self.rows:
            if fold(row["model"]) == fold(model):
                return row
        raise KeyError(
            f"{self.benchmark} {self.name}: no published row for {model!r}; known: {', '.join(self.models)}"
        )

    def values(self, row: Mapping[str, Any], columns: Sequence[str]) -> dict[str, Any]:
        """``{column: value}`` of ``row`` for ``columns``, in that order."""
        return {c: row[c] for c in columns}

    def citation(self, row: Mapping[str, Any]) -> str:
        """The row's citation: its own ``source`` (else the table's), then its ``note``."""
        cite = row.get("source") or self.source.cite
        return f"{cite}; {row['note']}" if row.get("note") else cite


def _path(benchmark: str) -> str:
    return f"prompts/{benchmark}/published.json"


def _source(where: str, value: Any) -> Source:
    if not isinstance(value, dict):
        raise DatasetError(where, "must be an object with cite and kind", field="source")
    unknown = sorted(set(value) - set(_SOURCE_FIELDS))
    if unknown:
        raise DatasetError(where, f"unknown fields {unknown}", field="source")
    for name in _SOURCE_FIELDS:
        if name in value and not isinstance(value[name], str):
            raise DatasetError(where, "must be a string", field=f"source.{name}")
    if not value.get("cite"):
        raise DatasetError(where, "is required", field="source.cite")
    if value.get("kind") not in SOURCE_KINDS:
        raise DatasetError(where, f"must be one of {', '.join(SOURCE_KINDS)}", field="source.kind")
    return Source(**value)


def _row(where: str, index: int, columns: tuple[str, ...], value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        if len(value) != len(columns):
            raise DatasetError(where, f"has {len(value)} cells for {len(columns)} columns", index=index)
        row = dict(zip(columns, value, strict=True))
    elif isinstance(value, dict):
        unknown = sorted(set(value) - set(columns))
        if unknown:
            raise DatasetError(where, f"names no column {unknown}", index=index)
        row = {c: value.get(c) for c in columns}
    else:
        raise DatasetError(where, "must be a list of cells or an object", index=index)
    if not isinstance(row["model"], str) or not row["model"]:
        raise DatasetError(where, "must be a non-empty string", index=index, field="model")
    for column, cell in row.items():
        if isinstance(cell, (dict, list)):
            raise DatasetError(
                where, "must be a number, a string, true/false or null", index=index, field=column
            )
    return row


def parse_tables(benchmark: str, document: Any, path: str | None = None) -> dict[str, PublishedTable]:
    """The tables of a parsed ``published.json``; raises DatasetError naming file, table, row and column."""
    path = path or _path(benchmark)
    tables = document.get("tables") if isinstance(document, dict) else None
    if not isinstance(tables, dict) or not tables:
        raise DatasetError(path, "must be an object with a non-empty 'tables' object", field="tables")
    out = {}
    for name, spec in tables.items():
        where = f"{path} table {name}"
        if not isinstance(spec, dict):
            raise DatasetError(where, "must be an object")
        unknown = sorted(set(spec) - set(_TABLE_FIELDS))
        if unknown:
            raise DatasetError(where, f"unknown fields {unknown}")
        columns = spec.get("columns")
        if (
            not isinstance(columns, list)
            or not columns
            or columns[0] != "model"
            or len(set(columns)) != len(columns)
        ):
            raise DatasetError(where, "must list distinct column names, 'model' first", field="columns")
        rows = spec.get("rows")
        if not isinstance(rows, list):
            raise DatasetError(where, "must be a list", field="rows")
        facts = spec.get("facts", {})
        if not isinstance(facts, dict):
            raise DatasetError(where, "must be an object", field="facts")
        cols = tuple(columns)
        out[name] = PublishedTable(
            benchmark,
            name,
            _source(where, spec.get("source")),
            cols,
            tuple(_row(where, i, cols, r) for i, r in enumerate(rows)),
            str(spec.get("note", "")),
            facts,
        )
    return out


@cache
def published_tables(benchmark: str) -> dict[str, PublishedTable]:
    """Every table of ``prompts/<benchmark>/published.json`` (shipped as package data)."""
    node = resources.files("avibench.prompts").joinpath(benchmark, "published.json")
    try:
        document = json.loads(node.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise DatasetError(_path(benchmark), "no published tables for this benchmark") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(_path(benchmark), f"is not valid JSON ({exc.msg}, line {exc.lineno})") from exc
    return parse_tables(benchmark, document)


def published_table(benchmark: str, name: str | None = None) -> PublishedTable:
    """One table of a benchmark's ``published.json`` (``None``: the first, its main table); raises DatasetError
    naming the tables it has."""
    tables = published_tables(benchmark)
    if name is None:
        return next(iter(tables.values()))
    if name not in tables:
        raise DatasetError(_path(benchmark), f"has no table {name!r} (tables: {', '.join(tables)})")
    return tables[name]


def _edition(name: str, row: Mapping[str, Any]) -> str:
    return f"{name} ({row['edition']})" if row.get("edition") else name


def board_rows(
    table: PublishedTable,
    *,
    headline: str,
    tasks: Mapping[str, str] | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
    label: str = "{model}",
    cite: str | None = None,
    scored_only: bool = False,
) -> list[dict[str, Any]]:
    """The table as :meth:`~avibench.plugin.Benchmark.published` rows ``{"model", "tasks", "headline", "source"}``.

    ``headline``: the column of the headline; ``tasks``: ``{task: column}``; ``groups``: extra keys, each
    ``{column: value}`` of its columns (``{}`` where the table prints none of them); ``label``: the model's name
    as a format of the row's columns and the table's facts; ``cite``: a citation replacing
    :meth:`PublishedTable.citation`; ``scored_only``: leave out rows without a headline.
    """
    return [
        {
            "model": _edition(label.format(**{**table.facts, **row}), row),
            "headline": row[headline],
            "tasks": {task: row[column] for task, column in (tasks or {}).items()},
            **{
                key: {c: row[c] for c in columns} if any(row[c] is not None for c in columns) else {}
                for key, columns in (groups or {}).items()
            },
            "source": cite or table.citation(row),
        }
        for row in table.rows
        if not (scored_only and row[headline] is None)
    ]
