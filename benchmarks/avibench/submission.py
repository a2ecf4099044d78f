"""AVI-Bench's official leaderboard file: schema v2 entries of runs and of the published results, and their
validation.

Validation reports every broken rule at once, each as ``<field path>: <rule>``, instead of stopping at the
first, so a submitter can fix an entry in one go. The rules are those of the official leaderboard file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from avibench import __version__
from avibench.benchmarks.avibench.table import TAXONOMY_KEYS, summary_numbers
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.errors import AvibenchError
from avibench.evaluate.document import (
    as_dict,
    as_number,
)
from avibench.kits.published import published_table
from avibench.level_metrics.aggregate import STAGE_NAMES

SCHEMA_VERSION = 2
ENTRY_FIELDS = frozenset(
    {
        "id",
        "model_name",
        "provider",
        "model_id",
        "model_release_date",
        "model_release_source_url",
        "benchmark_version",
        "source",
        "evaluation_date",
        "coverage",
        "scores",
        "submitter",
        "notes",
    }
)
PAPER = published_table("avibench")
"""The paper's Tables 3 and 5, one row per model; the models of the official leaderboard file carry its facts."""
BENCHMARK_VERSION: str = PAPER.facts["benchmark_version"]
LEADERBOARD_MODELS: tuple[str, ...] = tuple(PAPER.facts["leaderboard_models"])
STAGE_KEYS = STAGE_NAMES
SOURCE_TYPES = ("maintainer", "paper", "participant")
COVERAGE_FIELDS = ("status", "tasks_completed", "tasks_total", "samples_completed", "samples_total")
SCORE_KEYS = frozenset({"overall", "stages", "taxonomy", "tasks"})
ID_PATTERN = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,99}")
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
NOTES_MAX = 1000
TASKS_TOTAL = len(AVIBENCH.paper_tasks())


# --------------------------------------------------------------------------------------------------------------
# Validation


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_text(errors: list[str], record: Mapping[str, Any], key: str, path: str) -> bool:
    if _is_text(record.get(key)):
        return True
    errors.append(f"{path}.{key}: must be a non-empty string")
    return False


def _check_date(errors: list[str], value: object, where: str, *, nullable: bool) -> None:
    if value is None and nullable:
        return
    rule = "must be a real calendar date written YYYY-MM-DD" + (" or null" if nullable else "")
    if not isinstance(value, str) or not DATE_PATTERN.fullmatch(value):
        errors.append(f"{where}: {rule} (got {value!r})")
        return
    try:
        date.fromisoformat(value)
    except ValueError:
        errors.append(f"{where}: {rule} (got {value!r}, not a calendar date)")


def _check_https(errors: list[str], record: Mapping[str, Any], key: str, path: str) -> None:
    if not _check_text(errors, record, key, path):
        return
    parsed = urlparse(record[key].strip())
    if parsed.scheme != "https" or not parsed.netloc:
        errors.append(f"{path}.{key}: must be an https:// URL (got {record[key]!r})")


def _check_scores(errors: list[str], value: object, path: str) -> None:
    """Every leaf of the scores object is a finite number in [0, 100] or null; names are non-empty."""
    if value is None:
        return
    if isinstance(value, dict):
        for key, child in value.items():
            if not _is_text(key):
                errors.append(f"{path}: contains an empty metric name")
                continue
            _check_scores(errors, child, f"{path}.{key}")
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        errors.append(f"{path}: must be a number or null (got {value!r})")
    elif not math.isfinite(value) or not 0 <= value <= 100:
        errors.append(f"{path}: must be between 0 and 100 (got {value!r})")


