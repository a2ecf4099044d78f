"""One entry point from a task's metric name (``TaskSpec.metric``) to its scorer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from avibench.level_metrics.avl import avl
from avibench.level_metrics.avlg import avlg
from avibench.level_metrics.caption import caption
from avibench.level_metrics.full_match import avsqa, full_match
from avibench.level_metrics.multi_instance import multi_instance
from avibench.level_metrics.profile import ScoringProfile
from avibench.level_metrics.retrieval import retrieval
from avibench.level_metrics.types import Item, TaskScore

SCORERS: dict[str, Callable[..., TaskScore]] = {
    "full_match": full_match,
    "avsqa": avsqa,
    "mic": multi_instance,
    "avl": avl,
    "avlg": avlg,
    "retrieval": retrieval,
    "caption": caption,
}


def score_task(metric: str, items: Sequence[Item], *, profile: ScoringProfile | str, **kw: Any) -> TaskScore:
    """Score ``items`` with the scorer of ``metric``; extra keywords go to it.

    ``mic`` needs ``task`` ("AMIC"/"VMIC"; taken from the items when not given), ``avl``/``avlg`` accept
    ``image_sizes``, ``caption`` needs ``fense_fn``.
    """
    try:
        scorer = SCORERS[metric]
    except KeyError:
        raise KeyError(f"unknown metric {metric!r}; known metrics: {', '.join(SCORERS)}") from None
    if metric == "mic" and "task" not in kw:
        tasks = {item.task for item in items}
        if len(tasks) != 1:
            raise ValueError("multi-instance scoring needs task='AMIC' or 'VMIC'")
        kw["task"] = tasks.pop()
    return scorer(items, profile=profile, **kw)
