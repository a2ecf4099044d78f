"""The shared asynchronous chat client: OpenAI-compatible endpoints, one retry policy, an optional rate limit.

Every request goes out through the ``openai`` SDK (``AsyncOpenAI`` over its aiohttp transport, the ``openai[aiohttp]``
extra) with the SDK's own retries off: this module owns the retry policy so that every stage retries the same way,
by the SDK's exception types and status codes (never by searching error text), honours ``Retry-After``, backs off
exponentially with jitter and gives up after a bounded number of attempts. An empty or content-filtered answer is a
failure, never an answer, and is retried once only (asking again rarely changes a filter's verdict). Error messages
are one line and never contain the API key.

With several base URLs (replicas of one model), a replica that refuses connections, or fails several requests in
a row, is taken out of rotation for a while and then probed again; retries go to the healthy replicas. A failure
that no retry can fix (a rejected key, a model the endpoint does not serve, no replica accepting connections) is
marked ``permanent`` (:attr:`ChatError.permanent`) so that a stage can stop at once instead of failing every
request.

How the SDK's errors are read: an ``APIStatusError`` is an HTTP failure whose message is the provider's
``error.message`` (else the body, an HTML page reduced to its words, else ``Error code: N``); an
``APIConnectionError`` is a timeout when a ``TimeoutError`` is in its cause chain and otherwise a connection
failure named by its root cause (the SDK's aiohttp transport reports every aiohttp connection error as a connect
timeout, so the chain decides); a connection that was never made (refused, name not resolved, TLS failed) is a
replica that is not serving. A reply or event that is not a chat completion, or an event carrying ``error``, is
malformed. Timeouts apply to connecting and to each read. Redirects are not followed (a redirected POST loses its
body, and the key would follow it): a 3xx is a permanent failure naming the target.

The body is encoded here, once per request (retries resend the same bytes), by :func:`request_body`, and handed to
the SDK as raw content in slices with its length declared. Media given as :class:`Base64` blobs are spliced into the
JSON as they are, so a long audio clip exists once in memory, as the body, while its request is in flight. With
``stream=True`` the answer is read as server-sent events by the SDK's stream reader and the time to the first
content token is measured (``ChatResult.ttft_s``); a streamed answer is whole once each of its choices has a
``finish_reason``. A request for ``n`` choices is answered by one reply whose every choice is read
(``ChatResult.texts``).
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
from urllib.parse import urljoin, urlsplit

from avibench.errors import AvibenchError

if TYPE_CHECKING:
    import openai

ErrorKind = Literal["http", "timeout", "connection", "empty", "malformed"]

#: Status codes worth another attempt: request timeout, conflict, rate limit, and every server error.
RETRYABLE_STATUS = frozenset({408, 409, 429})
#: Status codes that no retry and no other question can fix: the key is rejected, the model is not served, or the
#: base URL redirects (every request would be redirected the same way).
PERMANENT_STATUS = frozenset({301, 302, 303, 307, 308, 401, 403, 404})
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


def _openai() -> ModuleType:
    """``openai``, imported on first use: a run that sends no request (an offline baseline, a finished run
    resumed) should not pay for it."""
    import openai

    return openai


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
    refusal: str | None = None
    """The provider's ``refusal`` (a message whose content it withheld), which only an error message shows."""
    texts: tuple[str, ...] = ()
    """Every choice's text in the order of its index (``text`` is the first): a request for ``n`` choices is
    answered by one reply holding up to ``n`` of them."""


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
    # each placeholder is a JSON string "<token>:<i>": the blob goes between its quotes (split, not a pattern
    # built from the token, which would be compiled anew for every request)
    head, *tails = text.split(f"{token}:")
    pieces = [head.encode("utf-8")]
    for tail in tails:
        index, quote, rest = tail.partition('"')
        blob = blobs[int(index)]
        pieces += [blob.prefix.encode("utf-8"), *blob.chunks, (quote + rest).encode("utf-8")]
    return RequestBody(tuple(p for p in pieces if p))


