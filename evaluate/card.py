"""The model card: one model's results on every benchmark it was run on, in one table.

``avibench run`` writes it as ``<output dir>/<label>/card.json`` (the stable, documented form other tools read;
see docs/card.md), ``card.md`` and ``card.html``. A card is built from the files on disk (each benchmark's
eval.json), so it can be rebuilt at any time; a benchmark that was asked for but has no eval.json keeps a row
that says why it was not run. Nothing here knows a benchmark by name: the headline is the benchmark's own
(``overall`` where its summary names one, else ``headline``), its chance level goes through the benchmark's own
aggregation, and the closest published models come from :meth:`avibench.plugin.Benchmark.published`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.contracts import RunPaths
from avibench.evaluate.badges import task_statuses
from avibench.evaluate.board_runs import data_mark, dataset_of
from avibench.evaluate.document import (
    DASH,
    Cell,
    Document,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_score,
    write_document,
)
from avibench.evaluate.eval_options import describe as describe_options
from avibench.evaluate.eval_options import marked_options
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.uncertainty import fmt_interval, interval_of
from avibench.evaluate.unparsed import unparsed_of
from avibench.evaluate.viewer import VIEWER_NAME
from avibench.infer.probe_record import media_verdicts
from avibench.manifest import caveats
from avibench.plugin import PROFILES, Benchmark, lower_is_better
from avibench.store import atomic_write_json

#: ``card.json``'s ``schema``; ``schema_version`` grows only when a field changes meaning or disappears.
CARD_SCHEMA = "avibench-card"
CARD_SCHEMA_VERSION = 1
CARD_NAMES = ("card.json", "card.md", "card.html")
#: How many published models the card names beside each benchmark's headline.
CLOSEST = 3
#: A benchmark row's status, best to worst: every selected task scored, part of it scored, nothing scored, or the
#: stages failed.
STATUSES = ("complete", "partial", "not run", "failed")
MEDIA_NOT_VERIFIED = "media not verified"
#: The keys of a benchmark row that come from its eval.json (``null`` in a row that has none).
SCORED_KEYS = (
    "model",
    "headline_name",
    "profile",
    "headline",
    "interval",
    "chance",
    "tasks",
    "completeness",
    "unparsed",
    "closest_published",
    "dataset",
    "media_probe",
    "settings",
    "throughput",
)


@dataclass
class BenchmarkOutcome:
    """What ``avibench run`` knows about one benchmark beyond its files: the exit code of each stage it ran, the
    data root it used, why it was not run or failed (``None`` when it ran), and why its eval.json is not this
    run's (``partial``: its eval scored less and was written beside it)."""

    benchmark: str
    data_root: str | None = None
    stages: dict[str, int] = field(default_factory=dict)
    not_run: str | None = None
    error: str | None = None
    partial: str | None = None


def headline_name(summary: Mapping[str, Any]) -> str:
    """The key of the benchmark's headline number in its eval.json summary: ``overall`` where the summary names
    one (AVI-Bench's Overall, which the core also keeps as ``headline``), else ``headline``."""
    return "overall" if "overall" in summary else "headline"


TASKS_INSTEAD = "each task"
"""The headline name of a benchmark that has none (its reports give each task alone): the card lists its tasks."""


def _profile_number(summary: Mapping[str, Any], profile: str, key: str) -> float | None:
    block = as_dict(as_dict(summary.get("by_profile")).get(profile))
    if key in block:
        return as_number(block.get(key))
    return as_number(summary.get(key)) if summary.get("profile", "reference") == profile else None


