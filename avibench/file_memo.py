"""Results derived from a file, kept per version of the file for the rest of the process.

One eval reads each data file and journal several times (scoring, per-sample rows, completeness, provenance,
chance levels); keeping what was parsed, keyed by the file's path, size, modification time and inode, makes
that one read and one parse, and a file changed in between (a journal appended to) is read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

#: How many file versions each memo keeps (the oldest goes first).
MEMO_FILES = 64

FileKey = tuple[str, int, int, int]
T = TypeVar("T")


def file_key(path: Path | str) -> FileKey | None:
    """What identifies one version of a file without reading it: absolute path, size, mtime and inode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns, st.st_ino)


def memoised(memo: dict[tuple[Any, ...], T], key: tuple[Any, ...] | None, build: Callable[[], T]) -> T:
    """``memo[key]``, built once per file version; ``key`` None (the file cannot be stat'ed) is never kept."""
    if key is None:
        return build()
    if key not in memo:
        if len(memo) >= MEMO_FILES:
            memo.pop(next(iter(memo)))
        memo[key] = build()
    return memo[key]


def items_per_version(
    memo: dict[tuple[Any, ...], tuple[T, ...]],
    path: Path | str,
    extra: tuple[Any, ...],
    build: Callable[[], Sequence[T]],
) -> list[T]:
    """A fresh list of what ``build`` loads from the file ``path`` (with ``extra``, such as the dataset root
    and the prompt template, telling loads of one file apart), loaded once per version of the file: a plug-in's
    ``load``, which eval calls for scoring, completeness and per-sample rows."""
    key = file_key(path)
    return list(memoised(memo, None if key is None else (*key, *extra), lambda: tuple(build())))
