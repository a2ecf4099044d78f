"""AIR-Bench Chat scoring: judge replies parsed and pairwise judge scores aggregated per category. Pure.

Every answer is judged twice against the reference answer, once with the reference as the first assistant (the
official order) and once swapped (the official README asks for the swap). Each order is what one run of the
official ``cal_score.py`` reports: per category the parsed replies (``n``), the model's and the reference's mean
score and the share of replies where the model scored strictly higher (``win_rate``). A category's score,
reference score and win rate are the means of the two orders' values (the README: "the final score is the
average of the model prediction scores" of both runs). Mixed audio is the mean of the two mixed categories, and
the Chat average the mean of speech, sound, music and mixed.

A Chat value (what :func:`judged_score` and :func:`chat_block` read) is one question's ``{"task_name",
"replies"}``: its judge replies by order (a ``None`` reply: the request got none), or ``None`` replies for a
question without an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any, Literal

from avibench.level_metrics.airbench import OFFICIAL_LAYOUT, REFERENCE, AirBenchProfile
from avibench.level_metrics.task_metrics import tallied

JudgeOrder = Literal["reference_first", "model_first"]
ORDERS: tuple[JudgeOrder, ...] = ("reference_first", "model_first")
#: The top of the judge's score scale (scores divided by it give 0-1); a parsed score above it is a judge failure.
JUDGE_SCALE = 10
#: The bottom of the scale the judge is asked for (the strict profile's parser rejects scores below it).
JUDGE_MIN = 1

CHAT_CATEGORY_OF_TASK: dict[str, str] = OFFICIAL_LAYOUT["chat"]
CHAT_CATEGORIES = ("speech", "sound", "music", "speech_and_sound", "speech_and_music")
MIXED = ("speech_and_sound", "speech_and_music")
Pairs = dict[str, tuple[int, int]]
"""One answer's parsed judgements: (model, reference) scores by order."""


def parse_judge_reply(reply: str, profile: AirBenchProfile = REFERENCE) -> tuple[int, int] | None:
    """The two scores of a judge reply (first assistant, second assistant), or ``None`` for a judge failure.

    The reply is stripped, its newlines removed and split on single spaces, which must give exactly two tokens.
    How a token is read is the profile's ``judge_reply_as_int`` switch (see :class:`AirBenchProfile`): the
    reference reads it as Python's ``int()`` does, the strict profile wants ASCII digits within 1-10.
    """
    tokens = reply.strip().replace("\n", "").split(" ")
    if len(tokens) != 2:
        return None
    if profile.judge_reply_as_int:
        try:
            first, second = int(tokens[0]), int(tokens[1])
        except ValueError:
            return None
        return None if first > JUDGE_SCALE or second > JUDGE_SCALE else (first, second)
    if not all(t.isascii() and t.isdigit() for t in tokens):
        return None
    first, second = int(tokens[0]), int(tokens[1])
    if not (JUDGE_MIN <= first <= JUDGE_SCALE and JUDGE_MIN <= second <= JUDGE_SCALE):
        return None
    return first, second


def parsed_pairs(replies: Mapping[str, str | None], profile: AirBenchProfile = REFERENCE) -> Pairs:
    """The replies the profile's parser reads, each as (model, reference) by order; any reply, the empty one
    included, is a judgement on record, and one that gives no scores (or a request without a reply) is left out
    as a judge failure."""
    pairs = {}
    for order, reply in replies.items():
        scores = None if reply is None else parse_judge_reply(reply, profile)
        if scores is not None:
            pairs[order] = scores[::-1] if order == "reference_first" else scores
    return pairs


def chat_category(task_name: str) -> str:
    try:
        return CHAT_CATEGORY_OF_TASK[task_name]
    except KeyError:
        raise ValueError(f"{task_name!r} is not an AIR-Bench Chat task") from None


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def _mean_or_none(values: Iterable[float | None]) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else fmean(values)


def _order_row(judged: list[tuple[int, int]]) -> dict[str, Any]:
    """One order of one category over its own parsed replies, as one run of ``cal_score.py`` prints it: ``n``
    parsed replies (its ``Sum``), the model's and the reference's mean score and the model's win rate."""
    return {
        "n": len(judged),
        "score": _mean([m for m, _ in judged]),
        "reference_score": _mean([r for _, r in judged]),
        "win_rate": _mean([float(m > r) for m, r in judged]),
    }


def _category_row(values: list[Mapping[str, Any]], profile: AirBenchProfile) -> dict:
    """One category's row from its Chat values: scores on the judge's 1-10 scale, ``win_rate`` 0-1 (``None``
    when nothing was scored).

    Reference: the two orders' means averaged (an order with no parsed reply is left out). Strict: an item counts
    when both orders parsed, as the mean of the two, and a missing answer scores 0 (``n`` counts it)."""
    answered = [v["replies"] for v in values if v["replies"] is not None]
    pairs = [parsed_pairs(replies, profile) for replies in answered]
    counted_missing = (len(values) - len(answered)) if profile.missing_counts_as_wrong else 0
    orders = {o: _order_row([p[o] for p in pairs if o in p]) for o in ORDERS}
    if profile.judge_orders_per_item:
        complete = [p for p in pairs if len(p) == len(ORDERS)]
        model = [fmean(p[o][0] for o in ORDERS) for p in complete] + [0.0] * counted_missing
        win = _mean(
            [fmean(float(p[o][0] > p[o][1]) for o in ORDERS) for p in complete] + [0.0] * counted_missing
        )
        score, reference = _mean(model), _mean([fmean(p[o][1] for o in ORDERS) for p in complete])
    else:
        score, reference, win = (
            _mean([v for o in orders.values() if (v := o[key]) is not None])
            for key in ("score", "reference_score", "win_rate")
        )
    row = {"score": score, "reference_score": reference, "win_rate": win}
    row["n"] = sum(bool(replies) for replies in answered) + counted_missing
    row["judge_failures"] = sum(len(replies) - len(p) for replies, p in zip(answered, pairs, strict=True))
    row["orders"] = orders
    return row | ({"missing": len(values) - len(answered)} if profile.missing_counts_as_wrong else {})


