"""AVI-Bench's official leaderboard file: schema v2 entries of runs and of the published results, and their
validation.

Validation reports every broken rule at once, each as ``<field path>: <rule>``, instead of stopping at the
first, so a submitter can fix an entry in one go. The rules are those of the official leaderboard file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
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
PAPER = published_table("avibench")
"""The paper's Tables 3 and 5, one row per model; the models of the official leaderboard file carry its facts."""
BENCHMARK_VERSION: str = PAPER.facts["benchmark_version"]
SOURCE_TYPES = ("maintainer", "paper", "participant")
SCORE_KEYS = ("overall", "stages", "taxonomy", "tasks")
ID_PATTERN = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9._-]{1,99}")
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
NOTES_MAX = 1000
TASKS_TOTAL = len(AVIBENCH.paper_tasks())


# --------------------------------------------------------------------------------------------------------------
# Validation: the schema as rules, each giving the problems of a value at a path


Rule = Callable[[object, str], Iterator[str]]
"""The problems of a value at a path, each ``<path>: <what is wrong>`` (a field that is not there is null)."""


def _is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _text(value: object, path: str) -> Iterator[str]:
    if not _is_text(value):
        yield f"{path}: must be a non-empty string"


def _slug(value: object, path: str) -> Iterator[str]:
    yield from _text(value, path)
    if isinstance(value, str) and _is_text(value) and not ID_PATTERN.fullmatch(value.strip()):
        yield f"{path}: must be a 2–100 character slug matching {ID_PATTERN.pattern} (got {value!r})"


def _https(value: object, path: str) -> Iterator[str]:
    yield from _text(value, path)
    if isinstance(value, str) and _is_text(value):
        parsed = urlparse(value.strip())
        if parsed.scheme != "https" or not parsed.netloc:
            yield f"{path}: must be an https:// URL (got {value!r})"


def _date(*, nullable: bool) -> Rule:
    rule = "must be a real calendar date written YYYY-MM-DD" + (" or null" if nullable else "")

    def check(value: object, path: str) -> Iterator[str]:
        if value is None and nullable:
            return
        if not isinstance(value, str) or not DATE_PATTERN.fullmatch(value):
            yield f"{path}: {rule} (got {value!r})"
            return
        try:
            date.fromisoformat(value)
        except ValueError:
            yield f"{path}: {rule} (got {value!r}, not a calendar date)"

    return check


def _one_of(*allowed: object) -> Rule:
    def check(value: object, path: str) -> Iterator[str]:
        if value not in allowed:
            yield f"{path}: must be one of {', '.join(map(repr, allowed))} (got {value!r})"

    return check


def _count(*, nullable: bool) -> Rule:
    def check(value: object, path: str) -> Iterator[str]:
        if not (_is_count(value) or (nullable and value is None)):
            yield (
                f"{path}: must be a non-negative integer"
                + (" or null" if nullable else "")
                + f" (got {value!r})"
            )

    return check


def _optional_text(limit: int | None = None) -> Rule:
    def check(value: object, path: str) -> Iterator[str]:
        if value is not None and not isinstance(value, str):
            yield f"{path}: must be a string or null"
        elif limit is not None and value is not None and len(value) > limit:
            yield f"{path}: must be at most {limit} characters (got {len(value)})"

    return check


def _score_tree(value: object, path: str) -> Iterator[str]:
    """Every leaf of the scores object is a finite number in [0, 100] or null; names are non-empty."""
    if isinstance(value, dict):
        for key, child in value.items():
            if not _is_text(key):
                yield f"{path}: contains an empty metric name"
            else:
                yield from _score_tree(child, f"{path}.{key}")
    elif value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        yield f"{path}: must be a number or null (got {value!r})"
    elif value is not None and (not math.isfinite(value) or not 0 <= value <= 100):
        yield f"{path}: must be between 0 and 100 (got {value!r})"


def _object(rules: Mapping[str, Rule], *, exact: bool = False, unsupported: str = "fields") -> Rule:
    """An object whose fields follow ``rules``; ``exact``: it must hold every one of them (else: it may hold no
    other field, named as ``unsupported``)."""
    names = ", ".join(rules)

    def check(value: object, path: str) -> Iterator[str]:
        if not isinstance(value, dict):
            yield f"{path}: must be an object with {'exactly ' if exact else ''}{names}"
            return
        if exact and set(value) != set(rules):
            yield f"{path}: must have exactly {names} (got {', '.join(map(str, value))})"
        elif extra := sorted(map(str, set(value) - set(rules))):
            yield f"{path}: unsupported {unsupported} {', '.join(extra)} (allowed: {', '.join(sorted(rules))})"
        for name, rule in rules.items():
            yield from rule(value.get(name), f"{path}.{name}")

    return check


