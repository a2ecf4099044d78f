"""AIR-Bench Chat scoring: judge replies parsed and pairwise judge scores aggregated per category. Pure.

Every answer is judged twice against the reference answer, once with the reference as the first assistant (the
official order) and once swapped (the official README asks for the swap). Each order is what one run of the
official ``cal_score.py`` reports: per category the parsed replies (``n``), the model's and the reference's mean
score and the share of replies where the model scored strictly higher (``win_rate``). A category's score,
reference score and win rate are the means of the two orders' values (the README: "the final score is the
average of the model prediction scores" of both runs). Mixed audio is the mean of the two mixed categories, and
the Chat average the mean of speech, sound, music and mixed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import Any, Literal

from avibench.level_metrics.airbench import REFERENCE, AirBenchProfile
from avibench.level_metrics.task_metrics import tallied

JudgeOrder = Literal["reference_first", "model_first"]
ORDERS: tuple[JudgeOrder, ...] = ("reference_first", "model_first")
#: The top of the judge's score scale (scores divided by it give 0-1); a parsed score above it is a judge failure.
JUDGE_SCALE = 10
#: The bottom of the scale the judge is asked for (the strict profile's parser rejects scores below it).
JUDGE_MIN = 1

CHAT_CATEGORY_OF_TASK: dict[str, str] = {
    "speech_QA": "speech",
    "speech_dialogue_QA": "speech",
    "sound_QA": "sound",
    "sound_generation_QA": "sound",
    "music_QA": "music",
    "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}
CHAT_CATEGORIES = ("speech", "sound", "music", "speech_and_sound", "speech_and_music")
MIXED = ("speech_and_sound", "speech_and_music")


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


@dataclass(frozen=True)
class ChatJudgement:
    """One judge verdict: the judge's ``reply`` as received (``None`` when no reply came: the request failed).

    Any reply, the empty one included, is a judgement on record; whether it gives scores is the profile's
    parser's call."""

    item_id: str
    task_name: str
    order: JudgeOrder
    reply: str | None

    def model_and_reference(self, profile: AirBenchProfile = REFERENCE) -> tuple[int, int] | None:
        """The parsed scores as (model, reference), ``None`` for a judge failure."""
        scores = None if self.reply is None else parse_judge_reply(self.reply, profile)
        if scores is None:
            return None
        first, second = scores
        return (second, first) if self.order == "reference_first" else (first, second)


def chat_category(task_name: str) -> str:
    try:
        return CHAT_CATEGORY_OF_TASK[task_name]
    except KeyError:
        raise ValueError(f"{task_name!r} is not an AIR-Bench Chat task") from None


@dataclass(frozen=True)
class OrderScore:
    """One judge order of one category, as one run of the official ``cal_score.py`` prints it: ``n`` parsed
    replies (its ``Sum``), the model's and the reference's mean score and the model's win rate."""

    n: int
    score: float | None
    reference_score: float | None
    win_rate: float | None


@dataclass
class CategoryScore:
    """One category: scores on the judge's 1-10 scale, ``win_rate`` 0-1 (``None`` when nothing was scored).

    ``n`` counts the answers sent to the judge (plus, when missing answers count, the unanswered ones); ``orders``
    holds each order's own figures."""

    score: float | None = None
    reference_score: float | None = None
    win_rate: float | None = None
    n: int = 0
    judge_failures: int = 0
    missing: int = 0
    orders: dict[str, OrderScore] = field(default_factory=dict)


@dataclass
class _Pairs:
    """The parsed (model, reference) pairs of one category, grouped by item and by order."""

    by_item: dict[str, dict[JudgeOrder, tuple[int, int]]] = field(default_factory=dict)
    failures: int = 0
    missing: int = 0


def _mean(values: list[float]) -> float | None:
    return fmean(values) if values else None


def _order_scores(pairs: _Pairs) -> dict[str, OrderScore]:
    """Each order over its own parsed replies (what ``cal_score.py`` gives for that order's reply file)."""
    out = {}
    for order in ORDERS:
        judged = [p[order] for p in pairs.by_item.values() if order in p]
        out[order] = OrderScore(
            len(judged),
            _mean([m for m, _ in judged]),
            _mean([r for _, r in judged]),
            _mean([float(m > r) for m, r in judged]),
        )
    return out


