"""Throughput of the in-process transformers backend (not a test; prints figures).

For each batch size (1, 8 and 32 by default) the backend answers the same set of audio questions, all asked
at once the way the runner's workers do, and the script prints samples/s, the mean prefill (time to first
token) and decode times, output tokens/s per item, and peak memory (GPU memory on CUDA, the process's peak
RSS on CPU). Without ``--model`` it builds a tiny random Qwen2-Audio checkpoint, so the figures measure the
backend's own overhead rather than a model.

Run: python bench/local_backend.py [--model PATH --device cuda] [--samples 64] [--batch-sizes 1,8,32]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import tempfile
import time
from pathlib import Path

import torch

from avibench.infer.backends.base import BackendSettings, InferRequest
from avibench.infer.backends.transformers_backend import TransformersBackend
from avibench.items import Item, Part
from avibench.kits.media import tone, write_wav
from avibench.testing.tiny_models import build


def make_items(folder: Path, count: int, max_tokens: int) -> list[Item]:
    """Questions over clips of 1 to 8 seconds, so batches hold prompts of different lengths."""
    items = []
    for index in range(count):
        clip = folder / f"clip{index % 8}.wav"
        if not clip.exists():
            write_wav(clip, tone(220 * (1 + index % 8), 1.0 + index % 8))
        parts = (Part.audio(clip), Part.text(f"Describe sound number {index} in one sentence."))
        items.append(Item("bench", "local", str(index), parts, max_tokens=max_tokens))
    return items


def peak_memory_mib(device: str) -> float:
    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated() / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run_once(
    backend: TransformersBackend, items: list[Item], request: InferRequest
) -> tuple[float, list]:
    start = time.perf_counter()
    answers = await asyncio.gather(*(backend.answer(item, request) for item in items))
    return time.perf_counter() - start, answers


def measure(model: str, device: str, batch_size: int, items: list[Item], dtype: str) -> dict[str, float]:
    backend = TransformersBackend(
        BackendSettings(model=model, device=device, dtype=dtype, batch_size=batch_size)
    )
    request = InferRequest(model=model)
    try:
        asyncio.run(run_once(backend, items[: min(2, len(items))], request))  # warm-up
        if device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        wall, answers = asyncio.run(run_once(backend, items, request))
    finally:
        asyncio.run(backend.aclose())
    timings = [a.timings for a in answers]
    return {
        "samples_per_s": len(items) / wall,
        "mean_batch": statistics.fmean(t["batch_size"] for t in timings),
        "ttft_s": statistics.fmean(t["ttft_s"] for t in timings),
        "decode_s": statistics.fmean(t["decode_s"] for t in timings),
        "tokens_per_s": statistics.fmean(t["output_tokens_per_s"] for t in timings),
        "peak_mib": peak_memory_mib(backend.model.device.type),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="checkpoint folder or hub id (default: a tiny random Qwen2-Audio)")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--batch-sizes", default="1,8,32")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        model = options.model or str(build("qwen2-audio", folder / "tiny-qwen2-audio"))
        items = make_items(folder, options.samples, options.max_tokens)
        print(
            f"model {model}  device {options.device}  samples {options.samples}  max tokens {options.max_tokens}"
        )
        print(
            f"{'batch':>5} {'mean batch':>10} {'samples/s':>10} {'ttft s':>8} {'decode s':>9} {'tok/s':>8} {'peak MiB':>9}"
        )
        for size in (int(s) for s in options.batch_sizes.split(",")):
            row = measure(model, options.device, size, items, options.dtype)
            print(
                f"{size:>5} {row['mean_batch']:>10.1f} {row['samples_per_s']:>10.2f} {row['ttft_s']:>8.3f} "
                f"{row['decode_s']:>9.3f} {row['tokens_per_s']:>8.1f} {row['peak_mib']:>9.0f}"
            )


if __name__ == "__main__":
    main()
