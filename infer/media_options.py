"""The request and media settings the command line offers (declared once for ``infer`` and ``probe``, which must
send media the same way), apart from the converters (which load av, numpy and PIL) so that ``--help`` does not
load them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: Sample rate (Hz) of converted audio.
AUDIO_RATE = 16000
#: Formats audio can be converted to before it is sent.
AUDIO_FORMATS = ("wav", "flac", "mp3")


def request_options(func: F) -> F:
    """``--max-tokens --media --audio-format --extra-body``: how each request is built, the same in infer and probe."""
    for option in reversed(
        (
            click.option(
                "--max-tokens",
                type=click.IntRange(min=1),
                help="Answer length limit sent with every request.",
            ),
            click.option(
                "--media",
                default="data-uri",
                show_default=True,
                help="How videos are sent: data-uri, video-url (vLLM) or frames:N.",
            ),
            click.option(
                "--audio-format",
                type=click.Choice(AUDIO_FORMATS),
                default=None,
                help="Convert every audio clip to this format before sending (smaller uploads for long clips; "
                "default: send the files as they are).",
            ),
            click.option(
                "--extra-body",
                default=None,
                metavar="JSON",
                help='Provider options merged into every request body, e.g. \'{"reasoning_effort": "low"}\'.',
            ),
        )
    ):
        func = option(func)
    return func
