"""The API tester's per-question records, read for rescoring (``eval --predictions``) and written by ``export``.

``main_tester.py`` hands ``print_statistics`` one dict per question and prints only the figures; these records,
one JSON object per line, are what a rescoring needs. Four shapes occur:

* answered: ``question``, ``api_answer``, ``correct_answer``, ``is_correct``, ``api_call_failed`` (false),
  ``qa_type``, ``video_category``, ``video_duration``, ``skipped`` (false);
* an API failure: the same, with ``api_answer`` beginning ``error_`` and ``api_call_failed`` true;
* a missing video: ``skipped`` true, ``item_id`` (the video id), ``reason`` "Video file not found", ``api_answer``
  "error_video_not_found" and the question's fields;
* a skip without the question: ``skipped`` true and a ``reason`` ("Missing fields", "Worker error: ...").

Records come in completion order and carry no question index, so a record is matched to the question with the
same text, gold letter, QA type, category and duration (in file order where a question appears twice). A
question no record matches is a skip (the tester's worker errors lose the question, and count as skips).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import records
from avibench.level_metrics.dailyomni import api_tester_correct

NOT_FOUND_REASON = "Video file not found"
NOT_FOUND_REPLY = "error_video_not_found"
_MATCH = ("question", "correct_answer", "qa_type", "video_category", "video_duration")


def _key(item: Item) -> tuple[str, ...]:
    record = item.source
    return (
        record["Question"],
        record["Answer"],
        record["Type"],
        record["video_category"],
        record["video_duration"],
    )


def read_responses(path: Path, items: Sequence[Item]) -> tuple[list[Response], list[str]]:
    """One response per item (load order) from a records file, and notes on what could not be matched."""
    waiting: dict[tuple[str, ...], list[Item]] = {}
    for item in items:
        waiting.setdefault(_key(item), []).append(item)
    found: dict[str, Response] = {}
    unmatched_skips = disagree = 0
    rows = records.objects(path, records.jsonl_rows(path))
    if not rows:
        raise DatasetError(
            path, "holds no records (one JSON object per line, as main_tester.py collects them)"
        )
    for entry, record in rows:
        number = entry + 1
        if record.get("skipped") and record.get("reason") != NOT_FOUND_REASON:
            unmatched_skips += 1  # a skip without its question: the question stays a skip
            continue
        for name in _MATCH:
            if not isinstance(record.get(name), str):
                raise DatasetError(
                    path, f"line {number} must hold a string (the record's {name})", field=name
                )
        key = tuple(record[name] for name in _MATCH)
        queue = waiting.get(key)
        if not queue:
            raise DatasetError(
                path, f"line {number} matches no unmatched question of the dataset", field="question"
            )
        item = queue.pop(0)
        if record.get("skipped"):
            found[item.key] = Response(item, "missing", raw=NOT_FOUND_REPLY)
            continue
        reply = record.get("api_answer")
        if reply is not None and not isinstance(reply, str):
            raise DatasetError(path, f"line {number} must hold a string or null", field="api_answer")
        failed = bool(record.get("api_call_failed")) or (reply or "").startswith("error_")
        found[item.key] = Response(item, "failed" if failed else "answered", raw=reply or "")
        if not failed and record.get("is_correct") != api_tester_correct(reply, str(item.answer)):
            disagree += 1
    responses = [found.get(item.key) or Response(item, "missing") for item in items]
    notes = []
    if disagree:
        notes.append(
            f"{disagree} records' is_correct disagrees with their api_answer; scored from the answer, as the "
            "tester computes is_correct"
        )
    left = sum(item.key not in found for item in items)
    if left != unmatched_skips:
        notes.append(
            f"{left} questions have no record and {unmatched_skips} records are skips without their question; "
            "the questions without a record are counted as skipped"
        )
    return responses, notes


def as_tester_saw(response: Response) -> Response:
    """A run's response as the API tester would have recorded it: a question left unanswered whose video is not
    in the data root is its "Video file not found" skip (the tester looks for the file before asking)."""
    if response.status == "answered" or response.raw == NOT_FOUND_REPLY:
        return response
    video = next((p.value for p in response.item.parts if p.kind == "video"), None)
    if video is None or Path(video).is_file():
        return response
    return Response(response.item, "missing", raw=NOT_FOUND_REPLY)


def record_of(response: Response) -> dict[str, Any]:
    """The tester's record of one response (what ``export`` writes)."""
    item = response.item
    meta = item.meta
    common = {
        "question": item.source["Question"],
        "correct_answer": item.answer,
        "qa_type": meta["qa_type"],
        "video_category": meta["video_category"],
        "video_duration": meta["video_duration"],
    }
    if response.status == "missing" and response.raw == NOT_FOUND_REPLY:
        return {"skipped": True, "item_id": meta["video_id"], "reason": NOT_FOUND_REASON, **common,
                "api_answer": NOT_FOUND_REPLY, "is_correct": False, "api_call_failed": True}  # fmt: skip
    if response.status == "missing":
        return {"skipped": True, "reason": "Not asked", "api_call_failed": True}
    reply = response.raw if response.status == "answered" else (response.raw or "error_request_failed")
    failed = response.status != "answered"
    return {"skipped": False, **common, "api_answer": reply,
            "is_correct": not failed and api_tester_correct(reply, str(item.answer)),
            "api_call_failed": failed}  # fmt: skip


def write_records(path: Path, responses: Sequence[Response]) -> Path:
    return records.write_jsonl(Path(path), [record_of(r) for r in responses])