def _check_coverage(errors: list[str], coverage: object, path: str) -> None:
    if not isinstance(coverage, dict):
        errors.append(f"{path}: must be an object with {', '.join(COVERAGE_FIELDS)}")
        return
    extra = sorted(set(coverage) - set(COVERAGE_FIELDS))
    if extra:
        errors.append(f"{path}: unsupported fields {', '.join(map(str, extra))}")
    status = coverage.get("status")
    if status not in ("full", "partial"):
        errors.append(f"{path}.status: must be 'full' or 'partial' (got {status!r})")
    tasks_ok = True
    for key in ("tasks_completed", "tasks_total"):
        if not _is_count(coverage.get(key)):
            errors.append(f"{path}.{key}: must be a non-negative integer (got {coverage.get(key)!r})")
            tasks_ok = False
    done, total = coverage.get("tasks_completed"), coverage.get("tasks_total")
    if tasks_ok:
        if total == 0:
            errors.append(f"{path}.tasks_total: must be greater than 0")
        if done > total:
            errors.append(f"{path}.tasks_completed: must not exceed tasks_total ({done} > {total})")
        if status == "full" and done != total:
            errors.append(
                f"{path}.status: 'full' requires tasks_completed == tasks_total ({done} != {total})"
            )
    samples_ok = True
    for key in ("samples_completed", "samples_total"):
        value = coverage.get(key)
        if value is not None and not _is_count(value):
            errors.append(f"{path}.{key}: must be a non-negative integer or null (got {value!r})")
            samples_ok = False
    s_done, s_total = coverage.get("samples_completed"), coverage.get("samples_total")
    if samples_ok and (s_done is None) != (s_total is None):
        errors.append(
            f"{path}.samples_completed: samples_completed and samples_total must both be integers or both null"
        )
    elif samples_ok and s_done is not None:
        if s_done > s_total:
            errors.append(f"{path}.samples_completed: must not exceed samples_total ({s_done} > {s_total})")
        if status == "full" and s_done != s_total:
            errors.append(
                f"{path}.status: 'full' requires samples_completed == samples_total ({s_done} != {s_total})"
            )
    if (
        samples_ok
        and tasks_ok
        and status == "partial"
        and done == total
        and (s_done is None or s_done == s_total)
    ):
        errors.append(f"{path}.status: 'partial' with every task completed requires incomplete sample counts")


def validate_entry(entry: object, path: str = "entry") -> list[str]:
    """Every schema v2 rule ``entry`` breaks, as ``<field path>: <rule>``; empty when the entry is valid."""
    if not isinstance(entry, dict):
        return [f"{path}: must be an object"]
    errors: list[str] = []
    extra = sorted(set(entry) - ENTRY_FIELDS)
    if extra:
        errors.append(
            f"{path}: unsupported fields {', '.join(map(str, extra))} (allowed: {', '.join(sorted(ENTRY_FIELDS))})"
        )
    if _check_text(errors, entry, "id", path) and not ID_PATTERN.fullmatch(entry["id"].strip()):
        errors.append(
            f"{path}.id: must be a 2–100 character slug matching {ID_PATTERN.pattern} (got {entry['id']!r})"
        )
    for key in ("model_name", "provider", "model_id", "benchmark_version"):
        _check_text(errors, entry, key, path)
    _check_date(errors, entry.get("model_release_date"), f"{path}.model_release_date", nullable=False)
    _check_https(errors, entry, "model_release_source_url", path)

    source = entry.get("source")
    if not isinstance(source, dict):
        errors.append(f"{path}.source: must be an object with exactly type and url")
    else:
        if set(source) != {"type", "url"}:
            errors.append(
                f"{path}.source: must have exactly the keys type and url (got {', '.join(map(str, source))})"
            )
        if source.get("type") not in SOURCE_TYPES:
            errors.append(
                f"{path}.source.type: must be one of {', '.join(SOURCE_TYPES)} (got {source.get('type')!r})"
            )
        _check_https(errors, source, "url", f"{path}.source")

    _check_date(errors, entry.get("evaluation_date"), f"{path}.evaluation_date", nullable=True)
    _check_coverage(errors, entry.get("coverage"), f"{path}.coverage")

    scores = entry.get("scores")
    if not isinstance(scores, dict):
        errors.append(f"{path}.scores: must be an object")
    else:
        extra_scores = sorted(set(scores) - SCORE_KEYS)
        if extra_scores:
            errors.append(
                f"{path}.scores: unsupported keys {', '.join(map(str, extra_scores))} (allowed: {', '.join(sorted(SCORE_KEYS))})"
            )
        _check_scores(errors, scores, f"{path}.scores")

    notes = entry.get("notes")
    if notes is not None and not isinstance(notes, str):
        errors.append(f"{path}.notes: must be a string or null")
    elif notes is not None and len(notes) > NOTES_MAX:
        errors.append(f"{path}.notes: must be at most {NOTES_MAX} characters (got {len(notes)})")
    submitter = entry.get("submitter")
    if submitter is not None and not isinstance(submitter, str):
        errors.append(f"{path}.submitter: must be a string or null")
    return errors


