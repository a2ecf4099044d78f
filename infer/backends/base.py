"""The backend interface: how a model (remote, local or a baseline) answers one sample.

Backends are found through the ``avibench.backends`` entry-point group, so a package can add one (for
example a local ``transformers`` model) without touching this code.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, ClassVar

from avibench.errors import AvibenchError
from avibench.items import Item
from avibench.llm import ClientSettings, RetryPolicy

ENTRY_POINT_GROUP = "avibench.backends"
_FRAMES = re.compile(r"frames:(\d+)")


@dataclass(frozen=True)
class MediaStrategy:
    """How a video reaches the model.

    ``data-uri``: the whole file as a ``data:video/mp4`` URL in an ``image_url`` part (what the reference does);
    ``video-url``: the same data URL in a ``video_url`` part (vLLM); ``frames:N``: N frames sampled uniformly as
    JPEG images plus the video's soundtrack as 16 kHz mono wav (providers without video input).
    """

    kind: str = "data-uri"
    frames: int = 0

    @classmethod
    def parse(cls, text: str) -> MediaStrategy:
        text = text.strip().lower()
        if text in ("data-uri", "video-url"):
            return cls(text)
        match = _FRAMES.fullmatch(text)
        if match and int(match.group(1)) > 0:
            return cls("frames", int(match.group(1)))
        raise ValueError(f"unknown media strategy {text!r}; use data-uri, video-url or frames:N (N >= 1)")

    def __str__(self) -> str:
        return f"frames:{self.frames}" if self.kind == "frames" else self.kind


@dataclass(frozen=True)
class InferRequest:
    """What is asked of every sample in a run: the model id, sampling parameters and media handling.

    ``audio_format`` (wav, flac or mp3) converts every audio clip before it is sent, at ``audio_sample_rate`` Hz
    (16 kHz when unset); ``None`` sends the files as they are. ``stream`` asks endpoints for a streamed answer so
    that the time to the first token can be measured.
    """

    model: str
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    media: MediaStrategy = field(default_factory=MediaStrategy)
    drop_audio_with_video: bool = False
    system_prompt: str | None = None
    extra_body: dict[str, Any] | None = None
    template: str = ""
    audio_format: str | None = None
    audio_sample_rate: int | None = None
    stream: bool = False

    def params(self) -> dict[str, Any]:
        """The sampling parameters sent with each request (only those that are set)."""
        params: dict[str, Any] = {}
        if self.temperature is not None:
            params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        if self.seed is not None:
            params["seed"] = self.seed
        if self.extra_body:
            params["extra_body"] = self.extra_body
        return params

    def for_item(self, item: Item) -> dict[str, Any]:
        """The parameters for one item: the benchmark's own answer-length limit when the user set none."""
        params = self.params()
        if self.max_tokens is None and item.max_tokens is not None:
            params["max_tokens"] = item.max_tokens
        return params

    def provenance(self) -> dict[str, Any]:
        """The request parameters as recorded in every journal record (audio conversion and streaming only when
        asked for, so records of runs without them stay as they were)."""
        recorded = {
            **self.params(),
            "media": str(self.media),
            "drop_audio_with_video": self.drop_audio_with_video,
            "system_prompt": self.system_prompt,
            "template": self.template,
        }
        if self.audio_format is not None:
            recorded.update(audio_format=self.audio_format, audio_sample_rate=self.audio_sample_rate)
        if self.stream:
            recorded["stream"] = True
        return recorded


@dataclass(frozen=True)
class BackendSettings:
    """Everything a backend may need to start; each backend uses the part it needs."""

    model: str
    api_key: str | None = None
    base_urls: tuple[str, ...] = ()
    timeout: float = 180.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    rpm: float | None = None
    max_connections: int = 64
    seed: int = 0
    benchmark: Any = None
    """The benchmark plug-in of the run (baselines answer from it)."""
    device: str = "auto"
    """In-process models: ``auto`` (cuda when available, else cpu), ``cuda``, ``cuda:N`` or ``cpu``."""
    dtype: str = "auto"
    """In-process models: ``auto`` (bfloat16 on GPU, float32 on CPU), ``bfloat16``, ``float16`` or ``float32``."""
    batch_size: int = 8
    """In-process models: the most items generated together."""
    attn: str = "sdpa"
    """In-process models: the attention kernel (``sdpa``, ``flash_attention_2`` where installed, ``eager``)."""

    def client(self) -> ClientSettings:
        """The shared client's settings for backends that talk to an endpoint."""
        return ClientSettings(
            base_urls=self.base_urls,
            api_key=self.api_key or "",
            timeout=self.timeout,
            retry=self.retry,
            rpm=self.rpm,
            max_connections=self.max_connections,
        )


@dataclass
class BackendAnswer:
    """A model's answer to one sample; ``latency_s`` is the model's time for it.

    ``timings`` holds what the backend can measure beyond the total: ``ttft_s`` (time to first token, i.e.
    prefill), ``decode_s``, ``output_tokens_per_s``, token counts (``input_tokens``, ``audio_tokens``,
    ``output_tokens``) and ``batch_size``; only the keys a backend knows are present.
    ``finish_reason`` is the provider's reason the answer ended (``stop``, ``length``, ``content_filter``...).
    ``request_bytes`` is the size of the request body sent over the network (``None`` for in-process models).
    ``attempts`` counts the requests the endpoint received for this answer, retries included.
    """

    text: str
    usage: dict[str, int] | None = None
    latency_s: float = 0.0
    timings: dict[str, float] | None = None
    finish_reason: str | None = None
    request_bytes: int | None = None
    attempts: int = 1


class Backend(ABC):
    """Answers items. Raise any exception to report a failed request; it is recorded, never scored."""

    #: Whether the backend needs OPENAI_API_KEY-style credentials (checked by the CLI up front).
    needs_credentials: ClassVar[bool] = False
    #: Whether the backend reads the media it is given (the media probe has nothing to check where it does not).
    reads_media: ClassVar[bool] = True

    def __init__(self, settings: BackendSettings):
        self.settings = settings

    @abstractmethod
    async def answer(self, item: Item, request: InferRequest) -> BackendAnswer: ...

    async def prompt_tokens(self, item: Item, request: InferRequest) -> int | None:
        """The prompt tokens the model would read for ``item``, counted from the inputs it builds without asking
        it (in-process models); ``None`` where only an answer's usage can tell (the media probe then asks)."""
        return None

    async def aclose(self) -> None:  # noqa: B027 (optional hook: most backends hold nothing)
        """Release connections or models."""

    async def __aenter__(self) -> Backend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def backend_names() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))


def load_backend(name: str) -> type[Backend]:
    """The backend class registered under ``name`` in the ``avibench.backends`` entry-point group."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, Backend)):
                raise AvibenchError(f"backend {name!r} ({ep.value}) is not a Backend subclass")
            return cls
    known = ", ".join(backend_names()) or "none installed"
    raise AvibenchError(f"unknown backend {name!r}; installed backends: {known}")
