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
from avibench.failures import Advice
from avibench.llm import ChatClient, ClientSettings, RetryPolicy, host_of
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
    """Where refine-LLM requests go. ``configured`` is false without a base URL and a key.

    ``borrowed`` is true when the endpoint is infer's (``OPENAI_BASE_URL``, no ``REFINE_BASE_URL``): it was set
    for another purpose, so refine checks that it serves the refine model before the first request.
    """

    model: str = DEFAULT_REFINE_MODEL
    base_urls: tuple[str, ...] = ()
    api_key: str = ""
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    max_attempts: int = 5
    borrowed: bool = False

    def client(self) -> ClientSettings:
        return ClientSettings(
            base_urls=self.base_urls,
            api_key=self.api_key,
            timeout=self.timeout,
            retry=RetryPolicy(max_attempts=self.max_attempts),
            max_connections=max(self.concurrency, 1),
        )

    @property
    def configured(self) -> bool:
        return bool(self.base_urls and self.api_key)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> LLMSettings:
        """``REFINE_MODEL``, ``REFINE_BASE_URL`` / ``REFINE_API_KEY`` (falling back to ``OPENAI_*``),
        ``REFINE_CONCURRENCY``, ``REFINE_TIMEOUT``, ``REFINE_MAX_RETRIES``; non-None overrides win."""
        env = os.environ if env is None else env
        base = env.get("REFINE_BASE_URL") or env.get("OPENAI_BASE_URL") or ""
        borrowed = not env.get("REFINE_BASE_URL") and overrides.get("base_urls") is None and bool(base)
        values: dict[str, object] = {
            "borrowed": borrowed,
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


def advice(settings: LLMSettings) -> Advice:
    """How refine's failures name its settings (and that the endpoint is infer's, when it is)."""
    hosts = ", ".join(host_of(u) for u in settings.base_urls)
    if settings.borrowed:
        hosts += " (OPENAI_BASE_URL, set for infer)"
    return Advice(
        settings.model,
        hosts,
        model_setting="REFINE_MODEL (or --refine-model)",
        url_setting="REFINE_BASE_URL (or --refine-base-url)",
        key_setting="REFINE_API_KEY",
    )


def serves(listed: list[str], model: str) -> bool:
    """Whether a ``/models`` listing names the model (some providers prefix ids, e.g. ``models/<id>``)."""
    return any(m == model or m.rsplit("/", 1)[-1] == model for m in listed)


class LLMRefiner:
    """Asks the refine model, through the cache; raises :class:`avibench.llm.ChatError` when a request fails."""

    def __init__(self, settings: LLMSettings, cache: LLMCache, client: ChatClient | None = None):
        self.settings = settings
        self.cache = cache
        self._client = client
        self.requests = 0
        self._verified = not settings.borrowed
        #: Tokens the provider reported for the requests this refiner sent (cache hits cost nothing).
        self.usage: Counter[str] = Counter()

    async def verify(self) -> None:
        """Before the first request to a borrowed endpoint: refuse a model its ``/models`` listing does not name."""
        if self._verified:
            return
        self._verified = True
        listed = await self._chat_client().served_models()
        if listed is not None and not serves(listed, self.settings.model):
            shown = ", ".join(listed[:5]) + (", ..." if len(listed) > 5 else "")
            raise AvibenchError(
                f"refine model {self.settings.model!r} is not served by {advice(self.settings).hosts} (it serves "
                f"{shown}): set REFINE_MODEL to a model it serves, or REFINE_BASE_URL and REFINE_API_KEY to an "
                "endpoint that serves the refine model"
            )

    def _chat_client(self) -> ChatClient:
        if self._client is None:
            self._client = ChatClient(self.settings.client())
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
