"""VLMEvalKit's WorldSense inference output, read for rescoring (``eval --predictions``) and written by ``export``.

VLMEvalKit writes ``<model>_<config>.xlsx`` by default (``.tsv`` with ``PRED_FORMAT=tsv``): the TSV's columns plus
``prediction``. Its ``load`` reads both with pandas, whose default missing-value strings turn an empty cell and
"N/A", "NA", "None", "null", "nan" and the like into NaN; the scorer then reads such a prediction as the string
"nan". Here a cell is read the same way: a prediction pandas would read as missing is no prediction.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.store import atomic_write_text

#: pandas' default ``na_values`` (``pandas._libs.parsers.STR_NA_VALUES``), which ``read_excel`` and ``read_csv``
#: apply to every cell.
NA_STRINGS = frozenset(
    {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
     "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
)  # fmt: skip
COLUMNS = ("index", "prediction")


def _cell(value: Any) -> str | None:
    """A cell as pandas hands it on: ``None`` for a missing value, a whole float as an integer, else text."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    return None if text in NA_STRINGS else text


def _xlsx_rows(path: Path) -> list[tuple[int, list[Any]]]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise DatasetError(path, f"is not a readable xlsx workbook, cut short? ({exc})") from None
    try:
        sheet = book.worksheets[0]
        return [(n, list(row)) for n, row in enumerate(sheet.iter_rows(values_only=True), 1)]
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DatasetError(path, f"is not a readable xlsx workbook, cut short? ({exc})") from None
    finally:
        book.close()


def _tsv_rows(path: Path) -> list[tuple[int, list[Any]]]:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.reader(fh, delimiter="\t")
            return [(reader.line_num, row) for row in reader if row]
    except FileNotFoundError:
        raise DatasetError(path, "does not exist") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DatasetError(path, f"cannot be read ({exc})") from None


def read_predictions(path: Path) -> dict[int, str | None]:
    """Each row's prediction by its ``index`` (``None``: no prediction); raises DatasetError naming the file, the
    line (the spreadsheet's row) and the field."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(path, "does not exist")
    rows = _xlsx_rows(path) if path.suffix.lower() == ".xlsx" else _tsv_rows(path)
    if not rows:
        raise DatasetError(path, "holds no rows")
    header = [str(h) for h in rows[0][1]]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise DatasetError(
            path, f"has no {missing[0]!r} column (VLMEvalKit's output has the TSV's and prediction)"
        )
    at = {name: header.index(name) for name in COLUMNS}
    found: dict[int, str | None] = {}
    for line, row in rows[1:]:
        if len(row) < len(header):
            raise DatasetError(
                path, f"line {line} has {len(row)} of {len(header)} columns (the file is cut short?)"
            )
        index = _cell(row[at["index"]])
        if index is None or not index.lstrip("-").isdigit():
            raise DatasetError(path, f"line {line} has no question index", field="index")
        if int(index) in found:
            raise DatasetError(path, f"line {line} repeats question {index}", field="index")
        found[int(index)] = _cell(row[at["prediction"]])
    return found


def read_responses(path: Path, items: Sequence[Item]) -> tuple[list[Response], list[str]]:
    """One response per item: answered with its prediction, failed where the row has none, missing without a
    row; and notes on what was counted so."""
    predictions = read_predictions(path)
    by_index = {item.index: item for item in items}
    extra = sorted(set(predictions) - set(by_index))
    if extra:
        raise DatasetError(path, f"names question {extra[0]}, which the dataset does not hold", field="index")
    responses = []
    for item in items:
        if item.index not in predictions:
            responses.append(Response(item, "missing"))
        elif predictions[item.index] is None:
            responses.append(Response(item, "failed"))
        else:
            responses.append(Response(item, "answered", raw=predictions[item.index]))
    notes = []
    empty = sum(r.status == "failed" for r in responses)
    if empty:
        notes.append(
            f"{empty} rows without a prediction (empty, N/A, None, NA, null...): VLMEvalKit reads them as 'nan' "
            "(scored 0); counted here as failed"
        )
    absent = sum(r.status == "missing" for r in responses)
    if absent:
        notes.append(
            f"{absent} questions have no row in the file (scored 0; VLMEvalKit scores only the rows there)"
        )
    return responses, notes


def write_tsv(path: Path, responses: Sequence[Response]) -> Path:
    """VLMEvalKit's TSV output (``PRED_FORMAT=tsv``): its columns for each question, plus ``prediction``."""
    header = ["index", "video", "video_path", "duration", "domain", "candidates", "sub_category", "audio_class",
              "task_domain", "task_type", "subtitle_path", "audio_path", "video_caption", "question", "answer",
              "prediction"]  # fmt: skip
    lines = []
    for response in responses:
        row = response.item.source
        video = row["video"]
        values = [response.item.index, video, f"./videos/{video}.mp4", row["duration"], row["domain"],
                  repr(list(row["candidates"])), row["sub_category"], repr(list(row["audio_class"])),
                  row["task_domain"], row["task_type"], f"./subtitles/{video}.srt", f"./audios/{video}.wav",
                  row.get("video_caption", ""), row["question"], row["answer"],
                  response.raw if response.status == "answered" else ""]  # fmt: skip
        lines.append(values)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(lines)
    atomic_write_text(Path(path), buffer.getvalue())
    return Path(path)
