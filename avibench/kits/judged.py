"""Judged answers kit: what a benchmark scored by an LLM judge declares, and what it gets (see docs/plugins.md).

A judged benchmark declares a :class:`Judge`: its template data file under ``prompts/<benchmark>/`` (which names
its source and the official judge settings), how a reply is read in each profile, and the protocol's switches
(samples per request, asks per answer, an empty reply kept at once, replies stripped). It builds its jobs (which
answers are judged, and the messages of each) and gets the ``--judge-*`` options, the settings of one eval, the
journal (a reply on record is never sent again: :mod:`avibench.kits.judge_runner`), the failure accounting of
:class:`Verdicts` in coverage, the ``meta.judge`` record, the outcome of judging each part (:func:`judge_parts`:
a missing key is a note, a judge that cannot run an error) and the report's paragraph on the judge
(:func:`judge_paragraph`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import click

from avibench.errors import AvibenchError
from avibench.evaluate.document import Paragraph, as_dict
from avibench.items import Response
from avibench.kits.judge_options import judge_cli_options, template_data
from avibench.kits.judge_runner import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TEMPERATURE,
    KEY_VARIABLES,
    NOT_JUDGED,
    JudgeJob,
    JudgeNotConfigured,
    JudgeReply,
    JudgeSettings,
    not_judged_line,
    run_judge,
)

__all__ = [
    "KEY_VARIABLES",
    "NOT_JUDGED",
    "Judge",
    "JudgeJob",
    "JudgeNotConfigured",
    "JudgeReply",
    "JudgeSettings",
    "JudgeTemplate",
    "JudgedParts",
    "Verdicts",
    "answered",
    "judge_paragraph",
    "judge_parts",
    "not_judged_line",
    "run_judge",
    "split_key",
]

#: The share of unreadable replies above which a coverage reason quotes what the judge replied most often.
SMALL_FAILURE_SHARE = 0.05
QUOTED_REPLIES = 3
QUOTE_CHARS = 80
#: Sampling parameters a template data file may name beyond ``temperature`` and ``max_tokens`` (sent as they are).
EXTRA_PARAMS = ("top_p", "frequency_penalty", "presence_penalty")

Parser = Callable[[str], Any]
"""A reply's reading in one profile; ``None``: the profile cannot read it (a judge failure)."""


@dataclass(frozen=True)
class JudgeTemplate:
    """The judge template of one eval: its id, its text and its data file (recorded in ``meta.judge``)."""

    id: str
    text: str
    file: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass
class Verdicts:
    """One judging's replies by job key, each sample's in order (``None``: the request got no reply; it is asked
    again by the next eval), where they came from, and how many requests failed."""

    replies: dict[str, list[str | None]] = field(default_factory=dict)
    requests: int = 0
    reused: int = 0
    failed: int = 0
    first_error: str | None = None

    def unreadable(self, parse: Parser) -> list[tuple[str, str | None]]:
        """Each ``(job key, reply)`` that ``parse`` cannot read, a reply not received (``None``) included."""
        return [
            (key, r)
            for key, replies in self.replies.items()
            for r in replies
            if r is None or parse(r) is None
        ]

    def failure(self) -> str | None:
        """Why some answers have no judgement yet (for coverage): the failed requests and the first error."""
        if not self.failed:
            return None
        return f"{self.failed} judge requests failed ({self.first_error}); re-run eval to retry them"


def split_key(key: str) -> tuple[str, str]:
    """``(item key, variant)`` of a job key ``<item key>@<variant>`` (:meth:`Judge.judge_responses`)."""
    item_key, _, variant = key.rpartition("@")
    return item_key, variant


def answered(response: Response) -> bool:
    """The answers judged by default: every one with a reply, blank included (not a failed or missing one)."""
    return response.status == "answered" and response.raw is not None


def _quote(reply: str) -> str:
    shown = repr(reply)
    return shown if len(shown) <= QUOTE_CHARS else shown[: QUOTE_CHARS - 3] + "..."


