"""The AIR-Bench Chat judge: one pairwise message per (item, order) and the parser for its reply. Pure.

The judge sees the clip's detailed description instead of the audio, the question and two answers, and replies
with one score (1-10) per answer. Each item is judged in both orders: ``reference_first`` puts the reference answer
first (the official order) and ``model_first`` swaps the two.
"""

from __future__ import annotations

from functools import cache

from avibench.definitions import prompt_resource
from avibench.items import Item
from avibench.level_metrics.airbench_chat import ORDERS, JudgeOrder

MAX_SCORE = 10

OFFICIAL_JUDGE: dict[str, object] = {
    "model": "gpt-4-0125-preview",
    "temperature": 1.0,
    "max_tokens": 1024,
}
"""The official judge settings (the official script also sends a random half of the requests at temperature 2)."""


@cache
def judge_template() -> str:
    return prompt_resource("airbench", "judge.txt")


def judge_messages(item: Item, response: str, order: JudgeOrder) -> list[dict[str, str]]:
    """The judge request for the model's ``response`` to a Chat ``item``, with the answers in ``order``."""
    if order not in ORDERS:
        raise ValueError(f"unknown judge order {order!r}; expected one of {ORDERS}")
    reference = str(item.answer)
    first, second = (reference, response) if order == "reference_first" else (response, reference)
    content = judge_template().format(
        description=item.meta["meta_info"], question=item.text, answer_1=first, answer_2=second
    )
    return [{"role": "user", "content": content}]


def parse_judge_reply(reply: str) -> tuple[int, int] | None:
    """The two scores of a judge reply, or ``None`` for a judge failure (never to be scored as a number).

    As in the official parser, the reply is stripped, its newlines removed and split on single spaces; it must
    give exactly two integers, each at most 10. Unlike it, a score must be plain ASCII digits (the official
    ``int()`` also takes "+7", "-3" and "1_0"), and a score above 10 is a failure rather than an abort.
    """
    tokens = reply.strip().replace("\n", "").split(" ")
    if len(tokens) != 2 or not all(t.isascii() and t.isdigit() for t in tokens):
        return None
    first, second = int(tokens[0]), int(tokens[1])
    if first > MAX_SCORE or second > MAX_SCORE:
        return None
    return first, second
