"""The shared asynchronous chat client: OpenAI-compatible endpoints, one retry policy, an optional rate limit.

This module owns the retry policy so that every stage retries the same way, by exception type and status code
(never by searching error text), honours ``Retry-After``, backs off exponentially with jitter and gives up after
a bounded number of attempts. An empty or content-filtered answer is a failure, never an answer, and is retried
once only (asking again rarely changes a filter's verdict). Error messages are one line and never contain the API
key.

With several base URLs (replicas of one model), a replica that refuses connections, or fails several requests in
a row, is taken out of rotation for a while and then probed again; retries go to the healthy replicas. A failure
that no retry can fix (a rejected key, a model the endpoint does not serve, no replica accepting connections) is
marked ``permanent`` so that a stage can stop at once instead of failing every request.

The OpenAI-compatible wire is spoken with aiohttp directly: one POST of a JSON body, a JSON reply or a stream of
server-sent events, ``Authorization: Bearer``. The ``openai`` SDK's layers (its httpx models over the aiohttp
transport, its retry and response machinery, all unused here) cost more client CPU per request than the rest of
a request together (measured with 64 requests in flight). Failures are classified as the SDK's exception types
were: a status outside 2xx is an HTTP failure whose message is the provider's ``error.message`` (else the body, else
``Error code: N``); a ``TimeoutError`` anywhere in the cause chain is a timeout; any other transport failure is a
connection failure named by its root cause; a reply or event that is not JSON, or an event carrying ``error``,
is malformed. Timeouts apply to connecting and to each read, as the SDK's did.

The body is encoded here, once per request (retries resend the same bytes), by :func:`request_body`. Media given
as :class:`Base64` blobs are spliced into the JSON as they are, so a long audio clip exists once in memory, as the
body, while its request is in flight. With ``stream=True`` the answer is read as server-sent events and the time
to the first content token is measured (``ChatResult.ttft_s``).
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import itertools
import json
import math
import random
import re
import secrets
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import ssl

    import aiohttp

ErrorKind = Literal["http", "timeout", "connection", "empty", "malformed"]

#: Status codes worth another attempt: request timeout, conflict, rate limit, and every server error.
RETRYABLE_STATUS = frozenset({408, 409, 429})
#: Status codes that no retry and no other question can fix: the key is rejected, or the model is not served.
PERMANENT_STATUS = frozenset({401, 403, 404})
#: Finish reasons that mean the provider withheld the answer.
FILTERED_REASONS = frozenset({"content_filter", "safety", "recitation", "prohibited_content", "blocklist"})
#: Consecutive failures after which a replica is taken out of rotation (a refused connection: at once).
REPLICA_FAILURES = 3
#: Seconds a failing replica stays out of rotation before it is probed again (doubled per failed probe, capped).
REPLICA_COOLDOWN = 5.0
REPLICA_MAX_COOLDOWN = 120.0
_MAX_MESSAGE = 300
SLICE_BYTES = 1 << 18
"""Request bodies are written to the socket this much at a time."""
FILE_BLOCK = 3 << 20
"""Files are base64-encoded this many bytes at a time (a multiple of 3, so the pieces join into one encoding)."""


def _aiohttp() -> ModuleType:
    """``aiohttp``, imported on first use: a run that sends no request (an offline baseline, a finished run
    resumed) should not pay for it."""
    import aiohttp

    return aiohttp


@dataclass
class ChatResult:
    """A successful answer. ``latency_s`` is the duration of the attempt that succeeded; ``ttft_s`` the time from
    sending it to the first content token (streamed answers only); ``request_bytes`` the size of the body sent."""

    text: str
    usage: dict[str, int] | None
    latency_s: float
    attempts: int
    ttft_s: float | None = None
    request_bytes: int = 0
    finish_reason: str | None = None


@dataclass(frozen=True)
class Base64:
    """Binary data that goes into a JSON body as a base64 string (after ``prefix``, e.g. a data-URI head).

    It holds the encoded bytes only, in pieces, never a ``str`` copy: :func:`request_body` splices them into the
    body as they are. A file is encoded as it is read, so it is never in memory undecoded and whole."""

    chunks: tuple[bytes, ...]
    prefix: str = ""

    @classmethod
    def of(cls, data: bytes, prefix: str = "") -> Base64:
        return cls((base64.b64encode(data),), prefix)

    @classmethod
    def of_file(cls, path: Path, prefix: str = "") -> Base64:
        """The file's bytes, encoded a slice at a time (raises OSError as reading the file does)."""
        chunks = []
        with open(path, "rb") as source:
            while block := source.read(FILE_BLOCK):
                chunks.append(base64.b64encode(block))
        return cls(tuple(chunks), prefix)


