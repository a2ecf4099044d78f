"""The published rows kit: one CSV format for every benchmark's published table, one reader, errors naming file,
row and column; the shipped tables read back into the rows the plug-ins publish."""

from __future__ import annotations

from pathlib import Path

import pytest

from avibench.errors import DatasetError
from avibench.kits.published import PublishedRow, read_table, table
from avibench.plugin import get_benchmark


def test_a_table_reads_into_rows(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(
        "model,headline,task:a,task:b,group:speech,source,note,kind\n"
        'M1,50.5,40,61,,"paper, table 2",,open\n'
        "M2,,12.5,,3,site,quoted elsewhere,unverified\n",
        encoding="utf-8",
    )
    first, second = read_table(path)
    assert first == PublishedRow(
        "M1", 50.5, "paper, table 2", "", "open", {"a": 40.0, "b": 61.0}, {"speech": None}
    )
    assert (
        second.headline is None
        and second.tasks == {"a": 12.5, "b": None}
        and second.groups == {"speech": 3.0}
    )
    assert second.as_published() == {
        "model": "M2",
        "headline": None,
        "tasks": {"a": 12.5, "b": None},
        "source": "site; quoted elsewhere",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model,headline\nM1,fifty\n", "entry 0 field headline: 'fifty' is not a number"),
        ("model,score\nM1,3\n", "entry 0 field score: is not a published-table column"),
        ("model,headline\n,3\n", "entry 0 field model: must name the model"),
    ],
)
def test_errors_name_file_row_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DatasetError, match=message):
        read_table(path)


@pytest.mark.parametrize("name", ["mmar", "mmau", "omnibench", "audiomarathon", "starbench"])
def test_shipped_tables_are_what_the_plugins_publish(name: str) -> None:
    rows = table(name)
    published = get_benchmark(name).published()
    assert (
        rows
        and [{**r.as_published(), "model": p["model"]} for r, p in zip(rows, published, strict=True)]
        == published
    )
    assert all(p["model"].startswith(r.model) for r, p in zip(rows, published, strict=True))
