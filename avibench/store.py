"""Crash-safe files: append-only JSONL journals and atomically replaced whole files.

A journal is appended one record at a time (write and flush), so killing the process loses at most the record
being written; the fsync that guards against a power cut is done per call, per batch (:meth:`JournalWriter.append_many`)
or at most every ``sync_interval`` seconds and on close, so a stage never pays one disk sync per record. On read, a torn or invalid line is skipped; before appending, a torn tail left
by a crash is cut off so the next record starts on its own line. Writers of the same journal (shards run side
by side) take an exclusive lock for each append and for that cut, so one never cuts another's line mid-write.

Nothing is dropped without a word: a complete line that is not a JSON object is named (file and line) on stderr
when read, and the next writer of that journal moves it into ``<journal>.corrupt`` (its question is then missing
and asked again); a torn tail the writer cuts is reported the same way.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from avibench.kits.records import jsonl_text, read_journal

if TYPE_CHECKING:  # imported where used: every command imports this module, most never start a loop
    import asyncio


#: Journals in which this process read a line that is not a JSON object, with those lines' numbers (1-based).
_CORRUPT_LINES: dict[Path, set[int]] = {}


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _is_record(line: bytes) -> bool:
    """Whether a complete line is a JSON object or blank (which readers skip and writers leave in place)."""
    if not line.strip():
        return True
    try:
        return isinstance(json.loads(line), dict)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def _set_aside_corrupt(path: Path) -> None:
    """Move the lines that are not JSON objects out of ``path`` into ``<path>.corrupt`` (under the writer's lock:
    rewritten in place, so another writer's open file still appends to it) and say where they went."""
    with path.open("rb+") as fh:
        lines = fh.readlines()
        bad = [n for n, line in enumerate(lines, 1) if line.endswith(b"\n") and not _is_record(line)]
        if not bad:
            return
        aside = path.with_name(path.name + ".corrupt")
        with aside.open("ab") as out:
            out.writelines(lines[n - 1] for n in bad)
        fh.seek(0)
        dropped = set(bad)
        fh.writelines(line for n, line in enumerate(lines, 1) if n not in dropped)
        fh.truncate()
    where = ", ".join(str(n) for n in bad)
    _say(f"warning: {path} line {where}: not a JSON record; moved to {aside}, its question is asked again")


def _cut_torn_tail(path: Path) -> None:
    """Truncate a final line that has no newline (a write interrupted by a crash), and say so."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        block = 1 << 16
        pos = size
        while pos > 0:
            start = max(0, pos - block)
            fh.seek(start)
            chunk = fh.read(pos - start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                fh.truncate(start + cut + 1)
                break
            pos = start
        else:
            fh.truncate(0)
    kept = path.stat().st_size
    _say(
        f"note: {path}: cut a torn last line ({size - kept} bytes, a write interrupted by a crash); its question "
        "is asked again"
    )


class JournalWriter:
    """Appends JSON records to one JSONL file.

    Every record is written and flushed before :meth:`append` returns (a killed process loses nothing that
    returned). ``fsync`` false never syncs; otherwise the file is synced when ``sync_interval`` seconds have passed
    since the last sync (0: on every call) and on :meth:`close`. A record a power cut tears is cut off by the
    next writer (the torn-tail repair below), so batching the syncs never corrupts a journal.
    """

    def __init__(self, path: Path | str, *, fsync: bool = True, sync_interval: float = 0.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("a", encoding="utf-8")
        self._fsync = fsync
        self._interval = sync_interval
        self._synced = time.monotonic()
        self._dirty = False
        with self._locked():
            _cut_torn_tail(self.path)
            if _CORRUPT_LINES.pop(self.path.resolve(), None):
                _set_aside_corrupt(self.path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)

    def append(self, record: dict[str, Any]) -> None:
        self.append_many((record,))

    def append_many(self, records: Iterable[dict[str, Any]]) -> None:
        """Append records under one lock, with at most one sync."""
        text = jsonl_text(
            records
        )  # every record encodes before any is written: a batch lands whole or not at all
        with _naming(self.path), self._locked():
            self._fh.write(text)
            self._fh.flush()
            self._dirty = True
            if time.monotonic() - self._synced >= self._interval:
                self.sync()

    def sync(self) -> None:
        if self._fsync and self._dirty and not self._fh.closed:
            os.fsync(self._fh.fileno())
        self._dirty = False
        self._synced = time.monotonic()

    def close(self) -> None:
        if not self._fh.closed:
            self.sync()
            self._fh.close()

    def __enter__(self) -> JournalWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def append_records(path: Path | str, records: Iterable[dict[str, Any]]) -> None:
    with JournalWriter(path) as writer:
        writer.append_many(records)


def read_records(path: Path | str) -> Iterator[dict[str, Any]]:
    """Records of a JSONL file in order; missing file -> nothing; a torn last line is skipped, and a complete line
    that is not a JSON object is skipped and named on stderr (once per process)."""
    p = Path(path)
    return read_journal(p, on_invalid=partial(_report_corrupt, p))


def _report_corrupt(path: Path, number: int) -> None:
    seen = _CORRUPT_LINES.setdefault(path.resolve(), set())
    if number not in seen:
        seen.add(number)
        _say(
            f"warning: {path} line {number}: not a JSON record, skipped (moved to {path.name}.corrupt when the "
            "file is next written)"
        )


def latest_by_index(path: Path | str) -> dict[int, dict[str, Any]]:
    """The latest record for each sample index (later lines supersede earlier ones)."""
    latest: dict[int, dict[str, Any]] = {}
    for record in read_records(path):
        index = record.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            latest[index] = record
    return latest


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Name ``path`` in an OS error that names no file or only a temporary one (a full disk, a read-only folder),
    so the message says which file could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or Path(exc.filename).name.endswith(".tmp"):
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    """Write a whole file through a temporary file and a rename; it gets the mode any new file gets (umask)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _naming(target):
        _replace(target, data)


def write_if_changed(path: Path | str, text: str) -> None:
    """:func:`atomic_write_text`, leaving a file that already holds exactly ``text`` as it is.

    For pages rebuilt from a run (report, viewer, card): re-running a finished run rebuilds them with the same
    bytes, and each rewrite costs a flush to disk and moves the file's time for nothing."""
    data = text.encode("utf-8")
    if not _holds(Path(path), data):
        atomic_write_bytes(path, data)


def _holds(target: Path, data: bytes) -> bool:
    """Whether ``target`` is a regular file (not a link) with the mode a new file gets and ``data`` for bytes
    (read only when the size agrees)."""
    try:
        st = target.lstat()
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        if stat.S_IMODE(st.st_mode) != 0o666 & ~_umask():
            return False
        return target.read_bytes() == data
    except OSError:
        return False


def atomic_write_lines(path: Path | str, lines: Iterable[str]) -> int:
    """Write text lines (each given without its newline) as a whole file, atomically as
    :func:`atomic_write_text` does, encoding them as they come rather than holding the whole text (and its bytes)
    in memory; returns how many."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    count = 0

    def chunks() -> Iterator[bytes]:
        nonlocal count
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            count += 1
            if len(batch) == 256:
                yield ("\n".join(batch) + "\n").encode("utf-8")
                batch.clear()
        if batch:
            yield ("\n".join(batch) + "\n").encode("utf-8")

    with _naming(target):
        _replace(target, chunks())
    return count


class PendingLines:
    """Text lines written to a temporary file in ``folder`` as they come, named only by :meth:`commit`.

    For a file whose name is known only once its lines are written (eval's samples.jsonl, beside the eval file
    it chooses last): the lines are on disk instead of in memory meanwhile, and the file appears whole or not at
    all. Used as a context manager: leaving it without a commit removes the temporary file."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        with _naming(folder):
            fd, self._tmp = tempfile.mkstemp(prefix=".pending.", suffix=".tmp", dir=folder)
        os.fchmod(fd, 0o666 & ~_umask())
        self._fh = os.fdopen(fd, "w", encoding="utf-8")
        self.count = 0  # lines written through this object (by this process)

    def write(self, line: str) -> None:
        self._fh.write(line + "\n")
        self.count += 1

    def flush(self) -> None:
        """Hand what was written to the file (another process may have written it: :meth:`commit` names it)."""
        self._fh.flush()

    def commit(self, path: Path) -> None:
        """Name the file ``path`` (synced first, so a crash leaves the old file or the whole new one)."""
        with _naming(path):
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            os.replace(self._tmp, path)

    def __enter__(self) -> PendingLines:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._fh.closed:
            self._fh.close()
        Path(self._tmp).unlink(missing_ok=True)


def _replace(target: Path, data: bytes | Iterable[bytes]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as fh:
            for chunk in (data,) if isinstance(data, bytes) else data:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path | str, text: str) -> None:
    """Write a whole file through a temporary file in the same folder and a rename: never half-written."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path | str, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


class JournalSink:
    """Appends records to per-task journals from a worker thread, a batch at a time."""

    def __init__(self) -> None:
        import asyncio

        self._queue: asyncio.Queue[tuple[Path, dict[str, Any], asyncio.Future[None]] | None] = asyncio.Queue()
        self._writers: dict[Path, JournalWriter] = {}

    async def write(self, path: Path, record: dict[str, Any]) -> None:
        """Return once the record is on disk."""
        import asyncio

        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((path, record, done))
        await done

    def _append(self, batch: list[tuple[Path, dict[str, Any], asyncio.Future[None]]]) -> None:
        """One write and one sync per journal for the whole batch."""
        by_path: dict[Path, list[dict[str, Any]]] = {}
        for path, record, _ in batch:
            by_path.setdefault(path, []).append(record)
        for path, records in by_path.items():
            writer = self._writers.get(path)
            if writer is None:
                writer = self._writers[path] = JournalWriter(path)
            writer.append_many(records)

    async def run(self) -> None:
        import asyncio

        while True:
            item = await self._queue.get()
            if item is None:
                break
            batch = [item]
            while not self._queue.empty():
                nxt = self._queue.get_nowait()
                if nxt is None:
                    self._queue.put_nowait(None)
                    break
                batch.append(nxt)
            try:
                await asyncio.to_thread(self._append, batch)
            except BaseException as exc:
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                raise
            for *_, future in batch:
                if (
                    not future.done()
                ):  # its writer was cancelled (a stopped run): the record is on disk all the same
                    future.set_result(None)

    def stop(self) -> None:
        self._queue.put_nowait(None)

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
