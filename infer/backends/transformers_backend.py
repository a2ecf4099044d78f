"""An open model run in this process with transformers (``--backend transformers --model PATH_OR_ID``).

The checkpoint is loaded with transformers' Auto classes and prompted with its own chat template; the
family table (:mod:`local_families`) says how each architecture takes audio, images and video. Concurrent
``answer()`` calls are gathered into batches for one generating thread (:mod:`local_batching`).
"""

from __future__ import annotations

import asyncio
from importlib.util import find_spec
from typing import Any

import torch
import transformers

from avibench.errors import AvibenchError
from avibench.infer.backends.base import Backend, BackendAnswer, BackendSettings, InferRequest
from avibench.infer.backends.local_batching import Batcher
from avibench.infer.backends.local_families import Family, family_for
from avibench.infer.backends.local_generate import Sampling, generate_batch
from avibench.infer.backends.local_inputs import Prompt, build_prompt, processor_inputs
from avibench.items import Item

_DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
_ATTN_PACKAGES = {"flash_attention_2": "flash_attn", "flash_attention_3": "flash_attn_interface"}


def resolve_device(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise AvibenchError(f"--device {name}: no CUDA device is visible to torch")
    return name


def resolve_dtype(name: str, device: str) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    if name not in _DTYPES:
        raise AvibenchError(f"unknown --dtype {name!r}; use auto, {', '.join(_DTYPES)}")
    return _DTYPES[name]


def check_attention(name: str) -> None:
    package = _ATTN_PACKAGES.get(name)
    if package and find_spec(package) is None:
        raise AvibenchError(f"--attn {name} needs the {package} package; install it or use --attn sdpa")


def load_model(settings: BackendSettings) -> tuple[Any, Any, Family]:
    """The model (evaluation mode, on its device), its processor and its family, from a folder or hub id."""
    config = transformers.AutoConfig.from_pretrained(settings.model)
    family = family_for((getattr(config, "architectures", None) or [None])[0])
    check_attention(settings.attn)
    device = resolve_device(settings.device)
    processor = transformers.AutoProcessor.from_pretrained(settings.model)
    processor.tokenizer.padding_side = "left"  # decoder-only generation continues every row at its end
    model = getattr(transformers, family.auto_class).from_pretrained(
        settings.model,
        dtype=resolve_dtype(settings.dtype, device),
        attn_implementation=settings.attn,
        **family.load_kwargs,
    )
    return model.to(device).eval(), processor, family


class TransformersBackend(Backend):
    """Generates with an in-process transformers model, batching concurrent requests."""

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        self.model, self.processor, self.family = load_model(settings)
        self.batcher: Batcher[tuple[Prompt, Sampling], BackendAnswer] = Batcher(
            self._run, settings.batch_size
        )

    def prepare(self, item: Item, request: InferRequest) -> Prompt:
        """Decode the item's media, render its chat text and count its input tokens (blocking)."""
        prompt = build_prompt(item, request, self.processor, self.family)
        prompt.length = int(processor_inputs(self.processor, self.family, [prompt])["input_ids"].shape[1])
        return prompt

    def _run(self, batch: list[tuple[Prompt, Sampling]]) -> list[BackendAnswer]:
        return generate_batch(self.model, self.processor, self.family, [p for p, _ in batch], batch[0][1])

    async def answer(self, item: Item, request: InferRequest) -> BackendAnswer:
        prompt = await asyncio.to_thread(self.prepare, item, request)
        sampling = Sampling(request.temperature, request.seed)
        return await self.batcher.submit(
            (prompt, sampling), key=(sampling, prompt.audio_in_video), length=prompt.length
        )

    async def prompt_tokens(self, item: Item, request: InferRequest) -> int | None:
        """The input tokens the processor builds for the item (audio and image tokens included)."""
        return (await asyncio.to_thread(self.prepare, item, request)).length

    async def aclose(self) -> None:
        await asyncio.to_thread(self.batcher.close)