def chance_headline(benchmark: Benchmark, summary: Mapping[str, Any], key: str) -> float | None:
    """The headline a chance-level model would get, through the benchmark's own aggregation of task chances; a
    task without a chance level (:meth:`~avibench.plugin.Benchmark.has_chance`, AVI-Bench's AVC) is left out of
    it, as the aggregation leaves out a task without a score."""
    recorded = as_dict(summary.get("chance"))
    chance = {k: as_number(v) for k, v in recorded.items() if benchmark.has_chance(k)}
    if not chance or any(v is None for v in chance.values()):
        return None
    try:
        return as_number(benchmark.aggregate_scores(chance).get(key))
    except (KeyError, TypeError, ValueError):
        return None


def closest_published(benchmark: Benchmark, headline: float | None) -> list[dict[str, Any]]:
    """The published models whose headline is nearest the run's, nearest first."""
    rows = [
        {
            "model": str(r["model"]),
            "headline": as_number(r.get("headline")),
            "source": str(r.get("source") or ""),
            **({"note": note} if (note := _published_gap(r)) else {}),
        }
        for r in benchmark.published()
        if as_number(r.get("headline")) is not None
    ]
    if headline is None:
        return []
    rows.sort(key=lambda r: (abs(r["headline"] - headline), -r["headline"]))
    return rows[:CLOSEST]


def _completeness(benchmark: Benchmark, doc: Mapping[str, Any]) -> dict[str, Any]:
    incomplete = as_dict(as_dict(doc.get("summary")).get("incomplete"))
    tasks = {
        name: str(as_dict(info).get("text") or "incomplete")
        for name, info in as_dict(incomplete.get("tasks")).items()
    }
    for name, status in task_statuses(benchmark, as_dict(doc.get("coverage"))).items():
        if status.status != "scored" and name not in tasks:
            tasks[name] = f"{status.status.replace('_', ' ')}: {status.hint}".rstrip(": ")
    return {
        "complete": not tasks,
        "incomplete_tasks": tasks,
        "numbers": sorted(as_dict(incomplete.get("numbers"))),
    }


def _settings(meta: Mapping[str, Any]) -> dict[str, Any]:
    """What made the numbers: generation settings (with the answers each made), refine, profile, extras."""
    settings: dict[str, Any] = {
        "profile": meta.get("profile"),
        "template": meta.get("template"),
        "infer": meta.get("infer_settings") or [],
        "mixed_settings": bool(meta.get("mixed_settings")),
        "refine_modes": as_dict(as_dict(meta.get("refine")).get("modes")),
        "refine_models": as_dict(as_dict(meta.get("refine")).get("models")),
        "run": caveats(meta),
        "eval_options": marked_options(meta),
    }
    for extra in ("fense", "judge"):
        if extra in meta:
            settings[extra] = meta[extra]
    return settings


def benchmark_row(
    benchmark: Benchmark, paths: RunPaths, outcome: BenchmarkOutcome | None = None
) -> dict[str, Any]:
    """One benchmark's row of the card, from its eval.json (or why there is none)."""
    outcome = outcome or BenchmarkOutcome(benchmark.name)
    base: dict[str, Any] = {
        "benchmark": benchmark.name,
        "title": benchmark.title or benchmark.name,
        "data_root": outcome.data_root,
        "stages": dict(outcome.stages),
        "reason": outcome.not_run or outcome.error or outcome.partial,
    }
    if outcome.not_run is not None or not paths.eval_json.is_file():
        status = "not run" if outcome.not_run is not None or not outcome.stages else "failed"
        reason = base["reason"] or f"no eval.json at {paths.eval_json}"
        return {**base, **dict.fromkeys(SCORED_KEYS), "status": status, "reason": reason, "links": {}}
    doc = load_eval(paths)
    summary, meta = as_dict(doc.get("summary")), as_dict(doc.get("meta"))
    key = headline_name(summary)
    primary = str(summary.get("profile") or meta.get("profile") or PROFILES[0])
    headline = {p: _profile_number(summary, p, key) for p in PROFILES}
    completeness = _completeness(benchmark, doc)
    status = "complete" if completeness["complete"] and outcome.partial is None else "partial"
    if outcome.error is not None:
        status = "failed"
    links = {"eval": f"{benchmark.name}/{paths.eval_json.name}"}
    for name, path in (("report", paths.report_html), ("viewer", paths.root / VIEWER_NAME)):
        if path.is_file():
            links[name] = f"{benchmark.name}/{path.name}"
    probe = meta.get("media_probe")
    return {
        **base,
        "status": status,
        "model": meta.get("model"),
        "headline_name": key if benchmark.has_headline else TASKS_INSTEAD,
        "lower_is_better": lower_is_better(benchmark),
        "profile": primary,
        "headline": headline,
        "interval": list(interval) if (interval := interval_of(summary, "aggregates", key)) else None,
        "chance": chance_headline(benchmark, summary, key),
        "tasks": {
            p: as_dict(as_dict(as_dict(summary.get("by_profile")).get(p)).get("tasks")) for p in PROFILES
        },
        "completeness": completeness,
        "unparsed": unparsed_of(as_dict(doc.get("coverage"))).as_json(),
        "closest_published": closest_published(benchmark, headline.get(primary)),
        "dataset": dataset_of(meta),
        "media_probe": dict(probe) if isinstance(probe, Mapping) else None,
        "settings": _settings(meta),
        "throughput": as_dict(meta.get("throughput")) or None,
        "links": links,
    }


