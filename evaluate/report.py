"""Run reports: ``outputs/<label>/report.md`` and a self-contained ``outputs/<label>/report.html``.

A report is first built as a small document model (headings, paragraphs, tables, figures) from the run's
files, then rendered twice, to Markdown and to HTML, so both always hold the same numbers. The HTML embeds
its charts as base64 PNG data URIs and its style inline: it needs no network and no other file.

Inputs, all under ``outputs/<label>/``: ``eval.json`` (required), the refine journals ``refine/<TASK>.jsonl``
and the infer journals ``infer/<TASK>.jsonl`` plus ``infer/run.json`` (optional: runs that rescored
reference-format predictions have none, and their sections say "not available").
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from avibench.errors import AvibenchError
from avibench.evaluate import charts
from avibench.registry import AVIBENCH
from avibench.store import atomic_write_text, latest_by_index, read_records

DASH = "–"
TAXONOMY_LABELS = {
    "l1_task": "L1 Task",
    "l2_modality": "L2 Modality",
    "l3_stage": "L3 Stage",
    "l4_domain": "L4 Domain",
}
REFINE_METHODS = ("rule", "llm", "unparsed", "passthrough", "failed")


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
                    f'<figure><img src="{charts.data_uri(fig.png)}" alt="{title}">'
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


# --------------------------------------------------------------------------------------------------------------
# Reading a run


def load_eval(run_dir: Path, label: str) -> dict[str, Any]:
    """The run's eval.json; a missing or unreadable file is a user error that says what to do."""
    path = run_dir / "eval.json"
    if not path.is_file():
        raise AvibenchError(
            f"{path}: no eval.json for run '{label}'; run `avibench eval --model {label}` "
            f"(or `--label {label}`) first"
        )
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AvibenchError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AvibenchError(f"{path}: cannot read: {exc}") from None
    if not isinstance(doc, dict):
        raise AvibenchError(f"{path}: expected a JSON object at the top level")
    if not isinstance(doc.get("summary"), dict):
        raise AvibenchError(f"{path} field summary: missing or not an object; re-run `avibench eval`")
    return doc


TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclass(frozen=True)
class InferStats:
    """Request accounting of one task's infer journal (every record is one finished request).

    ``tokens`` sums the usage of every request, retries included; ``with_usage`` counts the requests that
    reported usage at all (offline baselines and some servers report none, which shows as a dash, not 0).
    """

    requests: int
    done: int
    failed: int
    with_usage: int
    tokens: dict[str, int]
    latencies: tuple[float, ...]

    def latency(self, q: float) -> float | None:
        return float(np.percentile(self.latencies, q)) if self.latencies else None

    def token_cells(self) -> list[str]:
        return [str(self.tokens.get(k, 0)) if self.with_usage else DASH for k in TOKEN_KEYS]


def _is_done(record: Mapping[str, Any]) -> bool:
    predict = record.get("predict")
    return record.get("error") is None and isinstance(predict, str) and bool(predict)


def _tokens(usages: Iterable[dict[str, Any]]) -> dict[str, int]:
    totals = Counter[str]()
    for usage in usages:
        for key in TOKEN_KEYS:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                totals[key] += value
    return dict(totals)


def infer_stats(run_dir: Path) -> dict[str, InferStats]:
    """Per task folder with an infer journal: requests, tokens (summed over every request) and latencies."""
    stats: dict[str, InferStats] = {}
    for spec in AVIBENCH.tasks:
        path = run_dir / "infer" / f"{spec.name}.jsonl"
        if not path.is_file():
            continue
        records = list(read_records(path))
        latest = latest_by_index(path).values()
        usages = [r["usage"] for r in records if isinstance(r.get("usage"), dict)]
        stats[spec.name] = InferStats(
            requests=len(records),
            done=sum(1 for r in latest if _is_done(r)),
            failed=sum(1 for r in latest if r.get("error") is not None),
            with_usage=len(usages),
            tokens=_tokens(usages),
            latencies=tuple(v for r in records if (v := as_number(r.get("latency_s"))) is not None),
        )
    return stats


