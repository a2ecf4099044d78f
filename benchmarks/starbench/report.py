"""What STAR-Bench adds to the one report and to ``eval``'s lines: AA and ACR side by side in both profiles (in
place of the generic profile table), and how AA moves between runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from avibench.evaluate.document import Block, Heading, Paragraph, Table, as_dict, fmt_score
from avibench.evaluate.report import ReportPage, ReportRun
from avibench.level_metrics.starbench import FINAL_MA
from avibench.plugin import PROFILES, incomplete_mark


def _rows(document: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """``(dataset, [AA, ACR] per profile)`` per dataset, then ``Final MA``."""
    summary = as_dict(document.get("summary"))
    views = [as_dict(as_dict(summary.get("by_profile")).get(p)) for p in PROFILES]
    aliases = dict.fromkeys(a for v in views for a in as_dict(v.get("tasks")))
    rows = [(a, [as_dict(v.get(key)).get(a) for v in views for key in ("tasks", "acr")]) for a in aliases]
    return [*rows, (FINAL_MA, [v.get(key) for v in views for key in ("headline", "headline_acr")])]


def summary_lines(document: Mapping[str, Any]) -> list[str]:
    """AA and ACR per dataset and ``Final MA`` in both profiles, as ``eval`` prints them."""
    lines = ["dataset   " + "".join(f"{p + ' ' + m:>15}" for p in PROFILES for m in ("AA", "ACR"))]
    for name, values in _rows(document):
        mark = incomplete_mark(document, "headline" if name == FINAL_MA else f"tasks.{name}")
        lines.append(f"{name:<10}" + "".join(f"{fmt_score(v):>15}" for v in values) + mark)
    rotations = as_dict(document.get("meta")).get("rotations")
    if rotations and rotations != "on":
        lines.append(f"rotations: {rotations} (datasets asked without rotations are scored on run 0)")
    return lines


def _profiles(run: ReportRun) -> list[Block]:
    """Per dataset and ``Final MA``: AA and ACR in each profile, the runs scored and the ids left incomplete."""
    coverage = [as_dict(run.coverage.get(name)) for name, _ in _rows(run.document)]
    rows = [
        [name, *map(fmt_score, values), str(cover.get("runs", "")), str(cover.get("incomplete_ids", ""))]
        for (name, values), cover in zip(_rows(run.document), coverage, strict=True)
    ]
    measures = [f"{p.title()} {m}" for p in PROFILES for m in ("AA", "ACR")]
    headers = ["Dataset", *measures, "Runs", "Incomplete ids"]
    return [
        Heading("AA and ACR per dataset (0–100)"),
        Paragraph(
            "AA: mean correctness over all runs (rotations and clip orders); ACR: share of items right in every "
            "run. Final MA: the mean over the datasets scored. Runs 'first': rotations off, run 0 only."
        ),
        Table(headers, rows),
        *_spread(run.summary),
    ]


def _spread(summary: dict[str, Any]) -> list[Block]:
    """How AA moves between runs (rotation k of every item), per dataset asked in several runs."""
    intervals = as_dict(summary.get("intervals"))
    spread = as_dict(intervals.get("spread"))
    if not spread:
        return []
    keys = ("mean", "sd", "min", "max")
    rows = [
        [alias, str(as_dict(s).get("runs", "")), *(fmt_score(as_dict(s).get(k)) for k in keys)]
        for alias, s in spread.items()
    ]
    return [
        Heading("Run-to-run spread of AA (0–100)"),
        Paragraph(
            "AA of each run k (the k-th rotation or clip order of every item that has one), "
            f"{intervals.get('profile', 'primary')} profile. Perception items have one run per option, so its "
            "later runs hold only the items with that many options."
        ),
        Table(["Dataset", "Runs", "Mean", "SD", "Min", "Max"], rows),
    ]


PAGE = ReportPage(profiles=_profiles)
