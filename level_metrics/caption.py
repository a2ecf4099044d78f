"""AVC captioning scored with FENSE.

This module builds the FENSE inputs and the output dict; the models and FENSE's own arithmetic live with the
caller, which passes ``fense_fn(candidates, mult_refs)``: one caption per scored sample and each sample's
reference captions in, a mapping out with the corpus values ``"fense"``, ``"sbert_sim"`` and ``"fer"``
(floats, or anything ``float()`` accepts such as 0-d tensors) and optionally ``"fense_per_candidate"``, one
FENSE value per candidate in order, which fills :attr:`TaskScore.per_sample`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from avibench.level_metrics.common import Notes, prediction_text, python_round5, records_of
from avibench.level_metrics.profile import ScoringProfile
from avibench.level_metrics.types import Item, TaskScore

PER_CANDIDATE_KEY = "fense_per_candidate"

FenseFn = Callable[[list[str], list[list[str]]], Mapping[str, Any]]


def references_of(answer: Any) -> list[str]:
    """Reference captions: the truthy items of a list as strings, or the printed value of anything else."""
    if isinstance(answer, list):
        return [str(r) for r in answer if r]
    return [str(answer)]


def _written(item: Item, profile: ScoringProfile, notes: Notes) -> tuple[str, list[str]] | None:
    """The caption and its references (``""``: none written, which strict scores 0); ``None``: left out."""
    refs = references_of(item.answer)
    if not refs:
        notes.add("no reference caption; sample left out", item.index)
        return None
    text = prediction_text(item, clean=False, notes=notes)
    return (text or "", refs) if text or profile.missing_counts_as_wrong else None


def caption(items: Sequence[Item], *, profile: ScoringProfile | str, fense_fn: FenseFn) -> TaskScore:
    """FENSE over the captions: ``{"fense", "sbert_sim", "fer", "n_samples", "average"}`` (``average`` = FENSE).

    Reference: empty or missing captions are skipped. Strict: they count as FENSE 0 and similarity 0 (they are
    in ``n_samples``), while ``fer`` stays the error rate of the captions actually written.
    """
    notes = Notes()
    records = records_of(_written)(items, profile=profile, notes=notes)
    read = [(item.index, record) for item, record in zip(items, records, strict=True) if record is not None]
    written = [(index, text, refs) for index, (text, refs) in read if text]
    per_sample: dict[int, float] = {index: 0.0 for index, (text, _) in read if not text}
    result = fense_fn([t for _, t, _ in written], [r for _, _, r in written]) if written else {}
    per_candidate = result.get(PER_CANDIDATE_KEY)
    if per_candidate is not None and len(per_candidate) == len(written):
        per_sample.update(zip([index for index, _, _ in written], map(float, per_candidate), strict=True))
    score = caption_total(result, len(written), len(read) - len(written), notes)
    score.per_sample = [per_sample.get(item.index) for item in items]
    return score


def caption_total(
    result: Mapping[str, Any], candidates: int, unanswered: int, notes: Notes | None = None
) -> TaskScore:
    """The task's score from FENSE's ``result`` on the ``candidates`` captions written; strict counts the
    ``unanswered`` ones as FENSE 0 (the reference has none)."""
    notes = notes or Notes()
    total = candidates + unanswered
    if not candidates:
        value = {"fense": 0.0, "sbert_sim": 0.0, "fer": 0.0, "n_samples": total, "average": 0.0}
        return TaskScore(value, 0.0, total, notes.render())
    share = candidates / total
    fense, similarity = float(result["fense"]) * share, float(result["sbert_sim"]) * share
    value = {
        "fense": python_round5(fense),
        "sbert_sim": python_round5(similarity),
        "fer": python_round5(float(result["fer"])),
        "n_samples": total,
        "average": python_round5(fense),
    }
    return TaskScore(value, value["average"], total, notes.render())