def refine_stats(run_dir: Path) -> dict[str, Counter[str]]:
    """Per task folder with a refine journal: how many samples (latest record each) each refine method made."""
    stats: dict[str, Counter[str]] = {}
    for spec in AVIBENCH.tasks:
        path = run_dir / "refine" / f"{spec.name}.jsonl"
        if path.is_file():
            stats[spec.name] = Counter(str(r.get("method")) for r in latest_by_index(path).values())
    return stats


def _read_run_json(path: Path) -> dict[str, Any] | str | None:
    """infer/run.json as an object, an error text when unreadable, or None when absent."""
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"unreadable ({exc})"
    return doc if isinstance(doc, dict) else "unreadable (not a JSON object)"


# --------------------------------------------------------------------------------------------------------------
# Report sections


def paper_task_order() -> list[str]:
    """The 14 paper-level tasks grouped by stage, stages in report order."""
    return [task for stage in AVIBENCH.stages for task in AVIBENCH.paper_tasks(stage.key)]


def headline_table(summary: Mapping[str, Any]) -> Table:
    stages, taxonomy = as_dict(summary.get("stages")), as_dict(summary.get("taxonomy"))
    headers = [stage.label for stage in AVIBENCH.stages] + ["Overall", *TAXONOMY_LABELS.values()]
    row = [fmt_score(stages.get(stage.name)) for stage in AVIBENCH.stages]
    row += [fmt_score(summary.get("overall")), *(fmt_score(taxonomy.get(k)) for k in TAXONOMY_LABELS)]
    return Table(headers, [row], align="r" * len(headers))


def _submetrics(doc: Mapping[str, Any], paper_task: str) -> str:
    """The reference-shaped values of a paper-level task: its pooled key, else its folders' keys (VSQA_I/_V)."""
    folders = AVIBENCH.folders_of(paper_task)
    stage_block = as_dict(doc.get(folders[0].stage))
    keys = [paper_task.lower()] if paper_task.lower() in stage_block else [f.eval_key for f in folders]
    parts = []
    for key in keys:
        if key not in stage_block:
            continue
        value = stage_block[key]
        if isinstance(value, dict):
            inner = ", ".join(f"{name} {fmt_metric(v)}" for name, v in value.items())
            parts.append(f"{key}: {inner}" if len(keys) > 1 else inner)
        else:
            parts.append(f"{key} {fmt_metric(value)}")
    return "; ".join(parts) if parts else "not scored"


def task_table(doc: Mapping[str, Any]) -> Table:
    tasks = as_dict(as_dict(doc.get("summary")).get("tasks"))
    rows = []
    for stage in AVIBENCH.stages:
        for paper_task in AVIBENCH.paper_tasks(stage.key):
            rows.append(
                [stage.label, paper_task, fmt_score(tasks.get(paper_task)), _submetrics(doc, paper_task)]
            )
    return Table(["Stage", "Task", "Score (0–100)", "Sub-metrics (eval.json, 0–1)"], rows, align="llrl")


def profile_table(by_profile: Mapping[str, Any]) -> Table:
    ref, strict = as_dict(by_profile.get("reference")), as_dict(by_profile.get("strict"))

    def row(name: str, a: object, b: object) -> list[str]:
        x, y = as_number(a), as_number(b)
        return [name, fmt_score(x), fmt_score(y), fmt_delta(None if x is None or y is None else y - x)]

    ref_tasks, strict_tasks = as_dict(ref.get("tasks")), as_dict(strict.get("tasks"))
    rows = [row(t, ref_tasks.get(t), strict_tasks.get(t)) for t in paper_task_order()]
    ref_stages, strict_stages = as_dict(ref.get("stages")), as_dict(strict.get("stages"))
    rows += [row(s.label, ref_stages.get(s.name), strict_stages.get(s.name)) for s in AVIBENCH.stages]
    rows.append(row("Overall", ref.get("overall"), strict.get("overall")))
    return Table(["Task / stage", "Reference", "Strict", "Strict − reference"], rows)


