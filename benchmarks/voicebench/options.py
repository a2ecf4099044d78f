"""VoiceBench's ``eval`` options (its judge's), declared apart from the plug-in (``avibench.eval_options`` entry
point) so ``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

from avibench.kits.judge_options import judge_cli_options

#: The judge's template data file under ``prompts/voicebench/`` (official model, sampling, prompts).
TEMPLATE_FILE = "judge.json"


def eval_options() -> list[Any]:
    return judge_cli_options("voicebench", TEMPLATE_FILE)
