"""Loading the official AVI-Bench layout: ``<root>/<stage>/<TASK>/data.json`` plus ``input/`` media.

Loading is lazy about media: a :class:`Sample` holds resolved paths, never file contents, so a run over the
full dataset keeps memory bounded. It holds them as text, and makes :class:`~pathlib.Path` objects only when
they are asked for: an eval of the full dataset reads about 15,000 paths and uses none of them as files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.prompting import PromptError, build_text, resolve_options
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec, TaskTable
from avibench.errors import DatasetError
from avibench.file_memo import file_key, memoised
from avibench.items import path_text
from avibench.kits import records

PRE_PREFIX = "pre_"


@dataclass(frozen=True)
class Sample:
    """One entry of a task's data.json, with its media paths resolved (as ``str(Path(...))`` writes them) and its
    text assembled."""

    task: str
    index: int
    id: str
    subtask: str | None
    text: str
    options: Any
    image_files: tuple[str, ...]
    audio_files: tuple[str, ...]
    video_file: str | None
    answer: Any
    entry: dict[str, Any]
    spec: TaskSpec = field(compare=False, repr=False)

    @cached_property
    def images(self) -> tuple[Path, ...]:
        return tuple(Path(f) for f in self.image_files)

    @cached_property
    def audios(self) -> tuple[Path, ...]:
        return tuple(Path(f) for f in self.audio_files)

    @cached_property
    def video(self) -> Path | None:
        return None if self.video_file is None else Path(self.video_file)

    @property
    def is_pre(self) -> bool:
        """True for a double-confirm pre-question (id ``pre_<formal id>``)."""
        return self.id.startswith(PRE_PREFIX)

    @property
    def formal_id(self) -> str:
        """The id of the formal entry this one belongs to (itself for a formal entry)."""
        return self.id[len(PRE_PREFIX) :] if self.is_pre else self.id

    @property
    def question(self) -> dict[str, Any]:
        return (self.entry.get("input") or {}).get("question") or {}

    @property
    def media(self) -> tuple[Path, ...]:
        return (*self.images, *self.audios, *((self.video,) if self.video else ()))


def task_dir(data_root: Path | str, spec: TaskSpec) -> Path:
    return Path(data_root) / spec.stage / spec.name


def resolve_media_path(value: str, folder: Path | str) -> str:
    """The reference's plain string replacement of every ``./input`` with ``<task folder>/input``, as
    ``str(Path(...))`` writes the result."""
    return path_text(value.replace("./input", f"{folder}/input"))


def _media_list(value: Any, folder: str, path: Path, index: int, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DatasetError(path, "expected a list of media paths or null", index=index, field=field)
    return tuple(resolve_media_path(v, folder) for v in value)


def sample_from_entry(spec: TaskSpec, folder: Path, path: Path, index: int, entry: Any) -> Sample:
    """Build a :class:`Sample`; raises :class:`DatasetError` naming the entry and field that is wrong."""
    if not isinstance(entry, dict):
        raise DatasetError(path, f"expected an object, found {type(entry).__name__}", index=index)
    inp = entry.get("input")
    if not isinstance(inp, dict):
        raise DatasetError(path, "missing or not an object", index=index, field="input")
    question = inp.get("question")
    if not isinstance(question, dict):
        raise DatasetError(path, "missing or not an object", index=index, field="input.question")
    if "task" in entry and entry["task"] != spec.name:
        raise DatasetError(
            path, f"is {entry['task']!r} but the folder is {spec.name} (the reference refuses it)", index=index,
            field="task",
        )  # fmt: skip
    output = entry.get("output")
    if not isinstance(output, dict) or "question_answer" not in output:
        raise DatasetError(path, "missing", index=index, field="output.question_answer")
    try:
        text = build_text(spec.name, question)
        options = resolve_options(spec.name, question)
    except PromptError as exc:
        raise DatasetError(path, str(exc), index=index, field="input.question") from None
    video = inp.get("video")
    if video is not None and not isinstance(video, str):
        raise DatasetError(path, "expected a media path or null", index=index, field="input.video")
    subtask = entry.get("subtask")
    text_folder = str(folder)
    return Sample(
        task=spec.name,
        index=index,
        id=str(entry.get("id", index)),
        subtask=None if subtask is None else str(subtask),
        text=text,
        options=options,
        image_files=_media_list(inp.get("image_list"), text_folder, path, index, "input.image_list"),
        audio_files=_media_list(inp.get("audio_list"), text_folder, path, index, "input.audio_list"),
        video_file=resolve_media_path(video, text_folder) if video else None,
        answer=output["question_answer"],
        entry=entry,
        spec=spec,
    )


_ENTRIES: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_SAMPLES: dict[tuple[Any, ...], tuple[Sample, ...]] = {}
_DIGESTS: dict[tuple[Any, ...], bytes] = {}


def data_entries(path: Path) -> tuple[Any, ...]:
    """The entries of a data.json as read, parsed once per version of the file (loading its samples and telling
    whether it is the official file both read them)."""
    return memoised(_ENTRIES, file_key(path), lambda: tuple(records.read_records(path)))


def load_task(data_root: Path | str, task: str | TaskSpec, benchmark: TaskTable = AVIBENCH) -> list[Sample]:
    """All samples of one task folder, in file order (parsed once per version of its data.json)."""
    spec = task if isinstance(task, TaskSpec) else benchmark.task(task)
    folder = task_dir(data_root, spec)
    path = folder / "data.json"
    key = file_key(path)
    samples = memoised(
        _SAMPLES,
        None if key is None else (*key, str(folder), spec),
        lambda: tuple(sample_from_entry(spec, folder, path, i, e) for i, e in enumerate(data_entries(path))),
    )
    return list(samples)


def data_digest(path: Path) -> bytes:
    """SHA-256 of a file's bytes, computed once per version of the file."""
    return memoised(_DIGESTS, file_key(path), lambda: hashlib.sha256(path.read_bytes()).digest())


def available_tasks(data_root: Path | str, benchmark: TaskTable = AVIBENCH) -> tuple[TaskSpec, ...]:
    """Tasks whose ``data.json`` exists under the root, in registry order."""
    return tuple(t for t in benchmark.tasks if (task_dir(data_root, t) / "data.json").is_file())


def fingerprint(data_root: Path | str, tasks: Iterable[TaskSpec]) -> str:
    """A short hash of the selected tasks' data.json files, recorded in outputs for provenance."""
    digest = hashlib.sha256()
    for spec in tasks:
        path = task_dir(data_root, spec) / "data.json"
        digest.update(spec.name.encode())
        if path.is_file():
            digest.update(data_digest(path))
    return digest.hexdigest()[:16]
