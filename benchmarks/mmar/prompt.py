"""MMAR / MMAU prompts, rendered from the templates shipped as data (``prompts/mmar.yaml``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avibench import definitions
from avibench.definitions import template_catalogue, template_fields
from avibench.kits.multiple_choice import LETTERS


def template_ids() -> tuple[str, ...]:
    """The template ids, the default (recommended) one first."""
    return definitions.template_ids(template_catalogue("mmar.yaml"))


DEFAULT_TEMPLATE: str = template_ids()[0]


def _template(template: str) -> dict[str, Any]:
    return template_fields(template_catalogue("mmar.yaml"), template, "MMAR/MMAU")


def shown_letters(template: str, n_choices: int) -> tuple[str, ...]:
    """The letters a template shows beside ``n_choices`` choices (empty when it shows none)."""
    return LETTERS[:n_choices] if _template(template)["letters"] else ()


def build_prompt(question: str, choices: Sequence[str], template: str = DEFAULT_TEMPLATE) -> str:
    """The user message for one question."""
    spec = _template(template)
    letters = shown_letters(template, len(choices)) or ("",) * len(choices)
    lines = [
        spec["choice"].format(text=text, letter=letter) for text, letter in zip(choices, letters, strict=True)
    ]
    return spec["text"].format(question=question, choices="\n".join(lines))
