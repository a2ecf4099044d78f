"""AIR-Bench's ``eval`` options and the official judge settings they default to, declared apart from the plug-in
(``avibench.eval_options`` entry point) so ``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

from avibench.evaluate.judge_options import judge_cli_options

OFFICIAL_JUDGE: dict[str, object] = {
    "model": "gpt-4-0125-preview",
    "temperature": 1.0,
    "max_tokens": 1024,
}
"""The official judge settings (the official script also sends a random half of the requests at temperature 2)."""


def eval_options() -> list[Any]:
    return judge_cli_options(str(OFFICIAL_JUDGE["model"]), template_and_temperature=True)