def category_rows(
    values: Iterable[Mapping[str, Any]], profile: AirBenchProfile = REFERENCE
) -> dict[str, dict]:
    """Per category ``{score, reference_score, win_rate, n, judge_failures, orders}`` (``orders``: per order
    ``{n, score, reference_score, win_rate}``) from the Chat values; the strict profile adds ``missing``
    (unanswered items, scored 0). ``n`` counts the answers sent to the judge (plus, when missing answers count,
    the unanswered ones); ``judge_failures`` the judgements without scores over both orders."""
    groups: dict[str, list[Mapping[str, Any]]] = {c: [] for c in CHAT_CATEGORIES}
    for value in values:
        groups[chat_category(value["task_name"])].append(value)
    return {c: _category_row(group, profile) for c, group in groups.items()}


def chat_block(values: Iterable[Mapping[str, Any]], profile: AirBenchProfile = REFERENCE) -> dict:
    """The Chat score block: :func:`category_rows`, ``mixed`` and ``average`` (``None`` unless every category
    they average was scored)."""
    categories = category_rows(values, profile)
    mixed = _mean_or_none(categories[c]["score"] for c in MIXED)
    average = _mean_or_none([*(categories[c]["score"] for c in ("speech", "sound", "music")), mixed])
    return {"categories": categories, "mixed": mixed, "average": average}


def part_score(scores: Mapping[str, float | None]) -> float | None:
    """Ten times the mean of the speech, sound, music and mixed scores present (mixed: the mean of the two mixed
    categories present)."""
    mixed = _mean([s for c in MIXED if (s := scores[c]) is not None])
    present = [p for p in [scores["speech"], scores["sound"], scores["music"], mixed] if p is not None]
    return fmean(present) * 10 if present else None


def judged_score(values: Sequence[Mapping[str, Any]], profile: AirBenchProfile = REFERENCE) -> float | None:
    """The Chat part's score (0-100) of the answers a profile scored: ten times the mean of speech, sound, music
    and mixed, over those scored (an unanswered question, which the strict profile scores 0, included)."""
    return part_score({c: row["score"] for c, row in category_rows(values, profile).items()})


def answer_score(replies: Mapping[str, str | None], profile: AirBenchProfile = REFERENCE) -> float | None:
    """One answer's score on 0-1 (the model's judge score over ten) from its judge replies by order: the mean
    over its parsed orders, or over both orders only when the profile judges per item; ``None`` when no order
    (or, per item, not both) parsed."""
    pairs = parsed_pairs(replies, profile)
    if not pairs or (profile.judge_orders_per_item and len(pairs) < len(ORDERS)):
        return None
    return fmean(model for model, _ in pairs.values()) / JUDGE_SCALE


def _chat_tally(profile: AirBenchProfile) -> Callable[[Mapping[str, Any]], dict[Hashable, float]]:
    """One answer's tally in ``profile``, keyed by category and judge order: per order its model score
    (reference, which averages each order over its parsed replies), or under ``both`` its mean over both orders
    when both parsed (strict, per item; an unanswered question counts 0 where missing answers count as wrong)."""

    def tally(value: Mapping[str, Any]) -> dict[Hashable, float]:
        category = chat_category(value["task_name"])
        if value["replies"] is None:
            counted = profile.judge_orders_per_item and profile.missing_counts_as_wrong
            return {("items", category, "both"): 1.0} if counted else {}
        pairs = parsed_pairs(value["replies"], profile)
        if not profile.judge_orders_per_item:
            scored = {order: float(model) for order, (model, _) in pairs.items()}
        else:
            scored = {"both": fmean(m for m, _ in pairs.values())} if len(pairs) == len(ORDERS) else {}
        return {
            (k, category, o): v for o, model in scored.items() for k, v in (("model", model), ("items", 1.0))
        }

    return tally


def _chat_finish(totals: Mapping[Hashable, float]) -> float | None:
    """The Chat part's score from summed tallies (see :func:`_chat_tally`): per category the mean of its orders'
    (or its ``both``) mean model scores."""

    def share(*key: str) -> float | None:
        n = totals.get(("items", *key), 0.0)
        return totals.get(("model", *key), 0.0) / n if n else None

    return part_score(
        {c: _mean([s for o in (*ORDERS, "both") if (s := share(c, o)) is not None]) for c in CHAT_CATEGORIES}
    )


def chat_metric(
    profile: AirBenchProfile = REFERENCE,
) -> Callable[[Sequence[Mapping[str, Any]]], float | None]:
    """The Chat part's metric in ``profile`` (:func:`judged_score`), with its tallies for the bootstrap."""

    @tallied(_chat_tally(profile), _chat_finish)
    def metric(values: Sequence[Mapping[str, Any]]) -> float | None:
        return judged_score(values, profile)

    return metric
