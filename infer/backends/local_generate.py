"""One batched ``generate`` call and what it measures.

Prefill is timed inside the same call with a streamer: ``generate`` hands it the prompt first and then each
step's new tokens, so the first token's arrival ends the prefill (the encoders and the prompt's forward
pass) and every later step is decode. A separate 1-token forward would run the prefill twice and make the
rest of the figures a subtraction; the streamer costs one host copy of a token column per step, a copy
generate makes anyway to check its stopping criteria.

``sdpa`` attention runs without the cuDNN kernel. cuDNN builds a plan for every new shape of query and key,
and batched decode of prompts of different lengths meets a new shape at nearly every step: on an H100 a
tiny model's batch of 8 decoded 18 times slower with it than with the flash and memory-efficient kernels,
which need no plan (``bench/local_backend.py``; figures in the README).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from transformers import StoppingCriteria, StoppingCriteriaList
from transformers.generation.streamers import BaseStreamer

from avibench.infer.backends.base import BackendAnswer
from avibench.infer.backends.local_families import Family
from avibench.infer.backends.local_inputs import Prompt, processor_inputs

_SDPA_KERNELS = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
"""Every kernel ``sdpa`` may pick except cuDNN's (see the module's docstring)."""


@dataclass(frozen=True)
class Sampling:
    """The request's sampling parameters; items share a batch only when these are equal."""

    temperature: float | None = None
    seed: int | None = None

    def generate_kwargs(self) -> dict[str, Any]:
        if self.temperature:
            return {"do_sample": True, "temperature": self.temperature}
        return {"do_sample": False}


class StepClock(BaseStreamer):
    """Records when each generated token column arrives (the first ``put`` is the prompt)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.steps: list[float] = []
        self._prompt_seen = False

    def put(self, value: torch.Tensor) -> None:
        if self._prompt_seen:
            self.steps.append(time.perf_counter())
        self._prompt_seen = True

    def end(self) -> None:
        """Nothing to flush: the clock only records arrival times."""


class RowLimits(StoppingCriteria):
    """Stops each row at its own item's token limit, so one batch serves items with different limits."""

    def __init__(self, prompt_length: int, limits: Sequence[int], device: torch.device):
        self.prompt_length = prompt_length
        self.limits = torch.tensor(list(limits), device=device)

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, **kwargs: Any) -> torch.Tensor:
        return (input_ids.shape[1] - self.prompt_length) >= self.limits


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    configured = getattr(model.generation_config, "eos_token_id", None)
    if configured is None:
        configured = tokenizer.eos_token_id
    return set(configured if isinstance(configured, list) else [configured]) - {None}


def _answer_length(tokens: list[int], eos: set[int], limit: int) -> tuple[int, str]:
    """Tokens the item produced (its end token included) and why it ended."""
    for index, token in enumerate(tokens[:limit]):
        if token in eos:
            return index + 1, "stop"
    return min(len(tokens), limit), "length"


def _to_model(inputs: Any, device: torch.device, dtype: torch.dtype) -> dict[str, Any]:
    """Tensors on the model's device; floating features in the model's dtype (ids and masks untouched)."""
    moved: dict[str, Any] = {}
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor):
            value = value.to(device, dtype=dtype if value.is_floating_point() else None)
        moved[name] = value
    return moved


def generate_batch(
    model: Any, processor: Any, family: Family, prompts: list[Prompt], sampling: Sampling
) -> list[BackendAnswer]:
    """Generate for a batch of prompts (all of the same sampling parameters) and time it."""
    started = time.perf_counter()
    generator = model.thinker if family.thinker else model
    inputs = _to_model(processor_inputs(processor, family, prompts), generator.device, generator.dtype)
    input_ids = inputs["input_ids"]
    prompt_length = input_ids.shape[1]
    tokenizer = processor.tokenizer
    limits = [p.max_new_tokens for p in prompts]
    clock = StepClock()
    kwargs = sampling.generate_kwargs()
    if any(p.audio_in_video for p in prompts):
        kwargs["use_audio_in_video"] = True
    if sampling.seed is not None:
        torch.manual_seed(sampling.seed)
    with torch.inference_mode(), sdpa_kernel(_SDPA_KERNELS):
        output = generator.generate(
            **inputs,
            **kwargs,
            max_new_tokens=max(limits),
            stopping_criteria=StoppingCriteriaList([RowLimits(prompt_length, limits, input_ids.device)]),
            pad_token_id=tokenizer.pad_token_id
            if tokenizer.pad_token_id is not None
            else tokenizer.eos_token_id,
            streamer=clock,
        )
    sequences = output.sequences if hasattr(output, "sequences") else output
    new_tokens = sequences[:, prompt_length:].tolist()
    finished = time.perf_counter()
    eos = _eos_ids(generator, tokenizer)
    audio_token = getattr(processor, "audio_token_id", None)
    attention = inputs["attention_mask"]
    answers = []
    for row, (tokens, limit) in enumerate(zip(new_tokens, limits, strict=True)):
        count, reason = _answer_length(tokens, eos, limit)
        ttft = (clock.steps[0] if clock.steps else finished) - clock.start
        decode = clock.steps[count - 1] - clock.steps[0] if count and clock.steps else 0.0
        input_count = int(attention[row].sum())
        audio_count = int((input_ids[row] == audio_token).sum()) if audio_token is not None else 0
        answers.append(
            BackendAnswer(
                text=tokenizer.decode(tokens[:count], skip_special_tokens=True),
                usage={"prompt_tokens": input_count, "completion_tokens": count},
                latency_s=finished - started,
                finish_reason=reason,
                timings={
                    "ttft_s": ttft,
                    "decode_s": decode,
                    "output_tokens_per_s": (count - 1) / decode if decode > 0 else 0.0,
                    "input_tokens": input_count,
                    "audio_tokens": audio_count,
                    "output_tokens": count,
                    "batch_size": len(prompts),
                },
            )
        )
    return answers