@dataclass(frozen=True)
class RequestBody:
    """An encoded request body, kept as the pieces it was built from (media are not copied into one buffer)."""

    pieces: tuple[bytes, ...]

    def __len__(self) -> int:
        return sum(len(p) for p in self.pieces)

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)

    async def slices(self) -> AsyncIterator[memoryview]:
        """The body in slices of at most :data:`SLICE_BYTES`, as written to the socket."""
        for piece in self.pieces:
            view = memoryview(piece)
            for start in range(0, len(view), SLICE_BYTES):
                yield view[start : start + SLICE_BYTES]


def request_body(
    model: str, messages: list[dict[str, Any]], params: Mapping[str, Any], *, stream: bool = False
) -> RequestBody:
    """The chat-completion request body: ``params`` merged in (``extra_body`` flattened into it), the streaming
    fields when ``stream``, and every :class:`Base64` blob spliced in as it is."""
    extra = params.get("extra_body") or {}
    fields = {k: v for k, v in params.items() if k != "extra_body"}
    body: dict[str, Any] = {"model": model, "messages": messages, **fields, **extra}
    if stream:
        body.update(stream=True, stream_options={"include_usage": True})
    blobs: list[Base64] = []
    token = secrets.token_hex(8)

    def placeholder(value: Any) -> str:
        if not isinstance(value, Base64):
            raise TypeError(f"{type(value).__name__} is not JSON serializable")
        blobs.append(value)
        return f"{token}:{len(blobs) - 1}"

    text = json.dumps(body, ensure_ascii=False, default=placeholder)
    pieces: list[bytes] = []
    for i, piece in enumerate(re.split(rf"{token}:(\d+)", text)):
        if i % 2 == 0:
            pieces.append(piece.encode("utf-8"))
        else:
            blob = blobs[int(piece)]
            pieces += [blob.prefix.encode("utf-8"), *blob.chunks]
    return RequestBody(tuple(p for p in pieces if p))


class ChatError(Exception):
    """A request that failed for good (non-retryable, or out of attempts).

    ``retryable`` says whether the last failure was of a transient kind, i.e. whether trying again later
    may succeed; ``attempts`` is how many requests were made. ``permanent`` says that no other request to this
    endpoint can succeed either (HTTP 401/403/404, or no replica accepting connections); ``finish_reason`` is
    the provider's reason for an empty or filtered answer.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind,
        status: int | None = None,
        retryable: bool,
        attempts: int = 1,
        permanent: bool = False,
        finish_reason: str | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.attempts = attempts
        self.permanent = permanent
        self.finish_reason = finish_reason


@dataclass
class RetryPolicy:
    """How failed requests are retried.

    ``max_attempts`` counts every request, the first included. The n-th retry waits
    ``min(max_delay, base_delay * 2**(n-1))``, shortened by up to ``jitter`` (a fraction) at random so that
    many clients do not retry in lockstep. A server's ``Retry-After`` replaces the computed delay, capped at
    ``retry_after_cap`` so that a hostile or broken header cannot stall a run.
    """

    max_attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.5
    retry_after_cap: float = 120.0
    empty_retries: int = 1
    """How many times an empty or filtered answer is asked again (a judge that keeps every reply asks none)."""

    def backoff(self, retry: int, rng: random.Random | None = None) -> float:
        """Delay before retry number ``retry`` (1-based) when the server gave no ``Retry-After``."""
        delay = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        return delay * (1.0 - self.jitter * (rng or random).random())


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (delta seconds or an HTTP date); None if absent."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            value = float(millis) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return value if math.isfinite(value) and value >= 0 else None


def host_of(url: str) -> str:
    """Scheme, host and port of a base URL: no user info, path or query is recorded or shown."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