def validate_results(doc: object) -> list[str]:
    """Every rule a whole leaderboard file breaks (root shape, each entry, unique ids, chart version)."""
    if not isinstance(doc, dict):
        return ["root: must be an object with exactly schema_version, chart_benchmark_version, entries"]
    errors: list[str] = []
    if set(doc) != {"schema_version", "chart_benchmark_version", "entries"}:
        errors.append(
            f"root: must have exactly schema_version, chart_benchmark_version, entries (got {', '.join(map(str, doc))})"
        )
    version = doc.get("schema_version")
    if type(version) is not int or version != SCHEMA_VERSION:
        errors.append(f"root.schema_version: must be the integer {SCHEMA_VERSION} (got {version!r})")
    chart_version = doc.get("chart_benchmark_version")
    _check_text(errors, doc, "chart_benchmark_version", "root")
    entries = doc.get("entries")
    if not isinstance(entries, list):
        errors.append("root.entries: must be an array")
        return errors
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        errors += validate_entry(entry, f"entries[{i}]")
        entry_id = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(entry_id, str):
            if entry_id in seen:
                errors.append(f"entries[{i}].id: duplicate id {entry_id!r} (also entries[{seen[entry_id]}])")
            seen.setdefault(entry_id, i)
    versions = {e.get("benchmark_version") for e in entries if isinstance(e, dict)}
    if entries and chart_version not in versions:
        errors.append(
            f"root.chart_benchmark_version: must equal the benchmark_version of some entry (got {chart_version!r})"
        )
    return errors


def read_results(path: Path) -> object:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AvibenchError(f"{path}: no such file") from None
    except json.JSONDecodeError as exc:
        raise AvibenchError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AvibenchError(f"{path}: cannot read: {exc}") from None


# --------------------------------------------------------------------------------------------------------------
# Building entries


def slug(text: str) -> str:
    """Lowercase, every run of other characters turned into one hyphen (``Gemini-2.5-Pro`` -> ``gemini-2-5-pro``)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _round(value: object) -> float | None:
    number = as_number(value)
    return None if number is None else round(number, 2)


def _scores(overall: object, stages: Mapping[str, Any], taxonomy: Mapping[str, Any], tasks: dict) -> dict:
    return {
        "overall": _round(overall),
        "stages": {k: _round(stages.get(k)) for k in STAGE_KEYS},
        "taxonomy": {k: _round(taxonomy.get(k)) for k in TAXONOMY_KEYS},
        "tasks": tasks,
    }


def published_entry(row: Mapping[str, Any]) -> dict[str, Any]:
    """The official-format entry of a published model (a row of :data:`PAPER`, one of :data:`LEADERBOARD_MODELS`)."""
    if row["entry_id"] is None:
        raise KeyError(f"{row['model']} has no entry in the official leaderboard file")
    return {
        "id": row["entry_id"],
        "model_name": row["model"],
        "provider": row["provider"],
        "model_id": f"{row['model']} (paper label)",
        "model_release_date": row["release_date"],
        "model_release_source_url": row["release_url"],
        "benchmark_version": BENCHMARK_VERSION,
        "source": {"type": "paper", "url": PAPER.source.url},
        "evaluation_date": None,
        "coverage": {
            "status": "full",
            "tasks_completed": TASKS_TOTAL,
            "tasks_total": TASKS_TOTAL,
            "samples_completed": None,
            "samples_total": None,
        },
        "scores": _scores(
            row["overall"], PAPER.values(row, STAGE_KEYS), PAPER.values(row, TAXONOMY_KEYS), {}
        ),
        "notes": "Scores as reported in the paper, which names no dated API snapshot and no sample counts.",
    }


def published_results() -> dict[str, Any]:
    """The official leaderboard file's content, rebuilt from the published numbers."""
    return {
        "schema_version": SCHEMA_VERSION,
        "chart_benchmark_version": BENCHMARK_VERSION,
        "entries": [published_entry(PAPER.row(name)) for name in LEADERBOARD_MODELS],
    }


def _questions(info: Mapping[str, Any]) -> object:
    """A task folder's questions (``entries`` in an eval.json written before the core kept coverage)."""
    return info.get("questions", info.get("entries"))