def _ordered(keys: Iterable[str]) -> list[str]:
    order = {name: i for i, name in enumerate(AVIBENCH.task_names)}
    return sorted(keys, key=lambda k: (order.get(k, len(order)), k))


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def coverage_table(coverage: Mapping[str, Any]) -> Table:
    columns = ("entries", "formal", "predictions", "failed", "unparsed", "scored")
    rows, totals = [], Counter[str]()
    for task in _ordered(coverage):
        info = as_dict(coverage[task])
        counts = {c: _count(info.get(c)) for c in columns}
        counts["missing"] = max(counts["entries"] - counts["predictions"], 0)
        totals.update(counts)
        notes = [str(info["reason"])] if info.get("reason") else []
        notes += [str(w) for w in info.get("warnings") or []]
        rows.append(
            [
                task,
                *(str(counts[c]) for c in (*columns[:3], "missing", *columns[3:])),
                str(info.get("status") or DASH),
                "; ".join(notes),
            ]
        )
    rows.append(["Total", *(str(totals[c]) for c in (*columns[:3], "missing", *columns[3:])), "", ""])
    headers = [
        "Task",
        "Entries",
        "Formal",
        "Predictions",
        "Missing",
        "Failed",
        "Unparsed",
        "Scored",
        "Status",
        "Notes",
    ]
    return Table(headers, rows, align="lrrrrrrrll")


def refine_table(stats: Mapping[str, Counter[str]]) -> Table:
    rows, totals = [], Counter[str]()
    for task in _ordered(stats):
        counts = stats[task]
        other = sum(n for method, n in counts.items() if method not in REFINE_METHODS)
        rows.append([task, *(str(counts[m]) for m in REFINE_METHODS), str(other), str(sum(counts.values()))])
        totals.update(counts)
    other_total = sum(n for method, n in totals.items() if method not in REFINE_METHODS)
    rows.append(
        ["Total", *(str(totals[m]) for m in REFINE_METHODS), str(other_total), str(sum(totals.values()))]
    )
    return Table(["Task", "Rules", "LLM", "Unparsed", "Passthrough", "Failed", "Other", "Samples"], rows)


