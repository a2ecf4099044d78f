"""What does the media probe cost? Requests, bytes sent and prompt tokens, per modality and media strategy.

Runs the probe against the local fake server (over real HTTP, through the real client) in its three behaviours and
prints, per modality, the requests sent, the bytes of their bodies and the prompt tokens with and without the media
as that server counts them (words of text, a fixed 256 per media part). With ``--local``, also the prompt tokens a
real processor builds for the probe's clips, from tiny Qwen2-Audio and Qwen2.5-Omni checkpoints made in code (their
processors are the real ones, so the media token counts are those of the released models).
Usage: ``python bench/probe_cost.py [--local]``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from avibench.infer.backends.base import BackendSettings, InferRequest, MediaStrategy
from avibench.infer.backends.openai_backend import OpenAIBackend
from avibench.infer.probe import MODALITIES, probe
from avibench.testing.fake_openai import FakeOpenAIServer


async def endpoint(usage: str, media: str) -> None:
    async with FakeOpenAIServer(usage=usage) as server:
        settings = BackendSettings(model="m", api_key="k", base_urls=(server.base_url,))
        request = InferRequest(model="m", media=MediaStrategy.parse(media))
        async with OpenAIBackend(settings) as backend:
            results = await probe(backend, request, MODALITIES)
        sizes = [len(str(r.body)) for r in server.requests]
    print(
        f"fake server, usage={usage}, --media {media}: {len(sizes)} requests, {sum(sizes) / 1024:.0f} KiB sent"
    )
    for result in results.values():
        print(f"  {result.line()}")


async def local(family: str, folder: Path) -> None:
    from avibench.infer.backends.transformers_backend import TransformersBackend
    from avibench.testing.tiny_models import build

    checkpoint = build(family, folder / family)
    backend = TransformersBackend(BackendSettings(model=str(checkpoint), device="cpu"))
    results = await probe(backend, InferRequest(model=family), MODALITIES)
    await backend.aclose()
    print(f"{family} processor (nothing generated):")
    for result in results.values():
        print(f"  {result.line()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true", help="also count tokens with real processors")
    args = parser.parse_args()
    for usage in ("media", "text", "none"):
        asyncio.run(endpoint(usage, "data-uri"))
    for media in ("video-url", "frames:4"):
        asyncio.run(endpoint("media", media))
    if args.local:
        with tempfile.TemporaryDirectory() as folder:
            for family in ("qwen2-audio", "qwen2.5-omni-thinker"):
                asyncio.run(local(family, Path(folder)))


if __name__ == "__main__":
    main()
