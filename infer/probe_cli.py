"""``avibench probe``: does the model read the audio, images and video it is sent? Checked with a few tiny requests."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from avibench.errors import AvibenchError
from avibench.failures import Advice
from avibench.infer.backends.base import BackendSettings, InferRequest, MediaStrategy, load_backend
from avibench.infer.cli import BASELINES, DEFAULT_BASE_URL, _extra_body, select_tasks
from avibench.infer.media_options import request_options
from avibench.llm import ChatError, RetryPolicy, host_of
from avibench.media_paths import allow_option, load_checked
from avibench.run_options import DEFAULT_BENCHMARK, data_root_option, resolve_benchmark, resolve_data_root

if TYPE_CHECKING:  # the probe builds media with numpy, PIL and av: imported when it runs, not for --help
    from avibench.infer.probe import ProbeResult


def _modalities(
    benchmark_name: str | None,
    data_root: Any,
    tasks: str | None,
    request: InferRequest,
    *,
    allow_outside: bool,
) -> list[str]:
    """The modalities the benchmark's selected tasks send, or all three when no benchmark is named; a dataset
    naming media outside its root is refused first (unless ``allow_outside``), as infer refuses it."""
    from avibench.infer.probe import MODALITIES, needed_modalities

    if benchmark_name is None:
        if tasks:
            raise click.UsageError("--tasks needs --benchmark")
        return list(MODALITIES)
    benchmark = resolve_benchmark(benchmark_name)
    root = resolve_data_root(benchmark, data_root)
    items = [
        item
        for spec in select_tasks(benchmark, root, tasks)
        for item in load_checked(benchmark, root, spec, allow=allow_outside)[0]
    ]
    return needed_modalities(items, request)


async def _probe(
    backend_name: str, settings: BackendSettings, request: InferRequest, modalities: list[str]
) -> dict[str, ProbeResult]:
    from avibench.infer.probe import probe

    backend_cls = load_backend(backend_name)
    async with backend_cls(settings) as backend:
        try:
            return await probe(backend, request, modalities, offline=not backend_cls.reads_media)
        except ChatError as exc:  # a rejected key, a model not served ...: no verdict, but what to fix
            hosts = ", ".join(host_of(url) for url in settings.base_urls) or f"the {backend_name} backend"
            raise AvibenchError(f"the probe failed: {exc}; {Advice(request.model, hosts).fix(exc)}") from None


@click.command(name="probe")
@click.option("--model", required=True, help="Model id (or a checkpoint with --backend transformers).")
@click.option(
    "--backend",
    "backend_name",
    help="Backend from the avibench.backends entry points (default openai; random/oracle follow --model).",
)
@click.option(
    "--base-url",
    "base_urls",
    multiple=True,
    help="Endpoint base URL; repeatable (default $OPENAI_BASE_URL).",
)
@click.option(
    "--benchmark",
    "benchmark_name",
    default=None,
    help="Probe only the modalities this benchmark's tasks send (default: audio, image and video).",
)
@data_root_option
@click.option("--tasks", help="Probe only the modalities these tasks send (needs --benchmark).")
@request_options
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds per request.",
)
@click.option(
    "--max-attempts", type=click.IntRange(min=1), default=3, show_default=True, help="Requests per question."
)
@click.option(
    "--device", default="auto", show_default=True, help="transformers backend: auto, cuda, cuda:N or cpu."
)
@allow_option
@click.option(
    "--dtype",
    type=click.Choice(["auto", "bfloat16", "float16", "float32"]),
    default="auto",
    show_default=True,
    help="transformers backend: weights' dtype.",
)
def probe_command(**opts: Any) -> None:
    """Check that a model reads the audio, images and video it is sent, before a run spends money on it.

    \b
    For each modality (those the benchmark's tasks send with --benchmark, else audio, image and video) the same
    tiny question is asked with a generated clip of known content (a count of beeps, a solid colour) and without
    it. One line per modality:
      counted     the prompt tokens the endpoint reports grew with the media (or, with no usage reported,
                  the answers only the media can give were right for two clips)
      ignored     the prompt did not grow, or an answer says there was no media: the model never got it
      unverified  neither could be told (no usage and unconvincing answers, a failed request); says why
      n/a         the backend reads no media (the random and oracle baselines)
    A modality costs 2 requests when usage comes back, 3 when it does not; each is a few dozen text tokens
    plus the media's own tokens. The transformers backend counts the tokens its processor builds and
    generates nothing. The exit code is 1 when a modality is ignored; a failure no request gets past (a rejected
    key, a model the endpoint does not serve) ends the probe with the setting to fix.

    With --benchmark, the dataset's media paths must lie inside the data root (see --allow-media-outside-root).
    infer runs the same probe before its first question. The openai backend reads the key from OPENAI_API_KEY
    and the endpoint from --base-url or OPENAI_BASE_URL.
    """
    model: str = opts["model"].strip()
    backend_name = opts["backend_name"] or (model if model in BASELINES else "openai")
    backend_cls = load_backend(backend_name)
    try:
        media = MediaStrategy.parse(opts["media"])
    except ValueError as exc:
        raise AvibenchError(str(exc)) from None
    api_key, base_urls = _endpoint(backend_name, backend_cls.needs_credentials, opts["base_urls"])
    request = InferRequest(
        model=model,
        max_tokens=opts["max_tokens"],
        media=media,
        extra_body=_extra_body(opts["extra_body"]),
        audio_format=opts["audio_format"],
    )
    modalities = _modalities(
        opts["benchmark_name"],
        opts["data_root"],
        opts["tasks"],
        request,
        allow_outside=opts["allow_media_outside_root"],
    )
    if not modalities:
        click.echo("no media to probe: the selected tasks send text only")
        return
    settings = BackendSettings(
        model=model,
        api_key=api_key,
        base_urls=base_urls,
        timeout=opts["timeout"],
        retry=RetryPolicy(max_attempts=opts["max_attempts"]),
        max_connections=4,
        benchmark=resolve_benchmark(opts["benchmark_name"] or DEFAULT_BENCHMARK),
        device=opts["device"],
        dtype=opts["dtype"],
        batch_size=1,
    )
    results = asyncio.run(_probe(backend_name, settings, request, modalities))
    if _report(results):
        sys.exit(1)


def _endpoint(
    backend_name: str, needs_credentials: bool, base_urls: tuple[str, ...]
) -> tuple[str | None, tuple[str, ...]]:
    """The API key (OPENAI_API_KEY) and the base URLs (--base-url, else OPENAI_BASE_URL, comma separated; the
    default endpoint for a backend that needs credentials)."""
    api_key = os.environ.get("OPENAI_API_KEY") or None
    urls = tuple(base_urls) or tuple(u for u in os.environ.get("OPENAI_BASE_URL", "").split(",") if u.strip())
    if needs_credentials:
        if not api_key:
            raise AvibenchError(
                f"the {backend_name} backend needs OPENAI_API_KEY (and --base-url or OPENAI_BASE_URL)"
            )
        urls = urls or (DEFAULT_BASE_URL,)
    return api_key, urls


def _report(results: dict[str, ProbeResult]) -> bool:
    """Print a line per modality, the cost, and how to fix an ignored modality; whether one was ignored."""
    from avibench.infer.probe import fix_line

    for result in results.values():
        click.echo(result.line())
    requests = sum(r.requests for r in results.values())
    tokens = sum(r.tokens for r in results.values())
    if requests:
        click.echo(f"cost: {requests} request(s), {tokens} tokens")
    ignored = [r for r in results.values() if r.verdict == "ignored"]
    for result in ignored:
        click.echo(fix_line(result), err=True)
    return bool(ignored)
