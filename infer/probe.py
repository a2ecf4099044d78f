"""The media probe: before a run spends money, check that the model takes in the audio, images and video it is sent.

A model that never received its media still answers, so its score looks like a (bad) score: servers drop media
parts they do not support without an error, chat templates leave audio out, gateways strip unknown content types.
For each modality a run sends, the probe asks the same tiny question twice, with a generated clip of known content
and without it, through the run's own backend and media handling, and reads a verdict:

* ``counted``: the prompt tokens the endpoint reports grow clearly with the media (at least :data:`MIN_GROWTH`);
  where no usage comes back, the answers to a question only the media can answer (a count of beeps, a colour) are
  right for two different clips;
* ``ignored``: the prompt tokens do not grow with the media, an answer says no media was there, or the endpoint
  refuses the question with the media (a client error, HTTP 400 ...) while it answers the one without;
* ``unverified``: neither can be told (no usage and answers that prove nothing, a request that failed), with why;
* ``n/a``: the backend reads no media (the offline baselines); ``skipped``: the probe was not run.

In-process models answer from their own processor: the inputs they would build are counted, nothing is generated.
A modality costs two requests when usage comes back and three when it does not.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from PIL import Image

from avibench.infer.backends.base import Backend, InferRequest
from avibench.infer.media import sent_parts
from avibench.infer.probe_record import read_probe
from avibench.infer.runner import describe_error
from avibench.items import Item, Part
from avibench.kits import media
from avibench.llm import ChatError
from avibench.store import atomic_write_json

Modality = Literal["audio", "image", "video"]
MODALITIES: tuple[Modality, ...] = ("audio", "image", "video")
VERDICTS = ("counted", "ignored", "unverified", "n/a", "skipped")
MIN_GROWTH = 16
"""Prompt tokens the media must add to count as read. Below what any known encoder spends on the probe's clips
(3 s of audio is 30 tokens or more, a 256-pixel image or a 2 s video more still), above the few tokens a chat
template's placeholder costs when the media itself was dropped."""
PLACEHOLDER_GROWTH = 2
"""At most this many extra prompt tokens: the media was dropped (a server may still count its part's marker)."""
RATE = media.SR
VIDEO_SIZE = 128
IMAGE_SIZE = 256
#: The content of each clip: a count of beeps (audio), a colour (image, video), two of each.
BEEPS = (3, 5)
COLOURS = {"red": (220, 30, 30), "blue": (30, 60, 220), "green": (30, 180, 60), "yellow": (230, 210, 30)}
IMAGE_COLOURS = ("red", "blue")
VIDEO_COLOURS = ("green", "yellow")
QUESTIONS: dict[Modality, str] = {
    "audio": "How many beeps are in the audio? Answer with one number.",
    "image": "What colour is the image? Answer with one word.",
    "video": "What colour is the video? Answer with one word.",
}
HINTS: dict[str, str] = {
    "audio": "check that the server accepts input_audio parts (vLLM: a model with an audio encoder and "
    "--limit-mm-per-prompt allowing audio), that the model hears audio, and --audio-format",
    "image": "check that the server accepts image_url parts (vLLM: --limit-mm-per-prompt allowing images) and that "
    "the model sees images",
    "video": "check the --media strategy (data-uri, video-url for vLLM, frames:N for providers without video "
    "input), that the server accepts video (vLLM: --limit-mm-per-prompt allowing video) and that the model sees it",
}
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_NUMBER = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\b")
_COLOUR = re.compile(r"\b(" + "|".join(COLOURS) + r"|black|white|grey|gray|orange|purple|pink|brown)\b")
_MEDIA = r"(?:audio|sound|clip|recording|image|picture|photo|video|media|file|attachment)s?"
_MISSING = re.compile(
    "|".join(
        (  # only explicit statements: "not sure, but the audio has 3 beeps" must not stop a run
            rf"\b(?:can ?not|can't|unable to|do not|don't|did not|didn't)\s+(?:\w+\s+)?"
            rf"(?:see|hear|listen to|view|watch|access|open|play|process|receive|find)\b[^.?!]{{0,30}}\b{_MEDIA}\b",
            rf"\b(?:there (?:is|was|are|were) no|no)\s+(?:\w+\s+)?{_MEDIA}\b[^.?!]{{0,20}}"
            r"\b(?:attached|provided|included|shared|uploaded|given|received|in (?:your|the|this) (?:message|request))",
            rf"\bthere (?:is|was|are|were) no\s+(?:\w+\s+)?{_MEDIA}\b",
            rf"\b{_MEDIA}\s+(?:is|was|were|are|has|have)\s+(?:not|n't)\s+(?:been\s+)?"
            r"(?:attached|provided|included|shared|uploaded|received)",
        )
    )
)


