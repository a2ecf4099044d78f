"""A local OpenAI-compatible chat server for tests and benchmarks, with fault injection.

It answers ``POST /v1/chat/completions`` like a provider would (a chat completion with usage; with
``"stream": true`` a server-sent event stream of deltas, the usage in a last chunk when
``stream_options.include_usage`` asks for it) and records every request. ``n`` asks for several choices, each
the responder's answer (called once per choice); ``max_choices`` caps how many a reply holds, as a provider that
answers fewer than asked does. Faults can be injected for a given request number, at random with a seeded rate, or whenever
a marker string appears in the request's text: 429 with ``Retry-After``, 5xx, a connection reset, a hang
past the client's timeout, a malformed body, empty or null content, a content-filtered reply (no content,
``finish_reason`` ``content_filter``), a 400 that echoes the request's
``Authorization`` header (to prove that callers scrub secrets), and extra latency. ``usage`` picks how the
prompt is counted, as the media probe meets real servers: ``media`` (each media part counts, the default),
``text`` (media parts are dropped unread and only text counts) or ``none`` (no usage in the reply).
``reject_parts`` names content part types the server refuses with a 400, as a server without that encoder does.

Use it in the test's event loop (``async with FakeOpenAIServer() as server``), in a background thread
(``with FakeOpenAIServer().run_in_thread() as server``, which survives a killed client process), or as a
separate process (``python -m avibench.testing.fake_openai --port 8000``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

FAULT_KINDS = (
    "429",
    "400",
    "echo-auth",
    "500",
    "502",
    "503",
    "reset",
    "hang",
    "malformed",
    "empty",
    "null",
    "filtered",
    "slow",
)


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour. ``arg`` is the Retry-After value for 429 and the seconds for hang/slow."""

    kind: str
    arg: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS and not (self.kind.isdigit() and 400 <= int(self.kind) <= 599):
            raise ValueError(
                f"unknown fault {self.kind!r}; known: an HTTP error status, {', '.join(FAULT_KINDS)}"
            )

    @classmethod
    def parse(cls, spec: str) -> Fault:
        """``"503"``, ``"429:0.05"`` (with Retry-After), ``"hang:5"``, ``"slow:0.2"``, ``"reset"`` ..."""
        kind, _, arg = spec.partition(":")
        return cls(kind, arg or None)


@dataclass
class FaultPlan:
    """Which requests misbehave.

    ``by_request`` maps a 1-based request number to a fault; ``markers`` maps a string to a fault applied to
    every request whose text contains it; otherwise, with probability ``rate``, a fault drawn uniformly from
    ``random_faults`` (seeded, so a run is reproducible).
    """

    by_request: dict[int, Fault] = field(default_factory=dict)
    markers: dict[str, Fault] = field(default_factory=dict)
    rate: float = 0.0
    random_faults: tuple[Fault, ...] = tuple(Fault(k) for k in ("429", "500", "502", "503", "reset", "empty"))
    seed: int = 0
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, number: int, text: str) -> Fault | None:
        if number in self.by_request:
            return self.by_request[number]
        for marker, fault in self.markers.items():
            if marker in text:
                return fault
        if self.rate and self._rng.random() < self.rate:
            return self._rng.choice(self.random_faults)
        return None


@dataclass
class RecordedRequest:
    number: int
    path: str
    body: Any
    authorization: str | None
    fault: str | None
    time: float


def request_text(body: Any) -> str:
    """All text parts of a chat request, joined (what markers are searched in)."""
    texts: list[str] = []
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(
                p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
            )
    return "\n".join(texts)


def default_responder(body: Any) -> str:
    return "The answer is **yes**."


Responder = Callable[[Any], str]


