"""Pooling VSQA_I and VSQA_V into the paper's single VSQA task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from avibench.level_metrics.common import PRE_PREFIX
from avibench.level_metrics.types import Item


def tag_id(entry_id: object, tag: str) -> str:
    """``X`` -> ``<tag>-X`` and ``pre_X`` -> ``pre_<tag>-X``, so pre-questions still start with ``pre_``."""
    text = str(entry_id)
    if text.startswith(PRE_PREFIX):
        return f"{PRE_PREFIX}{tag}-{text[len(PRE_PREFIX) :]}"
    return f"{tag}-{text}"


def pool_vsqa(items_i: Sequence[Item], items_v: Sequence[Item]) -> list[Item]:
    """The VSQA_I entries then the VSQA_V entries, ids re-tagged, positions renumbered, each with the prediction
    already paired with it (the reference's pairing by position across the two files is the prediction reader's)."""
    halves = [(item, "I") for item in items_i] + [(item, "V") for item in items_v]
    return [replace(item, index=k, id=tag_id(item.id, tag)) for k, (item, tag) in enumerate(halves)]
