"""The published-rows kit: every shipped table parses, errors name file, table, row and column, and a table
becomes the rows ``Benchmark.published`` returns."""

from __future__ import annotations

from importlib import resources

import pytest

from avibench.errors import DatasetError
from avibench.kits.published import SOURCE_KINDS, board_rows, parse_tables, published_table, published_tables
from avibench.plugin import benchmark_names, get_benchmark

SHIPPED = sorted(
    p.name for p in resources.files("avibench.prompts").iterdir() if p.joinpath("published.json").is_file()
)


def _doc(**table) -> dict:
    spec = {
        "source": {"cite": "Toy paper, Table 1", "kind": "paper", "date": "2025-01-01"},
        "columns": ["model", "total", "a", "note"],
        "rows": [["M1", 50.0, 40.0, None], {"model": "M2", "total": 60.0, "note": "quoted"}],
    }
    return {"tables": {"main": {**spec, **table}}}


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_table_parses_and_names_its_source(name: str) -> None:
    for table in published_tables(name).values():
        assert table.source.cite and table.source.kind in SOURCE_KINDS
        assert table.rows and all(r["model"] for r in table.rows)


def test_every_plugin_with_published_rows_reads_them_from_its_data_file() -> None:
    with_rows = [n for n in benchmark_names() if get_benchmark(n).published()]
    assert set(with_rows) <= set(SHIPPED)
    assert {"avibench", "mmar", "mmau", "omnibench", "starbench", "audiomarathon", "airbench"} <= set(
        with_rows
    )


def test_rows_lists_and_objects_fill_every_column() -> None:
    table = parse_tables("toy", _doc())["main"]
    assert table.rows[1] == {"model": "M2", "total": 60.0, "a": None, "note": "quoted"}
    assert table.citation(table.rows[0]) == "Toy paper, Table 1"
    assert table.citation(table.rows[1]) == "Toy paper, Table 1; quoted"
    with pytest.raises(KeyError, match="toy main: no published row for 'M3'; known: M1, M2"):
        table.row("M3")


def test_board_rows_shape_headline_tasks_groups_and_label() -> None:
    table = parse_tables("toy", _doc())["main"]
    rows = board_rows(
        table, headline="total", tasks={"t": "a"}, groups={"parts": ("a",)}, label="{model} (v1)"
    )
    assert rows == [
        {
            "model": "M1 (v1)",
            "headline": 50.0,
            "tasks": {"t": 40.0},
            "parts": {"a": 40.0},
            "source": "Toy paper, Table 1",
        },
        {
            "model": "M2 (v1)",
            "headline": 60.0,
            "tasks": {"t": None},
            "parts": {},
            "source": "Toy paper, Table 1; quoted",
        },
    ]
    unscored = parse_tables("toy", _doc(rows=[["M1", None, 1.0, None], ["M2", 2.0, None, None]]))["main"]
    assert [r["model"] for r in board_rows(unscored, headline="total", scored_only=True)] == ["M2"]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"rows": [["M1", 50.0]]}, "table main entry 0: has 2 cells for 4 columns"),
        ({"rows": [{"model": "M1", "b": 1}]}, r"table main entry 0: names no column \['b'\]"),
        ({"rows": [[None, 1.0, 2.0, None]]}, "table main entry 0 field model: must be a non-empty string"),
        ({"rows": [["M1", [1], 2.0, None]]}, "table main entry 0 field total: must be a number"),
        ({"columns": ["total", "model"]}, "table main field columns: must list distinct column names"),
        ({"source": {"kind": "paper"}}, "table main field source.cite: is required"),
        ({"source": {"cite": "x", "kind": "blog"}}, "table main field source.kind: must be one of"),
        ({"sorce": {}}, r"table main: unknown fields \['sorce'\]"),
    ],
)
def test_errors_name_file_table_row_and_column(table: dict, message: str) -> None:
    with pytest.raises(DatasetError, match=message) as caught:
        parse_tables("toy", _doc(**table))
    assert str(caught.value).startswith("prompts/toy/published.json table main")


def test_a_missing_table_names_the_tables_there() -> None:
    with pytest.raises(DatasetError, match=r"has no table 'nope' \(tables: foundation_by_task"):
        published_table("airbench", "nope")
    with pytest.raises(DatasetError, match="no published tables"):
        published_table("no-such-benchmark")
