"""Nothing is sent that does not decode as the kind it is declared as.

Before the first request, ``infer`` checks every media file it is about to send: an audio part must decode as
audio, an image as an image, a video as a video container with a picture. The first that does not stops the run
in one line naming the dataset file, entry and field, before any request: a text file, a key file or an ``.env``
that a dataset names as ``clip.wav`` is refused instead of being sent base64-encoded. ``validate-data`` makes the
same check. A missing file is left to the request, which records the question as failed, as before.

Decoding is the costly part, so a file found good is remembered in the run's ``infer/media_checked.json`` by its
resolved path, size and modification time: a resume decodes nothing again, and an edited file is checked anew.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.media_paths import MediaRef, RealPaths
from avibench.store import atomic_write_json

CACHE_NAME = "media_checked.json"
_SCHEMA = 1


def _image(path: Path) -> str | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            image.load()
        return None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return _av(path, "video")  # a format Pillow lacks that FFmpeg decodes as a picture


def _av(path: Path, stream: str) -> str | None:
    import av

    try:
        with av.open(str(path)) as container:
            next(container.decode(**{stream: 0}))
        return None
    except IndexError:  # no stream of that kind
        return f"it holds no {stream} stream"
    except StopIteration:  # a stream without one frame
        return f"its {stream} stream holds nothing"
    except Exception as exc:  # PyAV raises its own error per failure; its strerror leaves the path out
        why = getattr(exc, "strerror", None) or str(exc)
        return f"{type(exc).__name__}: {why}" if why else type(exc).__name__


_DECODERS = {
    "audio": lambda path: _av(path, "audio"),
    "image": _image,
    "video": lambda path: _av(path, "video"),
}


def decode_problem(path: Path, kind: str) -> str | None:
    """``None`` when ``path`` decodes as ``kind`` (audio, image, video), else why not."""
    why = _DECODERS[kind](path)
    if why is None:
        return None
    return f"{path} does not decode as {kind} ({why})"


def _stamp(path: Path) -> list[Any] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


class DecodeCache:
    """The files found decodable, by resolved path, with the size, time and kind they were checked at."""

    def __init__(self, path: Path | None):
        self.path = path
        self.good: dict[str, list[Any]] = {}
        if path is not None and path.is_file():
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                doc = {}
            if isinstance(doc, dict) and doc.get("schema") == _SCHEMA and isinstance(doc.get("files"), dict):
                self.good = doc["files"]
        self.checked = 0
        """Files decoded by this process (not found in the cache)."""

    def known(self, key: str, stamp: list[Any], kind: str) -> bool:
        return self.good.get(key) == [*stamp, kind]

    def remember(self, key: str, stamp: list[Any], kind: str) -> None:
        self.good[key] = [*stamp, kind]

    def save(self) -> None:
        if self.path is not None and self.checked:
            atomic_write_json(self.path, {"schema": _SCHEMA, "files": self.good})


def check_decodes(refs: Iterable[MediaRef], cache: DecodeCache) -> None:
    """Decode every media file ``refs`` name as its declared kind; a :class:`DatasetError` for the first that
    does not (naming its file, entry and field). Files found good are added to ``cache`` and saved."""
    seen: set[tuple[str, str]] = set()
    real_path = RealPaths()
    try:
        for ref in refs:
            part = ref.part
            key = real_path(part.value)
            if (key, part.kind) in seen:
                continue
            seen.add((key, part.kind))
            stamp = _stamp(Path(key))
            if stamp is None or cache.known(key, stamp, part.kind):
                continue
            cache.checked += 1
            why = decode_problem(Path(part.value), part.kind)
            if why is not None:
                raise DatasetError(
                    ref.file,
                    f"{why}; refused before any request, nothing was sent",
                    index=ref.item.index,
                    field=ref.field,
                )
            cache.remember(key, stamp, part.kind)
    finally:
        cache.save()
