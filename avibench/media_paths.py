"""Media a dataset names stay inside its data root, unless the user says otherwise.

A dataset is data from elsewhere: a media path in it that leaves the data root (``..``, an absolute path, a
symbolic link whose target is outside) would make the toolkit read any file the user can read and send it to the
model's endpoint, or link it from a page. Every command that reads or sends a dataset's media (``validate-data``,
``infer``, ``probe``, ``view``) checks the paths of the items a plug-in loads here, in the core, so every benchmark
and every third-party plug-in gets the same rule. ``--allow-media-outside-root`` (or
``AVIBENCH_ALLOW_MEDIA_OUTSIDE_ROOT=1``) lets a user who keeps media elsewhere on purpose go on; the run's manifest
records it and every page states it.

A refusal names the dataset file, the entry and the field the path came from. The field is found in the plug-in's
own record of the question (``Item.source``, a mapping, or a dataclass holding one): the key whose value names the
part's path; when the plug-in keeps no record, the part's position stands in for it (``parts[0] (audio)``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from avibench.errors import DatasetError
from avibench.items import Item, Part

if TYPE_CHECKING:
    from avibench.plugin import Benchmark, Problem, Task

ALLOW_ENV = "AVIBENCH_ALLOW_MEDIA_OUTSIDE_ROOT"
ALLOW_FLAG = "--allow-media-outside-root"
ALLOW_HELP = (
    "Read and send media that a dataset names outside its data root ('..', absolute paths, symbolic links "
    f"pointing out), which are refused otherwise; recorded in the run's manifest and stated on every page. ${ALLOW_ENV}=1 "
    "also sets it."
)
#: How deep a plug-in's record is searched for the field that names a media path.
_MAX_DEPTH = 4


def allow_option(func: Any) -> Any:
    """The ``--allow-media-outside-root`` switch, the same in every command that reads a dataset's media."""
    return click.option(
        "--allow-media-outside-root",
        "allow_media_outside_root",
        is_flag=True,
        envvar=ALLOW_ENV,
        help=ALLOW_HELP,
    )(func)


@dataclass(frozen=True)
class MediaRef:
    """One media part of one question (``item.parts[position]``), with the dataset file it comes from."""

    item: Item
    position: int
    file: str

    @property
    def part(self) -> Part:
        return self.item.parts[self.position]

    @property
    def field(self) -> str:
        """The field that names the part (searched for in the plug-in's record only when asked)."""
        return field_of(self.item, self.position)

    @property
    def where(self) -> str:
        return f"{self.file} entry {self.item.index} field {self.field}"


def _strings(value: Any, name: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """``(field, text)`` for every string in a record, fields named as ``a.b[0]``."""
    if isinstance(value, str):
        if name and value and "\n" not in value and len(value) < 4096:
            yield name, value
    elif depth < _MAX_DEPTH and isinstance(value, Mapping):
        for key, inner in value.items():
            yield from _strings(inner, f"{name}.{key}" if name else str(key), depth + 1)
    elif depth < _MAX_DEPTH and isinstance(value, list | tuple):
        for index, inner in enumerate(value):
            yield from _strings(inner, f"{name}[{index}]", depth + 1)
    elif depth == 0 and dataclasses.is_dataclass(value) and not isinstance(value, type):
        # a record kept inside a plug-in's own object (AVI-Bench's sample keeps its data.json entry)
        for spec in dataclasses.fields(value):
            inner = getattr(value, spec.name)
            if isinstance(inner, Mapping):
                yield from _strings(inner, "", depth + 1)


def _named_by(path: str, text: str) -> int:
    """How many trailing components of ``path`` the record's ``text`` names (0: it does not name it)."""
    target, named = Path(path).parts, Path(text).parts
    if not named or len(named) > len(target):
        return 0
    return len(named) if target[-len(named) :] == named else 0


def field_of(item: Item, position: int) -> str:
    """The field of the item's record that names its ``position``-th part, else the part's position."""
    part = item.parts[position]
    best, best_len = "", 0
    for name, text in _strings(item.source, ""):
        length = _named_by(part.value, text)
        if length > best_len:
            best, best_len = name, length
    return best or f"parts[{position}] ({part.kind})"


def dataset_file(benchmark: Benchmark, root: Path, task: Task) -> str:
    """The file a task's questions come from, as refusals name it."""
    files = benchmark.data_files(root, task)
    return str(files[0]) if files else f"{root} (task {task.name})"


def media_refs(items: Iterable[Item], file: str) -> Iterator[MediaRef]:
    """Every media part of ``items``, in order."""
    for item in items:
        for position, part in enumerate(item.parts):
            if part.kind != "text":
                yield MediaRef(item, position, file)


class RealPaths:
    """``os.path.realpath`` for many files, each folder resolved once: a dataset's thousands of media files share
    a few folders, and resolving every component of every path was most of the check's time."""

    def __init__(self) -> None:
        self._folders: dict[str, str] = {}

    def __call__(self, path: Path | str) -> str:
        folder, name = os.path.split(os.fspath(path))
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder or os.curdir)
        candidate = os.path.join(real, name)
        return os.path.realpath(candidate) if os.path.islink(candidate) else candidate


