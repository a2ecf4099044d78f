"""The document model of the pages people read (reports, leaderboards) and its two renderers.

A page is first built as a small document (headings, paragraphs, tables, figures, numbered notes), then rendered
twice, to Markdown and to HTML, so both always hold the same numbers. The HTML holds its charts as inline SVG and
its style inline: it needs no network and no other file. A table cell may carry a badge (for a number that rests
on incomplete data); a page may ask for a filter box over its tables (a few lines of inline script). The
formatting helpers shared by every page live here too.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench.store import write_if_changed

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
class Cell:
    """A table cell with a badge after its text (``partial``, ``not scored``...) and the badge's explanation, or
    a link (``href``)."""

    text: str
    badge: str = ""
    hint: str = ""
    href: str = ""
    wrap: bool = False
    """A list in a column of numbers (each task's score): its long names may break anywhere, so it stays narrow."""

    def __str__(self) -> str:
        text = f"[{self.text}]({self.href})" if self.href else self.text
        return f"{text} ({self.badge})" if self.badge else text


@dataclass(frozen=True)
class Table:
    """Cells are strings or :class:`Cell`; ``align`` has one letter per column ("l", "r", or "w" for left and
    wrapped), default: first left, rest right. ``css`` names the table for the page's style and script
    (``filterable`` tables get the filter); ``row_classes`` names each row's classes (the filter's toggles)."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str | Cell]]
    align: str = ""
    css: str = ""
    row_classes: Sequence[Sequence[str]] | None = None

    def alignment(self) -> str:
        return self.align or "l" + "r" * (len(self.headers) - 1)


@dataclass(frozen=True)
class Figure:
    """One chart: its title (shown once, as the caption) and its inline SVG."""

    title: str
    svg: str


@dataclass(frozen=True)
class Figures:
    """Figures shown side by side in HTML; Markdown names them and points to the HTML page."""

    figures: Sequence[Figure]
    caption: str = ""


@dataclass(frozen=True)
class NoteList:
    """Numbered notes, each said once; other blocks point to them as ``[n]``."""

    notes: Sequence[str]


@dataclass(frozen=True)
class Filter:
    """A filter box over the page's ``filterable`` tables: free text, and a checkbox per named row class."""

    placeholder: str
    toggles: Sequence[tuple[str, str]] = ()


Block = Heading | Paragraph | Table | Figures | NoteList | Filter


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


class Notes:
    """Collects notes so that each text appears once; :meth:`ref` gives the ``[n]`` marker pointing to it."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ref(self, text: str) -> str:
        text = " ".join(str(text).split())
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"

    def refs(self, texts: Sequence[str]) -> str:
        return " ".join(dict.fromkeys(self.ref(t) for t in texts if t))


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
            lines += ["| " + " | ".join(_md_escape(str(c)) for c in row) + " |" for row in block.rows]
            lines.append("")
        elif isinstance(block, NoteList):
            lines += [f"{i}. {_md_escape(text)}" for i, text in enumerate(block.notes, start=1)] + [""]
        elif isinstance(block, Filter):
            continue
        else:
            names = ", ".join(f.title for f in block.figures)
            lines += [_md_escape(f"Charts ({names}): see the HTML report. {block.caption}".strip()), ""]
    return "\n".join(lines)


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:96rem;padding:0 1rem;
color:#1d2330;line-height:1.4}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #d7dce5;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #d7dce5;padding:.25rem .5rem;vertical-align:top}
th{background:#eef1f6}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
.figs{display:flex;flex-wrap:wrap;gap:1.2rem;align-items:flex-start}
figure{margin:0;max-width:100%}figcaption{font-size:.95rem;font-weight:600;margin-bottom:.3rem}
svg.chart{max-width:100%;height:auto}svg.chart text{fill:#1d2330}svg.chart text.na{fill:#777;font-style:italic}
p.caption{font-size:.9rem;color:#444}
.badge{display:inline-block;margin-left:.35rem;padding:0 .35rem;border-radius:.6rem;font-size:.75rem;
background:#fde2b5;color:#6a3d00;cursor:help}
td,th{white-space:normal;overflow-wrap:break-word}td.wrap{min-width:8rem;overflow-wrap:anywhere}
td.list{min-width:5rem;overflow-wrap:anywhere}
table.many{font-size:.8rem}table.many th,table.many td{padding:.2rem .3rem}
table.many .badge{font-size:.68rem;margin-left:.2rem;padding:0 .25rem}
.table-box{max-width:100%;overflow-x:auto}
ol.notes li{margin:.25rem 0;font-size:.9rem}
.filter{margin:.6rem 0;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
.filter input[type=search]{font-size:.95rem;padding:.2rem .4rem;min-width:18rem}
"""

_FILTER_SCRIPT = """
(function(){var box=document.getElementById('filter-text');var toggles=document.querySelectorAll('.filter-toggle');
function apply(){var q=box.value.toLowerCase();var hidden=[];toggles.forEach(function(t){if(!t.checked)hidden.push(t.value);});
document.querySelectorAll('table.filterable tbody tr').forEach(function(tr){
var off=hidden.some(function(c){return tr.classList.contains(c);});
tr.style.display=(!off&&tr.textContent.toLowerCase().indexOf(q)>=0)?'':'none';});}
box.addEventListener('input',apply);toggles.forEach(function(t){t.addEventListener('change',apply);});apply();})();
"""


def _cell(tag: str, cell: str | Cell, align: str) -> str:
    listed = isinstance(cell, Cell) and cell.wrap
    classes = [
        c
        for c in ("r" if align == "r" else "", "wrap" if align == "w" else "", "list" if listed else "")
        if c
    ]
    css = f' class="{" ".join(classes)}"' if classes else ""
    if isinstance(cell, Cell):
        badge = (
            f'<span class="badge" title="{html.escape(cell.hint)}">{html.escape(cell.badge)}</span>'
            if cell.badge
            else ""
        )
        text = html.escape(cell.text)
        if cell.href:
            text = f'<a href="{html.escape(cell.href)}">{text}</a>'
        return f"<{tag}{css}>{text}{badge}</{tag}>"
    return f"<{tag}{css}>{html.escape(str(cell))}</{tag}>"


def _row_class(classes: Sequence[str] | None) -> str:
    return f' class="{html.escape(" ".join(classes))}"' if classes else ""


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
    scripts: list[str] = []
    for block in doc.blocks:
        if isinstance(block, Heading):
            out.append(f"<h{block.level}>{html.escape(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            out.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Table):
            align = block.alignment()
            css = f' class="{html.escape(block.css)}"' if block.css else ""
            out.append(f'<div class="table-box"><table{css}><thead><tr>')
            out.append("".join(_cell("th", h, a) for h, a in zip(block.headers, align, strict=True)))
            out.append("</tr></thead><tbody>")
            for i, row in enumerate(block.rows):
                classes = block.row_classes[i] if block.row_classes else None
                cells = "".join(_cell("td", c, a) for c, a in zip(row, align, strict=True))
                out.append(f"<tr{_row_class(classes)}>{cells}</tr>")
            out.append("</tbody></table></div>")
        elif isinstance(block, NoteList):
            out.append('<ol class="notes">')
            out += [f"<li>{html.escape(text)}</li>" for text in block.notes]
            out.append("</ol>")
        elif isinstance(block, Filter):
            out.append('<div class="filter">')
            out.append(
                f'<input type="search" id="filter-text" placeholder="{html.escape(block.placeholder)}" '
                f'aria-label="{html.escape(block.placeholder)}">'
            )
            for value, label in block.toggles:
                out.append(
                    f'<label><input type="checkbox" class="filter-toggle" value="{html.escape(value)}" checked> '
                    f"{html.escape(label)}</label>"
                )
            out.append("</div>")
            scripts.append(_FILTER_SCRIPT)
        else:
            out.append('<div class="figs">')
            for fig in block.figures:
                out.append(f"<figure><figcaption>{html.escape(fig.title)}</figcaption>{fig.svg}</figure>")
            out.append("</div>")
            if block.caption:
                out.append(f'<p class="caption">{html.escape(block.caption)}</p>')
    out += [f"<script>{script}</script>" for script in scripts]
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def write_document(doc: Document, md_path: Path, html_path: Path) -> None:
    """The document as Markdown and HTML; a page that already says the same is left as it is."""
    write_if_changed(md_path, to_markdown(doc))
    write_if_changed(html_path, to_html(doc))


# --------------------------------------------------------------------------------------------------------------
# Formatting shared by reports and the leaderboard


def fmt_score(value: object) -> str:
    """A 0–100 score with two decimals; anything that is not a number shows as a dash."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DASH
    return f"{value:.2f}".replace("-0.00", "0.00")


def fmt_delta(value: float | None) -> str:
    """A signed difference with two decimals; one that rounds to zero is ``+0.00`` (never ``-0.00``)."""
    return DASH if value is None else f"{value:+.2f}".replace("-0.00", "+0.00")


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
