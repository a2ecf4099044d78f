"""The records kit: every metadata format read into rows, errors naming file, entry and field, JSON-lines
journals read and written through jsonlines, and fingerprints per task of a shared metadata file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from avibench.errors import DatasetError
from avibench.kits import fields, records
from avibench.plugin import Problem

ROWS = [{"id": "q1", "task": "a", "answer": "yes"}, {"id": "q2", "task": "b", "answer": "no"}]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".tsv", ".parquet"])
def test_every_format_reads_the_same_rows(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"meta{suffix}"
    if suffix == ".json":
        _write(path, json.dumps(ROWS))
    elif suffix == ".jsonl":
        _write(path, "\n".join(json.dumps(r) for r in ROWS) + "\n\n")
    elif suffix in (".csv", ".tsv"):
        sep = "\t" if suffix == ".tsv" else ","
        _write(path, "\n".join([sep.join(ROWS[0]), *(sep.join(r.values()) for r in ROWS)]) + "\n")
    else:
        pq.write_table(pa.Table.from_pylist(ROWS), path)
    assert records.read_rows(path) == [(0, ROWS[0]), (1, ROWS[1])]


def test_jsonl_entries_are_line_numbers_and_a_bad_line_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl", '{"id": 1}\n\n{"id": 2}\n{"id": \n')
    with pytest.raises(DatasetError) as caught:
        records.read_rows(path)
    assert caught.value.index == 3
    assert str(caught.value).startswith(f"{path} entry 3: line 4 is not valid JSON (")
    assert records.jsonl_rows(path, '{"id": 1}\n\n{"id": 2}\n') == [(0, {"id": 1}), (2, {"id": 2})]


def test_json_errors_name_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"m\.json: invalid JSON at line 2 column 2: "):
        records.read_rows(_write(tmp_path / "m.json", "[\n{]"))
    with pytest.raises(DatasetError, match="expected a JSON array of entries, found dict"):
        records.read_rows(_write(tmp_path / "o.json", "{}"))
    assert records.read_records(_write(tmp_path / "k.json", '{"data": [1, 2]}'), key="data") == [1, 2]
    with pytest.raises(DatasetError, match="file not found"):
        records.read_rows(tmp_path / "absent.jsonl")
    with pytest.raises(DatasetError, match="has no metadata format"):
        records.read_rows(_write(tmp_path / "m.yaml", "x"))


def test_csv_row_with_too_many_cells_and_a_broken_parquet_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        records.read_rows(_write(tmp_path / "m.csv", "id,answer\nq1,yes\nq2,no,extra\n"))
    assert caught.value.index == 1 and "line 3 has more cells" in str(caught.value)
    with pytest.raises(DatasetError, match="cannot be read as Parquet"):
        records.read_rows(_write(tmp_path / "m.parquet", "not parquet"))


def test_objects_names_the_entry_that_is_not_one(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        records.objects(tmp_path / "m.jsonl", [(0, {}), (4, [1])])
    assert caught.value.index == 4 and "found list" in str(caught.value)


def test_field_checks_name_file_entry_and_field(tmp_path: Path) -> None:
    required = {"id": fields.text, "choices": fields.choices, "kind": fields.one_of(("a", "b"))}
    found = list(fields.problems("m.json", 3, {"id": "", "choices": ["x"]}, required, {"n": fields.integer}))
    assert [(p.index, p.field, p.message) for p in found] == [
        (3, "id", "must be a non-empty string"),
        (3, "choices", "must be a list of at least two strings"),
        (3, "kind", "is missing"),
    ]
    good = {"id": "x", "choices": ["1", "2"], "kind": "a", "n": True}
    assert [p.field for p in fields.problems("m.json", 0, good, required, {"n": fields.integer})] == ["n"]
    with pytest.raises(DatasetError, match=r"m\.json entry 3 field id: must be a non-empty string"):
        fields.require("m.json", 3, {"id": ""}, required)


def test_file_problems_checks_further_only_rows_whose_fields_pass(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.jsonl", '{"id": "a"}\n{"id": ""}\n{"id": "a"}\n')
    seen: list[str] = []

    def further(index: int, row: dict) -> list[Problem]:
        seen.append(row["id"])
        return (
            [Problem(str(path), "repeats an id", index, "id", "warning")] if seen.count(row["id"]) > 1 else []
        )

    found = fields.file_problems(
        lambda: records.read_rows(path),
        lambda index, row: fields.problems(path, index, row, {"id": fields.text}),
        further,
    )
    assert [(p.index, p.message, p.severity) for p in found] == [
        (1, "must be a non-empty string", "error"),
        (2, "repeats an id", "warning"),
    ]
    assert seen == ["a", "a"]
    broken = _write(tmp_path / "b.jsonl", "{\n")
    unreadable = fields.file_problems(lambda: records.read_rows(broken), lambda i, r: [], further)
    assert [(p.index, "is not valid JSON" in p.message) for p in unreadable] == [(0, True)]


def test_file_version_is_a_short_hash_of_the_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.json", "[]")
    assert records.file_version(path) == "4f53cda18c2baa0c"  # sha256(b"[]")[:16]
    assert records.file_version(tmp_path / "absent.json") is None


def test_journal_reading_skips_invalid_lines_and_stops_at_a_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"a":1}\nnot json\n[1]\nnull\n\xff\n{"a":2}\n{"a":3')
    assert list(records.read_journal(path)) == [{"a": 1}, {"a": 2}]
    assert list(records.read_journal(tmp_path / "absent.jsonl")) == []


def test_writing_uses_one_encoding_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        records.append_lines(fh, [{"t": "é", "n": 1}, {"t": "x"}])
    assert path.read_text(encoding="utf-8") == '{"t":"é","n":1}\n{"t":"x"}\n'
    with pytest.raises(ValueError):
        records.dumps_line({"x": float("nan")})
    official = records.write_jsonl(tmp_path / "pred.jsonl", [{"t": "é", "n": 1}])
    assert official.read_text(encoding="utf-8") == '{"t": "é", "n": 1}\n'
    assert [v for _, v in records.jsonl_rows(official)] == [{"t": "é", "n": 1}]


def test_a_shared_file_gives_each_task_its_own_fingerprint(tmp_path: Path) -> None:
    path = _write(tmp_path / "meta.json", json.dumps(ROWS))
    a, b = (records.sliced_fingerprint(path, [t], lambda r: r["task"]) for t in ("a", "b"))
    both = records.sliced_fingerprint(path, ["a", "b"], lambda r: r["task"])
    _write(path, json.dumps([ROWS[0], {**ROWS[1], "answer": "yes"}]))
    assert records.sliced_fingerprint(path, ["a"], lambda r: r["task"]) == a
    assert records.sliced_fingerprint(path, ["b"], lambda r: r["task"]) != b
    assert records.sliced_fingerprint(path, ["a", "b"], lambda r: r["task"]) != both
    assert len(a) == 16 and a != b


def test_a_journal_batch_that_cannot_be_encoded_writes_nothing(tmp_path: Path) -> None:
    from avibench.store import JournalWriter

    path = tmp_path / "j.jsonl"
    with JournalWriter(path) as writer:
        writer.append({"a": 1})
        with pytest.raises(ValueError):
            writer.append_many([{"a": 2}, {"a": float("nan")}])
        writer.append({"a": 3})
    assert list(records.read_journal(path)) == [{"a": 1}, {"a": 3}]


def test_a_prediction_file_is_replaced_whole_in_the_official_spacing(tmp_path: Path) -> None:
    path = tmp_path / "new" / "pred.jsonl"
    assert records.replace_jsonl(path, [{"t": "é", "n": 1}, {"t": "x"}]) == path
    assert path.read_text(encoding="utf-8") == '{"t": "é", "n": 1}\n{"t": "x"}\n'
    records.replace_jsonl(path, [{"t": "y"}])
    assert path.read_text(encoding="utf-8") == '{"t": "y"}\n'
    assert [p.name for p in path.parent.iterdir()] == ["pred.jsonl"]  # no temporary file left beside it