def _read(info: Mapping[str, Any]) -> int | None:
    """The questions of a task folder with an answer the scorer reads (answered and refined; an older eval.json's
    ``predictions``)."""
    if "questions" not in info and _is_count(info.get("predictions")):
        return int(info["predictions"])
    answered, unparsed = info.get("answered"), info.get("unparsed", 0)
    return answered - unparsed if _is_count(answered) and _is_count(unparsed) else None


def _task_complete(info: Mapping[str, Any], score: object) -> bool:
    questions, read = _questions(info), _read(info)
    return (
        info.get("status") == "scored"
        and _round(score) is not None
        and _is_count(questions)
        and read is not None
        and read >= questions
    )


def entry_coverage(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Coverage of an eval.json in leaderboard terms: paper-level tasks scored on all their questions, and samples.

    A paper-level task is complete when every one of its folders was scored with a read answer for every
    question. Samples are questions with an answer the scorer reads out of all questions.
    """
    coverage = as_dict(doc.get("coverage"))
    tasks = as_dict(doc["summary"].get("tasks"))
    completed = 0
    for paper_task in AVIBENCH.paper_tasks():
        infos = [coverage.get(f.name) for f in AVIBENCH.folders_of(paper_task)]
        if all(isinstance(i, dict) and _task_complete(i, tasks.get(paper_task)) for i in infos):
            completed += 1
    infos = [i for i in coverage.values() if isinstance(i, dict)]
    total = sum(q for i in infos if _is_count(q := _questions(i)))
    done = sum(
        min(read, q) for i in infos if _is_count(q := _questions(i)) and (read := _read(i)) is not None
    )
    full = completed == TASKS_TOTAL and done == total
    return {
        "status": "full" if full else "partial",
        "tasks_completed": completed,
        "tasks_total": TASKS_TOTAL,
        "samples_completed": done,
        "samples_total": total,
    }


def default_notes(doc: Mapping[str, Any]) -> str:
    summary, meta = doc["summary"], as_dict(doc.get("meta"))
    profile = summary.get("profile") or meta.get("profile") or "unknown"
    text = (
        f"Scored with avibench {meta.get('version') or __version__}, {profile} profile. "
        "L2–L4 follow a reconstruction of the paper's formulas."
    )
    fense = as_dict(meta.get("fense"))
    if fense.get("status") and fense["status"] != "real":
        text += f" AVC FENSE: {fense['status']}."
    return text[:NOTES_MAX]


@dataclass(frozen=True)
class EntryFields:
    """What the user tells about a run that eval.json does not know; ``None`` takes the default."""

    entry_id: str | None = None
    model_name: str | None = None
    provider: str | None = None
    model_id: str | None = None
    benchmark_version: str = BENCHMARK_VERSION
    release_date: str | None = None
    release_url: str | None = None
    source_type: str = "participant"
    source_url: str | None = None
    submitter: str | None = None
    notes: str | None = None
    with_tasks: bool = False


def run_entry(doc: Mapping[str, Any], label: str, fields: EntryFields) -> dict[str, Any]:
    """The official-format entry of a scored run (not validated: see :func:`validate_entry`)."""
    summary = doc["summary"]
    meta = as_dict(doc.get("meta"))
    model_name = fields.model_name or meta.get("model") or label
    created = meta.get("created")
    tasks = as_dict(summary.get("tasks"))
    numbers = summary_numbers(summary)
    entry: dict[str, Any] = {
        "id": fields.entry_id or f"{slug(model_name)}-{slug(fields.benchmark_version)}",
        "model_name": model_name,
        "provider": fields.provider,
        "model_id": fields.model_id or meta.get("model") or label,
        "model_release_date": fields.release_date,
        "model_release_source_url": fields.release_url,
        "benchmark_version": fields.benchmark_version,
        "source": {"type": fields.source_type, "url": fields.source_url},
        "evaluation_date": created[:10] if isinstance(created, str) else None,
        "coverage": entry_coverage(doc),
        "scores": _scores(
            numbers["overall"],
            numbers["stages"],
            numbers["taxonomy"],
            {t: _round(tasks.get(t)) for t in AVIBENCH.paper_tasks()} if fields.with_tasks else {},
        ),
        "submitter": fields.submitter,
        "notes": fields.notes if fields.notes is not None else default_notes(doc),
    }
    return entry
