"""Any OpenAI-compatible chat endpoint (Gemini's OpenAI endpoint, OpenAI, vLLM, a gateway)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from avibench.infer.backends.base import Backend, BackendAnswer, BackendSettings, InferRequest
from avibench.infer.media import build_messages
from avibench.items import Item
from avibench.llm import ChatClient, ChatResult, RequestBody, request_body


def encoded_request(item: Item, request: InferRequest) -> RequestBody:
    """The request body for one item. The messages (media included) live only while it is encoded, so a request
    in flight holds its media once, inside the body."""
    return request_body(
        request.model, build_messages(item, request), request.for_item(item), stream=request.stream
    )


def stream_timings(result: ChatResult) -> dict[str, float] | None:
    """Prefill and decode of a streamed answer: time to the first token, the rest, and decode speed."""
    if result.ttft_s is None:
        return None
    decode = max(0.0, result.latency_s - result.ttft_s)
    timings = {"ttft_s": round(result.ttft_s, 4), "decode_s": round(decode, 4)}
    output = (result.usage or {}).get("completion_tokens")
    if output is not None and decode > 0:
        timings["output_tokens_per_s"] = round((output - 1) / decode, 2) if output > 1 else 0.0
    return timings


class OpenAIBackend(Backend):
    """Sends each item's conversation with base64 media through :class:`ChatClient`."""

    needs_credentials: ClassVar[bool] = True

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        if not settings.api_key or not settings.base_urls:
            raise ValueError("the openai backend needs an API key and at least one base URL")
        self.client = ChatClient(settings.client())

    async def answer(self, item: Item, request: InferRequest) -> BackendAnswer:
        body = await asyncio.to_thread(encoded_request, item, request)
        result = await self.client.send(body, stream=request.stream)
        return BackendAnswer(
            text=result.text,
            usage=result.usage,
            latency_s=result.latency_s,
            timings=stream_timings(result),
            finish_reason=result.finish_reason,
            request_bytes=result.request_bytes,
            attempts=result.attempts,
        )

    async def aclose(self) -> None:
        await self.client.aclose()