@dataclass
class ProbeResult:
    """The verdict on one modality, why, and what it cost.

    ``prompt_tokens`` holds the prompt tokens with and without the media where they were reported; ``answers`` the
    answers to the media questions (endpoints without usage); ``requests`` and ``tokens`` the requests sent and the
    total tokens they used."""

    modality: str
    verdict: str
    why: str
    requests: int = 0
    tokens: int = 0
    prompt_tokens: dict[str, int] = field(default_factory=dict)
    answers: list[str] = field(default_factory=list)
    failed: bool = False
    """A probe question failed (the verdict is then ``unverified``, and the next run probes again)."""

    def line(self, *, cost: bool = True) -> str:
        """The one line a user reads (with what the probe cost, unless ``cost`` is false: a verdict on file)."""
        tokens = f"{self.tokens} tokens" if self.tokens else "tokens not reported"
        cost_text = f"; {self.requests} request(s), {tokens}" if self.requests and cost else ""
        return f"{self.modality}: {self.verdict} ({self.why}{cost_text})"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ProbeResult | None:
        """A stored result, or None when it is not one (a hand-edited or older file)."""
        try:
            result = cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
        except TypeError:
            return None
        return result if result.verdict in VERDICTS and result.modality in MODALITIES else None

    @property
    def reusable(self) -> bool:
        """Whether a later run may take this verdict as it is: an ``ignored`` one stops the run and a failed
        question may have been a wrong key or a server down, so the next run (after the user changed something)
        probes again; a ``skipped`` one was never a verdict."""
        return self.verdict in ("counted", "unverified", "n/a") and not self.failed


def skipped(modality: str, why: str) -> ProbeResult:
    return ProbeResult(modality, "skipped", why)


def fix_line(result: ProbeResult, model: str = "the model") -> str:
    """What an ``ignored`` verdict means and what to check, in one line."""
    return f"the {result.modality} does not reach {model} ({result.why}); {HINTS.get(result.modality, '')}"


def stop_line(result: ProbeResult, model: str) -> str:
    """Why a run stops on an ``ignored`` modality and what to check, in one line."""
    return (
        f"stopped before asking any question: {fix_line(result, f'model {model}')}, "
        "or pass --skip-probe to run anyway"
    )


def needed_modalities(items: Iterable[Item], request: InferRequest) -> list[Modality]:
    """The modalities these items send, in the order of :data:`MODALITIES` (audio parts beside a video are not
    sent with --drop-audio-with-video)."""
    kinds = {part.kind for item in items for part in sent_parts(item, request)}
    return [m for m in MODALITIES if m in kinds]


# ---- generated media ------------------------------------------------------------------------------------------


def beeps(count: int, seconds: float = 3.0) -> np.ndarray:
    """``count`` short 880 Hz beeps spread over ``seconds`` of silence, as float samples at :data:`RATE`."""
    audio = np.zeros(round(seconds * RATE))
    length = round(0.15 * RATE)
    tone = 0.5 * np.sin(2 * np.pi * 880 * np.arange(length) / RATE) * np.hanning(length)
    for k in range(count):
        start = round((k + 0.5) * len(audio) / count) - length // 2
        audio[start : start + length] = tone
    return audio


def write_wav(path: Path, audio: np.ndarray) -> Path:
    media.write_wav(path, audio)
    return path


def write_png(path: Path, colour: str) -> Path:
    Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), COLOURS[colour]).save(path, format="PNG")
    return path


