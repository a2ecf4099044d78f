"""The AIR-Bench eval document: both parts scored in both profiles from one code path.

The top level holds the official scorers' output in the primary profile: ``foundation`` (per
``<task_name>_<dataset_name>`` subset ``{correct, n, accuracy}`` with accuracy 0-1, ``fail_num``, ``total_sum``)
and ``chat`` (per category ``{score, reference_score, win_rate, n, judge_failures, orders}`` on the judge's 1-10
scale, ``orders`` holding each judge order's own figures, then ``mixed`` and ``average``); a part without data is
``null``. Chat is ``partial`` in ``coverage`` (eval exits 3 unless ``--allow-partial``) when a judgement gives no
scores or a judge request got no reply: its numbers then rest on fewer judgements than the answers asked for.

On 0-100 (``summary``): Foundation is the leaderboard average, the mean of the speech, sound and music means of
the task accuracies (the categories present, when some are not). Chat is its average judge score times 10 (the
mean of speech, sound, music and mixed, over those present). The headline is the mean of the parts scored: a
convenience for ranking runs, not a published quantity (the official leaderboards rank each part on its own).

Per question (``samples.jsonl``, 0-1 in each profile): a Foundation question is 1 or 0, ``None`` where the
profile leaves it out of the accuracy (the reference drops unparseable and missing answers); a Chat answer is the
model's judge score over both orders divided by ten, ``None`` when its judge replies failed (or, in the
reference, when it was never answered; the strict profile scores a missing answer 0).

What the profiles read: the reference applies the official letter rule to the model's raw answer; the strict
profile reads the refined answer (the strict extractor, then the LLM fallback) where refine resolved one, else
the raw answer through the strict extractor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from avibench.benchmarks.airbench.judging import ChatJudging
from avibench.benchmarks.airbench.results import foundation_record
from avibench.items import Response
from avibench.level_metrics.airbench import (
    LETTERS,
    PROFILES,
    TASKS_BY_NAME,
    AirBenchProfile,
    foundation_block,
    gold_index,
    question_score,
    score_foundation,
    summarize,
    task_accuracy,
)
from avibench.level_metrics.airbench_chat import answer_scores, chat_block, parse_judge_reply, score_chat

PARTS = ("foundation", "chat")
#: The share of judge failures above which the coverage reason quotes what the judge replied.
SMALL_FAILURE_SHARE = 0.05
QUOTED_REPLIES = 3
QUOTE_CHARS = 80
MIXED = ("speech_and_sound", "speech_and_music")


@dataclass
class EvalInputs:
    """What one eval scores: responses of the parts present, the Chat verdicts, and why a part is not scored."""

    responses: dict[str, list[Response]] = field(default_factory=dict)
    judging: ChatJudging | None = None
    absent: dict[str, str] = field(default_factory=dict)
    """Part -> why it has nothing to score (no data, no journal, not in the predictions)."""
    unjudged: str | None = None
    """Why Chat answers could not be judged (no API key), when they could not."""


def scored_text(response: Response, profile: AirBenchProfile) -> str | None:
    """The Foundation answer a profile scores (``None``: no answer); see the module docstring."""
    if response.status != "answered":
        return None
    if profile.first_or_penultimate or response.refined is None:
        return response.raw
    return LETTERS[gold_index(response.item.options, response.refined)]


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def _percent(value: float | None, scale: float) -> float | None:
    return None if value is None else value * scale


def _foundation(responses: Sequence[Response], profile: AirBenchProfile) -> tuple[dict, dict, float | None]:
    """The official block, the leaderboard view on 0-100 and the part's 0-100 score."""
    scores = score_foundation(
        (foundation_record(r.item, scored_text(r, profile)) for r in responses), profile
    )
    view = summarize(task_accuracy(scores))
    tasks = {TASKS_BY_NAME[k].label: 100 * v for k, v in view["tasks"].items()}
    categories = {k: _percent(v, 100) for k, v in view["categories"].items()}
    score = _mean(list(view["categories"].values()))
    return foundation_block(scores, profile), {"tasks": tasks, "categories": categories}, _percent(score, 100)


def _chat(
    responses: Sequence[Response], judging: ChatJudging, profile: AirBenchProfile
) -> tuple[dict, float | None]:
    """The official block and the part's 0-100 score (ten times the average judge score)."""
    missing = [r.item.meta["task_name"] for r in responses if r.status != "answered"]
    block = chat_block(score_chat(judging.judgements, profile, missing), profile)
    categories = block["categories"]
    mixed = _mean([categories[c]["score"] for c in MIXED])
    pillars = [categories[c]["score"] for c in ("speech", "sound", "music")] + [mixed]
    return block, _percent(_mean(pillars), 10)


