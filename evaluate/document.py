"""The document model of the pages people read (reports, leaderboards) and its two renderers.

A page is first built as a small document (headings, paragraphs, tables, figures), then rendered twice, to Markdown
and to HTML, so both always hold the same numbers. The HTML embeds its charts as base64 PNG data URIs and its style
inline: it needs no network and no other file. The formatting helpers shared by every page live here too.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench.store import atomic_write_text

DASH = "–"


# --------------------------------------------------------------------------------------------------------------
# Document model and its two renderers


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    """Cells are plain strings; ``align`` has one letter per column ("l" or "r"), default: first left, rest right."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    align: str = ""

    def alignment(self) -> str:
        return self.align or "l" + "r" * (len(self.headers) - 1)


@dataclass(frozen=True)
class Figure:
    title: str
    png: bytes


@dataclass(frozen=True)
class Figures:
    """Figures shown side by side in HTML; Markdown names them and points to the HTML page."""

    figures: Sequence[Figure]
    caption: str = ""


Block = Heading | Paragraph | Table | Figures


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


def png_data_uri(png: bytes) -> str:
    """``png`` as a ``data:`` URI, so an HTML page holds its images itself."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _md_escape(text: str) -> str:
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("|", "\\|")
        .replace("\r", " ")
        .replace("\n", " ")
    )


def to_markdown(doc: Document) -> str:
    lines = [f"# {_md_escape(doc.title)}", ""]
    for block in doc.blocks:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + _md_escape(block.text), ""]
        elif isinstance(block, Paragraph):
            lines += [_md_escape(block.text), ""]
        elif isinstance(block, Table):
            rule = ["---:" if a == "r" else "---" for a in block.alignment()]
            lines.append("| " + " | ".join(_md_escape(h) for h in block.headers) + " |")
            lines.append("| " + " | ".join(rule) + " |")
            lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in block.rows]
            lines.append("")
        else:
            names = ", ".join(f.title for f in block.figures)
            lines += [_md_escape(f"Charts ({names}): see the HTML report. {block.caption}".strip()), ""]
    return "\n".join(lines)


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d2330;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d7dce5;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #d7dce5;padding:.25rem .5rem;vertical-align:top}
th{background:#eef1f6}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
.figs{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
figure{margin:0}figcaption{font-size:.8rem;color:#555;text-align:center}
p.caption{font-size:.85rem;color:#555}
"""


def _cell(tag: str, text: str, align: str) -> str:
    css = ' class="r"' if align == "r" else ""
    return f"<{tag}{css}>{html.escape(str(text))}</{tag}>"


def to_html(doc: Document) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(doc.title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{html.escape(doc.title)}</h1>",
    ]
    for block in doc.blocks:
        if isinstance(block, Heading):
            out.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            out.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Table):
            align = block.alignment()
            out.append("<table><thead><tr>")
            out.append("".join(_cell("th", h, a) for h, a in zip(block.headers, align, strict=True)))
            out.append("</tr></thead><tbody>")
            for row in block.rows:
                cells = "".join(_cell("td", c, a) for c, a in zip(row, align, strict=True))
                out.append(f"<tr>{cells}</tr>")
            out.append("</tbody></table>")
        else:
            out.append('<div class="figs">')
            for fig in block.figures:
                title = html.escape(fig.title)
                out.append(
                    f'<figure><img src="{png_data_uri(fig.png)}" alt="{title}">'
                    f"<figcaption>{title}</figcaption></figure>"
                )
            out.append("</div>")
            if block.caption:
                out.append(f'<p class="caption">{html.escape(block.caption)}</p>')
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def write_document(doc: Document, md_path: Path, html_path: Path) -> None:
    atomic_write_text(md_path, to_markdown(doc))
    atomic_write_text(html_path, to_html(doc))


# --------------------------------------------------------------------------------------------------------------
# Formatting shared by reports and the leaderboard


def fmt_score(value: object) -> str:
    """A 0–100 score with two decimals; anything that is not a number shows as a dash."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DASH
    return f"{value:.2f}"


def fmt_delta(value: float | None) -> str:
    return DASH if value is None else f"{value:+.2f}"


def fmt_metric(value: object) -> str:
    """A reference-shaped sub-metric as eval.json stores it: 0–1 floats with 5 decimals, counts as integers."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.5f}"
    return DASH if value is None else str(value)


def as_number(value: object) -> float | None:
    """``value`` as a float when it is a real number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one (eval.json fields are read defensively)."""
    return value if isinstance(value, dict) else {}
