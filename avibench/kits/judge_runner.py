"""The LLM judge runner under the judged-answers kit (:mod:`avibench.kits.judged`): (key, messages) jobs in, one
reply per job out, resumable.

Every job is sent through the shared chat client (its retry policy: 429 and 5xx retried, ``Retry-After``
honoured) with bounded concurrency on one event loop. A reply the benchmark does not accept (``accept``) is asked
again up to ``reasks`` times and then kept as an invalid reply, which the benchmark reports as a judge failure.
An empty (or content-filtered) answer, once the client's retries of it (``RetryPolicy.empty_retries``) are spent,
is such a reply too: the empty string, kept on record like any other reply, never a failed request.

A judge that samples several replies per job (``JudgeSettings.samples``, e.g. VoiceBench's three) asks for them in
one request (``n``) and reads every choice of the reply; a reply with fewer choices than asked is kept as it came
(the official evaluators read what they got), and a job is accepted when every choice is.

Each finished job is appended (and fsynced) to a journal, the latest record per key winning. A job is done when its
latest record was made from the same request (judge model, messages and sampling parameters: ``request`` hash)
and holds a reply, valid or not; a job whose requests failed is recorded with its error and asked again next time.
So a killed run resumes where it stopped and a finished one sends no request. The API key is never recorded.

A failure no retry can fix (a rejected key, a model the endpoint does not serve, no replica accepting
connections) stops the judging after three identical ones, as it stops infer, with the judge setting to fix:
the jobs not asked are asked next time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.contracts import latest_by_key
from avibench.errors import AvibenchError
from avibench.failures import Advice, FailureGuard, RunStopped
from avibench.kits.judge_options import DEFAULT_CONCURRENCY
from avibench.llm import ChatClient, ChatError, ClientSettings, RetryPolicy, host_of
from avibench.scheduler import run_jobs
from avibench.store import JournalSink

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TEMPERATURE = 0.0
DEFAULT_MAX_TOKENS = 1024
KEY_VARIABLES = ("JUDGE_API_KEY", "OPENAI_API_KEY")


#: How a judged part left without a judge is described (coverage reasons, the line eval prints).
NOT_JUDGED = "not judged: "


class JudgeNotConfigured(AvibenchError):
    """The judge has questions to judge and no API key: the judged parts are not judged (partial), not failed."""


def not_judged_line(parts: Sequence[str], why: str) -> str:
    """The one line eval prints for judged parts left without a judge."""
    return f"{NOT_JUDGED}{', '.join(parts)}: {why}; the scores are partial without them"


@dataclass(frozen=True)
class JudgeSettings:
    """Where judge requests go and how they are sent (temperature 0 by default, so a re-judge agrees)."""

    model: str
    base_urls: tuple[str, ...] = (DEFAULT_BASE_URL,)
    api_key: str = field(default="", repr=False)
    concurrency: int = DEFAULT_CONCURRENCY
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = 180.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    samples: int = 1
    """Replies asked per job, all in one request (``n``; sent only when above 1)."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further sampling parameters the protocol sends (``top_p``, penalties), recorded like the others."""

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], default_model: str, env: Mapping[str, str] | None = None
    ) -> JudgeSettings:
        """Settings from the eval options ``judge_model``, ``judge_base_url`` (comma-separated) and
        ``judge_concurrency``; the key from ``JUDGE_API_KEY``, else ``OPENAI_API_KEY``; the base URL falls back
        to ``JUDGE_BASE_URL``, ``OPENAI_BASE_URL`` and then the OpenAI API."""
        env = os.environ if env is None else env
        urls = options.get("judge_base_url") or env.get("JUDGE_BASE_URL") or env.get("OPENAI_BASE_URL") or ""
        base_urls = tuple(u.strip() for u in urls.split(",") if u.strip()) or (DEFAULT_BASE_URL,)
        return cls(
            model=options.get("judge_model") or default_model,
            base_urls=base_urls,
            api_key=next((env[k] for k in KEY_VARIABLES if env.get(k)), ""),
            concurrency=options.get("judge_concurrency") or DEFAULT_CONCURRENCY,
        )

    def client(self) -> ClientSettings:
        return ClientSettings(
            base_urls=self.base_urls,
            api_key=self.api_key,
            timeout=self.timeout,
            retry=self.retry,
            max_connections=max(1, self.concurrency),
        )

    def params(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **self.extra,
            # n only where several replies are asked, so one-reply judges' requests and journal records stay as
            # they were
            **({"n": self.samples} if self.samples > 1 else {}),
        }


@dataclass(frozen=True)
class JudgeJob:
    """One judge request: its key in the journal (unique within it) and the chat messages to send; ``accept``,
    where a reply's validity depends on the job (the options a question offers), replaces ``run_judge``'s."""

    key: str
    messages: Sequence[Mapping[str, str]]
    accept: Callable[[str], bool] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class JudgeReply:
    """A job's outcome: the judge's last reply (``None`` when its requests failed; its first choice when several
    were asked), whether it was accepted, the error of a failed request, and every choice of the reply."""

    reply: str | None
    valid: bool
    error: str | None = None
    choices: tuple[str, ...] = ()
    """Every choice the reply held, in order (one per sample asked; fewer when the judge gave fewer)."""


