"""Official output files as responses (``eval --predictions``) and responses as official output files (export).

``main.py`` writes ``<model>-<subset>-<split>-<modality>.jsonl`` (every column but the audio, and ``response``);
``api_judge.py`` the same rows with the judge's replies (``score``) to ``result-<that name>``, which is read where
both exist and scored as recorded. Rows are matched to the dataset by position and must agree on ``prompt``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path

from avibench.benchmarks.voicebench.layout import BY_NAME, Subset, read_rows
from avibench.errors import AvibenchError, DatasetError
from avibench.items import Item, Response
from avibench.kits import records
from avibench.store import atomic_write_text

RESULT_PREFIX = "result-"
MODALITY = "audio"
NAMING = "expected <model>-<subset>-<split>-<modality>.jsonl, optionally prefixed result-"


def file_split(path: Path, subsets: Sequence[Subset]) -> tuple[str, str] | None:
    """The (subset, split) an official output file name stands for, or ``None``."""
    stem = path.name.removesuffix(".jsonl").removeprefix(RESULT_PREFIX)
    for subset in sorted(subsets, key=lambda s: -len(s.name)):
        for split in subset.splits:
            for modality in ("audio", "text", "ttft"):
                if stem.endswith(f"-{subset.name}-{split}-{modality}"):
                    return subset.name, split
    return None


def output_files(path: Path, subsets: Sequence[Subset]) -> dict[tuple[str, str], Path]:
    """(subset, split) -> the file to read under ``path`` (a file or a folder)."""
    path = Path(path)
    candidates = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    found: dict[tuple[str, str], Path] = {}
    for candidate in candidates:
        key = file_split(candidate, subsets)
        if key is None:
            if not path.is_dir():
                raise AvibenchError(f"{candidate}: cannot tell subset and split from its name ({NAMING})")
            continue
        if key not in found or candidate.name.startswith(RESULT_PREFIX):
            found[key] = candidate
    if not found:
        raise AvibenchError(f"{path}: no official VoiceBench output file for the selected subsets")
    return found


def _match(source: Path | None, rows: list[dict], items: Sequence[Item]) -> list[dict | None]:
    """Each item's row: rows follow the dataset order and may skip questions, so each row takes the next item
    with its prompt; a row that matches none is an error naming its line."""
    matched: list[dict | None] = [None] * len(items)
    position = 0
    for line, row in enumerate(rows):
        while position < len(items) and items[position].source["prompt"] != row.get("prompt"):
            position += 1
        if position == len(items):
            message = f"prompt {row.get('prompt')!r} is not the next question of the split"
            raise DatasetError(source, message, index=line, field="prompt")
        matched[position] = {**row, "_line": line}
        position += 1
    return matched


def _response(item: Item, row: dict | None) -> Response:
    """A row's answer: none without a row, a failure without a response text."""
    if row is None:
        return Response(item, "missing")
    if not isinstance(row.get("response"), str):
        return Response(item, "failed", method="failed")
    return Response(item, "answered", raw=row["response"], method="passthrough")


def read(
    path: Path, items_by_subset: Mapping[str, Sequence[Item]]
) -> tuple[dict[str, list[Response]], dict[str, dict[str, list[str]]]]:
    """Responses for the subsets in ``items_by_subset`` from the official files under ``path``, and the judge
    replies the files recorded (subset -> item key -> replies)."""
    subsets = [BY_NAME[name] for name in items_by_subset]
    files = output_files(path, subsets)
    out: dict[str, list[Response]] = {}
    judged: dict[str, dict[str, list[str]]] = {}
    for subset in subsets:
        mine = {split: p for (name, split), p in files.items() if name == subset.name}
        if not mine:
            continue
        responses = out[subset.name] = []
        recorded = judged[subset.name] = {}
        for split in subset.splits:
            split_items = [i for i in items_by_subset[subset.name] if i.meta["split"] == split]
            source = mine.get(split)
            rows = [row for _, row in read_rows(source)] if source is not None else []
            for item, row in zip(split_items, _match(source, rows, split_items), strict=True):
                responses.append(_response(item, row))
                if row is None or responses[-1].status != "answered" or "score" not in row:
                    continue
                if not isinstance(row["score"], list):
                    raise DatasetError(
                        source, "is not a list of judge replies", index=row["_line"], field="score"
                    )
                recorded[item.key] = [str(s) for s in row["score"]]
    return out, judged


def write(
    responses: Mapping[str, Sequence[Response]], out: Path, *, model: str = "avibench"
) -> dict[str, Path]:
    """The official output file of every split, answered rows only, in dataset order (split by split, as loaded);
    returns one per subset."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for task, answers in responses.items():
        answered = [r for r in answers if r.status == "answered"]
        for split, group in groupby(answered, key=lambda r: r.item.meta["split"]):
            rows = [
                {k: v for k, v in r.item.source.items() if k != "audio"} | {"response": r.raw} for r in group
            ]
            path = out / f"{model}-{task}-{split}-{MODALITY}.jsonl"
            atomic_write_text(path, records.jsonl_text(rows, records.dumps_spaced))
            written.setdefault(task, path)
    return written
