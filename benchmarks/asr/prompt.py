"""ASR prompts, from the templates shipped as data (``prompts/asr.yaml``), and the LLM fallback's prompt."""

from __future__ import annotations

from functools import cache
from typing import Any

from avibench import definitions
from avibench.definitions import template_catalogue, template_fields

LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "fr": "French", "de": "German", "es": "Spanish"}


@cache
def _catalogue() -> dict[str, Any]:
    return template_catalogue("asr.yaml")


def template_ids() -> tuple[str, ...]:
    """The template ids, the default (Qwen2.5-Omni's) first."""
    return definitions.template_ids(_catalogue())


def _fields(template: str) -> dict[str, Any]:
    return template_fields(_catalogue(), template, "ASR")


def system_text(template: str) -> str | None:
    """The template's system message (``None``: the model's default)."""
    return _fields(template).get("system")


def user_text(template: str, language: str) -> str:
    """The user message asking for a transcript of audio in ``language``."""
    fields = _fields(template)
    if language in fields:
        return fields[language]
    return fields["other"].format(language=LANGUAGE_NAMES.get(language, language))


def refine_text(reply: str) -> str:
    """The LLM fallback's prompt: the transcript alone, out of a reply the rules could not cut."""
    return str(_catalogue()["refine"]).replace("${response}", reply)