def _per_order(orders: Mapping[str, OrderScore]) -> tuple[float | None, float | None, float | None]:
    """Reference: the two orders' means averaged (an order with no parsed reply is left out)."""
    return (
        _mean([o.score for o in orders.values() if o.score is not None]),
        _mean([o.reference_score for o in orders.values() if o.reference_score is not None]),
        _mean([o.win_rate for o in orders.values() if o.win_rate is not None]),
    )


def _per_item(pairs: _Pairs, profile: AirBenchProfile) -> tuple[float | None, float | None, float | None]:
    """Strict: an item counts when both orders parsed, as the mean of the two; missing answers score 0."""
    complete = [p for p in pairs.by_item.values() if len(p) == len(ORDERS)]
    model = [fmean(p[o][0] for o in ORDERS) for p in complete]
    reference = [fmean(p[o][1] for o in ORDERS) for p in complete]
    wins = [fmean(float(p[o][0] > p[o][1]) for o in ORDERS) for p in complete]
    if profile.missing_counts_as_wrong:
        model += [0.0] * pairs.missing
        wins += [0.0] * pairs.missing
    return _mean(model), _mean(reference), _mean(wins)


def model_score(orders: Mapping[JudgeOrder, tuple[int, int]], profile: AirBenchProfile) -> float | None:
    """The model's judge score of one answer (1-10): the mean over its parsed orders, or over both orders only
    when the profile judges per item; ``None`` when no order (or, per item, not both) parsed."""
    if not orders or (profile.judge_orders_per_item and len(orders) < len(ORDERS)):
        return None
    return fmean(model for model, _ in orders.values())


def answer_score(
    replies: Mapping[JudgeOrder, str | None], profile: AirBenchProfile = REFERENCE
) -> float | None:
    """One answer's score on 0-1 (the model's judge score over ten) from its judge replies by order (``None``: the
    request got no reply); ``None`` when the profile's parser reads too few of them."""
    parsed = {}
    for order, reply in replies.items():
        scores = ChatJudgement("", "", order, reply).model_and_reference(profile)
        if scores is not None:
            parsed[order] = scores
    score = model_score(parsed, profile)
    return None if score is None else score / JUDGE_SCALE


def score_chat(
    judgements: Iterable[ChatJudgement],
    profile: AirBenchProfile = REFERENCE,
    missing: Iterable[str] = (),
) -> dict[str, CategoryScore]:
    """Scores per category from the judge verdicts; ``missing`` lists the task name of each unanswered item.

    ``n`` counts the answers sent to the judge (plus, when missing answers count, the unanswered ones);
    ``judge_failures`` counts the judgements without scores over both orders: replies the profile's parser
    rejects and requests that got no reply.
    """
    groups = {c: _Pairs() for c in CHAT_CATEGORIES}
    for task_name in missing:
        groups[chat_category(task_name)].missing += 1
    judged: dict[str, set[str]] = {c: set() for c in CHAT_CATEGORIES}
    for judgement in judgements:
        category = chat_category(judgement.task_name)
        judged[category].add(judgement.item_id)
        scores = judgement.model_and_reference(profile)
        if scores is None:
            groups[category].failures += 1
        else:
            groups[category].by_item.setdefault(judgement.item_id, {})[judgement.order] = scores
    out = {}
    for category, pairs in groups.items():
        orders = _order_scores(pairs)
        model, reference, win = (
            _per_item(pairs, profile) if profile.judge_orders_per_item else _per_order(orders)
        )
        counted_missing = pairs.missing if profile.missing_counts_as_wrong else 0
        out[category] = CategoryScore(
            model,
            reference,
            win,
            len(judged[category]) + counted_missing,
            pairs.failures,
            pairs.missing,
            orders,
        )
    return out


def judged_score(values: Sequence[Mapping[str, Any]], profile: AirBenchProfile = REFERENCE) -> float | None:
    """The Chat part's score (0-100) of the answers a profile scored: ten times the mean of speech, sound, music
    and mixed, over those scored. Each value is ``{"task_name", "replies"}`` with the judge replies by order, or
    ``None`` replies for an unanswered question (which the strict profile scores 0)."""
    judgements, missing = [], []
    for number, value in enumerate(values):
        if value["replies"] is None:
            missing.append(value["task_name"])
            continue
        for order, reply in value["replies"].items():
            judgements.append(ChatJudgement(str(number), value["task_name"], order, reply))
    return part_score(score_chat(judgements, profile, missing))


