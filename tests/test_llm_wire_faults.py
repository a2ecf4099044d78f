"""The chat client against endpoints that misbehave the way proxies and gateways do, on the raw wire.

Each test serves one behaviour from a small aiohttp app (what the fake server cannot express) and checks how the
client classifies it: retried or not, permanent or not, and what the one-line message says.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web

from avibench.failures import Advice
from avibench.llm import ChatClient, ChatError, ChatResult, ClientSettings, RetryPolicy
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan

KEY = "sk-wire-0123456789abcdef"
FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01, retry_after_cap=0.01)
MESSAGES = [{"role": "user", "content": "hi"}]
ANSWER = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}
Handler = Callable[[web.Request, int], Awaitable[web.StreamResponse]]


async def _serve(
    handler: Handler, *, stream: bool = False, path: str = "/v1"
) -> tuple[ChatResult | ChatError, list]:
    """Ask one question of an app whose every request is answered by ``handler(request, number)``; the result or
    the error, and the (method, path) of each request the app saw."""
    seen: list[tuple[str, str]] = []

    async def route(request: web.Request) -> web.StreamResponse:
        await request.read()
        seen.append((request.method, request.path))
        return await handler(request, len(seen))

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", route)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}{path}"
    try:
        async with ChatClient(ClientSettings((url,), KEY, 5.0, FAST)) as client:
            try:
                outcome: ChatResult | ChatError = await client.chat("m", MESSAGES, stream=stream)
            except ChatError as error:
                outcome = error
    finally:
        await runner.cleanup()
    return outcome, seen


def serve(handler: Handler, **kwargs) -> tuple[ChatResult | ChatError, list]:
    return asyncio.run(asyncio.wait_for(_serve(handler, **kwargs), timeout=60))


def _events(*events: object, done: bool = True, comments: bool = False) -> Handler:
    """A handler that streams ``events`` as server-sent events (each after a keep-alive comment if asked)."""

    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        reply = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await reply.prepare(request)
        for event in events:
            if comments:
                await reply.write(b": keep-alive\n\n")
            await reply.write(f"data: {json.dumps(event)}\n\n".encode())
        if done:
            await reply.write(b"data: [DONE]\n\n")
        await reply.write_eof()
        return reply

    return handler


def _delta(text: str | None, finish: str | None = None) -> dict:
    return {"choices": [{"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}]}


def test_a_reset_after_connecting_is_retried_and_never_permanent() -> None:
    """A gateway resetting connections is a live server with a transient fault: 'no replica accepts connections'
    (permanent, which stops a run after three) is only for connections that were never made."""

    async def main() -> ChatError:
        plan = FaultPlan(markers={"hi": Fault("reset")})
        async with (
            FakeOpenAIServer(plan=plan) as server,
            ChatClient(ClientSettings((server.base_url,), KEY, 5.0, FAST)) as client,
        ):
            with pytest.raises(ChatError) as info:
                await client.chat("m", MESSAGES)
            return info.value

    error = asyncio.run(main())
    assert error.kind == "connection" and error.retryable and error.attempts == FAST.max_attempts
    assert not error.permanent


def test_a_stream_cut_off_without_finish_or_done_is_asked_again() -> None:
    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        if number == 1:  # a proxy closes the stream cleanly halfway through the answer
            return await _events(_delta("The answer"), done=False)(request, number)
        return await _events(_delta("The answer"), _delta(" is yes."), _delta(None, "stop"))(request, number)

    result, seen = serve(handler, stream=True)
    assert isinstance(result, ChatResult), result
    assert result.text == "The answer is yes." and result.attempts == 2 and len(seen) == 2


def test_a_stream_with_a_finish_reason_but_no_done_is_whole() -> None:
    result, seen = serve(_events(_delta("yes"), _delta(None, "stop"), done=False), stream=True)
    assert isinstance(result, ChatResult) and result.text == "yes" and len(seen) == 1


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_not_followed_and_names_where_it_points(status: int) -> None:
    """aiohttp would turn a redirected POST into a bodiless GET (301, 302) or resend a consumed body (307, 308),
    and the key would follow; the redirect is a setting to fix, the same for every request."""

    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        if request.path.startswith("/new/"):
            return web.json_response(ANSWER)
        return web.Response(status=status, headers={"Location": "/new/v1/chat/completions?token=abc"})

    error, seen = serve(handler)
    assert isinstance(error, ChatError), error
    assert error.status == status and error.permanent and not error.retryable
    assert seen == [("POST", "/v1/chat/completions")]
    assert "/new/v1/chat/completions" in str(error) and "token=abc" not in str(error)
    fix = Advice(model="m", hosts="http://127.0.0.1").fix(error)
    assert "--base-url" in fix and f"HTTP {status}" in fix


@pytest.mark.parametrize(
    ("name", "handler", "status", "says"),
    [
        (
            "HTML 502 from a proxy",
            lambda r, n: web.Response(
                status=502,
                text="<html><head><style>h1 {color: red}</style></head><h1>502 Bad Gateway</h1></html>",
                content_type="text/html",
            ),
            502,
            "502 Bad Gateway",
        ),
        (
            "error JSON without error",
            lambda r, n: web.json_response({"detail": "Not Found"}, status=404),
            404,
            "Not Found",
        ),
        (
            "error as a string",
            lambda r, n: web.json_response({"error": "bad key"}, status=401),
            401,
            "bad key",
        ),
        ("empty error body", lambda r, n: web.Response(status=503), 503, "Error code: 503"),
    ],
)
def test_error_bodies_of_every_shape_give_a_status_and_a_message(name, handler, status, says) -> None:
    async def wrapped(request: web.Request, number: int) -> web.StreamResponse:
        return handler(request, number)

    error, seen = serve(wrapped)
    assert isinstance(error, ChatError), name
    assert error.status == status and says in str(error) and "<" not in str(error)
    assert len(seen) == (FAST.max_attempts if status >= 500 else 1)


@pytest.mark.parametrize("retry_after", ["Wed, 21 Oct 2015 07:28:00 GMT", "soon", "-5", "nan"])
def test_any_retry_after_is_survived(retry_after: str) -> None:
    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        if number == 1:
            return web.json_response(
                {"error": {"message": "slow down"}}, status=429, headers={"Retry-After": retry_after}
            )
        return web.json_response(ANSWER)

    result, seen = serve(handler)
    assert isinstance(result, ChatResult) and result.text == "yes" and len(seen) == 2


def _gzip(request: web.Request, number: int) -> web.Response:
    return web.Response(
        body=gzip.compress(json.dumps(ANSWER).encode()),
        headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
    )


async def _chunked(request: web.Request, number: int) -> web.StreamResponse:
    reply = web.StreamResponse(headers={"Content-Type": "application/json"})
    reply.enable_chunked_encoding()
    await reply.prepare(request)
    data = json.dumps(ANSWER).encode()
    for start in range(0, len(data), 7):
        await reply.write(data[start : start + 7])
    await reply.write_eof()
    return reply


@pytest.mark.parametrize("handler", [_gzip, _chunked], ids=["gzip", "chunked"])
def test_compressed_and_chunked_replies_are_read(handler) -> None:
    async def wrapped(request: web.Request, number: int) -> web.StreamResponse:
        reply = handler(request, number)
        return await reply if asyncio.iscoroutine(reply) else reply

    result, _ = serve(wrapped)
    assert isinstance(result, ChatResult) and result.text == "yes"


def test_keep_alive_comments_are_skipped_and_an_error_event_mid_stream_is_retried() -> None:
    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        if number == 1:
            return await _events(_delta("half"), {"error": {"message": "overloaded"}})(request, number)
        return await _events(_delta("yes"), _delta(None, "stop"), comments=True)(request, number)

    result, seen = serve(handler, stream=True)
    assert isinstance(result, ChatResult) and result.text == "yes" and len(seen) == 2


def test_the_key_is_in_no_message_whatever_the_endpoint_echoes() -> None:
    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        echoed = request.headers["Authorization"]
        return web.Response(
            status=502, text=f"<pre>upstream refused {echoed} / {KEY}</pre>", content_type="text/html"
        )

    error, _ = serve(handler)
    assert isinstance(error, ChatError) and KEY not in str(error) and KEY[-8:] not in str(error)


@pytest.mark.parametrize("stream", [False, True])
def test_a_refusal_is_an_empty_answer_whose_message_says_what_was_refused(stream: bool) -> None:
    refusal = "I can't help with that."

    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        if stream:
            events = ({"choices": [{"index": 0, "delta": {"refusal": refusal}, "finish_reason": None}]},)
            return await _events(*events, _delta(None, "stop"))(request, number)
        message = {"role": "assistant", "content": None, "refusal": refusal}
        return web.json_response({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

    error, seen = serve(handler, stream=stream)
    assert isinstance(error, ChatError) and error.kind == "empty" and len(seen) == 2  # asked once more
    assert f"refused answer (finish_reason stop: {refusal})" in str(error)


def test_a_404_names_the_path_as_well_as_the_model() -> None:
    """A base URL without /v1 answers 404 on vLLM just as an unserved model does; the advice must say both."""

    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        return web.json_response({"detail": "Not Found"}, status=404)

    error, _ = serve(handler, path="")
    assert isinstance(error, ChatError) and error.permanent
    fix = Advice(model="m", hosts="http://127.0.0.1").fix(error)
    assert "--model" in fix and "/v1" in fix


def test_a_stream_request_answered_whole_is_read_as_a_completion() -> None:
    """Some gateways ignore ``stream: true`` and send one JSON completion."""

    async def handler(request: web.Request, number: int) -> web.StreamResponse:
        return web.json_response(ANSWER)

    result, seen = serve(handler, stream=True)
    assert isinstance(result, ChatResult) and result.text == "yes" and len(seen) == 1
    assert result.usage == ANSWER["usage"]


def test_a_misconfigured_replica_leaves_rotation_and_its_requests_go_to_the_others() -> None:
    """One replica of several serving another model (404) or holding another key (401) must not fail the run's
    requests, nor stop it as if the endpoint rejected them all."""

    async def main() -> tuple[list[ChatResult], int, int]:
        async with (
            FakeOpenAIServer() as good,
            FakeOpenAIServer(plan=FaultPlan(rate=1.0, random_faults=(Fault("404"),))) as bad,
            ChatClient(ClientSettings((bad.base_url, good.base_url), KEY, 5.0, FAST)) as client,
        ):
            results = [await client.chat("m", MESSAGES) for _ in range(10)]
            return results, bad.count, good.count

    results, bad, good = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert all(r.text for r in results) and good == 10
    assert 1 <= bad <= 3  # out of rotation after its first 404 (probed again only after a cooldown)


def test_every_replica_rejecting_the_key_is_permanent_after_one_try_each() -> None:
    async def main() -> tuple[ChatError, int]:
        plan = FaultPlan(rate=1.0, random_faults=(Fault("401"),))
        async with (
            FakeOpenAIServer(plan=plan) as one,
            FakeOpenAIServer(plan=plan) as two,
            ChatClient(ClientSettings((one.base_url, two.base_url), KEY, 5.0, FAST)) as client,
        ):
            with pytest.raises(ChatError) as info:
                await client.chat("m", MESSAGES)
            return info.value, one.count + two.count

    error, count = asyncio.run(asyncio.wait_for(main(), timeout=60))
    assert error.status == 401 and error.permanent and count == 2