def _profile_view(inputs: EvalInputs, profile: AirBenchProfile) -> tuple[dict[str, Any], dict[str, Any]]:
    """The top-level blocks and the summary of one profile."""
    blocks: dict[str, Any] = dict.fromkeys(PARTS)
    summary: dict[str, Any] = {"tasks": dict.fromkeys(PARTS)}
    foundation = inputs.responses.get("foundation")
    if foundation is not None:
        blocks["foundation"], summary["foundation"], summary["tasks"]["foundation"] = _foundation(
            foundation, profile
        )
    chat = inputs.responses.get("chat")
    if chat is not None and inputs.judging is not None:
        blocks["chat"], summary["tasks"]["chat"] = _chat(chat, inputs.judging, profile)
        summary["chat"] = {k: blocks["chat"][k] for k in ("mixed", "average")} | {
            "categories": {c: v["score"] for c, v in blocks["chat"]["categories"].items()}
        }
    summary["headline"] = _mean(list(summary["tasks"].values()))
    return blocks, summary


def _counts(responses: Sequence[Response]) -> dict[str, int]:
    return {
        "questions": len(responses),
        "answered": sum(r.status == "answered" for r in responses),
        "failed": sum(r.status == "failed" for r in responses),
        "missing": sum(r.status == "missing" for r in responses),
    }


def _status(counts: Mapping[str, int], problem: str | None) -> tuple[str, str | None]:
    reasons = [] if problem is None else [problem]
    if counts["answered"] != counts["questions"]:
        reasons.insert(0, f"{counts['failed']} failed, {counts['missing']} never asked")
    return ("partial", "; ".join(reasons)) if reasons else ("scored", None)


def _judge_problem(judging: ChatJudging, profile: AirBenchProfile) -> str | None:
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


def _coverage(inputs: EvalInputs, blocks: Mapping[str, Any], profile: AirBenchProfile) -> dict[str, Any]:
    coverage: dict[str, Any] = {}
    for part in PARTS:
        responses = inputs.responses.get(part)
        if responses is None:
            coverage[part] = {"status": "absent", "reason": inputs.absent.get(part, "not selected")}
            continue
        counts = _counts(responses)
        if part == "foundation":
            block = blocks["foundation"]
            entry = {**counts, "unparsed": block["fail_num"], "scored": block["total_sum"]}
            coverage[part] = {**entry, **dict(zip(("status", "reason"), _status(counts, None), strict=True))}
            continue
        if blocks["chat"] is None:
            coverage[part] = {**counts, "status": "not scored", "reason": inputs.unjudged}
            continue
        judging = inputs.judging
        assert judging is not None
        failed_items = {j.item_id for j in judging.judgements if j.model_and_reference(profile) is None}
        categories = blocks["chat"]["categories"].values()
        coverage[part] = {
            **counts,
            "unparsed": len(failed_items),
            "scored": sum(c["n"] for c in categories),
            "judge_failures": sum(c["judge_failures"] for c in categories),
            **dict(zip(("status", "reason"), _status(counts, _judge_problem(judging, profile)), strict=True)),
        }
    return coverage


def build_document(inputs: EvalInputs, primary: str) -> dict[str, Any]:
    """The eval document (without ``meta``): the primary profile's blocks on top, both profiles in ``summary``."""
    views = {name: _profile_view(inputs, profile) for name, profile in PROFILES.items()}
    blocks, summary = views[primary]
    document: dict[str, Any] = dict(blocks)
    document["summary"] = {
        "profile": primary,
        "tasks": summary["tasks"],
        "headline": summary["headline"],
        "by_profile": {name: view[1] for name, view in views.items()},
    }
    document["coverage"] = _coverage(inputs, blocks, PROFILES[primary])
    return document


def per_sample(inputs: EvalInputs) -> dict[str, dict[str, dict[str, float | None]]]:
    """Every question's score in every profile: part -> item key -> profile -> 0-1 or ``None`` (not scored)."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    foundation = inputs.responses.get("foundation")
    if foundation is not None:
        out["foundation"] = {
            r.item.key: {
                name: question_score(foundation_record(r.item, scored_text(r, p)), p)
                for name, p in PROFILES.items()
            }
            for r in foundation
        }
    chat = inputs.responses.get("chat")
    if chat is not None and inputs.judging is not None:
        missing = [r.item.key for r in chat if r.status != "answered"]
        scores = {name: answer_scores(inputs.judging.judgements, p, missing) for name, p in PROFILES.items()}
        out["chat"] = {r.item.key: {name: scores[name].get(r.item.key) for name in PROFILES} for r in chat}
    return out
