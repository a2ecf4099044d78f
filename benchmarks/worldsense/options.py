"""WorldSense's ``eval`` options (its judge fallback's), declared apart from the plug-in (``avibench.eval_options``
entry point) so ``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

from avibench.kits.judge_options import judge_cli_options

#: The judge's template data file under ``prompts/worldsense/`` (VLMEvalKit's option-matching prompt, its model).
TEMPLATE_FILE = "judge.json"


def eval_options() -> list[Any]:
    return judge_cli_options(
        "worldsense",
        TEMPLATE_FILE,
        model_help="Judge the answers exact matching cannot read, as VLMEvalKit's judge fallback does (its "
        "option-matching prompt, up to three asks; replies journaled, never sent again). Without it, exact "
        "matching only: VLMEvalKit's default for WorldSense. Its published judge is gpt-3.5-turbo-0125.",
    )