class Scrubber:
    """Removes a secret (and anything sent as a bearer token) from text, and flattens it to one short line."""

    _BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\",}]+")

    def __init__(self, secrets: Sequence[str]):
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, text: str, limit: int = _MAX_MESSAGE) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        text = self._BEARER.sub(r"\1***", text)
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."


class RateLimiter:
    """An asynchronous token bucket: at most ``rpm`` acquisitions per minute, bursts of up to one second's worth."""

    def __init__(self, rpm: float):
        if rpm <= 0:
            raise ValueError("rpm must be positive")
        self.rate = rpm / 60.0
        self.capacity = max(1.0, self.rate)
        self._tokens = self.capacity
        self._stamp = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = time.monotonic()
                self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self._tokens) / self.rate)


@dataclass
class _Endpoint:
    """One replica, with its health: consecutive failures and, while out of rotation, when to probe it again."""

    url: str
    session: aiohttp.ClientSession | None = None
    in_flight: int = 0
    failures: int = 0
    down_until: float = 0.0
    cooldown: float = REPLICA_COOLDOWN

    def healthy(self, now: float) -> bool:
        return self.down_until <= now

    def succeeded(self) -> None:
        self.failures, self.down_until, self.cooldown = 0, 0.0, REPLICA_COOLDOWN

    def failed(self, *, refused: bool, now: float) -> None:
        """Count a failure; a refused connection (or a run of failures) takes the replica out of rotation."""
        self.failures += 1
        if refused or self.failures >= REPLICA_FAILURES:
            self.down_until = now + self.cooldown
            self.cooldown = min(REPLICA_MAX_COOLDOWN, self.cooldown * 2)


class _Attempt(Exception):
    """One failed attempt, classified; internal to :class:`ChatClient`."""

    def __init__(
        self,
        message: str,
        kind: ErrorKind,
        status: int | None,
        retryable: bool,
        wait: float | None,
        finish_reason: str | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.wait = wait
        self.finish_reason = finish_reason


def _usage_dict(body: Mapping[str, Any]) -> dict[str, int] | None:
    """Token counts of a reply: prompt, completion and total, and the prompt's audio tokens where reported."""
    usage = body.get("usage")
    if not isinstance(usage, Mapping):
        return None
    counts = {k: usage[k] for k in ("prompt_tokens", "completion_tokens", "total_tokens") if k in usage}
    details = usage.get("prompt_tokens_details")
    if isinstance(details, Mapping) and "audio_tokens" in details:
        counts["audio_tokens"] = details["audio_tokens"]
    return {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)} or None


def _finish_reason(body: Mapping[str, Any]) -> str | None:
    choices = body.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        reason = choices[0].get("finish_reason")
        return reason if isinstance(reason, str) else None
    return None


@dataclass
class _Streamed:
    """What a streamed answer has delivered so far."""

    start: float
    texts: list[str]
    ttft_s: float | None = None
    usage: dict[str, int] | None = None
    finish_reason: str | None = None

    def add(self, chunk: Any) -> None:
        if not isinstance(chunk, Mapping):
            raise ValueError(f"stream chunk is {type(chunk).__name__}, not a JSON object")
        self.usage = _usage_dict(chunk) or self.usage
        self.finish_reason = _finish_reason(chunk) or self.finish_reason
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, Mapping) else None
            content = delta.get("content") if isinstance(delta, Mapping) else None
            if isinstance(content, str) and content:
                if self.ttft_s is None:
                    self.ttft_s = time.perf_counter() - self.start
                self.texts.append(content)


