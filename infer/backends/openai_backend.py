"""Any OpenAI-compatible chat endpoint (Gemini's OpenAI endpoint, OpenAI, vLLM, a gateway)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from avibench.infer.backends.base import Backend, BackendAnswer, BackendSettings, InferRequest
from avibench.infer.media import build_messages
from avibench.items import Item
from avibench.llm import ChatClient


class OpenAIBackend(Backend):
    """Sends each item's conversation with base64 media through :class:`ChatClient`."""

    needs_credentials: ClassVar[bool] = True

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        if not settings.api_key or not settings.base_urls:
            raise ValueError("the openai backend needs an API key and at least one base URL")
        self.client = ChatClient(
            base_urls=settings.base_urls,
            api_key=settings.api_key,
            timeout=settings.timeout,
            retry=settings.retry,
            rpm=settings.rpm,
            max_connections=settings.max_connections,
        )

    async def answer(self, item: Item, request: InferRequest) -> BackendAnswer:
        messages = await asyncio.to_thread(build_messages, item, request)
        result = await self.client.chat(request.model, messages, **request.for_item(item))
        return BackendAnswer(
            text=result.text,
            usage=result.usage,
            latency_s=result.latency_s,
            finish_reason=getattr(result, "finish_reason", None),
            attempts=result.attempts,
        )

    async def aclose(self) -> None:
        await self.client.aclose()
