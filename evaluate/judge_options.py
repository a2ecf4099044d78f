"""The judge's ``eval`` options, declared apart from the judge runner so a plug-in's options module can list them
without importing the HTTP client and event loop that judging needs."""

from __future__ import annotations

import click

DEFAULT_CONCURRENCY = 16


def judge_cli_options(default_model: str, *, template_and_temperature: bool = False) -> list[click.Option]:
    """The judge's command-line options for a judged benchmark's ``eval_options``; ``template_and_temperature``
    adds ``--judge-template`` and ``--judge-temperature`` for a plug-in that applies them (they reach it as
    ``request.options``)."""
    common = [
        click.Option(
            ["--judge-model"],
            default=None,
            help=f"The judge model (default: the published judge, {default_model}).",
        ),
        click.Option(
            ["--judge-base-url"],
            default=None,
            help="OpenAI-compatible base URL(s) of the judge, comma-separated (default: $JUDGE_BASE_URL, else "
            "$OPENAI_BASE_URL, else the OpenAI API); the key is read from $JUDGE_API_KEY, else $OPENAI_API_KEY.",
        ),
        click.Option(
            ["--judge-concurrency"],
            type=click.IntRange(min=1),
            default=None,
            help=f"Judge requests in flight (default {DEFAULT_CONCURRENCY}).",
        ),
    ]
    if not template_and_temperature:
        return common
    return [
        *common,
        click.Option(
            ["--judge-template"],
            default=None,
            help="The judge prompt template id (default: the benchmark's official one).",
        ),
        click.Option(
            ["--judge-temperature"],
            type=click.FloatRange(min=0.0, max=2.0),
            default=None,
            help="The judge's sampling temperature (default: the benchmark's).",
        ),
    ]
