"""Pseudo-key resolution and the text a model sees, reproduced exactly from the reference.

Quirks kept on purpose because they change what the model reads: a prompt or options string that is not a
known pseudo-key is used verbatim; the ``'cls' in options`` test is list membership on resolved lists (so
class lists are announced as "options"); the two ". " separators are always present; a null question
text renders as ``None``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from avibench.definitions import constants_for


class PromptError(ValueError):
    """A question whose prompt or options field the reference could not have rendered (it would crash)."""


def _lookup(table: Mapping[str, Any], value: Any, field: str) -> Any:
    if not isinstance(value, Hashable):
        raise PromptError(f"question.{field} must be a string or null, got {type(value).__name__}")
    return table.get(value, value)


def resolve_prompt(task: str, question: Mapping[str, Any]) -> str:
    """The prompt part: '' when absent or null, the definition when a pseudo-key, else the raw value."""
    if "prompt" not in question:
        return ""
    value = _lookup(constants_for(task), question["prompt"], "prompt")
    return "" if value is None else str(value)


def resolve_options(task: str, question: Mapping[str, Any]) -> Any:
    """The options as the scorer sees them: the resolved list, '' when absent or null, else the raw value."""
    value = question.get("options")
    return "" if value is None else _lookup(constants_for(task), value, "options")


def render_options(task: str, question: Mapping[str, Any]) -> str:
    """The options sentence of the text input ('' when absent or null)."""
    resolved = resolve_options(task, question)
    if question.get("options") is None or resolved is None:
        return ""
    try:
        is_class_list = "cls" in resolved
    except TypeError:  # a non-container value: the reference would crash here
        raise PromptError(
            f"question.options resolves to {type(resolved).__name__}, not a list or string"
        ) from None
    if is_class_list:
        return f"Available semantic categories are: {resolved}"
    return f"Available options are: {resolved}"


def build_text(task: str, question: Mapping[str, Any]) -> str:
    """The text part of the user message: ``f"{prompt}. {options}. {question.text}"``."""
    return f"{resolve_prompt(task, question)}. {render_options(task, question)}. {question.get('text')}"
