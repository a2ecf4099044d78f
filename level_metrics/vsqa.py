"""Pooling VSQA_I and VSQA_V into the paper's single VSQA task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from avibench.level_metrics.common import PRE_PREFIX
from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.types import Item


def tag_id(entry_id: object, tag: str) -> str:
    """``X`` -> ``<tag>-X`` and ``pre_X`` -> ``pre_<tag>-X``, so pre-questions still start with ``pre_``."""
    text = str(entry_id)
    if text.startswith(PRE_PREFIX):
        return f"{PRE_PREFIX}{tag}-{text[len(PRE_PREFIX) :]}"
    return f"{tag}-{text}"


def pool_vsqa(
    items_i: Sequence[Item],
    items_v: Sequence[Item],
    *,
    profile: ScoringProfile | str,
    raw_predictions: tuple[Sequence[str | None], Sequence[str | None]] | None = None,
) -> list[Item]:
    """The VSQA_I entries then the VSQA_V entries, ids re-tagged, positions renumbered.

    ``raw_predictions`` are the two halves' prediction arrays as read from reference-format files (``None`` for a
    null slot), lengths as in the files. With ``vsqa_pool_by_position`` they are concatenated and paired with the
    pooled entries by position, as the reference does, so a half of the wrong length shifts the other half's
    predictions. Otherwise (or without raw arrays) each entry keeps the prediction already paired with it.
    """
    profile = get_profile(profile)
    halves = [(item, "I") for item in items_i] + [(item, "V") for item in items_v]
    if profile.vsqa_pool_by_position and raw_predictions is not None:
        predictions = [*raw_predictions[0], *raw_predictions[1]]
    else:
        predictions = [item.predict for item, _ in halves]
    pooled = []
    for position, (item, tag) in enumerate(halves):
        predict = predictions[position] if position < len(predictions) else None
        pooled.append(replace(item, index=position, id=tag_id(item.id, tag), predict=predict))
    return pooled
