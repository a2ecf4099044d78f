"""Field checks of metadata rows: what a record must hold, as one problem per file, entry and field.

A check is a function of a field's value giving ``None`` when it is fine, else what is wrong with it
(``"must be a non-empty string"``). A plug-in declares its fields as ``{name: check}`` (required, in the official
key order) and ``{name: check}`` (optional); :func:`problems` lists every problem of one row (for
``validate-data``), :func:`require` raises the first as a :class:`~avibench.errors.DatasetError` (for ``load``),
and :func:`file_problems` walks a whole file (unreadable, then each row's problems and further checks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.plugin import Problem

Check = Callable[[Any], str | None]
"""A field check: ``None`` when the value is fine, else what is wrong with it."""


def text(value: Any) -> str | None:
    """A non-empty string."""
    return None if isinstance(value, str) and value.strip() else "must be a non-empty string"


def string(value: Any) -> str | None:
    return None if isinstance(value, str) else "must be a string"


def optional_string(value: Any) -> str | None:
    return None if value is None or isinstance(value, str) else "must be a string or null"


def strings(value: Any) -> str | None:
    """A list of strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return "must be a list of strings"
    return None


def choices(value: Any) -> str | None:
    """The options of a multiple-choice question: at least two strings."""
    if strings(value) or len(value) < 2:
        return "must be a list of at least two strings"
    return None


def integer(value: Any) -> str | None:
    return None if isinstance(value, int) and not isinstance(value, bool) else "must be an integer"


def number(value: Any) -> str | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return None if ok else "must be a number"


def one_of(allowed: tuple[str, ...]) -> Check:
    """One of a vocabulary."""

    def check(value: Any) -> str | None:
        return None if value in allowed else f"{value!r} is not one of {', '.join(allowed)}"

    return check


def problems(
    path: Path | str,
    index: int,
    record: Any,
    required: Mapping[str, Check],
    optional: Mapping[str, Check] | None = None,
) -> Iterator[Problem]:
    """What is wrong with one record: not an object, a required field missing, a field its check rejects."""
    if not isinstance(record, dict):
        yield Problem(str(path), f"must be a JSON object, found {type(record).__name__}", index)
        return
    for name, check in {**required, **(optional or {})}.items():
        if name not in record:
            if name in required:
                yield Problem(str(path), "is missing", index, name)
            continue
        message = check(record[name])
        if message:
            yield Problem(str(path), message, index, name)


def raise_first(found: Iterator[Problem]) -> None:
    """Raise the first problem as a DatasetError (file, entry, field), if there is one."""
    problem = next(found, None)
    if problem is not None:
        raise DatasetError(problem.path, problem.message, index=problem.index, field=problem.field)


def require(
    path: Path | str,
    index: int,
    record: Any,
    required: Mapping[str, Check],
    optional: Mapping[str, Check] | None = None,
) -> dict[str, Any]:
    """The record, when it passes :func:`problems`; else DatasetError for its first problem."""
    raise_first(problems(path, index, record, required, optional))
    return record


def file_problems(
    rows: Callable[[], Iterable[tuple[int, Any]]],
    checks: Callable[[int, Any], Iterable[Problem]],
    further: Callable[[int, Any], Iterable[Problem]],
) -> list[Problem]:
    """Every problem of a metadata file, for ``validate``: the one that keeps ``rows()`` (``(entry, row)`` pairs,
    a :mod:`~avibench.kits.records` reader) from reading it, else each row's ``checks`` and, for a row that passes
    them, its ``further`` problems (those that need its fields sound: answers, duplicate ids, media), row by row."""
    try:
        entries = rows()
    except DatasetError as exc:
        return [Problem(exc.path, exc.message, exc.index, exc.field)]
    found: list[Problem] = []
    for index, row in entries:
        own = list(checks(index, row))
        found += own or list(further(index, row))
    return found