class ChatError(Exception):
    """A request that failed for good (non-retryable, or out of attempts).

    ``retryable`` says whether the last failure was of a transient kind, i.e. whether trying again later
    may succeed; ``attempts`` is how many requests were made. ``permanent`` says that no other request to this
    endpoint can succeed either (HTTP 401/403/404, a redirect, or no replica accepting connections);
    ``finish_reason`` is the provider's reason for an empty or filtered answer.
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
    client: openai.AsyncOpenAI | None = None
    chat_url: str = field(init=False)
    in_flight: int = 0
    failures: int = 0
    down_until: float = 0.0
    cooldown: float = REPLICA_COOLDOWN

    def __post_init__(self) -> None:
        self.chat_url = f"{self.url}/chat/completions"

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
        *,
        refused: bool = False,
    ):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.wait = wait
        self.finish_reason = finish_reason
        self.refused = refused
        """The connection was never made (refused, name not resolved, TLS failed): the replica is not serving.
        A connection dropped after it was made (a reset mid-reply) is a transient fault of a live server."""


@dataclass
class _Reply:
    """An answer as read off the wire: the result, and each choice's finish reason (in the order of its text)."""

    result: ChatResult
    reasons: tuple[str | None, ...]

    def withheld(self) -> bool:
        """Whether no choice holds an answer: each is empty or filtered."""
        texts = self.result.texts or ("",)
        reasons = self.reasons or (None,)
        return all(r in FILTERED_REASONS or not t.strip() for t, r in zip(texts, reasons, strict=False))


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


def _reason(choice: Mapping[str, Any]) -> str | None:
    reason = choice.get("finish_reason")
    return reason if isinstance(reason, str) else None


def _message_text(choice: Any, which: str) -> str | None:
    """A choice's message content; raises ValueError when it is not a chat completion's choice.

    Content given as a list of parts (some gateways do) is joined from its text parts.
    """
    if not isinstance(choice, Mapping):
        raise ValueError(f"{which} is {type(choice).__name__}, not a JSON object")
    message = choice.get("message")
    if not isinstance(message, Mapping):
        raise ValueError(f"{which} has no message")
    content = message.get("content")
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, Mapping)]
        content = "".join(t for t in texts if isinstance(t, str))
    if content is not None and not isinstance(content, str):
        raise ValueError(f"message content is {type(content).__name__}, not a string")
    return content


def _extract_text(body: Any) -> str | None:
    """The first choice's message content; raises ValueError when the body is not a chat completion."""
    if not isinstance(body, Mapping):
        raise ValueError(f"response body is {type(body).__name__}, not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise ValueError("response has no choices")
    return _message_text(choices[0], "first choice")


def _refusal(choice: Mapping[str, Any]) -> str | None:
    """A choice's ``refusal`` text, where the provider gave one."""
    message = choice.get("message")
    refusal = message.get("refusal") if isinstance(message, Mapping) else None
    return refusal if isinstance(refusal, str) and refusal.strip() else None


def _whole_reply(body: Any, start: float) -> _Reply:
    """A chat completion read whole: every choice's text, in the order given."""
    _extract_text(body)
    choices = body["choices"]
    texts = tuple(_message_text(c, f"choice {i}") or "" for i, c in enumerate(choices))
    result = ChatResult(
        text=texts[0],
        usage=_usage_dict(body),
        latency_s=time.perf_counter() - start,
        attempts=0,
        finish_reason=_reason(choices[0]),
        refusal=_refusal(choices[0]),
        texts=texts,
    )
    return _Reply(result, tuple(_reason(c) for c in choices))


@dataclass
class _Streamed:
    """What a streamed answer has delivered so far, per choice index."""

    start: float
    texts: dict[int, list[str]] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    refusals: dict[int, list[str]] = field(default_factory=dict)
    ttft_s: float | None = None
    usage: dict[str, int] | None = None

    def add(self, chunk: Any) -> None:
        if not isinstance(chunk, Mapping):
            raise ValueError(f"stream chunk is {type(chunk).__name__}, not a JSON object")
        self.usage = _usage_dict(chunk) or self.usage
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, Mapping):
                raise ValueError(f"stream choice is {type(choice).__name__}, not a JSON object")
            index = choice.get("index", 0)
            index = index if isinstance(index, int) else 0
            texts = self.texts.setdefault(index, [])
            if reason := _reason(choice):
                self.reasons[index] = reason
            delta = choice.get("delta")
            if not isinstance(delta, Mapping):
                continue
            if isinstance(refusal := delta.get("refusal"), str):
                self.refusals.setdefault(index, []).append(refusal)
            content = delta.get("content")
            if isinstance(content, str) and content:
                if self.ttft_s is None:
                    self.ttft_s = time.perf_counter() - self.start
                texts.append(content)

    def reply(self) -> _Reply:
        """The answer, once every choice that began has finished (else the stream was cut off)."""
        if not self.texts or set(self.reasons) < set(self.texts):
            # a stream cut off cleanly (a proxy's idle or size limit) would otherwise pass as a whole answer
            raise ValueError(
                "the stream ended before every choice had a finish_reason: the answer is cut off"
            )
        order = sorted(self.texts)
        texts = tuple("".join(self.texts[i]) for i in order)
        first = order[0]
        result = ChatResult(
            text=texts[0],
            usage=self.usage,
            latency_s=time.perf_counter() - self.start,
            attempts=0,
            ttft_s=self.ttft_s,
            finish_reason=self.reasons.get(first),
            refusal="".join(self.refusals.get(first, ())).strip() or None,
            texts=texts,
        )
        return _Reply(result, tuple(self.reasons.get(i) for i in order))


