"""ASR's ``eval`` options, declared apart from the plug-in (``avibench.eval_options`` entry point) so ``eval`` knows
them without importing the plug-in and its metrics' numeric libraries."""

from __future__ import annotations

from typing import Any

import click

#: The English normalisers, as ``avibench.level_metrics.asr.NORMALISERS`` names them (a test checks they agree).
NORMALISER_CHOICES = ("whisper", "whisper-english")


def eval_options() -> list[Any]:
    return [
        click.Option(
            ["--asr-normaliser"],
            type=click.Choice(NORMALISER_CHOICES),
            default=NORMALISER_CHOICES[0],
            show_default=True,
            help="English text normalisation: 'whisper' is the reports' chain (Whisper's English then basic "
            "normaliser, as Qwen2-Audio's evaluate_asr.py); 'whisper-english' is Whisper's English normaliser "
            "alone, which the Open ASR Leaderboard's normaliser is copied from (its modified copy ships in no package). "
            "Recorded in eval.json meta.options.",
        )
    ]