def build_card(
    output_dir: Path,
    label: str,
    benchmarks: Sequence[Benchmark],
    *,
    model: str | None = None,
    outcomes: Mapping[str, BenchmarkOutcome] | None = None,
) -> dict[str, Any]:
    """The card of run ``label`` over ``benchmarks``, in that order."""
    outcomes = outcomes or {}
    rows = [benchmark_row(b, RunPaths(output_dir, label, b.name), outcomes.get(b.name)) for b in benchmarks]
    if model is None:
        model = next((r["model"] for r in rows if r.get("model")), None)
    return {
        "schema": CARD_SCHEMA,
        "schema_version": CARD_SCHEMA_VERSION,
        "label": label,
        "model": model,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "version": __version__,
        "status": card_status(rows),
        "benchmarks": rows,
    }


def card_status(rows: Sequence[Mapping[str, Any]]) -> str:
    """``complete`` when every benchmark is; else the worst row status."""
    statuses = {str(r.get("status")) for r in rows}
    for status in reversed(STATUSES[1:]):  # the worst first
        if status in statuses:
            return status
    return "complete"


def _media_text(probe: Mapping[str, Any] | None) -> str:
    """The probe's verdicts (``audio counted, image unverified``); a media kind whose probe was skipped, or a run
    never probed, is not verified."""
    return media_verdicts(probe) or MEDIA_NOT_VERIFIED


def _settings_text(settings: Mapping[str, Any]) -> str:
    parts = []
    for made in settings.get("infer") or ():
        gen = as_dict(as_dict(made).get("settings"))
        shown = ", ".join(
            f"{k} {v}" for k, v in gen.items() if v is not None and v is not False and k != "model"
        )
        parts.append(f"{shown} ({as_dict(made).get('answers', '?')} answers)")
    if settings.get("mixed_settings"):
        parts.append("mixed settings")
    if settings.get("eval_options"):
        parts.append(f"eval options {describe_options(as_dict(settings['eval_options']))}")
    parts.extend(settings.get("run") or ())
    modes = as_dict(settings.get("refine_modes"))
    if modes:
        parts.append("refine " + ", ".join(f"{m} {n}" for m, n in modes.items()))
    fense = as_dict(settings.get("fense")).get("status")
    if fense:
        parts.append(f"FENSE {fense}")
    judge = as_dict(settings.get("judge")).get("model")
    if judge:
        parts.append(f"judge {judge}")
    return "; ".join(parts) or DASH


def _closest_text(rows: Sequence[Mapping[str, Any]]) -> str:
    return (
        ", ".join(
            f"{r['model']} {fmt_score(r['headline'])}" + (f" ({r['note']})" if r.get("note") else "")
            for r in rows
        )
        or DASH
    )


