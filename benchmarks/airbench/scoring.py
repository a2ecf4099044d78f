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

from collections import Counter
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
from avibench.level_metrics.airbench_chat import ChatJudgement, chat_block, parse_judge_reply, score_chat

if TYPE_CHECKING:
    from avibench.benchmarks.airbench.judging import ChatJudging
    from avibench.plugin import ScoredRow

PARTS = ("foundation", "chat")
#: The share of judge failures above which the coverage reason quotes what the judge replied.
SMALL_FAILURE_SHARE = 0.05
QUOTED_REPLIES = 3
QUOTE_CHARS = 80


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


def judge_problem(judging: ChatJudging, profile: AirBenchProfile) -> str | None:
    """Why the Chat numbers rest on fewer judgements than were asked for, or ``None`` when every one gave scores.

    Requests that got no reply are named with their first error; replies that give no scores are counted, and
    when they are more than :data:`SMALL_FAILURE_SHARE` of the judgements the most frequent ones are quoted."""
    problems = []
    if judging.errors:
        problems.append(
            f"{judging.errors} judge requests failed ({judging.first_error}); re-run eval to retry them"
        )
    replies = [j.reply for j in judging.judgements if j.reply is not None]
    unread = [r for r in replies if parse_judge_reply(r, profile) is None]
    if unread:
        text = (
            f"{len(unread)} of {len(judging.judgements)} judge replies give no scores ({profile.name} parser)"
        )
        if len(unread) > SMALL_FAILURE_SHARE * len(judging.judgements):
            common = Counter(unread).most_common(QUOTED_REPLIES)
            quoted = ", ".join(f"{_quote(reply)} x{n}" for reply, n in common)
            text += f"; the judge replied {quoted}"
        problems.append(text)
    return "; ".join(problems) or None


def _quote(reply: str) -> str:
    shown = repr(reply)
    return shown if len(shown) <= QUOTE_CHARS else shown[: QUOTE_CHARS - 3] + "..."


def chat_coverage(
    cover: Mapping[str, Any], official: Mapping[str, Any], judging: ChatJudging, profile: AirBenchProfile
) -> dict[str, Any]:
    """The core's Chat coverage with the judge's account: ``unparsed`` counts the answers whose judgements the
    profile cannot all read, ``judge_failures`` the judgements without scores, and a judge problem makes the
    part ``partial`` with its reason after the core's."""
    failed_items = {j.item_id for j in judging.judgements if j.model_and_reference(profile) is None}
    failures = sum(c["judge_failures"] for c in official["categories"].values())
    out = {**cover, "unparsed": len(failed_items), "judge_failures": failures}
    problem = judge_problem(judging, profile)
    if problem is not None:
        reasons = [cover["reason"]] if cover["status"] == "partial" and cover.get("reason") else []
        out |= {"status": "partial", "reason": "; ".join([*reasons, problem])}
    return out
