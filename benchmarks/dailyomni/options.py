"""Daily-Omni's ``eval`` options, declared apart from the plug-in (``avibench.eval_options`` entry point) so ``eval``
knows them without importing the plug-in."""

from __future__ import annotations

from typing import Any

import click


def eval_options() -> list[Any]:
    return [
        click.Option(
            ["--dailyomni-rule"],
            type=click.Choice(["api", "local"]),
            default="api",
            show_default=True,
            help="Daily-Omni's reference profile: 'api' is the API tester's print_statistics (a reply "
            "starting with the gold letter is right; API failures and missing videos leave the "
            "denominator); 'local' is the Qwen2.5-Omni script (a leading letter in any case after a first "
            "'assistant', exact match; every failure leaves the denominator once; empty groups shown).",
        )
    ]
