"""MMAR / MMAU prompts, rendered from the templates shipped as data (``prompts/mmar.yaml``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import yaml

from avibench.definitions import prompt_resource
from avibench.refine.choice import STANDARD_LETTERS


@cache
def _catalogue() -> dict[str, Any]:
    return yaml.safe_load(prompt_resource("mmar.yaml"))


def template_ids() -> tuple[str, ...]:
    """The template ids, the default (recommended) one first."""
    catalogue = _catalogue()
    default = catalogue["default"]
    return (default, *(t for t in catalogue["templates"] if t != default))


DEFAULT_TEMPLATE: str = template_ids()[0]


def _template(template: str) -> dict[str, Any]:
    templates = _catalogue()["templates"]
    if template not in templates:
        raise KeyError(f"unknown MMAR/MMAU template {template!r}; known templates: {', '.join(templates)}")
    return templates[template]


def shown_letters(template: str, n_choices: int) -> tuple[str, ...]:
    """The letters a template shows beside ``n_choices`` choices (empty when it shows none)."""
    return STANDARD_LETTERS[:n_choices] if _template(template)["letters"] else ()


def build_prompt(question: str, choices: Sequence[str], template: str = DEFAULT_TEMPLATE) -> str:
    """The user message for one question."""
    spec = _template(template)
    letters = shown_letters(template, len(choices)) or ("",) * len(choices)
    lines = [
        spec["choice"].format(text=text, letter=letter) for text, letter in zip(choices, letters, strict=True)
    ]
    return spec["text"].format(question=question, choices="\n".join(lines))