def _extract_text(body: Any) -> str | None:
    """The first choice's message content; raises ValueError when the body is not a chat completion.

    Content given as a list of parts (some gateways do) is joined from its text parts.
    """
    if not isinstance(body, Mapping):
        raise ValueError(f"response body is {type(body).__name__}, not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ValueError("response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise ValueError("first choice has no message")
    content = message.get("content")
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, Mapping)]
        content = "".join(t for t in texts if isinstance(t, str))
    if content is not None and not isinstance(content, str):
        raise ValueError(f"message content is {type(content).__name__}, not a string")
    return content


@dataclass(frozen=True)
class ClientSettings:
    """Everything the shared client needs, in one object: where requests go, the key, and how they are retried.

    The openai backend, refine's LLM fallback and the judges each build one of these from their own options, so
    every request of the toolkit goes through the same client code with the same retry policy.
    """

    base_urls: tuple[str, ...]
    api_key: str = field(default="", repr=False)
    timeout: float = 180.0
    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy())
    rpm: float | None = None
    max_connections: int = 64


class ChatClient:
    """Chat completions against one or more OpenAI-compatible base URLs with a shared retry policy.

    Requests go to the base URL with the fewest requests in flight (ties in turn), so several servers of
    the same model (for example vLLM replicas) share the load. ``rpm`` limits requests per minute over all
    of them, retries included.
    """

    def __init__(self, settings: ClientSettings):
        if not settings.base_urls:
            raise ValueError("at least one base URL is needed")
        base_urls, api_key, timeout = settings.base_urls, settings.api_key, settings.timeout
        max_connections = settings.max_connections
        self.retry = settings.retry
        self.timeout = timeout
        rpm = settings.rpm
        self._scrub = Scrubber([api_key])
        self._limiter = RateLimiter(rpm) if rpm else None
        self._turn = itertools.count()
        self._rng = random.Random()
        self._max_connections = max_connections
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Content-Type": "application/json",
            "User-Agent": "avibench",
        }
        self._endpoints = [_Endpoint(url=url.rstrip("/")) for url in base_urls]

    def _session(self, endpoint: _Endpoint) -> aiohttp.ClientSession:
        """The replica's connection pool, opened on first use (inside the event loop that uses it)."""
        if endpoint.session is None:
            aiohttp = _aiohttp()
            connector = aiohttp.TCPConnector(limit=self._max_connections, ssl=_ssl_context(endpoint.url))
            endpoint.session = aiohttp.ClientSession(
                connector=connector,
                timeout=aiohttp.ClientTimeout(
                    total=None, connect=self.timeout, sock_connect=self.timeout, sock_read=self.timeout
                ),
            )
        return endpoint.session

    def _pick(self) -> _Endpoint:
        """The healthy replica with the fewest requests in flight (ties in turn); when none is healthy, the one
        due to be probed first."""
        turn = next(self._turn)
        count = len(self._endpoints)
        order = [self._endpoints[(turn + i) % count] for i in range(count)]
        now = time.monotonic()
        healthy = [e for e in order if e.healthy(now)]
        if not healthy:
            return min(order, key=lambda e: e.down_until)
        return min(healthy, key=lambda e: e.in_flight)

    def healthy_replicas(self) -> int:
        now = time.monotonic()
        return sum(e.healthy(now) for e in self._endpoints)

    def _error(self, failure: _Attempt, attempts: int) -> ChatError:
        suffix = f" (after {attempts} attempts)" if attempts > 1 else ""
        every = len(self._endpoints) > 1 and failure.kind == "connection"
        return ChatError(
            f"{failure}{' on every replica' if every else ''}{suffix}",
            kind=failure.kind,
            status=failure.status,
            retryable=failure.retryable,
            attempts=attempts,
            permanent=failure.status in PERMANENT_STATUS
            or (failure.kind == "connection" and self.healthy_replicas() == 0),
            finish_reason=failure.finish_reason,
        )

    async def chat(
        self, model: str, messages: list[dict[str, Any]], *, stream: bool = False, **params: Any
    ) -> ChatResult:
        """One chat completion, retried per the policy; raises :class:`ChatError` when it fails for good."""
        return await self.send(request_body(model, messages, params, stream=stream), stream=stream)

    async def send(self, body: RequestBody, *, stream: bool = False) -> ChatResult:
        """Post an encoded request body (see :func:`request_body`; ``stream`` as it was encoded with), retried per
        the policy; raises :class:`ChatError` when it fails for good.

        An empty or filtered answer is asked once more at most. A retry after a replica failed goes at once to
        another healthy replica when there is one (no back-off: the other replica has not failed).
        """
        attempts = empty = 0
        while True:
            attempts += 1
            try:
                return await self._attempt(body, stream, attempts)
            except _Attempt as failure:
                empty += failure.kind == "empty"
                if (
                    not failure.retryable
                    or attempts >= self.retry.max_attempts
                    or empty > self.retry.empty_retries
                ):
                    raise self._error(failure, attempts) from None
                wait = self.retry.backoff(attempts, self._rng)
                if failure.wait is not None:
                    wait = min(failure.wait, self.retry.retry_after_cap)
                elif (
                    len(self._endpoints) > 1
                    and failure.kind in ("connection", "timeout")
                    and self.healthy_replicas() > 0
                ):
                    wait = 0.0
                await asyncio.sleep(wait)

    async def _attempt(self, body: RequestBody, stream: bool, attempt: int) -> ChatResult:
        """One try on the healthiest replica; a replica's own failures take it out of rotation for a while."""
        if self._limiter is not None:
            await self._limiter.acquire()
        endpoint = self._pick()
        try:
            result = await self._exchange(endpoint, body, stream, attempt)
        except _Attempt as failure:
            server_side = failure.kind in ("connection", "timeout") or (failure.status or 0) >= 500
            if server_side:
                endpoint.failed(refused=failure.kind == "connection", now=time.monotonic())
            raise
        endpoint.succeeded()
        return result

    async def _post(self, endpoint: _Endpoint, body: RequestBody, stream: bool, start: float) -> ChatResult:
        """One request and its whole reply; transport errors propagate as aiohttp raises them, a status outside
        2xx as :class:`_Status`, a reply that is not a chat completion as ``ValueError``.

        The body goes out in slices with its length declared: it is never joined into one buffer, and the event
        loop's transport copies only the part of a slice the socket does not take at once."""
        headers = {
            **self._headers,
            "Accept": "text/event-stream" if stream else "application/json",
            "Content-Length": str(len(body)),
        }
        session = self._session(endpoint)
        async with session.post(
            f"{endpoint.url}/chat/completions", data=body.slices(), headers=headers
        ) as reply:
            if not 200 <= reply.status < 300:
                raise _Status(reply.status, reply.headers, await reply.text(errors="replace"))
            if not stream:
                answer = json.loads(await reply.read())
                return ChatResult(
                    text=_extract_text(answer) or "",
                    usage=_usage_dict(answer),
                    latency_s=time.perf_counter() - start,
                    attempts=0,
                    finish_reason=_finish_reason(answer),
                )
            streamed = _Streamed(start, [])
            async for data in _events(reply.content):
                if data.startswith("[DONE]"):
                    break
                chunk = json.loads(data)
                if isinstance(chunk, Mapping) and chunk.get("error"):
                    raise ValueError(
                        f"error event in the stream: {json.dumps(chunk['error'])[:_MAX_MESSAGE]}"
                    )
                streamed.add(chunk)
        return ChatResult(
            text="".join(streamed.texts),
            usage=streamed.usage,
            latency_s=time.perf_counter() - start,
            attempts=0,
            ttft_s=streamed.ttft_s,
            finish_reason=streamed.finish_reason,
        )

    async def _exchange(
        self, endpoint: _Endpoint, body: RequestBody, stream: bool, attempt: int
    ) -> ChatResult:
        """:meth:`_post` with every failure turned into a classified :class:`_Attempt`; an empty or filtered answer
        is a failure that records the provider's finish reason."""
        aiohttp = _aiohttp()
        endpoint.in_flight += 1
        try:
            result = await self._post(endpoint, body, stream, time.perf_counter())
        except _Status as exc:
            status = exc.status
            retryable = status in RETRYABLE_STATUS or status >= 500
            wait = parse_retry_after(exc.headers) if retryable else None
            raise _Attempt(
                self._scrub(f"HTTP {status}: {exc.detail}"), "http", status, retryable, wait
            ) from None
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            if any(isinstance(e, TimeoutError) for e in _causes(exc)):
                raise _Attempt(f"timeout after {self.timeout:g} s", "timeout", None, True, None) from None
            cause = type(_root_cause(exc)).__name__
            raise _Attempt(
                self._scrub(f"connection failed: {cause}"), "connection", None, True, None
            ) from None
        except ValueError as exc:  # JSONDecodeError included
            raise _Attempt(self._scrub(f"malformed response: {exc}"), "malformed", None, True, None) from None
        finally:
            endpoint.in_flight -= 1
        reason = result.finish_reason
        if reason in FILTERED_REASONS or not result.text.strip():
            why = f"finish_reason {reason}" if reason else "no finish_reason"
            kind = "filtered answer" if reason in FILTERED_REASONS else "empty response content"
            raise _Attempt(f"{kind} ({why})", "empty", None, True, None, reason)
        result.attempts, result.request_bytes = attempt, len(body)
        return result

    async def served_models(self) -> list[str] | None:
        """The model ids the first replica lists at ``GET /models``; ``None`` when it lists none or fails."""
        endpoint = self._endpoints[0]
        try:
            async with self._session(endpoint).get(f"{endpoint.url}/models", headers=self._headers) as reply:
                body = json.loads(await reply.read()) if reply.status == 200 else None
        except Exception:  # listing is optional for OpenAI-compatible servers; the first request will tell
            return None
        data = body.get("data") if isinstance(body, Mapping) else None
        if not isinstance(data, list):
            return None
        ids = [m.get("id") for m in data if isinstance(m, Mapping)]
        return [i for i in ids if isinstance(i, str)] or None

    async def aclose(self) -> None:
        sessions = [e.session for e in self._endpoints if e.session is not None]
        await asyncio.gather(*(session.close() for session in sessions), return_exceptions=True)

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _causes(exc: BaseException) -> list[BaseException]:
    chain = [exc]
    while chain[-1].__cause__ is not None and len(chain) < 16:
        chain.append(chain[-1].__cause__)
    return chain


