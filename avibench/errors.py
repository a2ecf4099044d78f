"""Errors that reach the user as one clear message (the CLI prints them without a traceback)."""

from __future__ import annotations


class AvibenchError(Exception):
    """Base class: a problem the user can fix, described in words."""


class DatasetError(AvibenchError):
    """A dataset file that cannot be used, with the file, entry index and field it concerns."""

    def __init__(self, path: object, message: str, *, index: int | None = None, field: str | None = None):
        self.path = str(path)
        self.index = index
        self.field = field
        self.message = message
        where = self.path
        if index is not None:
            where += f" entry {index}"
        if field:
            where += f" field {field}"
        super().__init__(f"{where}: {message}")


class JournalMismatchError(AvibenchError):
    """A journal whose records no longer match the dataset they were made from."""
