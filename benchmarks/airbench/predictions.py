"""Official result files as responses (``eval --predictions``) and responses as official result files (``export``).

``Foundation_result_modelx.jsonl`` and ``Chat_result_modelx.jsonl`` hold one JSON object per line: the meta entry's
fields plus ``response`` (Foundation rows always carry all four ``choice_*`` fields, ``null`` where the question
has fewer options). How rows are matched and read, and what each ``--stage`` exports: docs/airbench.md,
"Rescoring official result files".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.layout import FOUNDATION_SECTION, SECTIONS, option_problems
from avibench.errors import AvibenchError, DatasetError
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.kits import records
from avibench.level_metrics.airbench import LETTERS


def prediction_files(path: Path) -> dict[str, Path]:
    """Task -> result file: a folder's official file names, or one file named after its section."""
    path = Path(path)
    if path.is_dir():
        found = {t: path / s.result_file for t, s in SECTIONS.items() if (path / s.result_file).is_file()}
        if not found:
            names = " nor ".join(s.result_file for s in SECTIONS.values())
            raise AvibenchError(f"{path}: holds neither {names}")
        return found
    for task, section in SECTIONS.items():
        if path.name.lower().startswith(section.name.lower()):
            return {task: path}
    raise AvibenchError(
        f"{path}: cannot tell its section from its name; name it Foundation_result_*.jsonl or Chat_result_*.jsonl"
    )


def responses_from_results(path: Path, task: str, items: Sequence[Item], root: Path) -> list[Response]:
    """One response per loaded item (in load order) from a result file of ``task``.

    A row must hold every field the official writer puts in it (``response`` may be ``null``: no answer), name a
    question of the meta file once and agree with its entry; a Foundation ``answer_gt`` must equal one of the
    choices (the official scorer aborts otherwise). The first bad row raises DatasetError naming its line (entries
    are numbered from line 1) and field.
    """
    section = SECTIONS[task]
    meta = section.meta_path(root)
    by_id = {item.item_id: item for item in items}
    rows: dict[str, tuple[int, dict]] = {}

    def invalid(number: int, why: str) -> None:
        raise DatasetError(path, f"is not JSON ({why})", index=number + 1)

    for line, row in records.jsonl_rows(path, on_error=invalid):
        if not isinstance(row, dict):
            raise DatasetError(path, "is not a JSON object", index=line + 1)
        found = [(f, "is missing") for f in section.result_fields if f not in row]
        if not isinstance(row.get("response"), str | None):
            found.append(("response", "must be a string or null"))
        found += option_problems(row) if section is FOUNDATION_SECTION else []
        uid = str(row.get("uniq_id"))
        item = by_id.get(uid)
        if uid in rows:
            found.append(("uniq_id", f"{uid!r} repeats line {rows[uid][0]}"))
        elif item is None:
            found.append(("uniq_id", f"{uid!r} is not a question of {meta}"))
        else:
            found += [
                (f, f"{row.get(f)!r} differs from {item.source.get(f)!r} in {meta}")
                for f in section.matched_fields
                if row.get(f) != item.source.get(f)
            ]
        for field, message in found[:1]:
            raise DatasetError(path, message, index=line + 1, field=field)
        rows[uid] = (line + 1, row)
    responses = []
    for item in items:
        text = rows[item.item_id][1]["response"] if item.item_id in rows else None
        if item.item_id not in rows:
            responses.append(Response(item, "missing"))
        elif isinstance(text, str):
            responses.append(Response(item, "answered", raw=text))
        else:
            responses.append(Response(item, "failed", method="failed"))
    return responses


def result_row(item: Item, response: str | None) -> dict[str, Any]:
    """The official result row of a loaded item (its meta entry is ``item.source``) and the model's answer."""
    fields = SECTIONS[item.task].result_fields
    return {f: response if f == "response" else item.source.get(f) for f in fields}


def exported_answer(response: Response, stage: str) -> str | None:
    """The ``response`` field a result row gets for ``stage``: the raw answer, or with ``refine`` a resolved
    Foundation answer's option letter (as the official optional alignment step rewrites ``response``)."""
    item = response.item
    if stage == "refine" and item.task == "foundation" and response.refined is not None:
        return LETTERS[mc.gold_index(item.options, response.refined)]
    return response.raw


def write_predictions(
    responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
) -> dict[str, Path]:
    """The official result file of every task in ``responses``, answered questions only, under ``out``; one JSON
    object per line, non-ASCII kept as is (as the official scripts write them)."""
    written = {}
    for task, answers in responses.items():
        written[task] = Path(out) / SECTIONS[task].result_file
        rows = (result_row(r.item, exported_answer(r, stage)) for r in answers if r.status == "answered")
        records.write_jsonl(written[task], rows)
    return written