def _root_cause(exc: BaseException) -> BaseException:
    return _causes(exc)[-1]


class _Status(Exception):
    """A reply whose status is outside 2xx; ``detail`` is what the provider said, as the SDK reported it."""

    def __init__(self, status: int, headers: Mapping[str, str], text: str):
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = headers
        self.detail = _status_detail(status, text)


def _status_detail(status: int, text: str) -> str:
    """The provider's error message from the body when it has one, else the body, else ``Error code: N``."""
    text = text.strip()
    try:
        body: Any = json.loads(text)
    except ValueError:
        body = text
    else:
        body = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return inner["message"]
        return json.dumps(body, ensure_ascii=False)[:_MAX_MESSAGE]
    if isinstance(body, str) and body.strip():
        return body
    return f"Error code: {status}"


async def _events(content: aiohttp.StreamReader) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event (its ``data:`` lines joined by newlines), in order."""
    lines: list[str] = []
    async for raw in content:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if lines:
                yield "\n".join(lines)
                lines = []
            continue
        if line.startswith("data:"):
            value = line[5:]
            lines.append(value[1:] if value.startswith(" ") else value)
    if lines:
        yield "\n".join(lines)


def _ssl_context(url: str) -> ssl.SSLContext | bool:
    """Certificates from ``certifi`` for HTTPS endpoints (the bundle the SDK used), where it is installed."""
    if not url.startswith("https:"):
        return True
    import ssl

    try:
        import certifi
    except ImportError:
        return True
    return ssl.create_default_context(cafile=certifi.where())
