"""Official AudioMarathon result files: read them for rescoring, write them from our responses.

One file per task, ``<TASK>_results.json`` (``SED_results.jsonl``: the DESED script writes JSONL only), in the shape
the task's Qwen2.5-Omni baseline script writes: a list of per-sample records under ``samples`` or
``detailed_results``, each with the script's own raw-response field. Rescoring always re-extracts from that raw
response; the prediction the script stored is read only to recognise its error records ("ERROR"), which become failed
requests. Records are joined to the metadata items by audio file (RACE, whose questions share a passage, by the
script's ``idx``, the question's position in the metadata); options a record lacks come from the metadata item.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from avibench.benchmarks.audiomarathon import layout
from avibench.errors import DatasetError
from avibench.items import Item, Response
from avibench.kits import records as kit_records
from avibench.refine.audiomarathon import official_extract

OPTION_FORMS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "letters": ("choices", tuple("ABCDE")),
    "choice_keys": ("choices", tuple(f"choice_{c}" for c in "abcde")),
    "choice_fields": (None, tuple(f"choice_{c}" for c in "abcde")),
}
"""Where a record keeps its options (an object under a key, or the top level) and their keys, by the data's form."""
Shape = Mapping[str, Any]


def shape_of(task: str) -> Shape:
    """Where the task's script puts things in its result records (``prompts/audiomarathon/results.yaml``)."""
    return layout.data_file("audiomarathon/results.yaml")[task]


ERROR = "ERROR"


def result_path(folder: Path | str, task: str) -> Path:
    """Where the result file of ``task`` lives in ``folder``."""
    suffix = ".jsonl" if shape_of(task)["container"] == "jsonl" else ".json"
    return Path(folder) / f"{task}_results{suffix}"


# ---- reading ----------------------------------------------------------------------------------------------------


def read_records(path: Path | str, task: str) -> list[dict[str, Any]]:
    """The per-sample records of one official result file."""
    container = shape_of(task)["container"]
    key = None if container == "jsonl" else container
    rows = kit_records.read_rows(Path(path), key=key, otherwise="json")
    return [record for _, record in kit_records.objects(Path(path), rows)]


def _options(record: Mapping[str, Any], shape: Shape) -> tuple[str, ...]:
    """The options a record carries (empty when it has none, as the scripts' error records)."""
    form = shape.get("options")
    if form == "list":
        return tuple(str(o) for o in record.get("options") or ())
    if form is None:
        return ()
    where, keys = OPTION_FORMS[form]
    found = (record.get(where) or {}) if where else record
    return tuple(str(found[k]) for k in keys if k in found)


def _is_error(record: Mapping[str, Any], shape: Shape) -> bool:
    raw = str(record.get(shape["raw"]) or "")
    return raw == ERROR or raw.startswith(ERROR + ": ") or str(record.get(shape["pred"], "")).upper() == ERROR


class _Index:
    """Finds the item a record names: by metadata position where the script writes one, else by audio file."""

    def __init__(self, task: str, items: Sequence[Item]):
        self.task = task
        self.by_path: dict[str, list[Item]] = defaultdict(list)
        self.by_name: dict[str, list[Item]] = defaultdict(list)
        self.by_index = {item.index: item for item in items}
        for item in items:
            self.by_path[str(item.meta["path"])].append(item)
            self.by_name[PurePosixPath(str(item.meta["path"])).name].append(item)

    def _by_file(self, value: str, record: Mapping[str, Any]) -> list[Item]:
        if self.task == "SD":
            value = f"{record.get('audio_label', '')}/{value}"
        parts = PurePosixPath(value.replace("\\", "/")).parts
        for k in range(len(parts)):
            found = self.by_path.get("/".join(parts[k:]))
            if found:
                return found
        return self.by_name.get(parts[-1], []) if parts else []

    def find(self, path: Path, i: int, record: Mapping[str, Any], shape: Shape) -> Item:
        value = str(record.get(shape["file"]) or "")
        candidates = self._by_file(value, record) if value else []
        index = shape.get("index")
        if index and isinstance(record.get(index), int):
            item = self.by_index.get(record[index])
            if item is not None and (not value or item in candidates):
                return item
        if len(candidates) == 1:
            return candidates[0]
        why = "names no metadata item" if not candidates else "matches several metadata items"
        raise DatasetError(path, f"{why} ({value!r})", index=i, field=shape["file"])


def read_responses(path: Path | str, task: str, items: Sequence[Item]) -> list[Response]:
    """A response for every metadata item: answered or failed from the record that names it, else missing."""
    path = Path(path)
    shape = shape_of(task)
    index = _Index(task, items)
    found: dict[str, Response] = {}
    for i, record in enumerate(read_records(path, task)):
        item = index.find(path, i, record, shape)
        if item.key in found:
            raise DatasetError(path, f"second record for {item.item_id!r}", index=i, field=shape["file"])
        if _is_error(record, shape):
            found[item.key] = Response(item, "failed")
            continue
        gold = str(record.get(shape["gold"], ""))
        expected = str(item.meta["gold"])
        if gold.strip().lower() != expected.strip().lower():
            why = f"ground truth {gold!r} differs from the metadata's {expected!r}"
            raise DatasetError(path, why, index=i, field=shape["gold"])
        options = _options(record, shape)
        if options and len(options) == len(item.options):
            item = replace(item, options=options)
        raw = record.get(shape["raw"])
        found[item.key] = Response(item, "answered", raw="" if raw is None else str(raw))
    return [found.get(item.key, Response(item, "missing")) for item in items]


# ---- writing ----------------------------------------------------------------------------------------------------


def _file_value(item: Item, shape: Shape) -> str:
    return {
        "full": str(item.media[0]),
        "relative": str(item.meta["path"]),
        "name": PurePosixPath(str(item.meta["path"])).name,
    }[shape["file_form"]]


def _option_fields(item: Item, shape: Shape) -> dict[str, Any]:
    form = shape.get("options")
    if form == "list":
        return {"options": list(item.options)}
    if form is None:
        return {}
    where, keys = OPTION_FORMS[form]
    named = {keys[i]: option for i, option in enumerate(item.options)}
    return {where: named} if where else named


def to_record(response: Response, shape: Shape) -> dict[str, Any]:
    """The record the task's script would write for ``response`` (failed requests as its error records)."""
    item = response.item
    failed = response.status != "answered"
    raw = ERROR if failed else response.raw or ""
    record: dict[str, Any] = {
        shape["file"]: _file_value(item, shape),
        shape["gold"]: item.meta["gold"],
        shape["raw"]: raw,
        shape["pred"]: ERROR if failed else official_extract(item.task, raw, item.options),
        **_option_fields(item, shape),
    }
    if "index" in shape:
        record[shape["index"]] = item.index
    if item.task == "SD":
        record["audio_label"] = item.meta["gold"]
    return record


def write_results(
    folder: Path | str, task: str, responses: Sequence[Response], summary: Mapping[str, Any] | None = None
) -> Path:
    """Write ``<TASK>_results.json[l]`` for ``responses`` (missing ones are left out, as the scripts never saw them)."""
    shape = shape_of(task)
    rows = [to_record(r, shape) for r in responses if r.status != "missing"]
    path = result_path(folder, task)
    path.parent.mkdir(parents=True, exist_ok=True)
    if shape["container"] == "jsonl":
        kit_records.write_jsonl(path, rows)
    else:
        body = {shape["container"]: rows, "summary": dict(summary or {})}
        path.write_text(json.dumps(body, ensure_ascii=False, indent=2), encoding="utf-8")
    return path
