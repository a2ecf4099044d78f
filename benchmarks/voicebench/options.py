"""VoiceBench's ``eval`` options (its judge's), declared apart from the plug-in (``avibench.eval_options`` entry
point) so ``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

from avibench.evaluate.judge_options import judge_cli_options
from avibench.refine.voicebench import judge_protocol


def eval_options() -> list[Any]:
    return judge_cli_options(str(judge_protocol()["model"]))