def _published_gap(row: Mapping[str, Any]) -> str | None:
    """What a published headline leaves out (a part the model never published), from its ``incomplete``."""
    incomplete = as_dict(row.get("incomplete"))
    parts = as_dict(as_dict(incomplete.get("numbers")).get("headline")).get("tasks") or ()
    texts = as_dict(incomplete.get("tasks"))
    said = [f"{p} {as_dict(texts.get(p)).get('text') or 'incomplete'}" for p in parts]
    return "; ".join(said) or None


def _gaps_hint(row: Mapping[str, Any]) -> str:
    gaps = as_dict(as_dict(row.get("completeness")).get("incomplete_tasks"))
    return "rests on incomplete tasks: " + "; ".join(f"{t}: {why}" for t, why in gaps.items())


def headline_cell(row: Mapping[str, Any], profile: str) -> Cell:
    """A row's headline in one profile, with the incomplete badge when it rests on incomplete tasks and the
    data badge when the run was not on the official data (the leaderboards' marks)."""
    if row.get("headline") is None:
        return Cell(DASH, str(row.get("status") or "not run"), str(row.get("reason") or ""))
    if row.get("headline_name") == TASKS_INSTEAD:
        scores = as_dict(as_dict(row.get("tasks")).get(profile))
        text = "; ".join(f"{task} {fmt_score(as_number(v))}" for task, v in scores.items()) or DASH
    else:
        text = fmt_score(as_dict(row["headline"]).get(profile))
    badges, hints = [], []
    completeness = as_dict(row.get("completeness"))
    per_task = row["headline_name"] == TASKS_INSTEAD
    if (per_task and completeness.get("incomplete_tasks")) or row["headline_name"] in completeness.get(
        "numbers", ()
    ):
        badges.append("incomplete")
        hints.append(_gaps_hint(row))
    mark = data_mark(as_dict(row.get("dataset")) or {"kind": "other"})
    if mark:
        badges.append(mark)
        hints.append(str(as_dict(row.get("dataset")).get("why") or ""))
    options = as_dict(as_dict(row.get("settings")).get("eval_options"))
    if options:
        badges.append(f"eval options: {describe_options(options)}")
        hints.append("scored with eval options other than the plug-in's defaults")
    return Cell(text, "; ".join(badges), "; ".join(h for h in hints if h), wrap=per_task)


def _status_cell(row: Mapping[str, Any]) -> Cell:
    """A scored row's status, badged with its incomplete tasks and a flag when its answers are mostly unparsed."""
    gaps = as_dict(as_dict(row.get("completeness")).get("incomplete_tasks"))
    badges, hints = ([", ".join(gaps)], [_gaps_hint(row)]) if gaps else ([], [])
    unparsed = as_dict(row.get("unparsed"))
    if unparsed.get("mostly"):
        badges.append("mostly unparsed")
        hints.append(f"{unparsed.get('unparsed')} of {unparsed.get('answers')} answers could not be read")
    return Cell(row["status"], "; ".join(badges), "; ".join(hints))


def _row_cells(row: Mapping[str, Any]) -> list[str | Cell]:
    links = as_dict(row.get("links"))
    link_cells = [
        Cell(name, href=links[name]) if name in links else Cell(DASH) for name in ("report", "viewer")
    ]
    if row.get("headline") is None:
        reason = str(row.get("reason") or "")
        blank = [DASH] * (len(CARD_HEADERS) - 2 - len(link_cells))  # all but benchmark, status and the links
        return [row["title"], Cell(row["status"], "", reason), *blank, *link_cells]
    status = _status_cell(row)
    dataset = as_dict(row.get("dataset"))
    return [
        row["title"],
        status,
        *(headline_cell({**row, "dataset": {"kind": "official"}}, p) for p in PROFILES),
        fmt_interval(tuple(row["interval"]) if row.get("interval") else None),
        fmt_score(row.get("chance")),
        f"{row['profile']} ({row['headline_name']}{', lower is better' if row.get('lower_is_better') else ''})",
        _closest_text(row.get("closest_published") or ()),
        Cell(str(dataset.get("kind")), "not comparable", str(dataset.get("why") or ""))
        if data_mark(dataset or {"kind": "other"})
        else Cell("official"),
        _media_text(row.get("media_probe")),
        _settings_text(as_dict(row.get("settings"))),
        *link_cells,
    ]


