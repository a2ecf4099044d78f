"""Foundation prompts, rendered from the templates shipped as data (``prompts/airbench/foundation.yaml``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import yaml

from avibench.definitions import prompt_resource
from avibench.level_metrics.airbench import LETTERS

DEFAULT_TEMPLATE = "air-official"


@cache
def foundation_templates() -> dict[str, dict]:
    return yaml.safe_load(prompt_resource("airbench", "foundation.yaml"))


def _letters_and(letters: Sequence[str]) -> str:
    if len(letters) == 2:
        return f"{letters[0]} and {letters[1]}"
    return ", ".join(letters[:-1]) + f", and {letters[-1]}"


def foundation_prompt(question: str, options: Sequence[str], template: str = DEFAULT_TEMPLATE) -> str:
    """The instruction, the question and the lettered options, as one text."""
    templates = foundation_templates()
    if template not in templates:
        raise KeyError(f"unknown AIR-Bench template {template!r}; known templates: {', '.join(templates)}")
    spec = templates[template]
    shown = list(options) + ["None"] * (len(LETTERS) - len(options)) if spec["pad_options"] else list(options)
    letters = LETTERS[: len(shown)]
    instruction = spec["instruction"].format(
        letters_and=_letters_and(letters), letters_or=" or ".join(letters)
    )
    lines = [f"{letter}. {text}" for letter, text in zip(letters, shown, strict=True)]
    return "\n".join([instruction, question, *lines])
