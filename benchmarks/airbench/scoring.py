"""What AIR-Bench's eval document adds to the core's: the official blocks from the scored rows, the leaderboard
views of both profiles, and the judge's account in Chat's coverage.

The top level holds the official scorers' output in the primary profile: ``foundation`` (per
``<task_name>_<dataset_name>`` subset ``{correct, n, accuracy}`` with accuracy 0-1, ``fail_num``, ``total_sum``)
and ``chat`` (per category ``{score, reference_score, win_rate, n, judge_failures, orders}`` on the judge's 1-10
scale, ``orders`` holding each judge order's own figures, then ``mixed`` and ``average``); a part without data is
``null``. Chat is ``partial`` in ``coverage`` (eval exits 3 unless ``--allow-partial``) when a judgement gives no
scores or a judge request got no reply: its numbers then rest on fewer judgements than the answers asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from avibench.level_metrics.airbench import (
    AirBenchProfile,
    SubsetScore,
    Verdict,
    count_verdicts,
    foundation_block,
    leaderboard_view,
)
from avibench.level_metrics.airbench_chat import ChatJudgement, chat_block, score_chat

if TYPE_CHECKING:
    from avibench.kits.judged import Verdicts
    from avibench.plugin import ScoredRow

PARTS = ("foundation", "chat")


def subset(meta: Mapping[str, Any]) -> str:
    """The official scorer's key of a Foundation question: ``<task_name>_<dataset_name>``."""
    return f"{meta['task_name']}_{meta['dataset_name']}"


def _verdict(row: ScoredRow) -> Verdict:
    if row.response.status != "answered":
        return "missing"
    if row.answer is None:
        return "unparsed"
    return "correct" if row.score else "wrong"


def foundation_official(rows: Sequence[ScoredRow], profile: AirBenchProfile) -> dict[str, Any]:
    """The official Foundation block of one profile's rows (``fail_num``: the answers it cannot read)."""
    verdicts = ((subset(row.response.item.meta), _verdict(row)) for row in rows)
    return foundation_block(count_verdicts(verdicts, profile), profile)


def chat_official(rows: Sequence[ScoredRow], profile: AirBenchProfile) -> dict[str, Any]:
    """The official Chat block of one profile's rows: each answer's judgements as read, unanswered ones apart."""
    judgements, missing = [], []
    for row in rows:
        task_name = row.response.item.meta["task_name"]
        if row.answer is None:
            missing.append(task_name)
            continue
        for order, reply in row.answer["replies"].items():
            judgements.append(ChatJudgement(row.response.item.key, task_name, order, reply))
    return chat_block(score_chat(judgements, profile, missing), profile)


def leaderboard_views(official: Mapping[str, Any]) -> dict[str, Any]:
    """The leaderboard views of one profile's official blocks: Foundation per task label and category (0-100),
    Chat per category with ``mixed`` and ``average`` (1-10); a part without a block has none."""
    views: dict[str, Any] = {}
    foundation = official.get("foundation")
    if foundation is not None:
        counts = {k: SubsetScore(correct=v["correct"], n=v["n"]) for k, v in foundation["tasks"].items()}
        views["foundation"] = leaderboard_view(counts)
    chat = official.get("chat")
    if chat is not None:
        views["chat"] = {k: chat[k] for k in ("mixed", "average")} | {
            "categories": {c: v["score"] for c, v in chat["categories"].items()}
        }
    return views


def chat_coverage(
    cover: Mapping[str, Any], official: Mapping[str, Any], verdicts: Verdicts, profile: AirBenchProfile
) -> dict[str, Any]:
    """The core's Chat coverage with the judge's account: ``unparsed`` counts the answers whose judgements the
    profile cannot all read, ``judge_failures`` the judgements without scores, and a judge problem makes the
    part ``partial`` with its reason after the core's."""
    from avibench.benchmarks.airbench.judging import JUDGE
    from avibench.kits.judged import split_key

    unread = verdicts.unreadable(JUDGE.parsers[profile.name])
    failed_items = {split_key(key)[0] for key, _ in unread}
    failures = sum(c["judge_failures"] for c in official["categories"].values())
    return JUDGE.coverage(
        {**cover, "unparsed": len(failed_items), "judge_failures": failures}, verdicts, profile.name
    )