@dataclass(frozen=True)
class Judge:
    """A judged benchmark's declaration.

    ``template_file`` is a JSON or YAML data file under ``prompts/<benchmark>/`` holding ``source`` (where its text
    comes from, word for word), the official judge ``model`` and, optionally, ``temperature``, ``max_tokens``,
    ``samples`` (replies per request), ``asks`` (requests per answer until a reply is accepted) and the
    :data:`EXTRA_PARAMS`. Its prompt is either the file's own fields (one template: the file is the template) or
    ``templates`` (id -> text) with a ``default`` id, which ``--judge-template`` picks from. A plug-in outside the
    package gives its own file as a :class:`~pathlib.Path`.
    """

    benchmark: str
    template_file: str | Path
    parsers: Mapping[str, Parser] = field(default_factory=dict)
    """Profile -> reply parser. The ``accept_profile``'s decides whether a reply is valid (re-asked up to ``asks``
    times, recorded as ``valid``); a benchmark whose reading depends on the job gives each job its ``accept``."""
    journal_name: str = ""
    """The journal ``<run>/judge/<name>.jsonl`` (default: the benchmark's name; :meth:`run` may name another)."""
    judges: Callable[[Response], bool] = answered
    """Which answers :meth:`judge_responses` judges."""
    accept_profile: str = "reference"
    keep_empty: bool = False
    """An empty reply is kept at once instead of asked again by the client (the official script keeps it)."""
    strip: bool = False
    """Replies are stripped before they are read and kept (the official evaluator strips them)."""
    template_options: bool = False
    """The benchmark offers ``--judge-template`` and ``--judge-temperature``."""
    unreadable_as: str = "unreadable"
    """How coverage says a reply a profile cannot read (AIR-Bench: ``give no scores``)."""

    @property
    def protocol(self) -> Mapping[str, Any]:
        """The template data file's fields."""
        return template_data(self.benchmark, self.template_file)[2]

    @property
    def model(self) -> str:
        return str(self.protocol["model"])

    @property
    def samples(self) -> int:
        return int(self.protocol.get("samples", 1))

    @property
    def asks(self) -> int:
        return int(self.protocol.get("asks", 1))

    def official(self) -> dict[str, Any]:
        """The official judge's model, temperature and max tokens (what :meth:`departures` compares with)."""
        return {
            "model": self.model,
            "temperature": float(self.protocol.get("temperature", DEFAULT_TEMPERATURE)),
            "max_tokens": int(self.protocol.get("max_tokens", DEFAULT_MAX_TOKENS)),
        }

    def template(self, template_id: str | None = None) -> JudgeTemplate:
        """The template ``template_id`` (default: the file's default); raises AvibenchError naming the known ids."""
        file, text, data = template_data(self.benchmark, self.template_file)
        templates = data.get("templates")
        if not isinstance(templates, Mapping):
            if template_id is not None:
                raise AvibenchError(f"{file} holds one judge template; there is no {template_id!r}")
            name = self.template_file.name if isinstance(self.template_file, Path) else self.template_file
            return JudgeTemplate(f"{self.benchmark}/{name}", text, file)
        name = template_id or str(data["default"])
        if name not in templates:
            raise AvibenchError(f"unknown judge template {name!r} in {file}; known: {', '.join(templates)}")
        return JudgeTemplate(name, str(templates[name]), file)

    def cli_options(self, model_help: str | None = None) -> list[click.Option]:
        """The ``--judge-*`` options for :meth:`Benchmark.eval_options` (``model_help`` replaces the model's help)."""
        return judge_cli_options(
            self.benchmark, self.template_file, template_options=self.template_options, model_help=model_help
        )

    def settings(self, options: Mapping[str, Any], env: Mapping[str, str] | None = None) -> JudgeSettings:
        """The judge of one eval: the ``--judge-*`` options over the official settings of the data file."""
        base = JudgeSettings.from_options(options, self.model, env)
        official = self.official()
        temperature = options.get("judge_temperature") if self.template_options else None
        return replace(
            base,
            temperature=official["temperature"] if temperature is None else float(temperature),
            max_tokens=official["max_tokens"],
            samples=self.samples,
            extra={k: self.protocol[k] for k in EXTRA_PARAMS if k in self.protocol},
            retry=replace(base.retry, empty_retries=0) if self.keep_empty else base.retry,
        )

    def journal(self, run_root: Path, name: str | None = None) -> Path:
        return Path(run_root) / "judge" / f"{name or self.journal_name or self.benchmark}.jsonl"

    def _clean(self, reply: str) -> str:
        return reply.strip() if self.strip else reply

    def accept(self, reply: str) -> bool:
        """Whether the accepting profile reads the reply (no parsers: never; every job then has its own)."""
        parse = self.parsers.get(self.accept_profile)
        return parse is not None and parse(self._clean(reply)) is not None

    def read(self, reply: str, profile: str) -> Any:
        """The reply as ``profile`` reads it (``None``: unreadable)."""
        return self.parsers[profile](reply)

    def run(
        self, jobs: Sequence[JudgeJob], run_root: Path, settings: JudgeSettings, name: str | None = None
    ) -> Verdicts:
        """Every job's replies, from the journal where it holds them, else asked. Raises JudgeNotConfigured (an
        AvibenchError) when requests are needed and no key is set, RunStopped when a failure no retry can fix repeats."""
        if not jobs:
            return Verdicts()
        journal = self.journal(run_root, name)
        outcome = run_judge(jobs, journal, settings, accept=self.accept, reasks=self.asks - 1)
        verdicts = Verdicts(requests=outcome.requests, reused=outcome.reused)
        for job in jobs:
            reply = outcome.replies[job.key]
            if reply.error is None:
                verdicts.replies[job.key] = [self._clean(choice) for choice in reply.choices]
                continue
            verdicts.replies[job.key] = [None] * settings.samples
            verdicts.failed += 1
            verdicts.first_error = verdicts.first_error or reply.error
        return verdicts

    def judge_responses(
        self,
        responses: Iterable[Response],
        messages: Callable[[Response, str], Sequence[Mapping[str, str]]],
        run_root: Path,
        settings: JudgeSettings,
        *,
        variants: Sequence[str] = ("",),
        name: str | None = None,
        recorded: Mapping[str, Sequence[str]] | None = None,
    ) -> Verdicts:
        """Judge every answer :attr:`judges` takes, once per variant (job key ``<item key>@<variant>``, the item
        key alone for ``""``), with ``messages(response, variant)``. Replies ``recorded`` with the answers (an
        official result file's) are taken as they are, by item key, and never asked."""
        jobs, given = [], {}
        for response in responses:
            if not self.judges(response):
                continue
            key = response.item.key
            if recorded is not None and key in recorded:
                given[key] = [self._clean(str(reply)) for reply in recorded[key]]
                continue
            for variant in variants:
                jobs.append(JudgeJob(f"{key}@{variant}" if variant else key, messages(response, variant)))
        verdicts = self.run(jobs, run_root, settings, name)
        verdicts.replies.update(given)
        return verdicts

    def problems(self, verdicts: Verdicts, profile: str) -> list[str]:
        """Why a part's numbers rest on fewer judgements than were asked for (empty: none): the failed requests
        with the first error, then the replies the profile's parser cannot read, counted, and when they are more
        than :data:`SMALL_FAILURE_SHARE` of the replies the most frequent ones quoted."""
        problems = [failure] if (failure := verdicts.failure()) else []
        unread = [r for _, r in verdicts.unreadable(self.parsers[profile]) if r is not None]
        if unread:
            total = sum(len(replies) for replies in verdicts.replies.values())
            text = f"{len(unread)} of {total} judge replies {self.unreadable_as} ({profile} parser)"
            if len(unread) > SMALL_FAILURE_SHARE * total:
                common = Counter(unread).most_common(QUOTED_REPLIES)
                text += "; the judge replied " + ", ".join(f"{_quote(reply)} x{n}" for reply, n in common)
            problems.append(text)
        return problems

    def coverage(self, cover: Mapping[str, Any], verdicts: Verdicts, profile: str) -> dict[str, Any]:
        """A part's coverage entry with the judge's account: ``partial`` when :meth:`problems` finds any, its
        reasons after the core's (eval then exits 3 unless ``--allow-partial``)."""
        problems = self.problems(verdicts, profile)
        if not problems:
            return dict(cover)
        reasons = [cover["reason"]] if cover["status"] == "partial" and cover.get("reason") else []
        return {**cover, "status": "partial", "reason": "; ".join([*reasons, *problems])}

    def departures(self, settings: JudgeSettings, template: JudgeTemplate) -> list[str]:
        """How an eval's judge differs from the official one (empty: the official settings)."""
        found = [] if template.id == self.template().id else [f"template {template.id}"]
        official = self.official()
        for name, value in (
            ("model", settings.model),
            ("temperature", settings.temperature),
            ("max_tokens", settings.max_tokens),
        ):
            if value != official[name]:
                found.append(f"{name} {value} (official {official[name]})")
        return found

    def meta(
        self, settings: JudgeSettings, template: JudgeTemplate, verdicts: Iterable[Verdicts], **extra: Any
    ) -> dict[str, Any]:
        """eval.json ``meta.judge``: the judge's settings and template, how they depart from the official ones,
        the benchmark's ``extra`` fields, and where the replies came from."""
        done = list(verdicts)
        return {
            "model": settings.model,
            "template": template.id,
            "template_sha256": template.sha256,
            "template_file": template.file,
            **settings.params(),
            **extra,
            "departures": self.departures(settings, template),
            "requests_sent": sum(v.requests for v in done),
            "replies_reused": sum(v.reused for v in done),
        }


