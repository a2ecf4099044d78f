"""The rule parser of each refine family, behind one call."""

from __future__ import annotations

from collections.abc import Callable

from avibench.refine.context import RefineContext
from avibench.refine.rules_boxes import parse_avl
from avibench.refine.rules_frames import parse_avlg
from avibench.refine.rules_mic import parse_mic
from avibench.refine.rules_qa import parse_qa
from avibench.refine.rules_retrieval import parse_retrieval

PARSERS: dict[str, Callable[[object, RefineContext], str | None]] = {
    "qa": parse_qa,
    "mic": parse_mic,
    "retrieval": parse_retrieval,
    "avl": parse_avl,
    "avlg": parse_avlg,
}


def apply_rules(raw: object, ctx: RefineContext) -> str | None:
    """The canonical answer by rules, or ``None`` when they cannot tell (passthrough families have no rules)."""
    parser = PARSERS.get(ctx.family)
    return None if parser is None else parser(raw, ctx)
