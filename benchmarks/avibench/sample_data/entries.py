"""Building blocks shared by the task builders: where media go, and how an entry is shaped."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from avibench.benchmarks.avibench.sample_data.vocab import Source
from avibench.benchmarks.avibench.tasks import TaskSpec
from avibench.kits.media import (
    Box,
    frame_beeps,
    render_frames,
    write_image,
    write_mp4,
    write_wav,
)

ABSENT: Any = object()  # marks a question field left out of the entry (not the same as null)
HEAR_CHECK = "Can you hear any sound?"
SEE_CHECK = "Can you see anything?"


def sample_id(k: int) -> str:
    return f"{k:05d}"


@dataclass
class TaskContext:
    """One task folder being generated: its spec, its folder, and its own random stream."""

    spec: TaskSpec
    folder: Path
    rng: np.random.Generator

    def _write(self, kind: str, name: str, write: Callable[..., None], *media: Any) -> str:
        """Write ``input/<kind>/<name>`` with ``write(path, *media)``; returns the entry's relative path."""
        write(self.folder / "input" / kind / name, *media)
        return f"./input/{kind}/{name}"

    def wav(self, name: str, signal: np.ndarray) -> str:
        return self._write("wavs", name, write_wav, signal)

    def image(self, name: str, img: Image.Image) -> str:
        """png or jpg by suffix; ``name`` may hold a subfolder."""
        return self._write("images", name, write_image, img)

    def video(self, name: str, frames: Sequence[np.ndarray], audio: np.ndarray) -> str:
        """An mp4 with an audio track."""
        return self._write("videos", name, write_mp4, frames, audio)

    def yes_no(self, n: int) -> list[str]:
        """``n`` answers, half "yes" and half "no", in a random order."""
        return [str(a) for a in self.rng.permutation(["yes", "no"] * (n // 2))]

    def pick(self, items: Sequence[Any], k: int | None = None) -> Any:
        """One item (``k`` None) or ``k`` distinct items, drawn from this task's random stream."""
        if k is None:
            return items[int(self.rng.integers(len(items)))]
        return [items[i] for i in self.rng.choice(len(items), size=k, replace=False)]


CLIP_FRAMES = 12


def source_clip(
    ctx: TaskContext, sid: str, source: Source, box: Box, shown: set[int], beeps: list[int]
) -> tuple[str, str]:
    """A 12-frame clip of ``source``'s shape at ``box`` on the ``shown`` frames, beeping at its pitch in the
    ``beeps`` frames' time slots; written as ``<sid>.mp4`` (with the sound) and ``<sid>.wav``."""
    frames = render_frames(CLIP_FRAMES, lambda f: [(source.shape, box, source.colour)] if f in shown else [])
    audio = frame_beeps(source.freq, beeps, CLIP_FRAMES)
    return ctx.video(f"{sid}.mp4", frames, audio), ctx.wav(f"{sid}.wav", audio)


def entry(
    ctx: TaskContext,
    sid: str,
    *,
    text: str | None,
    answer: Any,
    prompt: Any = ABSENT,
    options: Any = ABSENT,
    subtask: str | None = None,
    video: str | None = None,
    audio_list: list[str] | None = None,
    image_list: list[str] | None = None,
) -> dict[str, Any]:
    """One data.json entry; ``prompt``/``options`` left as :data:`ABSENT` are omitted from the question."""
    fields = (("prompt", prompt), ("text", text), ("options", options))
    question = {key: value for key, value in fields if value is not ABSENT}
    return {
        "id": sid,
        "task": ctx.spec.name,
        "subtask": subtask,
        "input": {
            "pre_question": None,
            "question": question,
            "video": video,
            "audio_list": audio_list,
            "image_list": image_list,
        },
        "output": {"pre_answer": None, "question_answer": answer},
    }


def pre_entry(formal: dict[str, Any], text: str | None, answer: Any = "yes") -> dict[str, Any]:
    """The double-confirm pre-question of a formal entry: same media, a perception check, id ``pre_<id>``.

    The options key is ``options_yes_no`` in every double-confirm task, as in the reference data; AVSQA
    defines no such key, so there it reaches the model as the literal key name. The reference data holds invalid
    "common" pre slots (null text), which the scorer skips.
    """
    if formal["subtask"] == "common":
        text = None
    return {
        "id": f"pre_{formal['id']}",
        "task": formal["task"],
        "subtask": formal["subtask"],
        "input": {**formal["input"], "question": {"text": text, "options": "options_yes_no"}},
        "output": {"pre_answer": None, "question_answer": answer},
    }


@dataclass
class Group:
    """Entries that share one id and one set of media: the formal question(s) and their pre-question(s)."""

    formal: list[dict[str, Any]]
    pre: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.formal) + len(self.pre)


Question = dict[str, Any]
"""The keyword arguments of :func:`entry` besides the context and id: a question's text, answer and media."""


def walk(
    ctx: TaskContext,
    plan: Iterable[Any],
    make: Callable[[TaskContext, str, Any], Question | list[Question]],
    *,
    check: str | None = None,
    **fixed: Any,
) -> list[Group]:
    """One group per step of ``plan``, under ids 00000, 00001, ...: ``make(ctx, sid, step)`` writes the step's
    media and gives its question, or the questions asked of them under one id; ``fixed`` fields are the same in
    every question. With a ``check``, the first question gets its double-confirm pre-question."""
    groups = []
    for k, step in enumerate(plan):
        sid = sample_id(k)
        made = make(ctx, sid, step)
        formals = [entry(ctx, sid, **fixed, **q) for q in (made if isinstance(made, list) else [made])]
        groups.append(Group(formals, [pre_entry(formals[0], check)] if check else []))
    return groups
