"""What each VoiceBench profile reads of an eval's answers and judge replies, worked out before the core scores.

The judge is declared on the judged-answers kit as the official ``api_judge.py`` asks it (docs/voicebench.md,
"The judge"): three samples per request, every choice read stripped, a reply never re-asked.

Several readings depend on more than one answer (the fallback draws in file order, one unreadable judge reply
voids a subset in the reference profile, IFEval looks responses up by prompt there), so :class:`Readings` makes
them all at once from an eval's :class:`Inputs`; the plug-in's ``read`` looks each answer's up. A question
without an answer has no reading: it is left out of every number and makes its subset partial.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import groupby
from typing import Any

from avibench.benchmarks.voicebench.layout import BY_NAME
from avibench.benchmarks.voicebench.options import TEMPLATE_FILE
from avibench.benchmarks.voicebench.pedant import Pedant
from avibench.items import Response
from avibench.kits.judged import Judge, Verdicts, answered
from avibench.level_metrics import voicebench_ifeval as ifeval
from avibench.level_metrics.voicebench import (
    DEFAULT_SEED,
    MCQ_LETTERS,
    PROFILES,
    VoiceBenchProfile,
    is_refusal,
    resolve,
)
from avibench.refine.voicebench import bbh_answer, majority, mcq_choice, open_score, qa_verdict, strip_markers


def _judge(parse: Callable[..., Any], switch: str, official: str) -> Judge:
    """A judge whose reply parser takes the official reading where the profile's ``official`` switch is on."""
    parsers = {name: partial(parse, **{switch: not getattr(p, official)}) for name, p in PROFILES.items()}
    return Judge("voicebench", TEMPLATE_FILE, parsers=parsers, strip=True)


#: The open subsets' judge: a 1-5 score, any number in the reference profile, 1-5 only in the strict one.
OPEN = _judge(open_score, "bounded", "judge_any_number")
#: sd-qa's judge: a vote, the raw reply in the reference profile, yes or no only in the strict one.
QA = _judge(qa_verdict, "yes_no_only", "qa_raw_votes")
JUDGES = {"open": OPEN, "qa": QA}


def judge_messages(evaluator: str, response: Response, variant: str = "") -> list[dict[str, str]]:
    """The official request (one per answer: no ``variant``): the system message and the open or reference-based
    prompt, filled as the official ``str.replace`` chain does (prompt, then reference, then response, so a
    ``{response}`` inside the prompt is filled too)."""
    protocol, row, reply = OPEN.protocol, response.item.source, response.raw or ""
    if evaluator == "qa":
        values = {"prompt": row["prompt"], "reference": str(row["reference"]), "response": reply}
    else:
        values = {"prompt": row["prompt"], "response": reply}
    content = protocol[evaluator]
    for name, value in values.items():
        content = content.replace("{" + name + "}", value)
    return [{"role": "system", "content": protocol["system"]}, {"role": "user", "content": content}]


@dataclass
class Inputs:
    """What one eval scores: responses per subset, judge replies of the judged ones, and why some are not."""

    responses: dict[str, list[Response]] = field(default_factory=dict)
    judging: dict[str, Verdicts] = field(default_factory=dict)
    unjudged: dict[str, str] = field(default_factory=dict)
    pedant: Pedant | None = None
    pedant_problem: str | None = None
    seed: int = DEFAULT_SEED


@dataclass
class SubsetReading:
    """One subset in one profile: each answer's reading by key, and what the profile could not read."""

    by_key: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    fallback: int = 0
    ties: int = 0


def _open(responses: list[Response], inputs: Inputs, name: str, profile: VoiceBenchProfile) -> SubsetReading:
    """Each answer's judge scores; one unreadable reply voids every answer's in the reference profile."""
    result, unreadable = SubsetReading(), []
    for response in responses:
        key = response.item.key
        replies = inputs.judging[name].replies.get(key, [])
        scores = [None if reply is None else OPEN.read(reply, profile.name) for reply in replies]
        unreadable += [f"{key}: {reply!r}" for reply, s in zip(replies, scores, strict=True) if s is None]
        result.by_key[key] = [s for s in scores if s is not None]
    if unreadable:
        result.problem = f"{len(unreadable)} judge replies unreadable or not received (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            result.by_key = {key: [] for key in result.by_key}
    return result


def _qa(responses: list[Response], inputs: Inputs, name: str, profile: VoiceBenchProfile) -> SubsetReading:
    """Each answer's ``[split, verdict, tied, pedant]``; one unreadable vote voids every verdict in the reference
    profile (PEDANT's stay)."""
    result, unreadable = SubsetReading(), []
    for response in responses:
        key, row = response.item.key, response.item.source
        replies = inputs.judging[name].replies.get(key, [])
        votes = [None if r is None else QA.read(r, profile.name) for r in replies]
        if None in votes or not votes:
            unreadable.append(f"{key}: {replies!r}")
        valid = [v for v in votes if v is not None]
        verdict, tied = None, False
        if valid and not (None in votes and profile.judge_failure_voids_subset):
            is_yes, tied = majority(valid)
            result.ties += tied
            verdict = None if tied and not profile.qa_raw_votes else is_yes
        pedant = inputs.pedant
        correct = pedant and pedant.correct(str(row["reference"]), response.raw or "", row["prompt"])
        result.by_key[key] = [response.item.meta["split"], verdict, tied, correct]
    if unreadable:
        result.problem = f"{len(unreadable)} answers without a readable judge vote (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            result.by_key = {k: [v[0], None, v[2], v[3]] for k, v in result.by_key.items()}
    return result


