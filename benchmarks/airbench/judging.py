"""AIR-Bench Chat's judge, declared on the judged-answers kit: two pairwise requests per answered item.

The judge sees the clip's ``meta_info`` description instead of the audio, the question and two answers, and replies
with one score per answer. Each answer is judged in both orders: ``reference_first`` puts the reference answer
first (the official order) and ``model_first`` swaps the two. The templates and the official judge settings are
``prompts/airbench/judge.yaml``: ``air-judge-official`` (the default) is the official one word for word. An answer
is judged whatever it holds, blank included: only a question without an answer (a null ``response``) is not, as in
the official script. A judge reply, whatever it is (an empty one included), is a judgement on record: it is never
asked again (the official script keeps the first reply it gets), and one that gives no scores is a judge failure,
never scored as a number. Replies are journaled per (item, order) under ``<run>/judge/chat.jsonl``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.options import TEMPLATE_FILE
from avibench.items import Item, Response
from avibench.kits.judged import Judge, JudgeSettings, JudgeTemplate, Verdicts, split_key
from avibench.level_metrics.airbench import PROFILES, AirBenchProfile
from avibench.level_metrics.airbench_chat import ORDERS, parse_judge_reply

#: The placeholders, in the order they are replaced (one after the other, as the official script does).
PLACEHOLDERS = ("XAudioX", "XQuestionX", "XAssistant1X", "XAssistant2X")

JUDGE = Judge(
    "airbench",
    TEMPLATE_FILE,
    parsers={name: partial(parse_judge_reply, profile=profile) for name, profile in PROFILES.items()},
    journal_name="chat",
    unreadable_as="give no scores",
    keep_empty=True,
    template_options=True,
)


def judge_messages(
    item: Item, response: str, order: str, template: JudgeTemplate | None = None
) -> list[dict[str, str]]:
    """The judge request for the model's ``response`` to a Chat ``item``, with the answers in ``order``.

    The placeholders are replaced one after the other in :data:`PLACEHOLDERS` order, so the text matches the
    official script's string for string (even when a field itself holds a placeholder's name)."""
    if order not in ORDERS:
        raise ValueError(f"unknown judge order {order!r}; expected one of {ORDERS}")
    template = template or JUDGE.template()
    reference = str(item.answer)
    first, second = (reference, response) if order == "reference_first" else (response, reference)
    content = template.text
    values = (item.meta["meta_info"], item.text, first, second)
    for placeholder, value in zip(PLACEHOLDERS, values, strict=True):
        content = content.replace(placeholder, value)
    return [{"role": "user", "content": content}]


def judge_chat(
    responses: Sequence[Response], run_root: Path, settings: JudgeSettings, template: JudgeTemplate
) -> Verdicts:
    """Every answered Chat question judged in both orders (from the judge journal where already judged). Raises
    JudgeNotConfigured without a judge key, AvibenchError when the judge cannot run."""

    def messages(response: Response, order: str) -> list[dict[str, str]]:
        return judge_messages(response.item, response.raw or "", order, template)

    return JUDGE.judge_responses(responses, messages, run_root, settings, variants=ORDERS)


def by_order(verdicts: Verdicts | None) -> dict[str, dict[str, str | None]]:
    """Each judged answer's reply by order (``None``: the request got no reply), keyed by item key."""
    replies: dict[str, dict[str, str | None]] = {}
    for key, (reply,) in (verdicts.replies if verdicts else {}).items():
        item_key, order = split_key(key)
        replies.setdefault(item_key, {})[order] = reply
    return replies


def chat_coverage(
    cover: Mapping[str, Any], block: Mapping[str, Any], verdicts: Verdicts, profile: AirBenchProfile
) -> dict[str, Any]:
    """The core's Chat coverage with the judge's account: ``unparsed`` counts the answers whose judgements the
    profile cannot all read, ``judge_failures`` the judgements without scores, and a judge problem makes the
    part ``partial`` with its reason after the core's."""
    unread = {split_key(key)[0] for key, _ in verdicts.unreadable(JUDGE.parsers[profile.name])}
    failures = sum(c["judge_failures"] for c in block["categories"].values())
    counts = {**cover, "unparsed": len(unread), "judge_failures": failures}
    return JUDGE.coverage(counts, verdicts, profile.name)