def _fmt_seconds(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def usage_table(stats: Mapping[str, InferStats]) -> Table:
    def row(name: str, s: InferStats) -> list[str]:
        counts = [str(s.requests), str(s.done), str(s.failed)]
        return [name, *counts, *s.token_cells(), *(_fmt_seconds(s.latency(q)) for q in (50, 95, 100))]

    rows = [row(task, stats[task]) for task in _ordered(stats)]
    all_stats = list(stats.values())
    tokens = Counter[str]()
    for s in all_stats:
        tokens.update(s.tokens)
    total = InferStats(
        requests=sum(s.requests for s in all_stats),
        done=sum(s.done for s in all_stats),
        failed=sum(s.failed for s in all_stats),
        with_usage=sum(s.with_usage for s in all_stats),
        tokens=dict(tokens),
        latencies=tuple(v for s in all_stats for v in s.latencies),
    )
    rows.append(row("Total", total))
    headers = ["Task", "Requests", "Done", "Failed", "Prompt tokens", "Completion tokens", "Total tokens"]
    return Table([*headers, "Latency p50 (s)", "p95 (s)", "max (s)"], rows)


def _flatten(prefix: str, value: object, depth: int = 2) -> list[tuple[str, str]]:
    """(dotted key, text) pairs of an object, nested objects opened ``depth`` levels deep, deeper ones as JSON."""
    if isinstance(value, dict) and value and depth > 0:
        pairs: list[tuple[str, str]] = []
        for key, child in value.items():
            pairs += _flatten(f"{prefix}.{key}" if prefix else str(key), child, depth - 1)
        return pairs
    if isinstance(value, str):
        return [(prefix, value)]
    return [(prefix, json.dumps(value, ensure_ascii=False, sort_keys=True))]


def provenance_table(meta: Mapping[str, Any], run_json: dict[str, Any] | None) -> Table:
    rows = [["eval.json", key, text] for key, text in _flatten("", dict(meta))]
    if run_json is not None:
        rows += [["infer/run.json", key, text] for key, text in _flatten("", run_json)]
    return Table(["File", "Field", "Value"], rows, align="lll")


def _charts(summary: Mapping[str, Any]) -> Figures:
    tasks = as_dict(summary.get("tasks"))
    figures = []
    for stage in AVIBENCH.stages:
        names = AVIBENCH.paper_tasks(stage.key)
        figures.append(
            Figure(
                stage.label, charts.bar_chart(stage.label, names, [as_number(tasks.get(n)) for n in names])
            )
        )
    order = paper_task_order()
    values = [as_number(tasks.get(t)) for t in order]
    figures.append(Figure("All 14 tasks", charts.radar_chart("All 14 tasks", order, values)))
    missing = [t for t, v in zip(order, values, strict=True) if v is None]
    caption = "Scores on 0–100." + (
        f" Not scored (drawn at 0 on the radar): {', '.join(missing)}." if missing else ""
    )
    return Figures(figures, caption)


def build_report(run_dir: Path, label: str) -> Document:
    doc = load_eval(run_dir, label)
    summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
    model = meta.get("model") or label
    report = Document(f"AVI-Bench report: {label}")
    profile = summary.get("profile") or meta.get("profile") or "unknown"
    report.add(
        Paragraph(f"Model: {model}. Scoring profile: {profile}. Created: {meta.get('created') or DASH}.")
    )

    report.add(Heading("Headline (0–100)"), headline_table(summary))
    if summary.get("taxonomy_note"):
        report.add(Paragraph(str(summary["taxonomy_note"])))
    report.add(_charts(summary))

    report.add(Heading("Per-task scores"), task_table(doc))

    report.add(Heading("Reference versus strict profile"))
    by_profile = as_dict(summary.get("by_profile"))
    if by_profile:
        report.add(profile_table(by_profile))
    else:
        report.add(Paragraph("Not available: eval.json has no summary.by_profile."))

    report.add(Heading("Coverage"))
    coverage = as_dict(doc.get("coverage"))
    report.add(
        coverage_table(coverage) if coverage else Paragraph("Not available: eval.json has no coverage.")
    )

    report.add(Heading("How answers were refined"))
    refined = refine_stats(run_dir)
    if refined:
        report.add(
            Paragraph("Samples per refine method (latest journal record per sample)."), refine_table(refined)
        )
    else:
        report.add(
            Paragraph(
                "Not available: no refine journal (runs that rescored reference-format predictions have none)."
            )
        )

    report.add(Heading("Token usage and latency"))
    usage = infer_stats(run_dir)
    if usage:
        report.add(
            Paragraph(
                "Summed over every request in the infer journal, retries included; Done and Failed count each "
                "sample's latest request."
            ),
            usage_table(usage),
        )
    else:
        report.add(
            Paragraph(
                "Not available: no infer journal (runs that rescored reference-format predictions have none)."
            )
        )

    report.add(Heading("Provenance"))
    run_json = _read_run_json(run_dir / "infer" / "run.json")
    if isinstance(run_json, str):
        report.add(Paragraph(f"infer/run.json is {run_json}."))
        run_json = None
    report.add(provenance_table(meta, run_json))
    return report


def write_report(output_dir: Path, label: str) -> tuple[Path, Path]:
    """Build and write the run's report.md and report.html; returns their paths."""
    run_dir = Path(output_dir) / label
    doc = build_report(run_dir, label)
    md_path, html_path = run_dir / "report.md", run_dir / "report.html"
    write_document(doc, md_path, html_path)
    return md_path, html_path
