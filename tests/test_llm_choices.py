"""A request for ``n`` choices: one request, one reply, every choice read (through the SDK, against the fake
server, streamed or whole)."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from avibench.llm import ChatClient, ChatError, ClientSettings, RetryPolicy
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan

KEY = "sk-choices-0123456789"
FAST = RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.01)
MESSAGES = [{"role": "user", "content": "Is it raining?"}]


def numbered(*answers: str):
    """A responder that gives ``answers`` in turn (one per choice), then starts again."""
    cycle = itertools.cycle(answers)
    return lambda body: next(cycle)


async def _ask(server: FakeOpenAIServer, **params):
    async with ChatClient(ClientSettings((server.base_url,), KEY, 5.0, FAST)) as client:
        return await client.chat("judge", MESSAGES, **params)


@pytest.mark.parametrize("stream", [False, True])
def test_three_choices_come_from_one_request_in_their_order(stream: bool) -> None:
    async def main():
        async with FakeOpenAIServer(responder=numbered("Yes", "No", "Yes, it is.")) as server:
            return await _ask(server, n=3, temperature=0.5, stream=stream), server

    result, server = asyncio.run(main())
    assert server.count == 1 and server.requests[0].body["n"] == 3
    assert result.texts == ("Yes", "No", "Yes, it is.") and result.text == "Yes"
    assert result.attempts == 1 and result.finish_reason == "stop"


def test_a_reply_with_fewer_choices_than_asked_is_read_as_it_came() -> None:
    async def main():
        server = FakeOpenAIServer(responder=numbered("4", "5", "3"), max_choices=2)
        async with server:
            return await _ask(server, n=3), server.count

    result, count = asyncio.run(main())
    assert result.texts == ("4", "5") and count == 1


def test_one_empty_choice_among_answered_ones_is_kept_and_not_asked_again() -> None:
    async def main():
        async with FakeOpenAIServer(responder=numbered("Yes", "", "No")) as server:
            return await _ask(server, n=3), server.count

    result, count = asyncio.run(main())
    assert result.texts == ("Yes", "", "No") and count == 1


def test_every_choice_empty_is_an_empty_answer_asked_once_more() -> None:
    async def main():
        async with FakeOpenAIServer(plan=FaultPlan(markers={"raining": Fault("empty")})) as server:
            with pytest.raises(ChatError) as info:
                await _ask(server, n=3)
            return info.value, server.count

    error, count = asyncio.run(main())
    assert error.kind == "empty" and error.attempts == 2 and count == 2


def test_a_single_choice_reply_has_one_text() -> None:
    async def main():
        async with FakeOpenAIServer() as server:
            return await _ask(server)

    result = asyncio.run(main())
    assert result.texts == (result.text,) == ("The answer is **yes**.",)