class FakeOpenAIServer:
    """An in-process OpenAI-compatible server on 127.0.0.1 (ephemeral port unless given)."""

    def __init__(
        self,
        *,
        plan: FaultPlan | None = None,
        responder: Responder = default_responder,
        latency: float = 0.0,
        port: int = 0,
        record_bodies: bool = True,
        hang_seconds: float = 3600.0,
        first_token_delay: float = 0.0,
        token_delay: float = 0.0,
        usage: str = "media",
        reject_parts: tuple[str, ...] = (),
        max_choices: int | None = None,
    ):
        """``latency`` delays every answer; a streamed answer also waits ``first_token_delay`` before its first
        content chunk (a prefill) and ``token_delay`` before each further one (decoding)."""
        self.plan = plan or FaultPlan()
        self.responder = responder
        self.latency = latency
        self.first_token_delay = first_token_delay
        if usage not in USAGE_MODES:
            raise ValueError(f"unknown usage mode {usage!r}; known: {', '.join(USAGE_MODES)}")
        self.usage = usage
        self.reject_parts = reject_parts
        self.max_choices = max_choices
        self.rejected = 0
        self.token_delay = token_delay
        self.record_bodies = record_bodies
        self.hang_seconds = hang_seconds
        self.requests: list[RecordedRequest] = []
        self.count = 0
        self.answered = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.port = port
        self._lock = threading.Lock()
        self._runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def bodies(self) -> list[Any]:
        """Bodies of the requests that were answered normally."""
        return [r.body for r in self.requests if r.fault is None]

    # -- serving -------------------------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/stats", self._stats)
        return app

    async def start(self) -> FakeOpenAIServer:
        self._runner = web.AppRunner(
            self._app(), access_log=None, handler_cancellation=True, shutdown_timeout=0.2
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        sockets = self._runner.addresses
        self.port = sockets[0][1]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeOpenAIServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def run_in_thread(self) -> Iterator[FakeOpenAIServer]:
        """Serve from a background thread with its own event loop (for clients in other threads/processes)."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="fake-openai", daemon=True)
        thread.start()
        asyncio.run_coroutine_threadsafe(self.start(), loop).result(timeout=30)
        try:
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(self.stop(), loop).result(timeout=30)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=30)
            loop.close()

    # -- handlers ------------------------------------------------------------------------------------

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response({"count": self.count, "answered": self.answered})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self.count += 1
            number = self.count
        fault = self.plan.choose(number, request_text(body))
        self.requests.append(
            RecordedRequest(
                number=number,
                path=request.path,
                body=body if self.record_bodies else None,
                authorization=request.headers.get("Authorization"),
                fault=fault.kind if fault else None,
                time=time.time(),
            )
        )
        if self.latency:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                await asyncio.sleep(self.latency)
            finally:
                self.in_flight -= 1
        if body is None or not isinstance(body, dict) or "messages" not in body:
            return web.json_response(
                {"error": {"message": "invalid JSON body", "type": "invalid_request"}}, status=400
            )
        rejected = [kind for kind in self.reject_parts if _media_parts(body, kind)]
        if rejected:
            with self._lock:
                self.rejected += 1
            error = {"message": f"Unsupported content part type: {rejected[0]}", "type": "BadRequestError"}
            return web.json_response({"error": error}, status=400)
        if fault is not None:
            response = await self._fault(request, fault, bool(body.get("stream")))
            if response is not None:
                return response
        texts = [self.responder(body) for _ in range(self._choices(body))]
        with self._lock:
            self.answered += 1
        completion = self._completion(body, texts, fault)
        if body.get("stream"):
            return await self._stream(request, body, completion, fault)
        return web.json_response(completion)

    async def _stream(
        self, request: web.Request, body: dict[str, Any], completion: dict[str, Any], fault: Fault | None
    ) -> web.StreamResponse:
        """The completion as server-sent events: a role chunk, one chunk per word, the finish, then usage."""
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        head = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}

        async def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            event = json.dumps({**head, "choices": choices, **extra})
            await response.write(f"data: {event}\n\n".encode())

        choices = completion["choices"]
        for choice in choices:
            await send([{"index": choice["index"], "delta": {"role": "assistant"}, "finish_reason": None}])
        if fault is not None and fault.kind == "malformed":
            await response.write(b'data: {"id": "chatcmpl-x", "choices": [\n\n')
            return response
        sent = 0
        for choice in choices:
            for piece in re.findall(r"\s*\S+", choice["message"]["content"] or ""):
                await asyncio.sleep(self.first_token_delay if sent == 0 else self.token_delay)
                sent += 1
                await send([{"index": choice["index"], "delta": {"content": piece}, "finish_reason": None}])
            await send([{"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}])
        if (body.get("stream_options") or {}).get("include_usage") and "usage" in completion:
            await send([], usage=completion["usage"])
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _fault(self, request: web.Request, fault: Fault, stream: bool) -> web.StreamResponse | None:
        """The response for an injected fault, or None to answer normally (after a ``slow`` delay; a streamed
        answer breaks a ``malformed`` one mid-stream itself)."""
        kind = fault.kind
        if kind.isdigit():
            headers = {"Retry-After": fault.arg} if fault.arg else None
            error = {"message": f"injected HTTP {kind}", "type": "injected"}
            return web.json_response({"error": error}, status=int(kind), headers=headers)
        if kind == "echo-auth":
            echoed = request.headers.get("Authorization", "")
            return web.json_response({"error": {"message": f"bad request; you sent {echoed}"}}, status=400)
        if kind == "reset":
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=500)
        if kind == "hang":
            await asyncio.sleep(float(fault.arg or self.hang_seconds))
            return web.Response(status=504)
        if kind == "malformed" and not stream:
            return web.Response(body=b'{"id": "chatcmpl-x", "choices": [', content_type="application/json")
        if kind == "slow":
            await asyncio.sleep(float(fault.arg or 1.0))
        return None

    def _choices(self, body: dict[str, Any]) -> int:
        """How many choices the reply holds: ``n`` (1 when absent), at most ``max_choices``."""
        asked = body.get("n")
        count = asked if isinstance(asked, int) and not isinstance(asked, bool) and asked > 0 else 1
        return min(count, self.max_choices) if self.max_choices else count

    def _completion(self, body: dict[str, Any], texts: list[str], fault: Fault | None) -> dict[str, Any]:
        content: list[str | None] = list(texts)
        finish_reason = "stop"
        if fault is not None and fault.kind == "empty":
            content = [""] * len(texts)
        elif fault is not None and fault.kind in ("null", "filtered"):
            content = [None] * len(texts)
            finish_reason = "content_filter" if fault.kind == "filtered" else finish_reason
        media = self.usage == "media"
        prompt_tokens = _estimate_prompt_tokens(body) if media else len(request_text(body).split())
        completion_tokens = sum(max(1, len(text.split())) for text in texts)
        completion: dict[str, Any] = {
            "id": f"chatcmpl-{self.count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "fake-model")),
            "choices": [
                {
                    "index": index,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish_reason,
                }
                for index, text in enumerate(content)
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {
                    "audio_tokens": MEDIA_TOKENS * _media_parts(body, "input_audio") if media else 0
                },
            },
        }
        if self.usage == "none":
            del completion["usage"]
        return completion


USAGE_MODES = ("media", "text", "none")
MEDIA_TOKENS = 256
"""The prompt tokens the server counts for each media part."""


def _media_parts(body: Mapping[str, Any], kind: str | None = None) -> int:
    """How many non-text parts the request holds (of one ``type`` when given)."""
    count = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            count += sum(
                1
                for p in content
                if isinstance(p, dict) and p.get("type") != "text" and kind in (None, p.get("type"))
            )
    return count


def _estimate_prompt_tokens(body: Mapping[str, Any]) -> int:
    """A rough count: words of text plus a fixed cost per media part."""
    return len(request_text(body).split()) + MEDIA_TOKENS * _media_parts(body)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake OpenAI-compatible chat endpoint on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    parser.add_argument(
        "--usage", choices=USAGE_MODES, default="media", help="count media parts, text only, or send no usage"
    )
    args = parser.parse_args(argv)

    async def serve() -> None:
        server = FakeOpenAIServer(
            plan=FaultPlan(rate=args.fault_rate, seed=args.seed),
            latency=args.latency,
            port=args.port,
            record_bodies=False,
            usage=args.usage,
        )
        await server.start()
        if args.port_file:
            args.port_file.write_text(str(server.port))
        print(f"listening on {server.base_url}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await server.stop()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