@dataclass
class JudgedParts:
    """One eval's judgings, part by part: each judged part's verdicts, why each other part is not judged (its
    coverage reason), the errors of a judge that cannot run, and the one line naming the parts without a judge."""

    verdicts: dict[str, Verdicts] = field(default_factory=dict)
    unjudged: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def judge_parts(parts: Mapping[str, Callable[[], Verdicts]]) -> JudgedParts:
    """Each part judged by its call (a :meth:`Judge.judge_responses` or :meth:`Judge.run`). Without a judge key a
    part is not judged, which is no failure: its reason starts with :data:`NOT_JUDGED` and one note names every
    such part (the run is partial, exit 3). A judge that cannot run leaves its part unscored with an error (exit 1)."""
    done = JudgedParts()
    for name, judge in parts.items():
        try:
            done.verdicts[name] = judge()
        except JudgeNotConfigured as exc:
            done.unjudged[name] = f"{NOT_JUDGED}{exc}"
        except AvibenchError as exc:
            done.unjudged[name] = str(exc)
            done.errors.append(f"{name} not scored: {exc}")
    if unset := [name for name, why in done.unjudged.items() if why.startswith(NOT_JUDGED)]:
        done.notes.append(not_judged_line(unset, done.unjudged[unset[0]].removeprefix(NOT_JUDGED)))
    return done


def judge_paragraph(document: Mapping[str, Any], asked: str = "") -> list[Paragraph]:
    """The report's account of the judge from ``meta.judge``: model, template and its sha256, temperature, max
    tokens, replies per request where several, how each answer is ``asked`` (AIR-Bench: both answer orders), the
    departures from the official judge, and the requests this eval sent and the replies it reused; none without
    a judge."""
    judge = as_dict(as_dict(document.get("meta")).get("judge"))
    if not judge:
        return []
    departures = judge.get("departures")
    departed = ", ".join(map(str, departures)) if isinstance(departures, list) and departures else "none"
    how = [f"{judge['n']} replies per request"] if judge.get("n") else []
    how += [asked] if asked else []
    return [
        Paragraph(
            f"Judge: {judge.get('model')}, template {judge.get('template')} "
            f"(sha256 {judge.get('template_sha256')}), temperature {judge.get('temperature')}, "
            f"max tokens {judge.get('max_tokens')}{''.join(', ' + h for h in how)}; departures from the official judge: "
            f"{departed}. {judge.get('requests_sent')} requests sent by this eval, "
            f"{judge.get('replies_reused')} replies taken from the judge journal."
        )
    ]