def resolved_root(root: Path) -> Path:
    return Path(os.path.realpath(root))


def is_inside(
    path: Path | str, root: Path, real_path: Callable[[Path | str], str] = os.path.realpath
) -> bool:
    """Whether ``path``, every link followed, is ``root`` (already resolved) or under it."""
    real, top = real_path(path), os.fspath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def outside(refs: Iterable[MediaRef], root: Path) -> list[MediaRef]:
    """The media that leave the data root ``root``."""
    inside_root, real_path = resolved_root(root), RealPaths()
    return [ref for ref in refs if not is_inside(ref.part.value, inside_root, real_path)]


def refusal(ref: MediaRef) -> DatasetError:
    """The one-line error for media outside the data root."""
    return DatasetError(
        ref.file,
        f"media path {ref.part.value} is outside the data root (a '..', an absolute path or a link pointing out): "
        f"refused before it is read or sent; move the file under the data root, or pass {ALLOW_FLAG} to use it "
        "anyway",
        index=ref.item.index,
        field=ref.field,
    )


def check_items(
    benchmark: Benchmark, root: Path, task: Task, items: Sequence[Item], *, allow: bool
) -> list[MediaRef]:
    """The task's media outside the data root: a :class:`DatasetError` for the first unless ``allow``."""
    found = outside(media_refs(items, dataset_file(benchmark, root, task)), root)
    if found and not allow:
        raise refusal(found[0])
    return found


def load_checked(
    benchmark: Benchmark, root: Path, task: Task, template: str | None = None, *, allow: bool
) -> tuple[list[Item], list[MediaRef]]:
    """The task's questions, refused when one names media outside the data root (unless ``allow``), and the
    media outside it that ``allow`` let through."""
    items = benchmark.load(root, task, template)
    return items, check_items(benchmark, root, task, items, allow=allow)


def problems(
    benchmark: Benchmark, root: Path, tasks: Sequence[Task], reported: Collection[Problem], *, allow: bool
) -> list[Problem]:
    """``validate-data``'s findings beyond the plug-in's own (``reported``): media outside the data root (errors,
    or warnings when ``allow``; not again where the plug-in named the same field), and media that do not decode as
    the kind they are declared as (an entry the plug-in already found an error in is not decoded again)."""
    from avibench.infer.media_verdicts import decode_problem
    from avibench.plugin import Problem

    errors = [p for p in reported if p.severity == "error"]
    flagged = {(p.path, p.index) for p in errors}
    named = {(p.path, p.index, p.field) for p in errors}
    found: list[Problem] = []
    decoded: dict[tuple[str, str], str | None] = {}
    real_path = RealPaths()
    for task in tasks:
        try:
            items = benchmark.load(root, task)
        except DatasetError:  # the plug-in's own check reports the file
            continue
        refs = list(media_refs(items, dataset_file(benchmark, root, task)))
        away = outside(refs, root)
        for ref in away:
            if (ref.file, ref.item.index, ref.field) in named:  # the plug-in's own check said it already
                continue
            why = f"media path {ref.part.value} is outside the data root"
            why += f" (allowed by {ALLOW_FLAG})" if allow else f"; refused unless {ALLOW_FLAG}"
            found.append(Problem(ref.file, why, ref.item.index, ref.field, "warning" if allow else "error"))
        for ref in refs:
            if (ref.file, ref.item.index) in flagged or (ref in away and not allow):
                continue
            key = (real_path(ref.part.value), ref.part.kind)
            if key not in decoded:
                decoded[key] = decode_problem(Path(key[0]), ref.part.kind) if os.path.isfile(key[0]) else None
            if decoded[key] is not None:
                found.append(Problem(ref.file, str(decoded[key]), ref.item.index, ref.field))
    return found


def summary(refs: Sequence[MediaRef]) -> dict[str, Any]:
    """What the manifest records of the media a task read from outside the data root."""
    files = sorted({os.path.realpath(r.part.value) for r in refs})
    return {"files": len(files), "first": f"{refs[0].where}: {refs[0].part.value}"}
