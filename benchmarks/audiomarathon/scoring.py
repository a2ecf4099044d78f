"""AudioMarathon scoring: responses to per-profile records, task blocks and the benchmark block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
