"""What a question is, as a short hash: its text, its media files in order, and a cheap fingerprint of each file.

The dataset-changed guard compares this hash with the one each journal record stores, so an edited question or a
replaced media file under an existing journal is found before new answers are mixed with old ones. A media file's
fingerprint is its size and a hash of its first and last 4 KiB: two small reads per file (a full-size run has
about 6,000 questions), stable when the dataset is copied elsewhere (no paths or times), and different for any
re-encoded or re-cut file; an edit that keeps the size and both ends of a file is not seen.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from avibench.items import Item

_EDGE = 4096


@lru_cache(maxsize=65536)
def _file_fingerprint(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256(str(size).encode())
    with open(path, "rb") as fh:
        digest.update(fh.read(_EDGE))
        if size > 2 * _EDGE:
            fh.seek(-_EDGE, os.SEEK_END)
            digest.update(fh.read(_EDGE))
    return digest.hexdigest()[:16]


def media_fingerprint(path: Path | str) -> str:
    """Size and edge hash of one media file; ``missing`` when it is not there (the request will say so).

    The file is stat'ed on every call, so an edit is seen; it is read again only when its size or time changed.
    """
    try:
        stat = os.stat(path)
    except OSError:
        return "missing"
    return _file_fingerprint(str(path), stat.st_size, stat.st_mtime_ns)


def media_name(path: Path) -> str:
    """A media path that does not depend on the machine: from AVI-Bench-style ``input/`` folders, else the name."""
    text = path.as_posix()
    cut = text.rfind("/input/")
    return text[cut + 1 :] if cut >= 0 else path.name


@lru_cache(maxsize=65536)
def _media_name_of(value: str) -> str:
    return media_name(Path(value))


def content_hash(item: Item) -> str:
    """A short hash of the question as the dataset gives it: text, media names and channels, media fingerprints.

    Planning a resumed run hashes every answered question, so this works on the parts' path strings (a path
    object per media file cost more than the hashing itself).
    """
    media = [
        [_media_name_of(p.value), p.channel, media_fingerprint(p.value)]
        for p in item.parts
        if p.kind != "text"
    ]
    payload = [item.system, item.text, media]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]
