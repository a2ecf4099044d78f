"""Records kit: metadata files read into rows, JSON-lines files read and written, per-task fingerprints.

Every error is one :class:`~avibench.errors.DatasetError` line naming the file, the entry (the row's number
counting from 0: in a JSON-lines file entry k is line k + 1, in a CSV file the k-th data row) and, where it
concerns one, the field.

* :func:`read_rows`: a JSON list, JSON-lines, CSV, TSV or Parquet file by its suffix, as ``(entry, row)`` pairs;
  :func:`read_json`, :func:`jsonl_rows`, :func:`delimited_rows`, :func:`parquet_rows` for one format;
* :func:`read_journal`: the crash-tolerant reading of a journal (a torn last line, the one a crash can leave, ends
  the file; an invalid line is skipped); :func:`dumps_line`, the compact encoding journals are written in, and
  :func:`dumps_spaced`, the one official tools write;
* :func:`append_lines` (to an open file, flushed), :func:`jsonl_text` (the text, for a journal batch or a file
  replaced atomically: samples, prediction files) and :func:`write_jsonl` (a whole file);
* :func:`slice_digest` and :func:`sliced_fingerprint`: a fingerprint per task of a metadata file tasks share, so
  an edit to one task's questions changes that task's fingerprint only; :func:`file_version`, a whole file's
  version.

JSON-lines files go through the ``jsonlines`` package; its line-numbered errors become our one-line messages. It
is imported when a JSON-lines file is first read or written (a tenth of a command's start otherwise).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from avibench.errors import DatasetError

if TYPE_CHECKING:
    import jsonlines

#: Formats by file suffix.
FORMATS: dict[str, str] = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
}

Entry = tuple[int, Any]
"""``(entry number counting from 0, value)``."""


def dumps_line(record: Any) -> str:
    """One record as a JSON line (no newline): compact, UTF-8 kept, NaN and infinity refused."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps_spaced(record: Any) -> str:
    """One record as official Python tools write a JSON line: ``json.dumps``' default spacing, UTF-8 kept."""
    return json.dumps(record, ensure_ascii=False)


def read_text(path: Path) -> str:
    """A data file's text; raises DatasetError when it is missing or unreadable."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(path, "file not found") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise DatasetError(path, f"cannot read: {exc.strerror or exc}") from None


def parse_json(path: Path, text: str) -> Any:
    """The JSON value of a file's text; raises DatasetError naming the line where it is broken."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def read_json(path: Path) -> Any:
    """A whole JSON file's value."""
    return parse_json(path, read_text(path))


def _why(exc: jsonlines.InvalidLineError) -> str:
    cause = exc.__cause__
    if isinstance(cause, json.JSONDecodeError):
        return cause.msg
    return str(cause or exc).split(": ", 1)[-1]


def jsonl_rows(
    path: Path, text: str | None = None, *, on_error: Callable[[int, str], None] | None = None
) -> list[Entry]:
    """(line number counting from 0, value) of each non-blank line of a JSON-lines file (or of ``text``, its
    contents). A line that is not valid JSON raises DatasetError naming it, or, given ``on_error``, is reported
    as ``on_error(line number counting from 0, why)`` and skipped (a reader that lists every problem)."""
    lines = (read_text(path) if text is None else text).splitlines()
    at = [-1]

    def numbered() -> Iterator[str]:
        for number, line in enumerate(lines):
            at[0] = number
            yield line

    import jsonlines

    rows: list[Entry] = []
    with jsonlines.Reader(numbered()) as reader:
        while True:
            try:
                value = reader.read(allow_none=True, skip_empty=True)
            except EOFError:
                break
            except jsonlines.InvalidLineError as exc:
                if on_error is None:
                    raise DatasetError(
                        path, f"line {exc.lineno} is not valid JSON ({_why(exc)})", index=exc.lineno - 1
                    ) from None
                on_error(exc.lineno - 1, _why(exc))
                continue
            rows.append((at[0], value))
    return rows


def delimited_rows(path: Path, delimiter: str | None = None) -> list[Entry]:
    """(data row number counting from 0, ``{header: cell}``) of a CSV (``,``) or TSV (tab) file with a header
    row; a row with more cells than the header raises DatasetError naming its line."""
    sep = delimiter or ("\t" if Path(path).suffix.lower() == ".tsv" else ",")
    text = read_text(path)
    reader = csv.DictReader(text.splitlines(), delimiter=sep, restkey="\0extra")
    rows: list[Entry] = []
    try:
        for number, row in enumerate(reader):
            if "\0extra" in row:
                raise DatasetError(
                    path, f"line {reader.line_num} has more cells than the header has columns", index=number
                )
            rows.append((number, row))
    except csv.Error as exc:
        raise DatasetError(
            path, f"line {reader.line_num} is not valid {sep!r}-separated text ({exc})"
        ) from None
    if reader.fieldnames is None:
        raise DatasetError(path, "has no header row")
    return rows