def write_mp4(path: Path, colour: str, audio: np.ndarray, seconds: float = 2.0) -> Path:
    """An H.264 clip of one solid colour with a mono AAC soundtrack of ``audio``."""
    frame = np.full((VIDEO_SIZE, VIDEO_SIZE, 3), COLOURS[colour], dtype=np.uint8)
    media.write_mp4(path, [frame] * round(seconds * media.FPS), audio[: round(seconds * RATE)])
    return path


@dataclass(frozen=True)
class Case:
    """One modality's probe: the question, and two clips with the answer each should get."""

    modality: Modality
    question: str
    clips: tuple[tuple[Part, str], ...]

    def item(self, index: int | None) -> Item:
        """The question with clip ``index``, or without media when ``index`` is None."""
        parts = (
            (Part.text(self.question),) if index is None else (self.clips[index][0], Part.text(self.question))
        )
        name = "none" if index is None else str(index)
        return Item(
            benchmark="probe", task=f"probe-{self.modality}", item_id=f"{self.modality}-{name}", parts=parts
        )


def make_case(modality: Modality, folder: Path) -> Case:
    """Write the modality's two clips into ``folder``."""
    if modality == "audio":
        clips = tuple((Part.audio(write_wav(folder / f"beeps{n}.wav", beeps(n))), str(n)) for n in BEEPS)
    elif modality == "image":
        clips = tuple((Part.image(write_png(folder / f"{c}.png", c)), c) for c in IMAGE_COLOURS)
    else:
        clips = tuple(
            (Part.video(write_mp4(folder / f"{c}.mp4", c, beeps(n, 2.0))), c)
            for c, n in zip(VIDEO_COLOURS, BEEPS, strict=True)
        )
    return Case(modality, QUESTIONS[modality], clips)


# ---- asking -----------------------------------------------------------------------------------------------------


@dataclass
class Observation:
    """What one probe question gave: the prompt tokens (reported or counted), the answer, or the error."""

    prompt_tokens: int | None = None
    text: str | None = None
    error: str | None = None
    requests: int = 0
    tokens: int = 0
    rejected: bool = False
    """The endpoint refused the request itself (HTTP 400, 415, 422 ...): asking again would not help."""


async def observe(backend: Backend, item: Item, request: InferRequest) -> Observation:
    """Count the item's prompt tokens in-process where the backend can, else ask it and read the usage."""
    try:
        counted = await backend.prompt_tokens(item, request)
        if counted is not None:
            return Observation(prompt_tokens=counted)
        answer = await backend.answer(item, request)
    except ChatError as exc:
        if exc.permanent:  # no question can be answered (a rejected key ...): the caller names what to fix
            raise
        rejected = exc.kind == "http" and not exc.retryable
        return Observation(error=describe_error(exc), requests=exc.attempts, rejected=rejected)
    except Exception as exc:  # a failed probe request is a reason for `unverified`, never a crash
        return Observation(error=describe_error(exc), requests=getattr(exc, "attempts", 0))
    usage = answer.usage or {}
    prompt = usage.get("prompt_tokens")
    if not prompt or prompt < 0:
        prompt = None  # some gateways report zeros for every prompt: that is no count, and no growth
    total = usage.get("total_tokens") or (prompt or 0) + usage.get("completion_tokens", 0)
    return Observation(prompt_tokens=prompt, text=answer.text, requests=answer.attempts, tokens=total)


def first_match(pattern: re.Pattern[str], text: str | None) -> str | None:
    match = pattern.search((text or "").lower())
    if match is None:
        return None
    word = match.group(1)
    return str(_NUMBER_WORDS.index(word)) if word in _NUMBER_WORDS else word


def is_right(case: Case, index: int, text: str | None) -> bool:
    """Whether the first count (audio) or colour (image, video) the answer names is the clip's."""
    pattern = _NUMBER if case.modality == "audio" else _COLOUR
    return first_match(pattern, text) == case.clips[index][1]


def says_missing(text: str | None) -> bool:
    """Whether an answer says there was no media to hear or see."""
    return bool(text) and _MISSING.search(text.lower()) is not None


