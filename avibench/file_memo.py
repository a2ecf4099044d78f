"""Results derived from a file, kept per version of the file for the rest of the process.

One eval reads each data file and journal several times (scoring, per-sample rows, completeness, provenance,
chance levels); keeping what was parsed, keyed by the file's path, size, modification time and inode, makes
that one read and one parse, and a file changed in between (a journal appended to) is read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
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