@dataclass(frozen=True)
class ClientSettings:
    """Everything the shared client needs, in one object: where requests go, the key, and how they are retried.

    The openai backend, refine's LLM fallback, the judges and the media probe each build one of these from their
    own options, so every request of the toolkit goes through the same client code with the same retry policy.
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
        for url in settings.base_urls:
            if problem := _url_problem(url):
                raise AvibenchError(problem)
        self.retry = settings.retry
        self.timeout = settings.timeout
        self._api_key = settings.api_key
        self._scrub = Scrubber([settings.api_key])
        self._limiter = RateLimiter(settings.rpm) if settings.rpm else None
        self._turn = itertools.count()
        self._rng = random.Random()
        self._max_connections = settings.max_connections
        self._endpoints = [_Endpoint(url=url.strip().rstrip("/")) for url in settings.base_urls]

    def _sdk(self, endpoint: _Endpoint) -> openai.AsyncOpenAI:
        """The replica's SDK client, made on first use: the SDK's retries off (the policy here retries), no
        redirect followed, no proxy settings taken from the environment, one pool of at most
        ``max_connections`` connections."""
        if endpoint.client is None:
            openai = _openai()
            limits = _http().Limits(
                max_connections=self._max_connections, max_keepalive_connections=self._max_connections
            )
            http = openai.DefaultAioHttpClient(
                timeout=openai.Timeout(self.timeout),
                limits=limits,
                follow_redirects=False,
                trust_env=False,
            )
            endpoint.client = openai.AsyncOpenAI(
                api_key=self._api_key or "none",  # never sent: without a key, requests omit Authorization
                base_url=endpoint.url,
                max_retries=0,
                timeout=openai.Timeout(self.timeout),
                http_client=http,
                default_headers={"User-Agent": "avibench"},
            )
        return endpoint.client

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
        every = len(self._endpoints) > 1 and failure.refused
        return ChatError(
            f"{failure}{' on every replica' if every else ''}{suffix}",
            kind=failure.kind,
            status=failure.status,
            retryable=failure.retryable,
            attempts=attempts,
            permanent=failure.status in PERMANENT_STATUS
            or (failure.refused and self.healthy_replicas() == 0),
            finish_reason=failure.finish_reason,
        )

    async def chat(
        self, model: str, messages: list[dict[str, Any]], *, stream: bool = False, **params: Any
    ) -> ChatResult:
        """One chat completion, retried per the policy; raises :class:`ChatError` when it fails for good.
        ``params`` go into the body as they are (``n=3`` asks for three choices: ``ChatResult.texts``)."""
        return await self.send(request_body(model, messages, params, stream=stream), stream=stream)

    async def send(self, body: RequestBody, *, stream: bool = False) -> ChatResult:
        """Post an encoded request body (see :func:`request_body`; ``stream`` as it was encoded with), retried per
        the policy; raises :class:`ChatError` when it fails for good.

        An empty or filtered answer is asked once more at most. A retry after a replica failed goes at once to
        another healthy replica when there is one (no back-off: the other replica has not failed); so does a
        request that one of several replicas rejected with HTTP 401/403/404 or a redirect.
        """
        attempts = empty = 0
        while True:
            attempts += 1
            try:
                return await self._attempt(body, stream, attempts)
            except _Attempt as failure:
                empty += failure.kind == "empty"
                # a replica that rejects the key or serves another model is misconfigured, not the endpoint
                elsewhere = self._misconfigured(failure) and self.healthy_replicas() > 0
                if (
                    not (failure.retryable or elsewhere)
                    or attempts >= self.retry.max_attempts
                    or empty > self.retry.empty_retries
                ):
                    raise self._error(failure, attempts) from None
                wait = self.retry.backoff(attempts, self._rng)
                if failure.wait is not None:
                    wait = min(failure.wait, self.retry.retry_after_cap)
                elif elsewhere or (
                    len(self._endpoints) > 1
                    and failure.kind in ("connection", "timeout")
                    and self.healthy_replicas() > 0
                ):
                    wait = 0.0
                await asyncio.sleep(wait)

    def _misconfigured(self, failure: _Attempt) -> bool:
        """Whether one of several replicas answered with a status no retry fixes (a rejected key, a model not
        served, a redirect): it leaves rotation like a replica that refuses connections, and the request goes to
        another; with every replica out of rotation the failure is permanent."""
        return len(self._endpoints) > 1 and failure.status in PERMANENT_STATUS

    async def _attempt(self, body: RequestBody, stream: bool, attempt: int) -> ChatResult:
        """One try on the healthiest replica; a replica's own failures take it out of rotation for a while."""
        if self._limiter is not None:
            await self._limiter.acquire()
        endpoint = self._pick()
        try:
            result = await self._exchange(endpoint, body, stream, attempt)
        except _Attempt as failure:
            server_side = failure.kind in ("connection", "timeout") or (failure.status or 0) >= 500
            misconfigured = self._misconfigured(failure)
            if server_side or misconfigured:
                endpoint.failed(refused=failure.refused or misconfigured, now=time.monotonic())
            raise
        endpoint.succeeded()
        return result

    async def _post(self, endpoint: _Endpoint, body: RequestBody, stream: bool, start: float) -> _Reply:
        """One request through the SDK and its whole reply; the SDK's errors propagate as it raises them, a reply
        that is not a chat completion as ``ValueError``.

        The body goes out as raw content in slices with its length declared: it is never joined into one
        buffer."""
        openai = _openai()
        client = self._sdk(endpoint)
        headers = {
            "Accept": "text/event-stream" if stream else "application/json",
            "Content-Length": str(len(body)),
            **self._keyless(),
        }
        reply = await client.post(
            endpoint.chat_url,  # absolute: the SDK then parses it once instead of joining it to the base URL
            cast_to=_http().Response,  # the reply as it came, read below
            content=body.slices(),
            options={"headers": headers},
            stream=stream,
        )
        try:
            # a JSON reply to a stream request: some gateways ignore ``stream`` and answer whole
            if not stream or reply.headers.get("content-type", "").startswith("application/json"):
                return _whole_reply(json.loads(await reply.aread()), start)
            streamed = _Streamed(start)
            async for chunk in openai.AsyncStream(cast_to=object, response=reply, client=client):
                streamed.add(chunk)
            return streamed.reply()
        finally:
            await reply.aclose()

    def _classify(self, exc: Exception) -> _Attempt:
        """A failed exchange as a classified attempt, from the SDK's exception type and status."""
        openai = _openai()
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            headers = exc.response.headers
            if 300 <= status < 400:
                detail = _redirect_detail(str(exc.request.url), headers)
            else:
                detail = _status_detail(status, exc.body)
            retryable = status in RETRYABLE_STATUS or status >= 500
            wait = parse_retry_after(headers) if retryable else None
            return _Attempt(self._scrub(f"HTTP {status}: {detail}"), "http", status, retryable, wait)
        if isinstance(exc, (openai.APIConnectionError, *_transport_errors())):
            chain = _causes(exc)
            if any(isinstance(e, TimeoutError) for e in chain):
                return _Attempt(f"timeout after {self.timeout:g} s", "timeout", None, True, None)
            refused = any(isinstance(e, _refused_errors()) for e in chain)
            cause = type(chain[-1]).__name__
            return _Attempt(
                self._scrub(f"connection failed: {cause}"), "connection", None, True, None, refused=refused
            )
        if isinstance(exc, openai.APIError):  # an error event in a stream
            detail = json.dumps(exc.body)[:_MAX_MESSAGE] if exc.body is not None else exc.message
            return _Attempt(
                self._scrub(f"malformed response: error event in the stream: {detail}"),
                "malformed",
                None,
                True,
                None,
            )
        return _Attempt(self._scrub(f"malformed response: {exc}"), "malformed", None, True, None)

    async def _exchange(
        self, endpoint: _Endpoint, body: RequestBody, stream: bool, attempt: int
    ) -> ChatResult:
        """:meth:`_post` with every failure turned into a classified :class:`_Attempt`; an answer whose every
        choice is empty or filtered is a failure that records the provider's finish reason."""
        openai = _openai()
        endpoint.in_flight += 1
        try:
            reply = await self._post(endpoint, body, stream, time.perf_counter())
        except (openai.APIError, ValueError, *_transport_errors()) as exc:  # JSONDecodeError included
            raise self._classify(exc) from None
        finally:
            endpoint.in_flight -= 1
        result = reply.result
        if reply.withheld():
            reason = result.finish_reason
            why = f"finish_reason {reason}" if reason else "no finish_reason"
            kind = "filtered answer" if reason in FILTERED_REASONS else "empty response content"
            if result.refusal:
                kind, why = "refused answer", f"{why}: {result.refusal}"
            raise _Attempt(self._scrub(f"{kind} ({why})"), "empty", None, True, None, reason)
        result.attempts, result.request_bytes = attempt, len(body)
        return result

    def _keyless(self) -> dict[str, Any]:
        """Request headers that drop ``Authorization`` when there is no key (a local server that checks none)."""
        return {} if self._api_key else {"Authorization": _openai().Omit()}

    async def served_models(self) -> list[str] | None:
        """The model ids the first replica lists at ``GET /models``; ``None`` when it lists none or fails."""
        try:
            page = await self._sdk(self._endpoints[0]).models.list(extra_headers=self._keyless())
            ids = [model.id for model in page.data]
        except Exception:  # listing is optional for OpenAI-compatible servers; the first request will tell
            return None
        return [i for i in ids if isinstance(i, str)] or None

    async def aclose(self) -> None:
        clients = [e.client for e in self._endpoints if e.client is not None]
        await asyncio.gather(*(client.close() for client in clients), return_exceptions=True)

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _http() -> ModuleType:
    """``httpx2``, the SDK's HTTP layer (imported with it): its connection limits, raw reply and transport errors."""
    import httpx2

    return httpx2


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Transport failures that reach the caller unwrapped: reading a reply the SDK handed over as it came, and
    aiohttp errors its transport does not map."""
    import aiohttp

    return (_http().TransportError, aiohttp.ClientError, OSError, TimeoutError)


def _refused_errors() -> tuple[type[BaseException], ...]:
    """Causes that mean a connection was never made: refused, the name not resolved, TLS failed."""
    import aiohttp

    return (aiohttp.ClientConnectorError,)


def _causes(exc: BaseException) -> list[BaseException]:
    chain = [exc]
    while chain[-1].__cause__ is not None and len(chain) < 16:
        chain.append(chain[-1].__cause__)
    return chain


def _status_detail(status: int, body: object) -> str:
    """What the provider said, from the body the SDK decoded (its ``error`` member where it has one): the
    error's message, else the body (an HTML page reduced to its words), else ``Error code: N``."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(inner, str) and inner.strip():
            return inner.strip()
        return json.dumps(body, ensure_ascii=False)[:_MAX_MESSAGE]
    text = body.strip() if isinstance(body, str) else ""
    if text.startswith("<"):  # a proxy's HTML page: its words, not its markup
        text = " ".join(_TAG.sub(" ", _HTML_SKIP.sub(" ", text)).split())
    return text or f"Error code: {status}"


_HTML_SKIP = re.compile(r"(?is)<(script|style)\b.*?</\1>|<!--.*?-->")
_TAG = re.compile(r"<[^>]*>")


def _url_problem(url: str) -> str | None:
    """Why a base URL cannot be used, else None. Without this check a URL without a scheme failed every request as
    a retried connection failure, and one holding credentials sent them beside the bearer key."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"base URL {url.split('@')[-1]!r}: it needs http:// or https:// and a host (e.g. http://localhost:8000/v1)"
    if parts.username is not None or parts.password is not None:
        return (
            f"base URL {host_of(url)}: it holds a user name or password; give the API key in its own setting"
        )
    return None


def _redirect_detail(url: str, headers: Mapping[str, str]) -> str:
    """What a redirect of the chat endpoint says: where it points (scheme, host, port and path, no query)."""
    location = headers.get("Location")
    if not location:
        return "redirect without a Location; check the base URL"
    target = urlsplit(urljoin(url, location))
    where = host_of(target.geturl()) + target.path
    return (
        f"redirected to {where}; set the base URL to the address it redirects to (without /chat/completions)"
    )
