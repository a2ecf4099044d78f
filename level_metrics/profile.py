"""Scoring profiles: every reference quirk that changes a score is one named switch.

The ``reference`` profile turns every quirk on and reproduces the published evaluator's numbers; ``strict``
flips every switch, turning them off. All scorers read these switches; there is one implementation per
metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TypeVar

P = TypeVar("P")


@dataclass(frozen=True)
class ScoringProfile:
    """The switches of one scoring profile (``True`` = behave like the reference evaluator)."""

    name: str

    missing_counts_as_wrong: bool = False
    """Reference: an entry without a prediction (or, for captions, with an empty one) is dropped from the
    denominator, which inflates scores of partial runs. When True it is scored as a wrong answer (0); a
    missing pre-question answer is then a failed double-confirm too."""

    raw_option_string_chars: bool = True
    """Reference: an options value that is a plain string (a literal or an unknown pseudo-key) is iterated
    character by character during option snapping, so single characters become "options" and ``-`` turns into
    an empty pattern that matches first. When False such a string gives no snapping."""

    case_sensitive_label: bool = True
    """Reference: the prediction is lowercased and stripped of punctuation but the ground truth is compared
    raw, so capitalised or padded labels never match. When False both sides are lowercased, stripped of
    punctuation and trimmed before comparing."""

    double_confirm_positional: bool = True
    """Reference: a wrong pre-question zeroes only the first formal entry with that id that was already
    recorded (so a pre entry placed before its formal entry has no effect), matching ids by substring of the
    internal key. When False pairs are linked by exact id in any order and every formal entry with the id is
    zeroed."""

    avsqa_skip_invalid_pre: bool = False
    """Reference: AVSQA, unlike full-match, keeps pre entries whose question or ground truth is null, so they
    can zero their formal entry. When True they are skipped as in full-match."""

    vsqa_pool_by_position: bool = True
    """Reference: VSQA_I and VSQA_V predictions are concatenated by position, so a prediction file of the wrong
    length shifts every later prediction. When False each half keeps the predictions aligned with its own
    data."""

    mic_exact_class_names: bool = True
    """Reference: predicted classes must equal ground-truth class names exactly (case and spaces included).
    When False names are compared after lowercasing and trimming."""

    mic_skip_long_predictions: bool = True
    """Reference: a prediction of 300 characters or more is silently left out of both parts. When False it is
    parsed like any other."""

    mic_reparse_printed_prediction: bool = True
    """Reference: the counting part re-parses the printed Python form of the already parsed dict, so values
    such as ``true``/``null`` fall into the failure path and a dict whose printed form reaches 300 characters
    gets no counting entry. When False the parsed dict is used directly."""

    mic_exception_double_append: bool = True
    """Reference: when counting fails part-way through a sample, the errors already recorded for that sample are
    kept and the fallback errors (the ground-truth counts) are appended after them. When False the sample gets
    the fallback errors only."""

    mic_empty_gt_nan: bool = True
    """Reference: a sample with an empty ground-truth dict has a NaN counting error, which turns the whole
    counting score into 0. When False such a sample is left out of the counting part and its semantic score is 1
    when the prediction names no class, else 0."""

    avl_parse_failure_error_zero: bool = True
    """Reference: an unparseable AVL prediction gets an instance error of 0, the best possible value. When False
    it counts every ground-truth instance as missed."""

    avl_label_error_scores_zero: bool = True
    """Reference: an AVL ground truth without the ``{"bbox", "original_wh"}`` wrapper scores the sample 0 (IoU,
    semantic and instance error all 0). When False a flat ``{key: box}`` ground truth is accepted, with the image
    size taken from ``original_wh`` or else from the image."""

    avl_iou_epsilon: bool = True
    """Reference: the per-sample IoU sum is divided by ``n_gt + 1e-5``, so a perfect sample scores 0.99999. When
    False it is divided by ``n_gt``."""

    avlg_empty_list_is_box: bool = True
    """Reference: only Python ``None`` (or a missing frame) counts as "no box"; ``[]`` on an empty frame scores 0.
    When False ``[]`` also means "no box"."""

    avlg_unreadable_null_frames_correct: bool = True
    """Reference: a prediction that cannot be read as a frame dict ("I don't know.") has no box anywhere, so every
    frame whose ground truth is null scores 1 and an answer that says nothing beats random guessing. When False an
    unreadable prediction scores 0 on every frame."""

    keep_reasoning_blocks: bool = True
    """Reference: a reasoning model's ``<think>...</think>`` block stays in the answers of the tasks that are not
    refined (AVM, AVH, VAH), so an option named while thinking can be the one that is matched. When False the
    blocks (and an unclosed one, to the end of the answer) are removed before scoring, as refine does for the
    other tasks."""

    snap_first_of_several_options: bool = True
    """Reference: an answer naming several options is snapped to the one named first, so a hedge ("yes or no")
    scores whenever its first option is right. When False an answer naming more than one distinct option is
    matched to none of them."""

    avlg_parse_json_literals: bool = False
    """Reference: the prediction is read with ``ast.literal_eval`` only, so JSON ``null``/``true``/``false`` make
    the whole prediction unreadable. When True a prediction that is not a Python literal is read as JSON."""

    retrieval_set_order: bool = True
    """Reference: predicted indices are ranked in CPython set-iteration order of the sorted ints (``[1, 8]``
    becomes ``[8, 1]``), not the model's order. When False the model's order is kept (first occurrence wins)."""

    retrieval_isdigit_tokens: bool = True
    """Reference: indices are the space-separated tokens of the punctuation-stripped prediction for which
    ``str.isdigit`` holds, so ``[0,3]`` reads as ``[3]``. When False every ``\\d+`` run of the prediction is an
    index."""


REFERENCE = ScoringProfile(name="reference")
STRICT = replace(
    REFERENCE,
    name="strict",
    **{f.name: not getattr(REFERENCE, f.name) for f in fields(ScoringProfile) if f.name != "name"},
)

PROFILES: dict[str, ScoringProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def lookup_profile(name: str | P, profiles: Mapping[str, P]) -> P:
    """The profile called ``name`` among ``profiles`` (a profile passes through); KeyError lists the known names."""
    if not isinstance(name, str):
        return name
    try:
        return profiles[name]
    except KeyError:
        raise KeyError(f"unknown scoring profile {name!r}; known profiles: {', '.join(profiles)}") from None


def get_profile(name: str | ScoringProfile) -> ScoringProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    return lookup_profile(name, PROFILES)
