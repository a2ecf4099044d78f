"""The official AudioMarathon prompts (data in ``prompts/audiomarathon.yaml``) rendered for one question."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

LETTERS = "ABCDE"


@dataclass(frozen=True)
class TaskPrompt:
    """One task's prompt: system text, user template, option-line format and output-token limit."""

    system: str
    user: str
    max_tokens: int
    option_line: str = ""
    strip_options: bool = False
    default_question: str = ""

    def render(self, question: str, options: Sequence[str]) -> str:
        """The user text the script sends after the audio clip."""
        lines = "\n".join(self.option_line.format(letter=LETTERS[i], text=o) for i, o in enumerate(options))
        return self.user.format(
            question=question or self.default_question,
            options=lines.strip() if self.strip_options else lines,
        )


@cache
def _data() -> Mapping[str, Any]:
    text = resources.files("avibench.prompts").joinpath("audiomarathon.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def task_prompt(task: str) -> TaskPrompt:
    """The prompt of ``task`` (a leaderboard abbreviation)."""
    return TaskPrompt(**_data()["tasks"][task])
