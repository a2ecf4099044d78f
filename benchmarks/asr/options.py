"""ASR's ``eval`` options, declared apart from the plug-in (``avibench.eval_options`` entry point) so ``eval`` knows
them without importing the plug-in and its metrics' numeric libraries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

#: The English normalisers, as ``avibench.level_metrics.asr.NORMALISERS`` names them (a test checks they agree).
NORMALISER_CHOICES = ("whisper", "whisper-english")

#: ``open-asr-leaderboard=DIR``: the leaderboard's own normaliser, read from a checkout's ``normalizer/`` folder.
LEADERBOARD = "open-asr-leaderboard"


class NormaliserParam(click.ParamType):
    """A normaliser name, or ``open-asr-leaderboard=DIR`` naming a folder that holds the leaderboard's
    ``normalizer.py`` (its other modules beside it)."""

    name = "NAME|open-asr-leaderboard=DIR"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value)
        if text in NORMALISER_CHOICES:
            return text
        name, sep, folder = text.partition("=")
        if name != LEADERBOARD or not sep:
            self.fail(f"{text!r} is none of {', '.join(NORMALISER_CHOICES)} or {LEADERBOARD}=DIR", param, ctx)
        if not (Path(folder) / "normalizer.py").is_file():
            self.fail(
                f"{folder}: no normalizer.py in this folder (the leaderboard's normalizer/ folder)",
                param,
                ctx,
            )
        return f"{LEADERBOARD}={Path(folder).resolve()}"


def eval_options() -> list[Any]:
    return [
        click.Option(
            ["--asr-normaliser"],
            type=NormaliserParam(),
            default=NORMALISER_CHOICES[0],
            show_default=True,
            help="English text normalisation: 'whisper' is the reports' chain (Whisper's English then basic "
            "normaliser, as Qwen2-Audio's evaluate_asr.py); 'whisper-english' is Whisper's English normaliser "
            "alone; 'open-asr-leaderboard=DIR' is the Open ASR Leaderboard's own normaliser, read from DIR, the "
            "normalizer/ folder of a checkout of huggingface/open_asr_leaderboard (it ships in no package). "
            "Recorded in eval.json meta.options.",
        )
    ]