def parquet_rows(path: Path) -> list[Entry]:
    """(row number counting from 0, ``{column: value}``) of a Parquet file (read with pyarrow)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not Path(path).is_file():
        raise DatasetError(path, "file not found")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise DatasetError(path, f"cannot be read as Parquet ({exc})") from None
    return list(enumerate(table.to_pylist()))


def read_rows(path: Path, *, key: str | None = None, otherwise: str | None = None) -> list[Entry]:
    """The entries of a metadata file by its suffix: a JSON list (or, with ``key``, the list under that key of
    a JSON object), JSON lines, CSV, TSV or Parquet; ``otherwise`` (``"json"``, ``"jsonl"``, ...) is the format
    of a file whose suffix names none (an official prediction file named freely)."""
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower(), otherwise)
    if kind == "jsonl":
        return jsonl_rows(path)
    if kind in ("csv", "tsv"):
        return delimited_rows(path)
    if kind == "parquet":
        return parquet_rows(path)
    if kind is None:
        raise DatasetError(path, f"has no metadata format (a name ending {', '.join(FORMATS)})")
    data = read_json(path)
    if key is not None:
        if not isinstance(data, dict) or not isinstance(data.get(key), list):
            raise DatasetError(path, f"expected an object with a {key!r} list", field=key)
        data = data[key]
    if not isinstance(data, list):
        raise DatasetError(path, f"expected a JSON array of entries, found {type(data).__name__}")
    return list(enumerate(data))


def read_records(path: Path, *, key: str | None = None, otherwise: str | None = None) -> list[Any]:
    """The values of :func:`read_rows`, without their entry numbers."""
    return [value for _, value in read_rows(path, key=key, otherwise=otherwise)]


def objects(path: Path, rows: Iterable[Entry]) -> list[Entry]:
    """The rows, each checked to be a JSON object (a mapping); raises DatasetError naming the first that is not."""
    checked = []
    for number, value in rows:
        if not isinstance(value, dict):
            raise DatasetError(path, f"must be a JSON object, found {type(value).__name__}", index=number)
        checked.append((number, value))
    return checked


# ---- journals: crash-tolerant reading, one encoding for writing ----------------------------------------------


def complete_lines(fh: IO[bytes]) -> Iterator[bytes]:
    """The lines of a binary file that end in a newline: a last line without one is a write a crash tore."""
    for line in fh:
        if not line.endswith(b"\n"):
            return
        yield line


def read_journal(
    path: Path | str, on_invalid: Callable[[int], None] | None = None
) -> Iterator[dict[str, Any]]:
    """The JSON objects of a journal in order: a missing file holds none; a torn last line ends it; a blank line
    is skipped, and so is a line that is not a JSON object (invalid JSON or UTF-8, or another value), whose line
    number (1-based) ``on_invalid`` is given."""
    p = Path(path)
    if not p.is_file():
        return
    with p.open("rb") as fh:  # json.loads per line: a journal of 100,000 lines is read at the decoder's speed
        for number, line in enumerate(complete_lines(fh), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:  # invalid JSON or invalid UTF-8
                record = None
            if isinstance(record, dict):
                yield record
            elif on_invalid is not None:
                on_invalid(number)


def append_lines(fh: IO[str], records: Iterable[Any], dumps: Callable[[Any], str] = dumps_line) -> None:
    """Write ``records`` to an open text file, one JSON line each, and flush it."""
    import jsonlines

    writer = jsonlines.Writer(fh, dumps=dumps)
    writer.write_all(records)
    fh.flush()


def jsonl_text(records: Iterable[Any], dumps: Callable[[Any], str] = dumps_line) -> str:
    """The text of a JSON-lines file of ``records`` (for a file written atomically as a whole)."""
    buffer = io.StringIO()
    append_lines(buffer, records, dumps)
    return buffer.getvalue()


def write_jsonl(
    path: Path | str,
    records: Iterable[Any],
    *,
    ascii_only: bool = False,
    dumps: Callable[[Any], str] | None = None,
) -> Path:
    """Write a whole JSON-lines file (replacing it), one record per line, by default in the spacing official
    tools write (:func:`dumps_spaced`; ``ascii_only``: non-ASCII escaped, as Python's default); ``dumps``: another
    encoding."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8") as fh:
        append_lines(fh, records, dumps or (json.dumps if ascii_only else dumps_spaced))
    return p


# ---- fingerprints per task of a shared metadata file ---------------------------------------------------------


def slice_digest(rows: Iterable[Any]) -> str:
    """The SHA-256 (hex) of rows in order, as canonical JSON (sorted keys): the same questions give the same
    digest whatever else their file holds."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def sliced_fingerprint(
    path: Path, tasks: Sequence[str], task_of: Callable[[Any], str | None], *, key: str | None = None
) -> str:
    """A short hash of the rows of ``path`` that belong to ``tasks`` (``task_of(row)`` names a row's task), task
    by task: for a plug-in's ``fingerprint(root, tasks)`` when its tasks share one metadata file, so an edit to
    one question changes only its own task's fingerprint. A missing file hashes as no rows."""
    rows = read_records(path, key=key) if Path(path).is_file() else []
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(task.encode())
        digest.update(slice_digest(row for row in rows if task_of(row) == task).encode())
    return digest.hexdigest()[:16]


def file_version(path: Path) -> str | None:
    """A data file's version for eval.json's ``meta.data_version``: the first 16 hex digits of its SHA-256
    (``None`` when there is no such file)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16] if Path(path).is_file() else None


def replace_jsonl(path: Path | str, records: Iterable[Any]) -> Path:
    """Replace a whole JSON-lines file atomically (a reader never sees half of it, a crash leaves the old one),
    its folder made where missing, in the spacing official tools write (:func:`dumps_spaced`): the official
    prediction files ``export`` writes."""
    from avibench.store import atomic_write_text  # the store reads journals through this module

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(p, jsonl_text(records, dumps_spaced))
    return p