CARD_HEADERS = (
    "Benchmark",
    "Status",
    *(f"Headline ({p})" for p in PROFILES),
    "95% CI",
    "Chance",
    "Primary",
    "Closest published",
    "Data",
    "Media",
    "Settings",
    "Report",
    "Viewer",
)


def _figure(value: Any, digits: int) -> str:
    number = as_number(value)
    return DASH if number is None else f"{number:,.{digits}f}"


def card_document(card: Mapping[str, Any]) -> Document:
    """card.md and card.html: the card's table and what its marks mean."""
    doc = Document(f"Model card: {card['label']}")
    rows = card["benchmarks"]
    doc.add(
        Paragraph(
            f"Model {card.get('model') or card['label']}; {len(rows)} benchmark(s), status {card['status']}. "
            "Scores on 0–100; the headline is each benchmark's own, in both profiles (reference reproduces the "
            "official scorer, strict fixes its defects), with the 95% bootstrap interval of the primary profile "
            "and the headline a chance-level model gets. An incomplete badge marks a number that rests on "
            "missing, failed, unrefined or unscored questions; 'mostly unparsed' a benchmark more than half of whose "
            "answers the strict profile could not read (its scores measure the answer format); a data badge a run on a generated sample or other "
            "data, not comparable with the published models named beside it. 'media not verified': the run "
            "recorded no media probe."
        ),
        Table(
            list(CARD_HEADERS),
            [_row_cells(r) for r in rows],
            align="ll" + "r" * 4 + "lwllwll",
        ),
    )
    served = [(r, as_dict(r.get("throughput"))) for r in rows if r.get("throughput")]
    if served:
        doc.add(
            Heading("Throughput"),
            Paragraph(
                "Beside the scores, what serving the run took: requests sent (retries included), requests per "
                "second of infer wall time, latency percentiles, tokens from the endpoint's usage, questions "
                "failed."
            ),
            Table(
                [
                    "Benchmark",
                    "Requests",
                    "Req/s",
                    "p50 (s)",
                    "p95 (s)",
                    "Prompt tokens",
                    "Completion tokens",
                    "Failed",
                ],
                [
                    [
                        r["title"],
                        str(t.get("requests", DASH)),
                        _figure(t.get("requests_per_second"), 2),
                        _figure(t.get("latency_p50_s"), 2),
                        _figure(t.get("latency_p95_s"), 2),
                        _figure(t.get("prompt_tokens"), 0),
                        _figure(t.get("completion_tokens"), 0),
                        str(t.get("failed", DASH)),
                    ]
                    for r, t in served
                ],
                align="l" + "r" * 7,
            ),
        )
    not_run = [r for r in rows if r["status"] in ("not run", "failed")]
    if not_run:
        doc.add(
            Heading("Not run or failed"),
            Paragraph(
                "; ".join(f"{r['benchmark']}: {r['status']}: {r.get('reason') or DASH}" for r in not_run)
            ),
        )
    return doc


def write_card(card: Mapping[str, Any], label_dir: Path) -> tuple[Path, ...]:
    """card.json, card.md and card.html in the run's label folder."""
    paths = tuple(Path(label_dir) / name for name in CARD_NAMES)
    atomic_write_json(paths[0], dict(card))
    write_document(card_document(card), paths[1], paths[2])
    return paths
