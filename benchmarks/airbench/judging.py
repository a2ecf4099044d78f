"""Judging the Chat answers: two pairwise requests per answered item, through the shared judge runner.

Each answer is judged with the reference answer first (the official order) and with the two swapped; the clip's
``meta_info`` description stands in for the audio. An answer is judged whatever it holds, blank included: only
a question without an answer (a null ``response``) is not, as in the official script. A judge reply, whatever it
is (an empty one included), is a judgement on record: it is never asked again, and one that gives no scores is a
judge failure, never scored as a number. Only a request that got no reply at all is asked again by the next eval.
Judge replies are journaled per (item, order) under ``<run>/judge/chat.jsonl`` (see
:mod:`avibench.evaluate.judge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.options import OFFICIAL_JUDGE
from avibench.evaluate.judge import JudgeJob, JudgeSettings, run_judge
from avibench.items import Response
from avibench.level_metrics.airbench import REFERENCE
from avibench.level_metrics.airbench_chat import ORDERS, ChatJudgement, JudgeOrder, parse_judge_reply
from avibench.refine.airbench_judge import (
    TEMPLATE_FILE,
    JudgeTemplate,
    default_judge_template,
    judge_messages,
)

DEFAULT_JUDGE_MODEL = str(OFFICIAL_JUDGE["model"])
#: The official judge's temperature, the default here too (``--judge-temperature`` overrides it).
DEFAULT_JUDGE_TEMPERATURE = float(str(OFFICIAL_JUDGE["temperature"]))
#: A reply that gives no scores is not asked again: the official script keeps the first reply it gets.
REASKS = 0


def journal_path(run_root: Path) -> Path:
    return Path(run_root) / "judge" / "chat.jsonl"


@dataclass
class ChatJudging:
    """The verdicts of one eval, per (item, order); ``errors`` counts the jobs whose requests got no reply
    (asked again by the next eval); ``requests`` and ``reused`` say where replies came from."""

    judgements: list[ChatJudgement] = field(default_factory=list)
    errors: int = 0
    requests: int = 0
    reused: int = 0
    first_error: str | None = None


def _accept(reply: str) -> bool:
    """Whether the reference parser reads the reply (recorded as ``valid`` in the journal; nothing is re-asked)."""
    return parse_judge_reply(reply, REFERENCE) is not None


def judge_chat(
    responses: Sequence[Response], run_root: Path, settings: JudgeSettings, template: JudgeTemplate
) -> ChatJudging:
    """Judge every answered Chat response in both orders (from the journal where already judged)."""
    jobs, origin = [], {}
    for response in responses:
        if response.status != "answered" or response.raw is None:
            continue
        for order in ORDERS:
            messages = judge_messages(response.item, response.raw, order, template)
            job = JudgeJob(f"{response.item.key}@{order}", messages)
            jobs.append(job)
            origin[job.key] = (response.item, order)
    outcome = run_judge(jobs, journal_path(run_root), settings, accept=_accept, reasks=REASKS)
    judging = ChatJudging(requests=outcome.requests, reused=outcome.reused, errors=outcome.errors)
    for job in jobs:
        item, order = origin[job.key]
        reply = outcome.replies[job.key]
        if reply.error is not None and judging.first_error is None:
            judging.first_error = reply.error
        judging.judgements.append(ChatJudgement(item.key, item.meta["task_name"], order, reply.reply))
    return judging


def replies_by_key(judging: ChatJudging | None) -> dict[str, dict[JudgeOrder, str | None]]:
    """Each judged answer's replies by order (``None``: the request got no reply), keyed by item key."""
    out: dict[str, dict[JudgeOrder, str | None]] = {}
    for judgement in judging.judgements if judging is not None else ():
        out.setdefault(judgement.item_id, {})[judgement.order] = judgement.reply
    return out


def judge_settings(options: Mapping[str, Any]) -> JudgeSettings:
    """The judge of one eval: the official temperature unless ``--judge-temperature`` says otherwise, and an
    empty reply kept at once, as the official script keeps it."""
    temperature = options.get("judge_temperature")
    settings = JudgeSettings.from_options(options, DEFAULT_JUDGE_MODEL)
    return replace(
        settings,
        temperature=DEFAULT_JUDGE_TEMPERATURE if temperature is None else float(temperature),
        retry=replace(settings.retry, empty_retries=0),
    )


def judge_departures(settings: JudgeSettings, template_id: str) -> list[str]:
    """How a run's judge differs from the official one (empty: the official settings). The official script's
    temperature 2.0 for a random half of its requests is never reproduced, so it is not listed."""
    found = []
    if template_id != default_judge_template():
        found.append(f"template {template_id}")
    for name, value in (
        ("model", settings.model),
        ("temperature", settings.temperature),
        ("max_tokens", settings.max_tokens),
    ):
        if value != OFFICIAL_JUDGE[name]:
            found.append(f"{name} {value} (official {OFFICIAL_JUDGE[name]})")
    return found


def judge_meta(
    settings: JudgeSettings, template: JudgeTemplate, judging: ChatJudging | None
) -> dict[str, Any]:
    """eval.json ``meta.judge``: the judge's settings, how they depart from the official ones, and where the
    replies came from."""
    return {
        "model": settings.model,
        "template": template.id,
        "template_sha256": template.sha256,
        "template_file": f"prompts/airbench/{TEMPLATE_FILE}",
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "orders": list(ORDERS),
        "departures": judge_departures(settings, template.id),
        "requests_sent": judging.requests if judging else 0,
        "replies_reused": judging.reused if judging else 0,
    }
