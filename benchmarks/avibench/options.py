"""AVI-Bench's ``eval`` options, declared apart from the plug-in (``avibench.eval_options`` entry point) so
``eval`` knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

import click

from avibench.benchmarks.avibench.fense import FENSE_MODES


def eval_options() -> list[Any]:
    return [
        click.Option(
            ["--fense"],
            type=click.Choice(FENSE_MODES),
            default=None,
            help="FENSE models for AVC: real (configured local files), stand-in (packaged, not comparable) "
            "or off. Default: the FENSE mode set in the environment (README), else real.",
        )
    ]
