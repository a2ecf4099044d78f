"""The common item model every benchmark loads its data into.

An item is one question put to a model: its identity (benchmark, task, item id, variant), what the model is shown
(an ordered list of :class:`Part`), the ground truth and the facts the scorer and the extractors need. A variant is
one way of asking the same question: a rotated option order, a permuted clip order, a judge's answer order, a repeat,
or AVI-Bench's double-confirm pre-question. The benchmark declares how the variants of an item reduce to its score.

Items hold media *paths*, never media bytes: loading a whole benchmark keeps memory bounded.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

PartKind = Literal["text", "image", "audio", "video"]


def path_text(value: str) -> str:
    """``str(Path(value))``, the text a media part holds; a text already in that form (no empty or ``.``
    component, no trailing separator) is returned as it is, without parsing it into a path (a loader of a large
    benchmark builds tens of thousands)."""
    plain = (
        os.sep == "/"
        and value not in ("", ".")
        and "//" not in value
        and "/./" not in value
        and not value.startswith("./")
        and not value.endswith(("/", "/."))
    )
    return value if plain else str(Path(value))


@dataclass(frozen=True)
class Part:
    """One piece of what the model is shown, in order.

    ``text`` parts carry their text in ``value``; media parts carry a file path. ``channel`` selects one channel of a
    multichannel audio file (0 = left, 1 = right), for benchmarks that present the two ears of a binaural recording as
    separate clips; ``None`` sends the file as it is.
    """

    kind: PartKind
    value: str
    channel: int | None = None

    @property
    def path(self) -> Path:
        if self.kind == "text":
            raise ValueError("a text part has no path")
        return Path(self.value)

    @classmethod
    def text(cls, value: str) -> Part:
        return cls("text", value)

    @classmethod
    def audio(cls, path: Path | str, channel: int | None = None) -> Part:
        return cls("audio", str(path), channel)

    @classmethod
    def image(cls, path: Path | str) -> Part:
        return cls("image", str(path))

    @classmethod
    def video(cls, path: Path | str) -> Part:
        return cls("video", str(path))


@dataclass(frozen=True)
class Item:
    """One question as asked (one variant of one benchmark item).

    ``key`` identifies the record of this question in the task's journals; it is unique within a task. By default it is
    ``item_id`` alone, or ``item_id@variant`` when there is a variant. ``index`` is the item's position in the task's
    official file (for display, export and the reference's positional quirks). ``max_tokens`` is the benchmark's own
    output limit for this question, used when the user sets none. ``meta`` holds the benchmark's breakdown fields
    (category, sub-category, difficulty, ...) and anything its scorer needs beyond ``answer`` and ``options``.
    """

    benchmark: str
    task: str
    item_id: str
    parts: tuple[Part, ...]
    answer: Any = None
    variant: str = ""
    index: int = 0
    options: tuple[str, ...] = ()
    system: str | None = None
    max_tokens: int | None = None
    template: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)
    key_override: str | None = None
    source: Any = field(default=None, compare=False, repr=False)
    """The benchmark's own record for this question (AVI-Bench: its data.json sample), for its own extractors."""

    @property
    def key(self) -> str:
        if self.key_override is not None:
            return self.key_override
        return f"{self.item_id}@{self.variant}" if self.variant else self.item_id

    @property
    def text(self) -> str:
        """All text parts joined, as a reader would see the question."""
        return "\n".join(p.value for p in self.parts if p.kind == "text")

    @property
    def media(self) -> tuple[Path, ...]:
        return tuple(p.path for p in self.parts if p.kind != "text")


def first_variants(items: Iterable[Item]) -> list[Item]:
    """Each item's first variant only (the first question of every ``item_id``, in load order).

    Asking only these is how a run skips a benchmark's repeated presentations, e.g. STAR-Bench's rotations.
    """
    seen: set[str] = set()
    first = []
    for item in items:
        if item.item_id not in seen:
            seen.add(item.item_id)
            first.append(item)
    return first


ResponseStatus = Literal["answered", "failed", "missing"]


@dataclass(frozen=True)
class Response:
    """What the pipeline holds for one asked question when it is scored.

    ``raw`` is the model's answer as it came back (``None`` unless ``status`` is ``answered``, or ``failed`` where an
    official output file recorded the failure's text as the reply, which its scorer may parse); ``refined`` is the
    canonical answer the benchmark's extractor (rules, then the LLM fallback) gave, ``None`` when it could not decide
    (unparsed) or refine has not run. Official scorers that parse the raw text themselves read ``raw``; strict scorers
    read ``refined``. ``failed`` means the request failed (never an answer); ``missing`` means it was never asked.
    """

    item: Item
    status: ResponseStatus
    raw: str | None = None
    refined: str | None = None
    method: str | None = None
    recorded: str | None = None
    """The refine record's ``predict`` as stored: the canonical answer, or for an unparsed answer the raw text (or
    the fallback's reply) that the official pipeline would have scored."""
