"""AIR-Bench's ``eval`` options (its Chat judge's), declared apart from the plug-in (``avibench.eval_options``
entry point) so ``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

from avibench.kits.judge_options import judge_cli_options

#: The judge's template data file under ``prompts/airbench/`` (official model and settings, the templates).
TEMPLATE_FILE = "judge.yaml"


def eval_options() -> list[Any]:
    return judge_cli_options("airbench", TEMPLATE_FILE, template_options=True)