def _quote(text: str | None, limit: int = 40) -> str:
    flat = " ".join((text or "").split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


async def probe_modality(backend: Backend, request: InferRequest, case: Case) -> ProbeResult:
    """Ask the case's question with its first clip and without media; a third question, with the second clip,
    only when no usage came back."""
    m = case.modality
    seen: list[Observation] = []

    def result(verdict: str, why: str) -> ProbeResult:
        with_media, without = seen[0], seen[1] if len(seen) > 1 else Observation()
        counts = {"with": with_media.prompt_tokens, "without": without.prompt_tokens}
        return ProbeResult(
            m,
            verdict,
            why,
            requests=sum(o.requests for o in seen),
            tokens=sum(o.tokens for o in seen),
            prompt_tokens={k: v for k, v in counts.items() if v is not None},
            answers=[o.text for o in (seen[0], *seen[2:]) if o.text is not None],
            failed=any(o.error for o in seen),
        )

    with_media = await observe(backend, case.item(0), request)
    seen.append(with_media)
    if with_media.error and not with_media.rejected:
        return result("unverified", f"the question with the {m} failed: {with_media.error}")
    without = await observe(backend, case.item(None), request)
    seen.append(without)
    if with_media.error:
        if without.error:
            return result("unverified", f"the question with the {m} failed: {with_media.error}")
        # every question of the run that sends this modality would be refused the same way
        return result("ignored", f"the endpoint refuses the question with the {m}: {with_media.error}")
    if without.error:
        return result("unverified", f"the question without the {m} failed: {without.error}")
    if with_media.prompt_tokens is not None and without.prompt_tokens is not None:
        growth = with_media.prompt_tokens - without.prompt_tokens
        tokens = f"prompt {without.prompt_tokens} tokens without the {m}, {with_media.prompt_tokens} with it"
        if growth >= MIN_GROWTH:
            return result("counted", tokens)
        if growth < 0:  # a count that shrinks when media are added counts something else (a cache, noise)
            return result("unverified", f"{tokens}: fewer with the {m}, so the counts say nothing about it")
        if growth <= PLACEHOLDER_GROWTH:
            return result("ignored", tokens)
        return result("unverified", f"{tokens}: too small a growth to be the {m} itself")
    if says_missing(with_media.text):
        return result(
            "ignored", f"no usage reported, and the answer says there is no {m}: {_quote(with_media.text)}"
        )
    second = await observe(backend, case.item(1), request)
    seen.append(second)
    if second.error:
        return result(
            "unverified", f"no usage reported, and the second question with the {m} failed: {second.error}"
        )
    if says_missing(second.text):
        return result(
            "ignored", f"no usage reported, and the answer says there is no {m}: {_quote(second.text)}"
        )
    expected = " and ".join(answer for _, answer in case.clips)
    answers = f"{_quote(with_media.text)}, {_quote(second.text)}"
    if is_right(case, 0, with_media.text) and is_right(case, 1, second.text):
        return result("counted", f"no usage reported; both answers right ({expected}): {answers}")
    return result(
        "unverified",
        f"no usage reported, and the answers ({answers}; expected {expected}) do not show whether the {m} "
        "was read",
    )


async def probe(
    backend: Backend, request: InferRequest, modalities: Iterable[str], *, offline: bool = False
) -> dict[str, ProbeResult]:
    """The verdict on each modality; modalities are probed concurrently. ``offline`` backends read no media.

    Raises the :class:`ChatError` of a failure no request can get past (``permanent``: a rejected key, a model
    not served, no replica accepting connections), once every modality's questions are done."""
    wanted = [m for m in MODALITIES if m in set(modalities)]
    if offline:
        return {m: ProbeResult(m, "n/a", "this backend reads no media") for m in wanted}
    with tempfile.TemporaryDirectory(prefix="avibench-probe-") as folder:
        cases = await asyncio.to_thread(lambda: [make_case(m, Path(folder)) for m in wanted])
        outcomes = await asyncio.gather(
            *(probe_modality(backend, request, case) for case in cases), return_exceptions=True
        )
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return {r.modality: r for r in outcomes if isinstance(r, ProbeResult)}


def verdicts(results: Mapping[str, ProbeResult]) -> dict[str, str]:
    """``{"audio": "counted", ...}``: what records, eval.json and pages carry."""
    return {m: results[m].verdict for m in MODALITIES if m in results}


# ---- a run's probe ----------------------------------------------------------------------------------------------


def endpoint_key(model: str, backend: str, hosts: Iterable[str], request: InferRequest) -> dict[str, Any]:
    """What a verdict holds for: the model, where it is served, and how media are sent."""
    return {
        "model": model,
        "backend": backend,
        "hosts": sorted(hosts),
        "media": str(request.media),
        "audio_format": request.audio_format,
        "audio_sample_rate": request.audio_sample_rate,
    }


def load_results(path: Path) -> tuple[dict[str, Any] | None, dict[str, ProbeResult]]:
    """The endpoint key and the results on file (nothing when the file is missing or unreadable)."""
    data = read_probe(path)
    results = {}
    for modality, stored in data.get("results", {}).items():
        result = ProbeResult.from_json(stored) if isinstance(stored, dict) else None
        if result is not None and result.modality == modality:
            results[modality] = result
    endpoint = data.get("endpoint")
    return endpoint if isinstance(endpoint, dict) else None, results


@dataclass
class RunProbe:
    """The probe of one run: the modalities its pending questions send, the verdicts on file for the same
    endpoint, and after :meth:`run` (or :meth:`settle`) the results the run goes on with (``results``, the
    modalities it needs now) and the verdicts the run carries (``recorded``, those of earlier runs included)."""

    path: Path
    key: dict[str, Any]
    modalities: list[str]
    skip: bool = False
    offline: bool = False
    results: dict[str, ProbeResult] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)
    """The modalities probed by this run (the others' verdicts were on file, or skipped)."""
    recorded: dict[str, ProbeResult] = field(default_factory=dict)

    def on_file(self) -> dict[str, ProbeResult]:
        key, results = load_results(self.path)
        return results if key == self.key else {}

    def settle(self, why: str) -> dict[str, ProbeResult]:
        """Without asking: the verdicts on file where they hold, ``skipped`` (with ``why``) for the rest."""
        on_file = self.on_file()
        self.results = {m: on_file[m] if m in on_file else skipped(m, why) for m in self.modalities}
        self._save()
        return self.results

    async def run(self, backend: Backend, request: InferRequest) -> dict[str, ProbeResult]:
        """Probe the modalities with no reusable verdict on file (none with --skip-probe), and record them.

        A failure no request can get past is raised as the :class:`ChatError` (nothing is recorded)."""
        if self.skip:
            return self.settle("--skip-probe")
        on_file = {m: r for m, r in self.on_file().items() if r.reusable}
        fresh = await probe(
            backend, request, [m for m in self.modalities if m not in on_file], offline=self.offline
        )
        self.results = {m: on_file.get(m) or fresh[m] for m in self.modalities}
        self.fresh = set(fresh)
        self._save()
        return self.results

    def _save(self) -> None:
        """Merge this run's results into the verdicts on file for its endpoint (replacing another endpoint's)."""
        merged = self.on_file() | self.results
        self.recorded = {m: merged[m] for m in MODALITIES if m in merged}
        if self.results:
            document = {"endpoint": self.key, "results": {m: r.to_json() for m, r in self.recorded.items()}}
            atomic_write_json(self.path, document)

    def lines(self) -> list[str]:
        """One line per modality, as infer prints them: verdicts on file are marked as such."""
        out = []
        for m, result in self.results.items():
            prefix = "warning: media probe" if result.verdict == "unverified" else "media probe"
            fresh = m in self.fresh or result.verdict == "skipped"
            tail = "" if fresh else " [on file from an earlier run]"
            note = f"; answers may not rest on the {m}" if result.verdict == "unverified" else ""
            out.append(f"{prefix}: {result.line(cost=fresh)}{tail}{note}")
        return out

    def verdicts(self) -> dict[str, str]:
        """The verdicts the run carries: on file for its endpoint, this run's included."""
        return verdicts(self.recorded)

    def stop_reason(self, model: str) -> str | None:
        """The line a run stops with when a modality it needs does not reach the model, else None."""
        ignored = [r for r in self.results.values() if r.verdict == "ignored"]
        return stop_line(ignored[0], model) if ignored else None