def _chat_tally(profile: AirBenchProfile) -> Callable[[Mapping[str, Any]], dict[Hashable, float]]:
    """One answer's tally in ``profile``: per judge order its model score (reference, which averages each order
    over its parsed replies), or its mean over both orders when both parsed (strict, per item; an unanswered
    question counts 0 where missing answers count as wrong)."""

    def tally(value: Mapping[str, Any]) -> dict[Hashable, float]:
        category = chat_category(value["task_name"])
        if value["replies"] is None:
            counted = profile.judge_orders_per_item and profile.missing_counts_as_wrong
            return {("items", category): 1.0} if counted else {}
        parsed = {
            order: scores
            for order, reply in value["replies"].items()
            if (scores := ChatJudgement("", "", order, reply).model_and_reference(profile)) is not None
        }
        if profile.judge_orders_per_item:
            if len(parsed) < len(ORDERS):
                return {}
            return {("model", category): fmean(parsed[o][0] for o in ORDERS), ("items", category): 1.0}
        out: dict[Hashable, float] = {}
        for order, (model, _) in parsed.items():
            out[("model", category, order)] = float(model)
            out[("items", category, order)] = 1.0
        return out

    return tally


def _chat_finish(profile: AirBenchProfile) -> Callable[[Mapping[Hashable, float]], float | None]:
    """The Chat part's score from the summed tallies of ``profile`` (see :func:`_chat_tally`)."""

    def share(totals: Mapping[Hashable, float], *key: str) -> float | None:
        n = totals.get(("items", *key), 0.0)
        return totals.get(("model", *key), 0.0) / n if n else None

    def finish(totals: Mapping[Hashable, float]) -> float | None:
        scores = {}
        for category in CHAT_CATEGORIES:
            if profile.judge_orders_per_item:
                score = share(totals, category)
            else:
                score = _mean([m for o in ORDERS if (m := share(totals, category, o)) is not None])
            scores[category] = CategoryScore(score)
        return part_score(scores)

    return finish


def chat_metric(
    profile: AirBenchProfile = REFERENCE,
) -> Callable[[Sequence[Mapping[str, Any]]], float | None]:
    """The Chat part's metric in ``profile`` (:func:`judged_score`), with its tallies for the bootstrap."""

    @tallied(_chat_tally(profile), _chat_finish(profile))
    def metric(values: Sequence[Mapping[str, Any]]) -> float | None:
        return judged_score(values, profile)

    return metric


def part_score(scores: Mapping[str, CategoryScore]) -> float | None:
    """Ten times the mean of the speech, sound, music and mixed scores present (mixed: the mean of the two mixed
    categories present)."""
    mixed = _mean([s for c in MIXED if (s := scores[c].score) is not None])
    pillars = [scores[c].score for c in ("speech", "sound", "music")] + [mixed]
    present = [p for p in pillars if p is not None]
    return fmean(present) * 10 if present else None


def _mean_or_none(values: Iterable[float | None]) -> float | None:
    values = list(values)
    return None if any(v is None for v in values) else fmean(values)


def chat_block(scores: Mapping[str, CategoryScore], profile: AirBenchProfile = REFERENCE) -> dict:
    """The Chat score block: per category ``{score, reference_score, win_rate, n, judge_failures, orders}``
    (``orders``: per order ``{n, score, reference_score, win_rate}``), ``mixed`` and ``average``. The strict
    profile adds ``missing`` per category (unanswered items, scored 0)."""
    categories = {}
    for name in CHAT_CATEGORIES:
        s = scores[name]
        row = {
            "score": s.score,
            "reference_score": s.reference_score,
            "win_rate": s.win_rate,
            "n": s.n,
            "judge_failures": s.judge_failures,
            "orders": {order: asdict(o) for order, o in s.orders.items()},
        }
        if profile.missing_counts_as_wrong:
            row["missing"] = s.missing
        categories[name] = row
    mixed = _mean_or_none(scores[c].score for c in MIXED)
    average = _mean_or_none([scores["speech"].score, scores["sound"].score, scores["music"].score, mixed])
    return {"categories": categories, "mixed": mixed, "average": average}
