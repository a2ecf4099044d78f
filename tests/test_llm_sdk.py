"""What the SDK under the chat client sends: the bearer key (or no Authorization at all without one), the body as
encoded, with its length declared, and the served models read through it."""

from __future__ import annotations

import asyncio

from aiohttp import web

from avibench.llm import ChatClient, ClientSettings, RetryPolicy
from avibench.testing.fake_openai import FakeOpenAIServer

ANSWER = {"choices": [{"index": 0, "message": {"content": "yes"}, "finish_reason": "stop"}]}


async def _headers_seen(key: str) -> tuple[dict[str, str], int, str]:
    seen: list[tuple[dict[str, str], int]] = []

    async def route(request: web.Request) -> web.Response:
        seen.append((dict(request.headers), len(await request.read())))
        return web.json_response(ANSWER)

    app = web.Application()
    app.router.add_route("POST", "/v1/chat/completions", route)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    try:
        async with ChatClient(ClientSettings((url,), key, 5.0, RetryPolicy(max_attempts=1))) as client:
            result = await client.chat("m", [{"role": "user", "content": "hi"}])
    finally:
        await runner.cleanup()
    (headers, size), *_ = seen
    assert size == result.request_bytes
    return headers, len(seen), result.text


def test_the_key_goes_as_a_bearer_token_and_the_body_with_its_length() -> None:
    headers, count, text = asyncio.run(_headers_seen("sk-sdk-42"))
    assert headers["Authorization"] == "Bearer sk-sdk-42" and count == 1 and text == "yes"
    assert "chunked" not in headers.get("Transfer-Encoding", "") and int(headers["Content-Length"]) > 0
    assert headers["User-Agent"] == "avibench" and headers["Content-Type"] == "application/json"


def test_without_a_key_no_authorization_is_sent() -> None:
    headers, count, text = asyncio.run(_headers_seen(""))
    assert "Authorization" not in headers and count == 1 and text == "yes"


def test_served_models_are_listed_with_and_without_a_key() -> None:
    async def main() -> list[list[str] | None]:
        async with FakeOpenAIServer() as server:
            listed = []
            for key in ("sk-sdk-42", ""):
                async with ChatClient(ClientSettings((server.base_url,), key)) as client:
                    listed.append(await client.served_models())
            return listed

    assert asyncio.run(main()) == [["fake-model"], ["fake-model"]]