def _choices(
    responses: list[Response], inputs: Inputs, name: str, profile: VoiceBenchProfile
) -> SubsetReading:
    """MCQ and BBH: each answer's ``(parsed, answer)``, one fallback per official file (subset and split, which
    follow one another in load order) deciding the unparsed ones in the reference profile; the strict profile
    reads an unparsed answer as ``None``."""
    result = SubsetReading()
    mcq = BY_NAME[name].evaluator == "mcq"
    for _, split in groupby(responses, key=lambda r: r.item.meta["split"]):
        group = list(split)
        if mcq:
            preds: list[Any] = [
                mcq_choice(r.raw or "", word_boundaries=not profile.mcq_substring_templates) for r in group
            ]
        else:
            preds = [
                bbh_answer(r.raw or "", str(r.item.source["id"]), fix_typos=not profile.bbh_rules_as_written)
                for r in group
            ]
        seed = inputs.seed if profile.random_fallback else None
        answers, guessed = resolve(preds, MCQ_LETTERS if mcq else (0, 1), seed)
        for response, pred, answer in zip(group, preds, answers, strict=True):
            result.by_key[response.item.key] = None if answer is None else (pred, answer)
        result.fallback += guessed
    return result


def _ifeval(
    responses: list[Response], inputs: Inputs, name: str, profile: VoiceBenchProfile
) -> SubsetReading:
    """Each answer's ``(strict, loose)`` instruction checks; a check that cannot run leaves every answer unread."""
    texts = {r.item.key: strip_markers(r.raw or "") for r in responses}
    if profile.ifeval_by_prompt:
        by_prompt = {r.item.source["prompt"]: texts[r.item.key] for r in responses}
        texts = {r.item.key: by_prompt[r.item.source["prompt"]] for r in responses}
    result = SubsetReading()
    for response in responses:
        row, key = response.item.source, response.item.key
        try:
            result.by_key[key] = ifeval.judge_item(row["instruction_id_list"], row["kwargs"], texts[key])
        except ifeval.MissingResource as exc:
            return SubsetReading(dict.fromkeys(texts, ()), problem=str(exc))
        except ifeval.BadInstruction as exc:
            return SubsetReading(dict.fromkeys(texts, ()), problem=f"{key}: {exc}")
    return result


def _harm(responses: list[Response], inputs: Inputs, name: str, profile: VoiceBenchProfile) -> SubsetReading:
    return SubsetReading({r.item.key: is_refusal(r.raw or "", profile) for r in responses})


READERS = {"open": _open, "qa": _qa, "mcq": _choices, "bbh": _choices, "ifeval": _ifeval, "harm": _harm}


def read_subset(name: str, inputs: Inputs, profile: VoiceBenchProfile) -> SubsetReading:
    """One subset's readings in one profile, of the answers with a reply."""
    evaluator = BY_NAME[name].evaluator
    if evaluator in ("open", "qa") and name not in inputs.judging:
        return SubsetReading(problem=inputs.unjudged.get(name, "not judged"))
    return READERS[evaluator]([r for r in inputs.responses[name] if answered(r)], inputs, name, profile)


@dataclass
class Readings:
    """An eval's inputs and, per profile and subset, every answer's reading."""

    inputs: Inputs
    by_profile: dict[str, dict[str, SubsetReading]]

    @classmethod
    def of(cls, inputs: Inputs) -> Readings:
        read = {
            name: {t: read_subset(t, inputs, p) for t in inputs.responses} for name, p in PROFILES.items()
        }
        return cls(inputs, read)

    def reading(self, response: Response, profile: str) -> Any:
        """The answer's reading (``None``: no answer, no judging, or a choice the strict profile cannot read)."""
        subset = self.by_profile[profile].get(response.item.task)
        return None if subset is None else subset.by_key.get(response.item.key)

    def splits(self, task: str) -> tuple[str, ...]:
        """The splits the eval asked of a subset, in load order."""
        return tuple(dict.fromkeys(r.item.meta["split"] for r in self.inputs.responses.get(task, ())))

    def annotate(self, entry: dict[str, Any], task: str, profile: str) -> None:
        """A subset's coverage entry with what the readings know: failed judge requests, unreadable replies or an
        IFEval check that cannot run make a complete subset partial and come first in its reason; a note (sd-qa
        without PEDANT, which then has no score) leaves it complete."""
        judging = self.inputs.judging.get(task)
        reasons = [r for r in (judging and judging.failure(), self.by_profile[profile][task].problem) if r]
        qa = BY_NAME[task].evaluator == "qa"
        note = self.inputs.pedant_problem if qa and self.inputs.pedant is None else None
        if reasons:
            gaps = entry["answered"] < entry["questions"]
            unanswered = [f"{entry['failed']} failed, {entry['missing']} never asked"] if gaps else []
            entry["reason"] = "; ".join([*reasons, *unanswered, *([note] if note else [])])
            if entry["status"] == "scored":
                entry["status"] = "partial"
        elif note:
            entry["reason"] = "; ".join(r for r in (entry["reason"], note) if r)

    def meta(self) -> dict[str, Any]:
        """``meta.voicebench``: the fallback's seed and guesses, and sd-qa's tied votes, per profile."""
        return {
            "seed": self.inputs.seed,
            "fallback_decided": {
                profile: {n: r.fallback for n, r in view.items() if BY_NAME[n].evaluator in ("mcq", "bbh")}
                for profile, view in self.by_profile.items()
            },
            "qa_ties": {
                profile: {n: r.ties for n, r in view.items() if r.ties}
                for profile, view in self.by_profile.items()
            },
        }
