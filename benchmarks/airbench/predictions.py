"""Official result files as responses (``eval --predictions``) and responses as official result files (``export``).

Rescoring matches each result row to its meta entry by ``uniq_id``, so questions absent from the file are known
(``missing``) without reading any audio; a row must agree with its meta entry on the fields the scorer reads. A
row whose ``response`` is null is a question asked without an answer (``failed``); any string, the empty one
included, is an answer, as the official scorers read it: a blank Chat answer is judged, and a blank or "None"
Foundation answer is one that fails to parse (counted in ``fail_num``).

Export writes one row per answered question. With ``--stage infer`` the response is the model's raw answer, which
the official scorer reads as it is (rescoring it reproduces the run's reference numbers). With ``--stage refine``
a Foundation answer the extractor resolved is written as its option letter, as the official optional alignment
step rewrites ``response``, and an unresolved one stays raw (rescoring it reproduces the run's strict numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from avibench.benchmarks.airbench.layout import (
    CHAT,
    CHAT_SECTION,
    FOUNDATION,
    FOUNDATION_SECTION,
    OPTION_FIELDS,
)
from avibench.benchmarks.airbench.results import (
    CHAT_RESULT_FILE,
    FOUNDATION_RESULT_FILE,
    numbered_results,
    result_row,
    write_results,
)
from avibench.errors import AvibenchError, DatasetError
from avibench.items import Item, Response
from avibench.level_metrics.airbench import LETTERS, gold_index

#: Task name -> (section, official result file name).
TASK_FILES: dict[str, tuple[str, str]] = {
    "foundation": (FOUNDATION, FOUNDATION_RESULT_FILE),
    "chat": (CHAT, CHAT_RESULT_FILE),
}
_MATCHED_FIELDS = {
    FOUNDATION: ("task_name", "dataset_name", "answer_gt", *OPTION_FIELDS),
    CHAT: ("task_name", "dataset_name", "answer_gt"),
}
_META = {FOUNDATION: FOUNDATION_SECTION, CHAT: CHAT_SECTION}


def prediction_files(path: Path) -> dict[str, Path]:
    """Task -> result file: a folder's official file names, or one file named after its section."""
    path = Path(path)
    if path.is_dir():
        found = {task: path / name for task, (_, name) in TASK_FILES.items() if (path / name).is_file()}
        if not found:
            raise AvibenchError(f"{path}: holds neither {FOUNDATION_RESULT_FILE} nor {CHAT_RESULT_FILE}")
        return found
    lowered = path.name.lower()
    for task, (section, _) in TASK_FILES.items():
        if lowered.startswith(section.lower()):
            return {task: path}
    raise AvibenchError(
        f"{path}: cannot tell its section from its name; name it Foundation_result_*.jsonl or Chat_result_*.jsonl"
    )


def responses_from_results(path: Path, task: str, items: Sequence[Item], root: Path) -> list[Response]:
    """One response per loaded item (in load order) from a result file; raises DatasetError on a bad row."""
    section = TASK_FILES[task][0]
    meta = _META[section].meta_path(root)
    by_id = {item.item_id: item for item in items}
    rows: dict[str, tuple[int, dict]] = {}
    for number, row in numbered_results(path, section):
        uid = str(row["uniq_id"])
        if uid in rows:
            raise DatasetError(path, f"{uid!r} repeats line {rows[uid][0]}", index=number, field="uniq_id")
        item = by_id.get(uid)
        if item is None:
            raise DatasetError(path, f"{uid!r} is not a question of {meta}", index=number, field="uniq_id")
        for field in _MATCHED_FIELDS[section]:
            if row.get(field) != item.source.get(field):
                message = f"{row.get(field)!r} differs from {item.source.get(field)!r} in {meta}"
                raise DatasetError(path, message, index=number, field=field)
        rows[uid] = (number, row)
    responses = []
    for item in items:
        if item.item_id not in rows:
            responses.append(Response(item, "missing"))
            continue
        text = rows[item.item_id][1]["response"]
        if isinstance(text, str):
            responses.append(Response(item, "answered", raw=text))
        else:
            responses.append(Response(item, "failed", method="failed"))
    return responses


def exported_answer(response: Response, stage: str) -> str | None:
    """The ``response`` field a result row gets for ``stage`` (see the module docstring)."""
    item = response.item
    if stage == "refine" and item.task == "foundation" and response.refined is not None:
        return LETTERS[gold_index(item.options, response.refined)]
    return response.raw


def write_predictions(
    responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
) -> dict[str, Path]:
    """The official result file of every task in ``responses``, answered questions only, under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for task, answers in responses.items():
        path = out / TASK_FILES[task][1]
        rows = (result_row(r.item, exported_answer(r, stage)) for r in answers if r.status == "answered")
        write_results(path, rows)
        written[task] = path
    return written
