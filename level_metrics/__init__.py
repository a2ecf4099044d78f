"""Every AVI-Bench metric as a pure function of (items, profile): no file, network or environment access.

Each scorer takes the entries of one task folder paired with their predictions (:class:`Item`) and a
:class:`ScoringProfile` and returns a :class:`TaskScore`. It never raises on a prediction; where the reference
evaluator would abort a whole task it scores the task the way it scores every other entry and says so in
``TaskScore.warnings``.
"""

from avibench.level_metrics.avl import avl
from avibench.level_metrics.avlg import avlg
from avibench.level_metrics.caption import caption
from avibench.level_metrics.full_match import avsqa, full_match
from avibench.level_metrics.multi_instance import multi_instance
from avibench.level_metrics.profile import PROFILES, REFERENCE, STRICT, ScoringProfile, get_profile
from avibench.level_metrics.retrieval import retrieval
from avibench.level_metrics.types import Item, TaskScore
from avibench.level_metrics.vsqa import pool_vsqa

__all__ = [
    "PROFILES",
    "REFERENCE",
    "STRICT",
    "Item",
    "ScoringProfile",
    "TaskScore",
    "avl",
    "avlg",
    "avsqa",
    "caption",
    "full_match",
    "get_profile",
    "multi_instance",
    "pool_vsqa",
    "retrieval",
]
