"""STAR-Bench runs: how each item is asked several times, and the gold answer of every run. Pure.

* Perception (``pc*``): one run per option, run ``r`` presenting the options rotated by ``r``
  (:func:`avibench.kits.multiple_choice.rotations`: every option visits every position).
* Spatial reasoning (``sr*``): three runs with the same cyclic shift, ``r`` in 0..2 (a two-option item is asked
  twice in its original order: shift 2 equals shift 0).
* Temporal reasoning (``tr*``): three runs; the options stay fixed and the three clips are permuted by a
  deterministic round robin over the six orders, offset by the run and by the item's subtask, indexed by the
  trailing number of its id. The gold option is recomputed for every permutation.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Literal

Family = Literal["pc", "sr", "tr"]

REASONING_RUNS = 3
SUBTASKS = ("OSM", "ISSE", "TAO", "DSS", "ETC")
#: the six clip orders, in the official (lexicographic) order
PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations((1, 2, 3)))
TEMPORAL_ID = re.compile(r"(?:^|_)(?P<subtask>[^_]+)_(?P<number>\d+)$")
ARROW = " -> "


def family(alias: str) -> Family:
    """The dataset family of an alias (``pc_sp`` -> ``pc``, ``tr_cap`` -> ``tr``, ``sr_ch`` -> ``sr``)."""
    head = alias.split("_", 1)[0]
    if head not in ("pc", "sr", "tr"):
        raise ValueError(f"unknown STAR-Bench dataset alias {alias!r}")
    return head  # type: ignore[return-value]


def run_count(alias: str, n_options: int) -> int:
    return n_options if family(alias) == "pc" else REASONING_RUNS


def temporal_id_parts(item_id: str) -> tuple[str, int]:
    """``(subtask, number)`` of a temporal id ending ``_<SUBTASK>_<n>``; ValueError otherwise."""
    m = TEMPORAL_ID.search(item_id)
    if not m or m["subtask"] not in SUBTASKS:
        raise ValueError(f"temporal id {item_id!r} does not end with _<{'|'.join(SUBTASKS)}>_<number>")
    return m["subtask"], int(m["number"])


def clip_permutation(item_id: str, rotation: int) -> tuple[int, ...]:
    """The original segments presented as clips 1, 2, 3 in run ``rotation`` of temporal item ``item_id``."""
    subtask, number = temporal_id_parts(item_id)
    offset = (rotation % len(PERMUTATIONS) + SUBTASKS.index(subtask)) % len(PERMUTATIONS)
    return PERMUTATIONS[(number + offset) % len(PERMUTATIONS)]


def order_answer(permutation: Sequence[int]) -> str:
    """The option naming the clips in chronological order: ``clip <position of segment 1> -> ...``."""
    positions = {segment: clip for clip, segment in enumerate(permutation, start=1)}
    return ARROW.join(f"clip {positions[segment]}" for segment in sorted(positions))
