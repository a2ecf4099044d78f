"""MMSU's layout as published on the hub (``ddwang2000/MMSU``): ``data/train-*.parquet`` shards, one row per question.

The shards hold each clip's bytes (``audio: {bytes, path}``). The pipeline sends media by path, so the first load
writes each clip's bytes, unchanged, to ``audio-extracted/<shard>/<row>.<format>`` under the data root (the format
from the bytes' signature, so the request names it truly) and later loads find them there. Metadata is read without
the audio column, which holds most of a shard's size.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.kits import fields
from avibench.plugin import Problem

OPTIONS = ("choice_a", "choice_b", "choice_c", "choice_d")
TEXT = ("id", "task_name", "question", "answer_gt", "category", "sub-category")
EXTRA = ("sub-sub-category", "linguistics_sub_discipline")
REQUIRED: dict[str, fields.Check] = {
    **dict.fromkeys(TEXT, fields.text),
    "choice_a": fields.text,
    "choice_b": fields.text,
    "choice_c": fields.optional_string,
    "choice_d": fields.optional_string,
}
OPTIONAL: dict[str, fields.Check] = dict.fromkeys(EXTRA, fields.optional_string)
EXTRACTED = "audio-extracted"
SIGNATURES = (
    (b"RIFF", ".wav"),
    (b"fLaC", ".flac"),
    (b"OggS", ".ogg"),
    (b"ID3", ".mp3"),
    (b"\xff\xfb", ".mp3"),
)


def shards(root: Path) -> list[Path]:
    return sorted((Path(root) / "data").glob("train-*.parquet"))


def _table(path: Path, columns: list[str] | None) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
        return pq.read_table(path, columns=[c for c in names if c != "audio"] if columns is None else columns)
    except (pa.ArrowException, OSError) as exc:
        raise DatasetError(path, f"cannot be read as Parquet ({exc})") from None


def rows(root: Path) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """``(shard, row, metadata)`` of every question, shard by shard (``row`` counts from 0 in its shard)."""
    for path in shards(root):
        yield from ((path, k, row) for k, row in enumerate(_table(path, None).to_pylist()))


def gold_position(row: dict[str, Any]) -> int | None:
    """The first option whose text is ``answer_gt`` (the official scorer accepts every option with that text)."""
    return next((k for k, name in enumerate(OPTIONS) if row.get(name) == row.get("answer_gt")), None)


def problems(root: Path) -> Iterator[Problem]:
    """Every field a question lacks or holds wrong, a gold answer no option holds, and a clip without bytes."""
    for path in shards(root):
        for k, row in enumerate(_table(path, ["audio"]).column("audio").to_pylist()):
            if not isinstance(row, dict) or not row.get("bytes"):
                yield Problem(str(path), "holds no audio bytes", k, "audio")
    for path, k, row in rows(root):
        yield from fields.problems(path, k, row, REQUIRED, OPTIONAL)
        if isinstance(row.get("answer_gt"), str) and gold_position(row) is None:
            yield Problem(str(path), f"{row['answer_gt']!r} is none of the options", k, "answer_gt")


def suffix(data: bytes, name: str | None) -> str:
    """A clip's file suffix: from its bytes' signature, else its recorded name's, else ``.wav``."""
    found = next((ext for magic, ext in SIGNATURES if data.startswith(magic)), None)
    return found or (Path(name).suffix.lower() if name and Path(name).suffix else ".wav")


def clip_paths(root: Path, shard: Path) -> list[Path]:
    """Each row's extracted clip, written from the shard's bytes where it is not there yet."""
    folder = Path(root) / EXTRACTED / shard.stem
    found = {p.stem: p for p in folder.glob("*")} if folder.is_dir() else {}
    count = _table(shard, ["id"]).num_rows
    if all(str(k) in found for k in range(count)):
        return [found[str(k)] for k in range(count)]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, clip in enumerate(_table(shard, ["audio"]).column("audio").to_pylist()):
        data = (clip or {}).get("bytes")
        if not data:
            raise DatasetError(shard, "holds no audio bytes", index=k, field="audio")
        path = folder / f"{k}{suffix(data, clip.get('path'))}"
        partial = path.with_name(f"{path.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)  # no truncated clip if killed, and two processes loading at once both succeed
        paths.append(path)
    return paths