def _coverage(value: object, path: str) -> Iterator[str]:
    """The fields, then how the counts and the status agree (when the counts are valid)."""
    fields = {
        "status": _one_of("full", "partial"),
        "tasks_completed": _count(nullable=False),
        "tasks_total": _count(nullable=False),
        "samples_completed": _count(nullable=True),
        "samples_total": _count(nullable=True),
    }
    found = list(_object(fields)(value, path))
    yield from found
    if not isinstance(value, dict):
        return
    broken = {problem.split(":")[0].removeprefix(f"{path}.") for problem in found}
    tasks_ok = not broken & {"tasks_completed", "tasks_total"}
    samples_ok = not broken & {"samples_completed", "samples_total"}
    status, done, total = value.get("status"), value.get("tasks_completed"), value.get("tasks_total")
    s_done, s_total = value.get("samples_completed"), value.get("samples_total")
    if tasks_ok and total == 0:
        yield f"{path}.tasks_total: must be greater than 0"
    if tasks_ok and done > total:
        yield f"{path}.tasks_completed: must not exceed tasks_total ({done} > {total})"
    if tasks_ok and status == "full" and done != total:
        yield f"{path}.status: 'full' requires tasks_completed == tasks_total ({done} != {total})"
    if samples_ok and (s_done is None) != (s_total is None):
        yield f"{path}.samples_completed: samples_completed and samples_total must both be integers or both null"
        samples_ok = False
    if samples_ok and s_done is not None and s_done > s_total:
        yield f"{path}.samples_completed: must not exceed samples_total ({s_done} > {s_total})"
    if samples_ok and s_done is not None and status == "full" and s_done != s_total:
        yield f"{path}.status: 'full' requires samples_completed == samples_total ({s_done} != {s_total})"
    if tasks_ok and samples_ok and status == "partial" and done == total and s_done == s_total:
        yield f"{path}.status: 'partial' with every task completed requires incomplete sample counts"


ENTRY = _object(
    {
        "id": _slug,
        "model_name": _text,
        "provider": _text,
        "model_id": _text,
        "model_release_date": _date(nullable=False),
        "model_release_source_url": _https,
        "benchmark_version": _text,
        "source": _object({"type": _one_of(*SOURCE_TYPES), "url": _https}, exact=True),
        "evaluation_date": _date(nullable=True),
        "coverage": _coverage,
        "scores": _object(dict.fromkeys(SCORE_KEYS, _score_tree), unsupported="keys"),
        "submitter": _optional_text(),
        "notes": _optional_text(NOTES_MAX),
    }
)
"""A schema v2 entry: its fields in the official order, each with its rule."""


def _schema_version(value: object, path: str) -> Iterator[str]:
    if type(value) is not int or value != SCHEMA_VERSION:
        yield f"{path}: must be the integer {SCHEMA_VERSION} (got {value!r})"


def _array(value: object, path: str) -> Iterator[str]:
    if not isinstance(value, list):
        yield f"{path}: must be an array"


RESULTS = _object(
    {"schema_version": _schema_version, "chart_benchmark_version": _text, "entries": _array}, exact=True
)


def validate_entry(entry: object, path: str = "entry") -> list[str]:
    """Every schema v2 rule ``entry`` breaks, as ``<field path>: <rule>``; empty when the entry is valid."""
    return list(ENTRY(entry, path))


def validate_results(doc: object) -> list[str]:
    """Every rule a whole leaderboard file breaks (root shape, each entry, unique ids, chart version)."""
    errors = list(RESULTS(doc, "root"))
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        return errors
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        errors += validate_entry(entry, f"entries[{i}]")
        entry_id = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(entry_id, str) and entry_id in seen:
            errors.append(f"entries[{i}].id: duplicate id {entry_id!r} (also entries[{seen[entry_id]}])")
        elif isinstance(entry_id, str):
            seen[entry_id] = i
    versions = {e.get("benchmark_version") for e in entries if isinstance(e, dict)}
    if entries and doc["chart_benchmark_version"] not in versions:
        errors.append(
            "root.chart_benchmark_version: must equal the benchmark_version of some entry "
            f"(got {doc['chart_benchmark_version']!r})"
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
        "stages": {k: _round(stages.get(k)) for k in STAGE_NAMES},
        "taxonomy": {k: _round(taxonomy.get(k)) for k in TAXONOMY_KEYS},
        "tasks": tasks,
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
