"""The official script's results file: what ``evaluate_asr.py`` writes before it scores (``<dataset>_<time>.json``),
a JSON list of ``{"gt", "response", "source", "audio_path"}``.

Reading (``eval --predictions FILE``, or a folder of such files) matches each record to a clip of the selected
tasks by its audio path (the longest trailing run of path parts it shares with one clip) and scores the record's
``response`` against the record's own ``gt``, as the script does; a clip without a record is missing. Writing
(``export --format reference``) gives one such file per task, ``source`` the task.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePath

from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import fields, records
from avibench.store import atomic_write_text

FIELDS: dict[str, fields.Check] = {
    "gt": fields.string,
    "response": fields.string,
    "source": fields.string,
    "audio_path": fields.text,
}


def _files(path: Path) -> list[Path]:
    found = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not found:
        raise DatasetError(path, "holds no results file (*.json)")
    return found


def _shared_tail(a: PurePath, b: PurePath) -> int:
    """How many trailing path parts two paths share."""
    n = 0
    for x, y in zip(reversed(a.parts), reversed(b.parts), strict=False):
        if x != y:
            break
        n += 1
    return n


def _match(clips: Mapping[str, list[Item]], audio_path: str) -> Item | None:
    """The clip a record's audio path names: of those with its file name, the one sharing the most path parts."""
    wanted = PurePath(audio_path.replace("\\", "/"))
    candidates = clips.get(wanted.name, [])
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    ranked = sorted(candidates, key=lambda i: -_shared_tail(PurePath(i.parts[0].value), wanted))
    best = _shared_tail(PurePath(ranked[0].parts[0].value), wanted)
    return ranked[0] if best > _shared_tail(PurePath(ranked[1].parts[0].value), wanted) else None


def read(path: Path, items: Mapping[str, Sequence[Item]]) -> dict[str, list[Response]]:
    """Per task, a response for each clip in load order: answered from its record, else missing."""
    clips: dict[str, list[Item]] = {}
    for task_items in items.values():
        for item in task_items:
            clips.setdefault(PurePath(item.parts[0].value).name, []).append(item)
    found: dict[str, Response] = {}
    for file in _files(Path(path)):
        rows = records.read_json(file)
        if not isinstance(rows, list) or not rows:
            raise DatasetError(file, "must be a non-empty JSON list of {gt, response, source, audio_path}")
        for entry, row in enumerate(rows):
            fields.require(file, entry, row, FIELDS)
            item = _match(clips, row["audio_path"])
            if item is None:
                message = f"{row['audio_path']!r} names no single clip of the selected tasks"
                raise DatasetError(file, message, index=entry, field="audio_path")
            key = f"{item.task}/{item.key}"
            if key in found:
                raise DatasetError(
                    file, f"a second record for clip {item.key}", index=entry, field="audio_path"
                )
            found[key] = Response(replace(item, answer=row["gt"]), "answered", raw=row["response"])
    return {
        task: [found.get(f"{task}/{i.key}") or Response(i, "missing") for i in task_items]
        for task, task_items in items.items()
    }


def write(responses: Mapping[str, Sequence[Response]], out: Path) -> dict[str, Path]:
    """One results file per task with answered clips, in the script's shape."""
    written = {}
    for task, rows in responses.items():
        results = [
            {"gt": r.item.answer, "response": r.raw, "source": task, "audio_path": r.item.parts[0].value}
            for r in rows
            if r.status == "answered" and r.raw is not None
        ]
        if results:
            path = Path(out) / f"{task}.json"
            atomic_write_text(path, json.dumps(results, ensure_ascii=False) + "\n")
            written[task] = path
    return written
