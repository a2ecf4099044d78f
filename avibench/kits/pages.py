"""Pages kit: report blocks benchmarks have in common, built from the eval document alone.

:func:`profile_breakdown` is the table of an official breakdown (accuracy per group) in both profiles, read from
``summary.by_profile.<profile>.official``: a heading and a ``Group | n | Reference | Strict`` table, the groups in
the order the profiles list them. :func:`differ_note` is the benchmark's sentence on the answers its two profiles
score differently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from avibench.evaluate.document import Heading, Paragraph, Table, as_dict, fmt_score

Cell = Mapping[str, Any]


def officials(document: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reference and strict profiles' official documents (empty where absent)."""
    by_profile = as_dict(as_dict(document.get("summary")).get("by_profile"))
    return tuple(as_dict(as_dict(by_profile.get(p)).get("official")) for p in ("reference", "strict"))  # type: ignore[return-value]


def profile_breakdown(
    document: Mapping[str, Any],
    key: str,
    title: str,
    *,
    percent: Callable[[Cell], float | None] = lambda cell: cell.get("accuracy"),
    count: Callable[[Cell], Any] = lambda cell: cell.get("n", ""),
) -> list[Any]:
    """``Accuracy (%) by <title>``: each group of the official breakdown ``key`` with its question count (from
    the first profile that has the group) and its accuracy in each profile; no blocks when neither has a group.
    ``percent`` and ``count`` read a group's cell (default: ``{"accuracy": percent, "n": count}``)."""
    ref, strict = officials(document)
    groups = list(dict.fromkeys([*as_dict(ref.get(key)), *as_dict(strict.get(key))]))
    rows = []
    for group in groups:
        cells = [as_dict(as_dict(part.get(key)).get(group)) for part in (ref, strict)]
        n = next((count(c) for c in cells if c), "")
        rows.append([group, str(n), *(fmt_score(percent(c) if c else None) for c in cells)])
    if not rows:
        return []
    return [Heading(f"Accuracy (%) by {title}"), Table(["Group", "n", "Reference", "Strict"], rows)]


def differ_note(document: Mapping[str, Any], text: str) -> list[Any]:
    """A paragraph of ``text`` (a benchmark's sentence on why its profiles disagree) filled from
    ``summary.profiles_differ_on`` (``{answers}``, ``{reference_only}``, ``{strict_only}``); none without it."""
    differ = as_dict(as_dict(document.get("summary")).get("profiles_differ_on"))
    if not differ:
        return []
    return [
        Paragraph(text.format(**{k: differ.get(k, 0) for k in ("answers", "reference_only", "strict_only")}))
    ]
