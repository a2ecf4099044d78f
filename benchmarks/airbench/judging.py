"""Judging the Chat answers: two pairwise requests per answered item, through the shared judge runner.

Each answer is judged with the reference answer first (the official order) and with the two swapped; the clip's
``meta_info`` description stands in for the audio. A reply that is not exactly two integers of at most 10 is asked
once more and then kept as a judge failure, never scored as a number. Judge replies are journaled per (item, order)
under ``<run>/judge/chat.jsonl`` (see :mod:`avibench.evaluate.judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from avibench.evaluate.judge import JudgeJob, JudgeSettings, run_judge
from avibench.items import Response
from avibench.level_metrics.airbench_chat import ORDERS, ChatJudgement
from avibench.refine.airbench_judge import OFFICIAL_JUDGE, judge_messages, parse_judge_reply

JUDGE_TEMPLATE = "airbench/judge.txt"
DEFAULT_JUDGE_MODEL = str(OFFICIAL_JUDGE["model"])
REASKS = 1


def journal_path(run_root: Path) -> Path:
    return Path(run_root) / "judge" / "chat.jsonl"


@dataclass
class ChatJudging:
    """The verdicts of one eval: per (item, order), ``scores`` ``None`` for a failure; ``errors`` counts the jobs
    whose requests failed (asked again by the next eval); ``requests`` and ``reused`` say where replies came from."""

    judgements: list[ChatJudgement] = field(default_factory=list)
    errors: int = 0
    requests: int = 0
    reused: int = 0
    first_error: str | None = None


def _accept(reply: str) -> bool:
    return parse_judge_reply(reply) is not None


def judge_chat(responses: Sequence[Response], run_root: Path, settings: JudgeSettings) -> ChatJudging:
    """Judge every answered Chat response in both orders (from the journal where already judged)."""
    jobs, origin = [], {}
    for response in responses:
        if response.status != "answered" or response.raw is None:
            continue
        for order in ORDERS:
            job = JudgeJob(f"{response.item.key}@{order}", judge_messages(response.item, response.raw, order))
            jobs.append(job)
            origin[job.key] = (response.item, order)
    outcome = run_judge(jobs, journal_path(run_root), settings, accept=_accept, reasks=REASKS)
    judging = ChatJudging(requests=outcome.requests, reused=outcome.reused, errors=outcome.errors)
    for job in jobs:
        item, order = origin[job.key]
        reply = outcome.replies[job.key]
        if reply.error is not None and judging.first_error is None:
            judging.first_error = reply.error
        scores = parse_judge_reply(reply.reply) if reply.valid and reply.reply is not None else None
        judging.judgements.append(ChatJudgement(item.key, item.meta["task_name"], order, scores))
    return judging
