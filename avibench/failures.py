"""When a stage stops asking: failures no retry can fix, a failure budget, and the advice that names the setting.

A request that fails for good is recorded and the run goes on, because most failures concern one question. Two
kinds of failure are different: a *permanent* one (the key is rejected, the model is not served, no replica
accepts connections) fails every later request the same way, and a run whose failures pass ``--max-failures`` is
not worth finishing. :class:`FailureGuard` watches a stage's failures and stops it with one line that says what
to fix, naming the stage's own settings (:class:`Advice`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from avibench.errors import AvibenchError
from avibench.llm import ChatError

#: Identical permanent failures in a row after which a stage stops (a single one may be a fluke of routing).
PERMANENT_REPEATS = 3
#: Finished questions before a ``--max-failures P%`` share is judged (a share of a handful says nothing).
MIN_FOR_SHARE = 20
_COUNT = re.compile(r"\(after \d+ attempts\)")


class RunStopped(AvibenchError):
    """A stage stopped early; the message says why and what to fix."""


@dataclass(frozen=True)
class MaxFailures:
    """``--max-failures N`` (failed questions) or ``P%`` (share of the questions finished in this run)."""

    count: int | None = None
    share: float | None = None

    @classmethod
    def parse(cls, text: str) -> MaxFailures:
        text = text.strip()
        try:
            if text.endswith("%"):
                share = float(text[:-1]) / 100
                if not 0 < share <= 1:
                    raise ValueError
                return cls(share=share)
            count = int(text)
            if count < 0:
                raise ValueError
            return cls(count=count)
        except ValueError:
            raise AvibenchError(
                f"--max-failures {text!r}: expected a count (e.g. 20) or a percentage (e.g. 5%)"
            ) from None

    def exceeded(self, failed: int, finished: int) -> bool:
        if self.count is not None:
            return failed > self.count
        assert self.share is not None
        return finished >= MIN_FOR_SHARE and failed / finished > self.share

    def __str__(self) -> str:
        return f"{self.count}" if self.count is not None else f"{100 * (self.share or 0):g}%"


def error_kind(text: str) -> str:
    """An error message with its attempt count removed, so that repeats of one failure count together."""
    return " ".join(_COUNT.sub("", text).split())


def commonest(errors: Counter[str]) -> str | None:
    """The most frequent failure reason, with its count."""
    if not errors:
        return None
    text, count = errors.most_common(1)[0]
    return f"{text} (x{count})"


@dataclass(frozen=True)
class Advice:
    """How a stage names its settings in the one line that says what to fix."""

    model: str
    hosts: str
    model_setting: str = "--model"
    url_setting: str = "--base-url or OPENAI_BASE_URL"
    key_setting: str = "OPENAI_API_KEY"

    def fix(self, error: ChatError) -> str:
        if error.status in (401, 403):
            return (
                f"{self.hosts} rejects the API key (HTTP {error.status}): check {self.key_setting}, or point "
                f"{self.url_setting} at the endpoint the key is for"
            )
        if error.status == 404:
            return (
                f"{self.hosts} does not serve model {self.model!r} (HTTP 404): set {self.model_setting} to a model "
                f"it serves, or {self.url_setting} to an endpoint that serves {self.model!r} (a wrong path answers 404 "
                "too: most base URLs end in /v1)"
            )
        if error.status is not None and 300 <= error.status < 400:
            return f"{self.hosts} redirects every request (HTTP {error.status}): set {self.url_setting} to where it points"
        return f"no replica of {self.hosts} accepts connections: is the server up? check {self.url_setting}"


@dataclass
class FailureGuard:
    """Counts a stage's failures; :meth:`observe` raises :class:`RunStopped` when the stage should stop."""

    advice: Advice | None = None
    limit: MaxFailures | None = None
    repeats: int = PERMANENT_REPEATS
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0
    failed: int = 0
    stopped: str | None = None
    """Why the stage stopped, once :meth:`observe` has said so (workers check it before the next request)."""
    _streak: int = 0
    _last: str | None = None

    def observe(self, error: str | None, exc: BaseException | None = None) -> None:
        self.finished += 1
        if error is None:
            self._streak, self._last = 0, None
            return
        self.failed += 1
        kind = error_kind(error)
        self.errors[kind] += 1
        if isinstance(exc, ChatError) and exc.permanent and self.advice is not None:
            self._streak = self._streak + 1 if kind == self._last else 1
            self._last = kind
            if self._streak >= self.repeats:
                self._stop(f"stopped after {self._streak} x '{kind}': {self.advice.fix(exc)}")
        else:
            self._streak, self._last = 0, None
        if self.limit is not None and self.limit.exceeded(self.failed, self.finished):
            self._stop(
                f"stopped: {self.failed} of {self.finished} questions failed, more than --max-failures "
                f"{self.limit}; commonest: {commonest(self.errors)}"
            )

    def _stop(self, message: str) -> None:
        self.stopped = message
        raise RunStopped(message)

    @property
    def commonest(self) -> str | None:
        return commonest(self.errors)
