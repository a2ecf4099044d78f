"""Report charts as inline SVG: crisp at any zoom, searchable text, no plotting library and no network.

One chart kind serves every page: horizontal grouped bars on a 0-100 axis. Each category (a task, a stage, a model)
is a row with one bar per series (the run, published models...), so long names sit on the left unwrapped. A
series may carry confidence intervals (a whisker across its bar) and the chart may carry a chance level per
category (a dashed red tick across the row). A value that is ``None`` draws no bar and says why (the series'
``missing``: "not scored" for a run, "not published" for a published model): it is never drawn as 0. The chart has no title of its own; the page's figure caption is its title.

Every mark carries ``data-`` attributes (series, category, value) so a browser test can check what is drawn.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

#: Distinguishable colours (Okabe-Ito, colour-blind safe), the run first.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#999999", "#f0e442")
CHANCE_COLOR = "#b2182b"
FONT = 13
SMALL = 12
WIDTH = 760
BAR = 14
GAP = 3
ROW_PAD = 10
CHAR_WIDTH = 0.6 * FONT
CHANCE_LABEL = "chance level"
#: What a published model's missing number says on a chart.
NOT_PUBLISHED = "not published"


@dataclass(frozen=True)
class Series:
    """One set of bars: a name for the legend, one value per category (0-100 or None), optional intervals."""

    name: str
    values: Sequence[float | None]
    intervals: Sequence[tuple[float, float] | None] | None = None
    missing: str = "not scored"
    """What a ``None`` value says: a run's task was not scored; a published model's was ``not published``."""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _text(x: float, y: float, text: str, *, size: int = FONT, anchor: str = "start", css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'dominant-baseline="middle"{cls}>{_esc(text)}</text>'
    )


def _legend(names: Sequence[str], left: float) -> tuple[list[str], int]:
    """Legend marks, wrapped onto as many lines as the width needs; returns the marks and the line count."""
    marks, x, line = [], left, 0
    for i, name in enumerate(names):
        width = 16 + CHAR_WIDTH * len(name) + 18
        if x + width > WIDTH and x > left:
            x, line = left, line + 1
        y = 13 + 18 * line
        if name == CHANCE_LABEL and i == len(names) - 1:
            marks.append(
                f'<line x1="{x + 6:.1f}" y1="{y - 7}" x2="{x + 6:.1f}" y2="{y + 7}" stroke="{CHANCE_COLOR}" '
                'stroke-width="2" stroke-dasharray="3,2"/>'
            )
        else:
            marks.append(
                f'<rect x="{x:.1f}" y="{y - 6}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
            )
        marks.append(_text(x + 16, y, name, size=SMALL, css="legend"))
        x += width
    return marks, line + 1


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    *,
    chance: Sequence[float | None] | None = None,
    label: str = "",
) -> str:
    """The chart as an ``<svg>`` element (see the module docstring); ``label`` is its accessible name."""
    label_width = max(CHAR_WIDTH * max((len(c) for c in categories), default=4) + 12, 60)
    plot_left, plot_right = label_width, WIDTH - 60
    scale = (plot_right - plot_left) / 100.0
    row_height = len(series) * (BAR + GAP) + ROW_PAD
    legend = [*(s.name for s in series)]
    if chance and any(c is not None for c in chance):
        legend.append(CHANCE_LABEL)
    marks, lines = _legend(legend, plot_left)
    top = 28 + 18 * (lines - 1)
    height = top + row_height * len(categories) + 34
    names = ",".join(s.name for s in series)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{_esc(label)}" data-series="{_esc(names)}" '
        f'font-family="system-ui,-apple-system,Segoe UI,sans-serif">',
        *marks,
    ]
    for tick in range(0, 101, 25):
        gx = plot_left + tick * scale
        out.append(
            f'<line x1="{gx:.1f}" y1="{top - 2}" x2="{gx:.1f}" y2="{height - 30}" stroke="#d7dce5" stroke-width="1"/>'
        )
        out.append(_text(gx, height - 18, str(tick), size=SMALL, anchor="middle", css="tick"))
    for row, category in enumerate(categories):
        y0 = top + row * row_height + ROW_PAD / 2
        out.append(
            _text(plot_left - 8, y0 + (row_height - ROW_PAD) / 2, category, anchor="end", css="category")
        )
        for k, s in enumerate(series):
            value = s.values[row]
            y = y0 + k * (BAR + GAP)
            colour = PALETTE[k % len(PALETTE)]
            attrs = f'data-series="{_esc(s.name)}" data-category="{_esc(category)}"'
            if value is None:
                out.append(
                    f'<g class="bar missing" {attrs} data-value="">'
                    + _text(plot_left + 4, y + BAR / 2, f"{s.name}: {s.missing}", size=SMALL, css="na")
                    + "</g>"
                )
                continue
            width = max(value, 0.0) * scale
            out.append(
                f'<rect class="bar" {attrs} data-value="{value:.2f}" x="{plot_left:.1f}" y="{y:.1f}" '
                f'width="{width:.1f}" height="{BAR}" fill="{colour}"><title>{_esc(s.name)}, {_esc(category)}: '
                f"{value:.2f}</title></rect>"
            )
            interval = s.intervals[row] if s.intervals else None
            end = value
            if interval is not None:
                lo, hi = plot_left + interval[0] * scale, plot_left + interval[1] * scale
                mid = y + BAR / 2
                out.append(
                    f'<path class="ci" {attrs} data-low="{interval[0]:.2f}" data-high="{interval[1]:.2f}" '
                    f'd="M{lo:.1f},{mid - 4:.1f}V{mid + 4:.1f}M{lo:.1f},{mid:.1f}H{hi:.1f}M{hi:.1f},{mid - 4:.1f}'
                    f'V{mid + 4:.1f}" stroke="#1d2330" stroke-width="1.3" fill="none"/>'
                )
                end = max(value, interval[1])
            out.append(
                _text(plot_left + end * scale + 4, y + BAR / 2, f"{value:.1f}", size=SMALL, css="value")
            )
        level = chance[row] if chance else None
        if level is not None:
            cx = plot_left + level * scale
            out.append(
                f'<line class="chance" data-category="{_esc(category)}" data-value="{level:.2f}" x1="{cx:.1f}" '
                f'y1="{y0 - 3:.1f}" x2="{cx:.1f}" y2="{y0 + row_height - ROW_PAD + 3:.1f}" stroke="{CHANCE_COLOR}" '
                f'stroke-width="2" stroke-dasharray="3,2"><title>chance level, {_esc(category)}: {level:.1f}'
                "</title></line>"
            )
    out.append("</svg>")
    return "".join(out)
