"""The judged-answers kit's ``--judge-*`` eval options and the template data file they default from, apart from
the judge runner: a plug-in's eval-options declaration (``avibench.eval_options`` entry point) lists them without
importing the HTTP client and event loop that judging needs (see :mod:`avibench.kits.judged`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import click

from avibench.definitions import prompt_resource

DEFAULT_CONCURRENCY = 16


@cache
def template_data(benchmark: str, name: str | Path) -> tuple[str, str, dict[str, Any]]:
    """A judge template data file's name as recorded, its text and its fields (``name`` under
    ``prompts/<benchmark>/``, or a plug-in's own file as a ``Path``)."""
    if isinstance(name, Path):
        file, text = str(name), name.read_text(encoding="utf-8")
    else:
        file, text = f"prompts/{benchmark}/{name}", prompt_resource(benchmark, name)
    if str(name).endswith((".yaml", ".yml")):
        import yaml  # here, not at import: every eval lists the judge options of every plug-in

        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    else:
        data = json.loads(text)
    for key in ("source", "model"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"{file}: field {key!r} missing (the judge's source and model)")
    return file, text, data


def judge_cli_options(
    benchmark: str,
    template_file: str | Path,
    *,
    template_options: bool = False,
    model_help: str | None = None,
) -> list[click.Option]:
    """The judge's command-line options for a judged benchmark's ``eval_options``: ``--judge-model`` (default: the
    template data file's ``model``), ``--judge-base-url``, ``--judge-concurrency``, and with ``template_options``
    ``--judge-template`` and ``--judge-temperature`` (they reach the plug-in as ``request.options``);
    ``model_help`` replaces the model's help."""
    model = str(template_data(benchmark, template_file)[2]["model"])
    common = [
        click.Option(
            ["--judge-model"],
            default=None,
            help=f"The judge model (default: the published judge, {model})."
            if model_help is None
            else model_help,
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
    if not template_options:
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
