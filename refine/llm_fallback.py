"""The LLM side of refine: the prompts of ``prompts/refine/``, the shared chat client, and the reply cache.

The LLM's reply is handed back as text; the runner passes it through the same rule parsers, so a verbose
reply still ends in the canonical format.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from string import Template

import yaml

from avibench.definitions import prompt_resource
from avibench.errors import AvibenchError
from avibench.llm import ChatClient, RetryPolicy
from avibench.refine.cache import LLMCache
from avibench.refine.context import RefineContext

DEFAULT_REFINE_MODEL = "gemini-2.5-flash"
DEFAULT_CONCURRENCY = 8
DEFAULT_TIMEOUT = 60.0


def _number(env: Mapping[str, str], name: str, kind: type[int] | type[float], default: float) -> float:
    value = env.get(name)
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        raise AvibenchError(
            f"environment variable {name}: expected a positive number, got {value!r}"
        ) from None
    if number <= 0:
        raise AvibenchError(f"environment variable {name}: expected a positive number, got {value!r}")
    return number


@dataclass(frozen=True)
class LLMSettings:
    """Where refine-LLM requests go. ``configured`` is false without a base URL and a key."""

    model: str = DEFAULT_REFINE_MODEL
    base_urls: tuple[str, ...] = ()
    api_key: str = ""
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    max_attempts: int = 5

    @property
    def configured(self) -> bool:
        return bool(self.base_urls and self.api_key)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> LLMSettings:
        """``REFINE_MODEL``, ``REFINE_BASE_URL`` / ``REFINE_API_KEY`` (falling back to ``OPENAI_*``),
        ``REFINE_CONCURRENCY``, ``REFINE_TIMEOUT``, ``REFINE_MAX_RETRIES``; non-None overrides win."""
        env = os.environ if env is None else env
        base = env.get("REFINE_BASE_URL") or env.get("OPENAI_BASE_URL") or ""
        values: dict[str, object] = {
            "model": env.get("REFINE_MODEL") or DEFAULT_REFINE_MODEL,
            "base_urls": tuple(u.strip() for u in base.split(",") if u.strip()),
            "api_key": env.get("REFINE_API_KEY") or env.get("OPENAI_API_KEY") or "",
            "concurrency": _number(env, "REFINE_CONCURRENCY", int, DEFAULT_CONCURRENCY),
            "timeout": _number(env, "REFINE_TIMEOUT", float, DEFAULT_TIMEOUT),
            "max_attempts": _number(env, "REFINE_MAX_RETRIES", int, 5),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values["base_urls"], str):
            values["base_urls"] = tuple(u.strip() for u in str(values["base_urls"]).split(",") if u.strip())
        return cls(**values)  # type: ignore[arg-type]


@cache
def _template(name: str) -> Template:
    return Template(prompt_resource("refine", name))


@cache
def _qa_instructions() -> dict[str, str]:
    return yaml.safe_load(prompt_resource("refine", "qa_instructions.yaml"))


def _qa_kind(ctx: RefineContext) -> str:
    if ctx.expects_number:
        return "count"
    if ctx.multi_answer:
        return "multi"
    return "option" if ctx.options else "free"


def build_prompt(raw: str, ctx: RefineContext) -> str:
    """The refine prompt for one answer (single user message)."""
    if ctx.family == "qa":
        return _template("qa.txt").substitute(
            question=ctx.prompt_text, response=raw, instruction=_qa_instructions()[_qa_kind(ctx)]
        )
    if ctx.family == "mic":
        return _template("mic.txt").substitute(response=raw, classes=", ".join(ctx.classes))
    return _template(f"{ctx.family}.txt").substitute(response=raw)


class LLMRefiner:
    """Asks the refine model, through the cache; raises :class:`avibench.llm.ChatError` when a request fails."""

    def __init__(self, settings: LLMSettings, cache: LLMCache, client: ChatClient | None = None):
        self.settings = settings
        self.cache = cache
        self._client = client
        self.requests = 0
        #: Tokens the provider reported for the requests this refiner sent (cache hits cost nothing).
        self.usage: Counter[str] = Counter()

    def _chat_client(self) -> ChatClient:
        if self._client is None:
            self._client = ChatClient(
                base_urls=self.settings.base_urls,
                api_key=self.settings.api_key,
                timeout=self.settings.timeout,
                retry=RetryPolicy(max_attempts=self.settings.max_attempts),
                max_connections=max(self.settings.concurrency, 1),
            )
        return self._client

    async def ask(self, prompt: str) -> tuple[str, bool]:
        """The model's reply to a refine prompt and whether it came from the cache."""
        hit = self.cache.get(self.settings.model, prompt)
        if hit is not None:
            return hit, True
        self.requests += 1
        result = await self._chat_client().chat(
            self.settings.model, [{"role": "user", "content": prompt}], temperature=0
        )
        self.usage.update(result.usage or {})
        self.cache.put(self.settings.model, prompt, result.text)
        return result.text, False

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
