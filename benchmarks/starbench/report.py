"""What STAR-Bench adds to the generic pages: AA and ACR side by side, and the published v0.5 table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from avibench.benchmarks.starbench.published import DATA_VERSION, PUBLISHED, SOURCE
from avibench.evaluate.document import Block, Heading, Paragraph, Table, as_dict, fmt_score
from avibench.level_metrics.starbench import FINAL_MA
from avibench.plugin import incomplete_mark

PROFILE_NAMES = ("reference", "strict")


def _rows(summary: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """``(dataset, [AA, ACR] per profile)`` per dataset, then ``Final MA``."""
    by_profile = [as_dict(as_dict(summary.get("by_profile")).get(p)) for p in PROFILE_NAMES]
    datasets = dict.fromkeys(a for s in by_profile for a in as_dict(s.get("tasks")))
    rows = [
        (
            alias,
            [
                v
                for s in by_profile
                for v in (as_dict(s.get("tasks")).get(alias), as_dict(s.get("acr")).get(alias))
            ],
        )
        for alias in datasets
    ]
    rows.append((FINAL_MA, [v for s in by_profile for v in (s.get("headline"), s.get("headline_acr"))]))
    return rows


def summary_lines(document: Mapping[str, Any]) -> list[str]:
    """AA and ACR per dataset and ``Final MA`` in both profiles, as ``eval`` prints them."""
    head = "".join(f"{p + ' ' + m:>15}" for p in PROFILE_NAMES for m in ("AA", "ACR"))
    lines = [f"{'dataset':<10}{head}"]
    for name, values in _rows(as_dict(document.get("summary"))):
        number = "headline" if name == FINAL_MA else f"tasks.{name}"
        marked = "".join(f"{fmt_score(v):>15}" for v in values) + incomplete_mark(document, number)
        lines.append(f"{name:<10}{marked}")
    rotations = as_dict(document.get("meta")).get("rotations")
    if rotations and rotations != "on":
        lines.append(f"rotations: {rotations} (datasets asked without rotations are scored on run 0)")
    return lines


def spread_blocks(summary: Mapping[str, Any]) -> list[Block]:
    """How AA moves between runs (rotation k of every item), per dataset asked in several runs."""
    intervals = as_dict(summary.get("intervals"))
    spread = as_dict(intervals.get("spread"))
    if not spread:
        return []
    rows = [
        [
            alias,
            str(as_dict(s).get("runs", "")),
            *(fmt_score(as_dict(s).get(k)) for k in ("mean", "sd", "min", "max")),
        ]
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


def report_blocks(document: Mapping[str, Any]) -> list[Block]:
    """The per-dataset AA/ACR table in both profiles, the run-to-run spread, and the published table labelled
    with its data version."""
    coverage = as_dict(document.get("coverage"))
    table = Table(
        ["Dataset", "Reference AA", "Reference ACR", "Strict AA", "Strict ACR", "Runs", "Incomplete ids"],
        [
            [
                name,
                *(fmt_score(v) for v in values),
                str(as_dict(coverage.get(name)).get("runs", "")),
                str(as_dict(coverage.get(name)).get("incomplete_ids", "")),
            ]
            for name, values in _rows(as_dict(document.get("summary")))
        ],
    )
    published = Table(
        ["Model", "MA", "Perception", "Temporal", "Spatial"],
        [
            [p.model, *(fmt_score(v) for v in (p.headline, p.tasks["pc"], p.tasks["tr"], p.tasks["sr"]))]
            for p in PUBLISHED
        ],
    )
    return [
        Heading("AA and ACR per dataset (0–100)"),
        Paragraph(
            "AA: mean correctness over all runs (rotations and clip orders); ACR: share of items right in every "
            "run. Final MA: the mean over the datasets scored. Runs 'first': rotations off, run 0 only."
        ),
        table,
        *spread_blocks(as_dict(document.get("summary"))),
        Heading(f"Published results (data {DATA_VERSION})"),
        Paragraph(
            f"{SOURCE}. The table gives one 'MA' without saying whether it is AA or ACR, and it is for data "
            f"{DATA_VERSION}: shown for orientation, not comparable with runs on other data versions."
        ),
        published,
    ]
