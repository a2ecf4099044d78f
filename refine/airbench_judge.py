"""The AIR-Bench Chat judge request: one pairwise message per (item, order), from a template shipped as data.

The judge sees the clip's detailed description instead of the audio, the question and two answers, and replies
with one score per answer. Each item is judged in both orders: ``reference_first`` puts the reference answer
first (the official order) and ``model_first`` swaps the two. The templates are ``prompts/airbench/judge.yaml``:
``air-judge-official`` (the default) is the official one word for word. The reply's parser is scoring, in
:mod:`avibench.level_metrics.airbench_chat`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache

import yaml

from avibench.definitions import prompt_resource
from avibench.items import Item
from avibench.level_metrics.airbench_chat import ORDERS, JudgeOrder

TEMPLATE_FILE = "judge.yaml"
#: The placeholders, in the order they are replaced (one after the other, as the official script does).
PLACEHOLDERS = ("XAudioX", "XQuestionX", "XAssistant1X", "XAssistant2X")

OFFICIAL_JUDGE: dict[str, object] = {
    "model": "gpt-4-0125-preview",
    "temperature": 1.0,
    "max_tokens": 1024,
}
"""The official judge settings (the official script also sends a random half of the requests at temperature 2)."""


@dataclass(frozen=True)
class JudgeTemplate:
    """One judge template: its id, its text and the sha256 of that text (recorded in eval.json)."""

    id: str
    text: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@cache
def _templates() -> tuple[str, dict[str, str]]:
    data = yaml.safe_load(prompt_resource("airbench", TEMPLATE_FILE))
    return str(data["default"]), {str(k): str(v) for k, v in data["templates"].items()}


def default_judge_template() -> str:
    return _templates()[0]


def judge_template(template_id: str | None = None) -> JudgeTemplate:
    """The template ``template_id`` (default: the official one); raises ValueError naming the known ids."""
    default, templates = _templates()
    name = template_id or default
    if name not in templates:
        raise ValueError(
            f"unknown AIR-Bench judge template {name!r} in prompts/airbench/{TEMPLATE_FILE}; "
            f"known: {', '.join(templates)}"
        )
    return JudgeTemplate(name, templates[name])


def judge_messages(
    item: Item, response: str, order: JudgeOrder, template: JudgeTemplate | None = None
) -> list[dict[str, str]]:
    """The judge request for the model's ``response`` to a Chat ``item``, with the answers in ``order``.

    The placeholders are replaced one after the other in :data:`PLACEHOLDERS` order, so the text matches the
    official script's string for string (even when a field itself holds a placeholder's name)."""
    if order not in ORDERS:
        raise ValueError(f"unknown judge order {order!r}; expected one of {ORDERS}")
    template = template or judge_template()
    reference = str(item.answer)
    first, second = (reference, response) if order == "reference_first" else (response, reference)
    content = template.text
    for placeholder, value in zip(
        PLACEHOLDERS, (item.meta["meta_info"], item.text, first, second), strict=True
    ):
        content = content.replace(placeholder, value)
    return [{"role": "user", "content": content}]
