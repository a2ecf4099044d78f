"""The strict extraction of one answer: the option a raw answer commits to."""

from __future__ import annotations

from collections.abc import Sequence

from avibench.benchmarks.mmar.prompt import DEFAULT_TEMPLATE, shown_letters
from avibench.items import Item
from avibench.kits import multiple_choice as mc


def chosen_index(text: str | None, options: Sequence[str], template: str) -> int | None:
    """The option a raw answer commits to, reading letters only if the template showed them."""
    return mc.strict_choice(text, options, shown_letters(template, len(options)))


def extract(item: Item, text: str) -> str | None:
    """The canonical refined answer: the chosen option's text, or ``None`` when the answer does not say."""
    index = chosen_index(text, item.options, item.template or DEFAULT_TEMPLATE)
    return None if index is None else item.options[index]
