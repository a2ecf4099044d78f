"""Small report charts as PNG bytes (matplotlib, Agg canvas, no pyplot global state).

Scores are on the 0–100 scale; a ``None`` score (task not scored) is drawn as an empty slot marked "n/a"
on bar charts and as 0 on the radar chart, whose caption says so.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 80
BAR_COLOR = "#3b6ea8"


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def bar_chart(
    title: str, labels: Sequence[str], values: Sequence[float | None], *, horizontal: bool = False
) -> bytes:
    """Bars of ``values`` (0–100) labelled with their value; ``None`` shows "n/a".

    ``horizontal`` lays the bars out as rows, top to bottom, which suits many or long labels.
    """
    count = len(labels)
    size = (6.0, 0.3 * count + 1.0) if horizontal else (max(3.0, 0.9 * count + 1.2), 2.8)
    fig = Figure(figsize=size, layout="constrained")
    ax = fig.add_subplot()
    heights = [0.0 if v is None else v for v in values]
    positions = list(range(count))
    if horizontal:
        bars = ax.barh(positions, heights, color=BAR_COLOR, height=0.6)
        ax.set_yticks(positions, labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 110)
        ax.tick_params(axis="x", labelsize=7)
    else:
        bars = ax.bar(positions, heights, color=BAR_COLOR, width=0.6)
        ax.set_xticks(positions, labels, fontsize=8)
        ax.set_ylim(0, 110)
        ax.set_yticks([0, 25, 50, 75, 100])
        ax.tick_params(axis="y", labelsize=7)
    for bar, value in zip(bars, values, strict=True):
        text = "n/a" if value is None else f"{value:.1f}"
        if horizontal:
            anchor, offset, align = (
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                (2, 0),
                ("left", "center"),
            )
        else:
            anchor, offset, align = (
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                (0, 2),
                ("center", "bottom"),
            )
        ax.annotate(
            text, anchor, ha=align[0], va=align[1], fontsize=7, xytext=offset, textcoords="offset points"
        )
    ax.set_title(title, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(fig)


def radar_chart(title: str, labels: Sequence[str], values: Sequence[float | None]) -> bytes:
    """A closed polygon of ``values`` (0–100) around one spoke per label; ``None`` is drawn at 0."""
    count = len(labels)
    angles = [2 * math.pi * i / count for i in range(count)]
    radii = [0.0 if v is None else v for v in values]
    fig = Figure(figsize=(4.2, 4.2), layout="constrained")
    ax = fig.add_subplot(projection="polar")
    ax.set_theta_offset(math.pi / 2)
    ax.set_theta_direction(-1)
    ax.plot([*angles, angles[0]], [*radii, radii[0]], color=BAR_COLOR, linewidth=1.5)
    ax.fill([*angles, angles[0]], [*radii, radii[0]], color=BAR_COLOR, alpha=0.25)
    ax.set_xticks(angles, labels, fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_yticks([25, 50, 75, 100], ["25", "50", "75", "100"], fontsize=6)
    ax.set_title(title, fontsize=9)
    return _png(fig)