@dataclass
class JudgeOutcome:
    """Every job's reply by key, how many requests this run sent (retries included), and how many replies (choices)
    it took from the journal."""

    replies: dict[str, JudgeReply]
    requests: int = 0
    reused: int = 0


def request_hash(model: str, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]) -> str:
    """What a journal record was made from: the judge model, the messages and the sampling parameters."""
    body = json.dumps(
        {"model": model, "messages": list(messages), **params}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def _reusable(record: Mapping[str, Any] | None, digest: str) -> JudgeReply | None:
    if record is None or record.get("request") != digest or record.get("error") is not None:
        return None
    reply = record.get("reply")
    if not isinstance(reply, str):
        return None
    choices = record.get("choices")
    if not (isinstance(choices, list) and all(isinstance(c, str) for c in choices)):
        choices = [reply]
    return JudgeReply(reply, bool(record.get("valid")), choices=tuple(choices))


class _Judging:
    """One run over the pending jobs: asks, re-asks unaccepted replies, journals each outcome."""

    def __init__(
        self, settings: JudgeSettings, accept: Callable[[str], bool], reasks: int, journal: Path
    ) -> None:
        self.settings = settings
        self.accept = accept
        self.reasks = reasks
        self.journal = journal
        self.requests = 0
        hosts = ", ".join(dict.fromkeys(host_of(url) for url in settings.base_urls))
        advice = Advice(
            settings.model,
            hosts,
            model_setting="--judge-model",
            url_setting="--judge-base-url or JUDGE_BASE_URL",
            key_setting=" or ".join(KEY_VARIABLES),
        )
        self.guard = FailureGuard(advice=advice)

    async def _judge(self, client: ChatClient, job: JudgeJob) -> tuple[JudgeReply, ChatError | None]:
        """The job's reply, and the error of a failed request (for the failure guard)."""
        choices: tuple[str, ...] = ()
        for _ in range(1 + self.reasks):
            try:
                result = await client.chat(self.settings.model, list(job.messages), **self.settings.params())
            except ChatError as exc:
                self.requests += exc.attempts
                if exc.kind != "empty":
                    return JudgeReply(None, False, str(exc)), exc
                # an empty or withheld answer is still the judge's reply, kept like any other
                choices = ("",) * self.settings.samples
            else:
                self.requests += result.attempts
                choices = result.texts or (result.text,)
            accept = job.accept or self.accept
            if all(accept(choice) for choice in choices):
                return JudgeReply(choices[0], True, choices=choices), None
        return JudgeReply(choices[0] if choices else None, False, choices=choices), None

    async def run(self, jobs: Sequence[tuple[JudgeJob, str]]) -> dict[str, JudgeReply]:
        replies: dict[str, JudgeReply] = {}
        settings = self.settings

        async with ChatClient(settings.client()) as client:

            async def one(job: tuple[JudgeJob, str], sink: JournalSink) -> None:
                request, digest = job
                outcome, failure = await self._judge(client, request)
                record = {
                    "key": request.key,
                    "request": digest,
                    "model": settings.model,
                    "reply": outcome.reply,
                    **({"choices": list(outcome.choices)} if settings.samples > 1 else {}),
                    "valid": outcome.valid,
                    "error": outcome.error,
                    "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                    "version": __version__,
                }
                await sink.write(self.journal, record)
                replies[request.key] = outcome
                self.guard.observe(outcome.error, failure)

            try:
                await run_jobs(
                    jobs,
                    one,
                    concurrency=max(1, settings.concurrency),
                    stop=lambda: self.guard.stopped is not None,
                )
            except* RunStopped:
                pass  # raised again below, once the journal is written and the client closed
        if self.guard.stopped is not None:
            raise RunStopped(f"judge {self.guard.stopped}")
        return replies


def run_judge(
    jobs: Sequence[JudgeJob],
    journal: Path,
    settings: JudgeSettings,
    *,
    accept: Callable[[str], bool],
    reasks: int = 1,
) -> JudgeOutcome:
    """Every job's reply, from the journal where it already holds one made from the same request, else asked.

    Raises :class:`JudgeNotConfigured` when requests are needed and no API key is set (nothing is asked then), and
    :class:`RunStopped` (one) when a failure no retry can fix repeats (what was asked is in the journal).
    """
    keys = [job.key for job in jobs]
    if len(set(keys)) != len(keys):
        raise ValueError("judge job keys must be unique")
    latest = latest_by_key(journal)
    outcome = JudgeOutcome(replies={})
    pending: list[tuple[JudgeJob, str]] = []
    for job in jobs:
        digest = request_hash(settings.model, job.messages, settings.params())
        kept = _reusable(latest.get(job.key), digest)
        if kept is None:
            pending.append((job, digest))
        else:
            outcome.replies[job.key] = kept
            outcome.reused += len(kept.choices)
    if not pending:
        return outcome
    if not settings.api_key:
        raise JudgeNotConfigured(f"no API key for the judge (set {' or '.join(KEY_VARIABLES)})")
    judging = _Judging(settings, accept, reasks, journal)
    try:
        outcome.replies.update(asyncio.run(judging.run(pending)))
    finally:
        outcome.requests = judging.requests
    return outcome
