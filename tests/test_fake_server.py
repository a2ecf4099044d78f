"""The local OpenAI-compatible test server: realistic answers, request records and fault injection."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import openai
import pytest

from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan, request_text


def _body(text: str) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}]}


def test_answers_like_a_provider_and_records_requests() -> None:
    server = FakeOpenAIServer(responder=lambda body: f"echo {request_text(body)}")
    with server.run_in_thread():
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        response = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "ping"}])
        with urllib.request.urlopen(server.base_url.replace("/v1", "/stats")) as stats:
            counts = json.load(stats)
    assert response.choices[0].message.content == "echo ping"
    assert response.usage is not None and response.usage.total_tokens >= 2
    assert counts == {"count": 1, "answered": 1}
    assert server.requests[0].body["messages"][0]["content"] == "ping"
    assert server.requests[0].authorization == "Bearer k"


def test_fault_selection_by_request_marker_and_rate() -> None:
    plan = FaultPlan(by_request={2: Fault("503")}, markers={"BOOM": Fault("reset")}, rate=0.5, seed=3)
    picks = [plan.choose(n, "BOOM" if n == 4 else "plain") for n in range(1, 201)]
    assert picks[1] == Fault("503")
    assert picks[3] == Fault("reset")
    random_share = sum(p is not None for i, p in enumerate(picks) if i not in (1, 3)) / 198
    assert 0.35 < random_share < 0.65
    again = FaultPlan(by_request={2: Fault("503")}, markers={"BOOM": Fault("reset")}, rate=0.5, seed=3)
    assert [again.choose(n, "BOOM" if n == 4 else "plain") for n in range(1, 201)] == picks


def test_fault_parse_rejects_unknown_kinds() -> None:
    assert Fault.parse("429:1.5") == Fault("429", "1.5")
    with pytest.raises(ValueError, match="unknown fault"):
        Fault.parse("explode")
    with pytest.raises(ValueError):
        Fault("200")


def test_each_fault_reaches_the_client_as_the_right_error() -> None:
    async def main() -> dict[str, str]:
        specs = ["429:7", "500", "reset", "malformed", "empty", "null", "hang:2", "echo-auth"]
        plan = FaultPlan(by_request={i + 1: Fault.parse(s) for i, s in enumerate(specs)})
        seen: dict[str, str] = {}
        async with FakeOpenAIServer(plan=plan) as server:
            client = openai.AsyncOpenAI(api_key="sk-x", base_url=server.base_url, max_retries=0, timeout=0.3)
            for spec in specs:
                try:
                    response = await client.chat.completions.create(**_body(spec))
                    seen[spec] = (
                        repr(response.choices[0].message.content) if hasattr(response, "choices") else "raw"
                    )
                except openai.APIStatusError as exc:
                    seen[spec] = f"{exc.status_code} {exc.response.headers.get('retry-after')}"
                except openai.APITimeoutError:
                    seen[spec] = "timeout"
                except openai.APIConnectionError:
                    seen[spec] = "connection"
                except ValueError:
                    seen[spec] = "invalid json"
            await client.close()
        return seen

    seen = asyncio.run(main())
    assert seen["429:7"] == "429 7"
    assert seen["500"] == "500 None"
    assert seen["reset"] == "connection"
    assert seen["malformed"] == "invalid json"
    assert seen["empty"] == "''"
    assert seen["null"] == "None"
    assert seen["hang:2"] == "timeout"
    assert seen["echo-auth"] == "400 None"


def test_latency_is_added() -> None:
    async def main() -> tuple[float, int]:
        async with FakeOpenAIServer(latency=0.2) as server:
            client = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0)
            loop = asyncio.get_running_loop()
            start = loop.time()
            await asyncio.gather(*(client.chat.completions.create(**_body("x")) for _ in range(10)))
            await client.close()
            return loop.time() - start, server.peak_in_flight

    elapsed, peak = asyncio.run(main())
    assert elapsed >= 0.2
    # concurrent requests wait in parallel: read from the server's own count, not from wall time on a busy machine
    assert peak > 1


def test_streams_server_sent_events_when_asked() -> None:
    server = FakeOpenAIServer(responder=lambda body: "The answer is B")
    body = {**_body("q"), "stream": True, "stream_options": {"include_usage": True}}
    with server.run_in_thread():
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            kind, text = response.headers["Content-Type"], response.read().decode()
    assert kind.startswith("text/event-stream")
    events = [line.removeprefix("data: ") for line in text.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant"}
    deltas = [c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]]
    assert deltas[1:5] == ["The", " answer", " is", " B"] and "".join(deltas) == "The answer is B"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 4
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)


def test_streams_without_usage_unless_asked() -> None:
    server = FakeOpenAIServer()
    with server.run_in_thread():
        request = urllib.request.Request(
            server.base_url + "/chat/completions", data=json.dumps({**_body("q"), "stream": True}).encode()
        )
        with urllib.request.urlopen(request) as response:
            text = response.read().decode()
    assert '"usage"' not in text and text.endswith("data: [DONE]\n\n")
