"""The shared chat client against the local fake server: retries, errors, secrets, rate limit, spreading."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from avibench.llm import (
    Base64,
    ChatClient,
    ChatError,
    ClientSettings,
    RateLimiter,
    RetryPolicy,
    _extract_text,
    parse_retry_after,
    request_body,
)
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan

KEY = "sk-test-0123456789abcdef"
FAST = RetryPolicy(max_attempts=5, base_delay=0.001, max_delay=0.01, jitter=0.5)
MESSAGES = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "hi"}]


def faults(*specs: str) -> FaultPlan:
    return FaultPlan(by_request={i + 1: Fault.parse(s) for i, s in enumerate(specs)})


async def ask(server: FakeOpenAIServer, retry: RetryPolicy = FAST, timeout: float = 5.0, **params):
    async with ChatClient(ClientSettings((server.base_url,), KEY, timeout, retry)) as client:
        return await client.chat("fake-model", MESSAGES, **params)


def test_success_records_text_usage_latency_and_params() -> None:
    async def main():
        async with FakeOpenAIServer(latency=0.05) as server:
            result = await ask(server, temperature=0, seed=42, max_tokens=16)
            return result, server.requests[0]

    result, request = asyncio.run(main())
    assert result.text == "The answer is **yes**."
    assert result.attempts == 1
    assert result.latency_s >= 0.05
    assert result.usage is not None and result.usage["total_tokens"] == (
        result.usage["prompt_tokens"] + result.usage["completion_tokens"]
    )
    assert (
        request.body["temperature"] == 0 and request.body["seed"] == 42 and request.body["max_tokens"] == 16
    )
    assert request.body["messages"] == MESSAGES
    assert request.authorization == f"Bearer {KEY}"


def test_each_transient_kind_is_retried_until_success() -> None:
    async def main():
        plan = faults("500", "502", "503", "reset", "malformed", "empty", "429")
        async with FakeOpenAIServer(plan=plan) as server:
            result = await ask(server, retry=RetryPolicy(max_attempts=9, base_delay=0.001, max_delay=0.005))
            return result, [r.fault for r in server.requests]

    result, seen = asyncio.run(main())
    assert result.attempts == 8
    assert seen == ["500", "502", "503", "reset", "malformed", "empty", "429", None]


@pytest.mark.parametrize(
    ("spec", "kind", "status"),
    [
        ("500", "http", 500),
        ("reset", "connection", None),
        ("malformed", "malformed", None),
    ],
)
def test_persistent_failure_gives_up_after_max_attempts(spec: str, kind: str, status: int | None) -> None:
    async def main():
        async with FakeOpenAIServer(plan=FaultPlan(markers={"hi": Fault.parse(spec)})) as server:
            with pytest.raises(ChatError) as info:
                await ask(server)
            return info.value, server.count

    error, count = asyncio.run(main())
    assert (error.kind, error.status, error.retryable, error.attempts) == (kind, status, True, 5)
    assert count == 5
    assert "\n" not in str(error) and "after 5 attempts" in str(error)


@pytest.mark.parametrize(
    ("spec", "reason"), [("empty", "stop"), ("null", "stop"), ("filtered", "content_filter")]
)
def test_empty_or_filtered_answer_is_asked_once_more_then_fails_with_its_reason(
    spec: str, reason: str
) -> None:
    async def main():
        async with FakeOpenAIServer(plan=FaultPlan(markers={"hi": Fault(spec)})) as server:
            with pytest.raises(ChatError) as info:
                await ask(server)
            return info.value, server.count

    error, count = asyncio.run(main())
    assert count == 2
    assert (error.kind, error.finish_reason, error.attempts, error.permanent) == ("empty", reason, 2, False)
    assert f"finish_reason {reason}" in str(error)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_non_retryable_4xx_fails_at_once(status: int) -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults(str(status))) as server:
            with pytest.raises(ChatError) as info:
                await ask(server)
            return info.value, server.count

    error, count = asyncio.run(main())
    assert count == 1
    assert (error.kind, error.status, error.retryable, error.attempts) == ("http", status, False, 1)
    assert error.permanent == (status in (401, 403, 404))
    assert str(error).startswith(f"HTTP {status}: injected")


@pytest.mark.parametrize("status", [408, 409, 429, 500, 504, 529])
def test_retryable_statuses(status: int) -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults(str(status))) as server:
            return await ask(server), server.count

    result, count = asyncio.run(main())
    assert result.attempts == 2 and count == 2


def test_timeout_is_retried_then_reported() -> None:
    async def main():
        async with FakeOpenAIServer(plan=FaultPlan(markers={"hi": Fault("hang", "5")})) as server:
            start = time.perf_counter()
            with pytest.raises(ChatError) as info:
                await ask(server, retry=RetryPolicy(max_attempts=2, base_delay=0.001), timeout=0.3)
            return info.value, time.perf_counter() - start, server.count

    error, elapsed, count = asyncio.run(main())
    assert error.kind == "timeout" and error.attempts == 2 and count == 2
    assert 0.55 < elapsed < 3.0


def test_retry_after_is_honoured() -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults("429:0.4")) as server:
            start = time.perf_counter()
            result = await ask(server)
            return result, time.perf_counter() - start

    result, elapsed = asyncio.run(main())
    assert result.attempts == 2
    assert elapsed >= 0.4  # the policy alone would have waited about a millisecond


def test_retry_after_is_capped() -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults("429:3600")) as server:
            start = time.perf_counter()
            await ask(server, retry=RetryPolicy(max_attempts=2, base_delay=0.001, retry_after_cap=0.05))
            return time.perf_counter() - start

    assert asyncio.run(main()) < 2.0


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    later = datetime.now(UTC) + timedelta(seconds=30)
    delay = parse_retry_after({"retry-after": format_datetime(later, usegmt=True)})
    assert delay is not None and 25 <= delay <= 31
    past = datetime.now(UTC) - timedelta(seconds=30)
    assert parse_retry_after({"retry-after": format_datetime(past, usegmt=True)}) == 0.0


def test_backoff_is_exponential_with_bounded_jitter() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=30.0, jitter=0.5)
    rng = random.Random(0)
    for retry, full in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (6, 30.0), (10, 30.0)]:
        for _ in range(20):
            assert full * 0.5 <= policy.backoff(retry, rng) <= full
    assert RetryPolicy(jitter=0.0).backoff(3) == 4.0


def test_error_messages_never_contain_the_key() -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults("echo-auth")) as server:
            with pytest.raises(ChatError) as info:
                await ask(server)
            return info.value

    error = asyncio.run(main())
    assert error.status == 400
    assert KEY not in str(error) and KEY not in repr(error.args)
    assert "Bearer ***" in str(error)


def test_rate_limiter_spaces_requests() -> None:
    async def main():
        limiter = RateLimiter(rpm=1200)  # 20 per second, bursts of 20
        start = time.perf_counter()
        await asyncio.gather(*(limiter.acquire() for _ in range(30)))
        return time.perf_counter() - start

    elapsed = asyncio.run(main())
    assert 0.45 <= elapsed < 1.5


def test_requests_spread_over_several_base_urls() -> None:
    async def main():
        async with FakeOpenAIServer(latency=0.02) as one, FakeOpenAIServer(latency=0.02) as two:
            async with ChatClient(ClientSettings((one.base_url, two.base_url), KEY, retry=FAST)) as client:
                await asyncio.gather(*(client.chat("m", MESSAGES) for _ in range(20)))
            return one.count, two.count

    first, second = asyncio.run(main())
    assert first + second == 20
    assert first >= 5 and second >= 5


def test_failed_endpoint_retries_elsewhere() -> None:
    async def main():
        bad_plan = FaultPlan(markers={"hi": Fault("503")})
        async with FakeOpenAIServer(plan=bad_plan) as bad, FakeOpenAIServer() as good:
            async with ChatClient(ClientSettings((bad.base_url, good.base_url), KEY, retry=FAST)) as client:
                results = await asyncio.gather(*(client.chat("m", MESSAGES) for _ in range(6)))
            return results, good.count

    results, good_count = asyncio.run(main())
    assert all(r.text for r in results)
    assert good_count == 6


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"choices": [{"message": {"content": "yes"}}]}, "yes"),
        ({"choices": [{"message": {"content": None}}]}, None),
        (
            {
                "choices": [
                    {"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}
                ]
            },
            "ab",
        ),
    ],
)
def test_reply_text_is_read_from_plain_json(body: dict, expected: str | None) -> None:
    assert _extract_text(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "<html>busy</html>",
        [],
        {},
        {"choices": []},
        {"choices": [{}]},
        {"choices": [{"message": {"content": 3}}]},
    ],
)
def test_bodies_that_are_not_chat_completions_are_malformed(body) -> None:
    with pytest.raises(ValueError):
        _extract_text(body)


def _dead_url() -> str:
    import socket

    with socket.socket() as sock:  # a port nobody listens on: connections are refused
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_dead_replica_leaves_rotation_and_retries_go_to_the_live_one() -> None:
    dead = _dead_url()

    async def main():
        async with FakeOpenAIServer() as server:
            retry = RetryPolicy(max_attempts=2, base_delay=5.0)  # a back-off would make this test slow
            async with ChatClient(ClientSettings((dead, server.base_url), KEY, retry=retry)) as client:
                start = time.perf_counter()
                results = await asyncio.gather(*(client.chat("fake-model", MESSAGES) for _ in range(40)))
                return results, server.count, time.perf_counter() - start, client.healthy_replicas()

    results, count, elapsed, healthy = asyncio.run(main())
    assert len(results) == 40 and all(r.text for r in results)  # not one request lost to the dead replica
    assert count == 40 and healthy == 1
    assert elapsed < 4.0


def test_no_replica_accepting_connections_is_permanent() -> None:
    async def main():
        retry = RetryPolicy(max_attempts=2, base_delay=0.001)
        async with ChatClient(ClientSettings((_dead_url(), _dead_url()), KEY, retry=retry)) as client:
            with pytest.raises(ChatError) as info:
                await client.chat("fake-model", MESSAGES)
            return info.value

    error = asyncio.run(main())
    assert error.kind == "connection" and error.permanent
    assert "on every replica" in str(error)


def test_streamed_answer_measures_time_to_first_token() -> None:
    async def main():
        server = FakeOpenAIServer(
            responder=lambda body: "one two three", first_token_delay=0.2, token_delay=0.05
        )
        async with server:
            return await ask(server, stream=True), server.requests[0].body

    result, body = asyncio.run(main())
    assert result.text == "one two three" and result.finish_reason == "stop"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert 0.2 <= result.ttft_s < result.latency_s and result.latency_s - result.ttft_s >= 0.1
    assert result.usage is not None and result.usage["completion_tokens"] == 3
    assert result.request_bytes == len(json.dumps(body, ensure_ascii=False).encode())


@pytest.mark.parametrize(("spec", "kind"), [("malformed", "malformed"), ("empty", "empty"), ("503", "http")])
def test_streamed_faults_are_retried(spec: str, kind: str) -> None:
    async def main():
        async with FakeOpenAIServer(plan=faults(spec)) as server:
            return await ask(server, stream=True), server.count

    result, count = asyncio.run(main())
    assert result.text == "The answer is **yes**." and result.attempts == 2 and count == 2
    failing = RetryPolicy(max_attempts=1)

    async def once():
        async with FakeOpenAIServer(plan=faults(spec)) as server:
            await ask(server, retry=failing, stream=True)

    with pytest.raises(ChatError) as caught:
        asyncio.run(once())
    assert caught.value.kind == kind


def test_request_body_splices_base64_blobs(tmp_path) -> None:
    clip = tmp_path / "clip.bin"
    clip.write_bytes(bytes(range(256)) * 50_000)  # several read blocks, not a multiple of 3
    audio = Base64.of_file(clip)
    image = Base64.of(b"\x89PNG", prefix="data:image/png;base64,")
    content = [
        {"type": "input_audio", "input_audio": {"data": audio, "format": "wav"}},
        {"type": "image_url", "image_url": {"url": image}},
        {"type": "text", "text": 'say "héllo"'},
    ]
    body = request_body(
        "m", [{"role": "user", "content": content}], {"max_tokens": 5, "extra_body": {"x": 1}}
    )
    decoded = json.loads(bytes(body))
    parts = decoded["messages"][0]["content"]
    assert base64.b64decode(parts[0]["input_audio"]["data"]) == clip.read_bytes()
    assert parts[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(b"\x89PNG").decode()
    assert parts[2]["text"] == 'say "héllo"' and decoded["max_tokens"] == 5 and decoded["x"] == 1
    assert len(audio.chunks) == 5 and len(body) == len(bytes(body))
    assert "stream" not in decoded
