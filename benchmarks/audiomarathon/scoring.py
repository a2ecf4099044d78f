"""AudioMarathon scoring: responses to per-profile records, task blocks and the benchmark block."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from avibench.items import Item, Response
from avibench.level_metrics.audiomarathon import (
    REFERENCE,
    MarathonProfile,
    Record,
    benchmark_block,
    chance_level,
    get_profile,
    score_task,
    task_score,
    utterance_wer,
)
from avibench.refine.audiomarathon import official_extract, strict_extract

DROPPED_ON_ERROR = ("SCR", "ASR")
"""Tasks whose script skips a sample whose request failed; the others keep it with an empty prediction."""


def extract(item: Item, raw: str | None, profile: MarathonProfile) -> str | None:
    """The prediction the profile reads from ``raw``: the task's official one, or the strict one."""
    if profile.official_extraction:
        return official_extract(item.task, raw or "", item.options)
    return strict_extract(item.task, raw, item.options)


def to_record(response: Response, profile: str | MarathonProfile = REFERENCE) -> Record | None:
    """The record ``response`` contributes under ``profile``, or ``None`` when the profile leaves it out.

    Strict reads the refine stage's answer when refine ran (``method`` set) and extracts from the raw reply itself
    otherwise; the reference always re-extracts from the raw reply as the scripts do."""
    profile = get_profile(profile)
    item = response.item
    if response.status == "answered":
        if not profile.official_extraction and response.method is not None:
            pred = response.refined
        else:
            pred = extract(item, response.raw, profile)
    elif not profile.skip_unanswered:
        pred = None
    elif response.status == "missing" or item.task in DROPPED_ON_ERROR:
        return None
    else:
        pred = ""
    return Record(
        answer=str(item.answer),
        gold=str(item.meta["gold"]),
        pred=pred,
        options=item.options,
        group=str(item.meta.get("group", "")),
    )


def records(responses: Sequence[Response], profile: str | MarathonProfile = REFERENCE) -> list[Record]:
    """The records of ``responses`` that the profile scores."""
    out = (to_record(r, profile) for r in responses)
    return [r for r in out if r is not None]


def record_value(record: Record | None) -> dict[str, Any] | None:
    """A record as the JSON value samples.jsonl keeps for the task metric (``None``: left out)."""
    return None if record is None else {**asdict(record), "options": list(record.options)}


def task_metric(task: str, profile: str) -> Callable[[Sequence[Any]], float | None]:
    """The task's official score recomputed from record values (for intervals and comparisons)."""

    def metric(values: Sequence[Any]) -> float | None:
        found = [Record(**{**v, "options": tuple(v["options"])}) for v in values]
        return task_score(task, found, profile) if found else None

    return metric


def sample_score(task: str, record: Record | None) -> float | None:
    """One question's own score for the pages: right or wrong (ASR: 1 - its WER, floored at 0)."""
    if record is None:
        return None
    if task == "ASR":
        return max(0.0, 1.0 - utterance_wer(record.gold, record.pred or "") / 100.0)
    return float(record.pred is not None and record.pred == record.answer)


def per_question(
    responses: Mapping[str, Sequence[Response]],
) -> tuple[dict[str, dict[str, dict[str, float | None]]], dict[str, dict[str, dict[str, Any]]]]:
    """Per task, key and profile: each question's score and the record value its task metric takes."""
    scores: dict[str, dict[str, dict[str, float | None]]] = {}
    values: dict[str, dict[str, dict[str, Any]]] = {}
    for task, rs in responses.items():
        for response in rs:
            key = response.item.key
            for profile in ("reference", "strict"):
                record = to_record(response, profile)
                scores.setdefault(task, {}).setdefault(key, {})[profile] = sample_score(task, record)
                values.setdefault(task, {}).setdefault(key, {})[profile] = record_value(record)
    return scores, values


def score_responses(
    task: str, responses: Sequence[Response], profile: str | MarathonProfile = REFERENCE
) -> dict[str, Any]:
    """The block of one task."""
    return score_task(task, records(responses, profile), profile)


def score_benchmark(
    responses: Mapping[str, Sequence[Response]], profile: str | MarathonProfile = REFERENCE
) -> dict[str, Any]:
    """Per task key its block, plus ``average`` (the mean of the task scores) and ``complete``."""
    return benchmark_block({task: score_responses(task, rs, profile) for task, rs in responses.items()})


def chance_levels(
    items: Mapping[str, Sequence[Item]], profile: str | MarathonProfile = REFERENCE
) -> dict[str, float]:
    """Per task, the score of a uniform random guess among each question's options (large-sample limit)."""
    out = {}
    for task, task_items in items.items():
        recs = [
            Record(str(i.answer), str(i.meta["gold"]), None, i.options, str(i.meta.get("group", "")))
            for i in task_items
        ]
        out[task] = chance_level(task, recs, profile)
    return out


# ---- the eval document -----------------------------------------------------------------------------------------


def _unparsed(response: Response) -> bool:
    """An answer the strict extractor (or the refine stage, where it ran) could not read."""
    if response.status != "answered":
        return False
    if response.method is not None:
        return response.refined is None
    return extract(response.item, response.raw, get_profile("strict")) is None


def _coverage(task: str, responses: Sequence[Response], block: Mapping[str, Any]) -> dict[str, Any]:
    counts = {
        "questions": len(responses),
        "answered": sum(r.status == "answered" for r in responses),
        "failed": sum(r.status == "failed" for r in responses),
        "missing": sum(r.status == "missing" for r in responses),
        "unparsed": sum(_unparsed(r) for r in responses),
        "scored": block["valid"],
    }
    complete = counts["answered"] == counts["questions"]
    reason = None if complete else f"{counts['failed']} failed, {counts['missing']} never asked"
    return {**counts, "status": "scored" if complete else "partial", "reason": reason}


def build_document(
    responses: Mapping[str, Sequence[Response]],
    tasks: Sequence[str],
    primary: str,
    absent: Mapping[str, str],
) -> dict[str, Any]:
    """The eval document (without ``meta``).

    The top level is the primary profile's benchmark block (per task key its block with the official sub-fields,
    ``average`` and ``complete``); ``summary`` holds the task scores (0-100, the leaderboard scale), the headline
    (the average), each task's chance level and both profiles; ``coverage`` the counts behind each task's score,
    and why a selected task was not scored (``absent``: task -> reason)."""
    present = {t: responses[t] for t in tasks if t in responses}
    blocks = {name: score_benchmark(present, name) for name in ("reference", "strict")}
    views = {}
    for name, block in blocks.items():
        chance = chance_levels({t: [r.item for r in rs] for t, rs in present.items()}, name)
        views[name] = {
            "tasks": {t: block[t]["score"] if t in block else None for t in tasks},
            "headline": block["average"] if present else None,
            "complete": block["complete"],
            "chance": chance,
        }
    document: dict[str, Any] = {**blocks[primary]}
    if not present:
        document["average"] = None
    document["summary"] = {
        "profile": primary,
        "tasks": views[primary]["tasks"],
        "headline": views[primary]["headline"],
        "chance": views[primary]["chance"],
        "by_profile": views,
    }
    coverage = {t: _coverage(t, present[t], blocks[primary][t]) for t in present}
    coverage.update(
        {t: {"status": "absent", "reason": absent.get(t, "not scored")} for t in tasks if t not in present}
    )
    document["coverage"] = {t: coverage[t] for t in tasks}
    return document
