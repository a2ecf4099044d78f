"""A durable cache of refine-LLM replies keyed by (refine model, prompt hash), so no prompt is paid for twice.

The key covers the whole prompt text, so a new prompt version or another raw answer is a new entry. Several
processes may share one cache file: each appends under the journal's file lock and reads what was there when it
opened (a reply another process writes meanwhile is at worst asked for once more).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from avibench.store import JournalWriter, read_records


def prompt_hash(model: str, prompt: str) -> str:
    return hashlib.sha256(f"{model}\n{prompt}".encode()).hexdigest()


class LLMCache:
    """Successful replies only (a failure is never cached); appended a line at a time, synced every
    ``sync_interval`` seconds and on close. ``also_read`` are older caches whose replies are served too (never
    written)."""

    def __init__(self, path: Path | str, *, also_read: Iterable[Path] = (), sync_interval: float = 0.0):
        self.path = Path(path)
        self._entries: dict[str, str] = {}
        for source in (*also_read, self.path):
            for record in read_records(source):
                key, output = record.get("key"), record.get("output")
                if isinstance(key, str) and isinstance(output, str):
                    self._entries[key] = output
        self._writer: JournalWriter | None = None
        self._interval = sync_interval

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, model: str, prompt: str) -> str | None:
        return self._entries.get(prompt_hash(model, prompt))

    def put(self, model: str, prompt: str, output: str) -> None:
        key = prompt_hash(model, prompt)
        if self._entries.get(key) == output:
            return
        if self._writer is None:
            self._writer = JournalWriter(self.path, sync_interval=self._interval)
        self._writer.append(
            {
                "key": key,
                "model": model,
                "output": output,
                "time": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        )
        self._entries[key] = output

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
