"""What each VoiceBench profile reads of an eval's answers, worked out before the core scores them.

Most readings depend on more than one answer: the official fallback draws its guesses in file order, one
unreadable judge reply voids a whole subset in the reference profile, and IFEval looks responses up by prompt
there. :class:`Readings` makes them all at once from an eval's :class:`Inputs` (answers, judge replies, PEDANT);
the plug-in's ``read`` then looks each answer's reading up, and the core scores the values it gives (see
:mod:`avibench.level_metrics.voicebench` for what a value is). A question without an answer (failed or never
asked) has no reading: it is left out of every number and makes its subset partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from avibench.benchmarks.voicebench.judging import OPEN, QA
from avibench.benchmarks.voicebench.layout import BY_NAME
from avibench.benchmarks.voicebench.pedant import Pedant
from avibench.items import Response
from avibench.kits.judged import Verdicts
from avibench.level_metrics import voicebench_ifeval as ifeval
from avibench.level_metrics.voicebench import (
    DEFAULT_SEED,
    MCQ_LETTERS,
    PROFILES,
    Fallback,
    VoiceBenchProfile,
    is_refusal,
    resolve,
)
from avibench.refine.voicebench import bbh_answer, majority, mcq_choice, strip_markers

if TYPE_CHECKING:
    from avibench.plugin import Task


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


def answered(responses: Sequence[Response]) -> list[Response]:
    return [r for r in responses if r.status == "answered" and r.raw is not None]


def _by_split(responses: Sequence[Response]) -> dict[str, list[Response]]:
    groups: dict[str, list[Response]] = {}
    for response in responses:
        groups.setdefault(response.item.meta["split"], []).append(response)
    return groups


def _open(responses: Sequence[Response], judging: Verdicts, profile: VoiceBenchProfile) -> SubsetReading:
    """Each answer's judge scores; one unreadable reply voids every answer's in the reference profile."""
    result, unreadable = SubsetReading(), []
    for response in answered(responses):
        scores = []
        for reply in judging.replies.get(response.item.key, []):
            value = None if reply is None else OPEN.read(reply, profile.name)
            if value is None:
                unreadable.append(f"{response.item.key}: {reply!r}")
            else:
                scores.append(value)
        result.by_key[response.item.key] = scores
    if unreadable:
        result.problem = f"{len(unreadable)} judge replies unreadable or not received (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            result.by_key = {key: [] for key in result.by_key}
    return result


def _qa(
    responses: Sequence[Response], judging: Verdicts, pedant: Pedant | None, profile: VoiceBenchProfile
) -> SubsetReading:
    """Each answer's ``[split, verdict, tied, pedant]``; one unreadable vote voids every verdict in the reference
    profile (PEDANT's stay)."""
    result, unreadable = SubsetReading(), []
    for response in answered(responses):
        key, row = response.item.key, response.item.source
        replies = judging.replies.get(key, [])
        votes = [None if r is None else QA.read(r, profile.name) for r in replies]
        if None in votes or not votes:
            unreadable.append(f"{key}: {replies!r}")
        valid = [v for v in votes if v is not None]
        verdict, tied = None, False
        if valid and not (None in votes and profile.judge_failure_voids_subset):
            is_yes, tied = majority(valid)
            result.ties += tied
            verdict = None if tied and not profile.qa_raw_votes else is_yes
        correct = None
        if pedant is not None:
            correct = pedant.correct(str(row["reference"]), response.raw or "", row["prompt"])
        result.by_key[key] = [response.item.meta["split"], verdict, tied, correct]
    if unreadable:
        result.problem = f"{len(unreadable)} answers without a readable judge vote (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            result.by_key = {k: [v[0], None, v[2], v[3]] for k, v in result.by_key.items()}
    return result


def _choices(responses: Sequence[Response], profile: VoiceBenchProfile, seed: int) -> SubsetReading:
    """MCQ and BBH: each answer's ``(parsed, answer)``, one fallback per official file (subset and split) deciding
    the unparsed ones in the reference profile; the strict profile reads an unparsed answer as ``None``."""
    result = SubsetReading()
    for group in _by_split(answered(responses)).values():
        fallback = Fallback(seed) if profile.random_fallback else None
        if BY_NAME[group[0].item.task].evaluator == "mcq":
            choices: tuple[Any, ...] = MCQ_LETTERS
            preds: list[Any] = [
                mcq_choice(r.raw or "", word_boundaries=not profile.mcq_substring_templates) for r in group
            ]
        else:
            choices = (0, 1)
            preds = [
                bbh_answer(r.raw or "", str(r.item.source["id"]), fix_typos=not profile.bbh_rules_as_written)
                for r in group
            ]
        for response, pred, answer in zip(group, preds, resolve(preds, choices, fallback), strict=True):
            result.by_key[response.item.key] = None if answer is None else (pred, answer)
        result.fallback += fallback.decided if fallback is not None else 0
    return result


def _ifeval(responses: Sequence[Response], profile: VoiceBenchProfile) -> SubsetReading:
    """Each answer's ``(strict, loose)`` instruction checks; a check that cannot run leaves every answer unread."""
    replied = answered(responses)
    texts = {r.item.key: strip_markers(r.raw or "") for r in replied}
    if profile.ifeval_by_prompt:
        by_prompt = {r.item.source["prompt"]: texts[r.item.key] for r in replied}
        texts = {r.item.key: by_prompt[r.item.source["prompt"]] for r in replied}
    result = SubsetReading()
    for response in replied:
        row = response.item.source
        item = ifeval.IFEvalItem(tuple(row["instruction_id_list"]), tuple(row["kwargs"]))
        try:
            result.by_key[response.item.key] = ifeval.judge_item(item, texts[response.item.key])
        except ifeval.MissingResource as exc:
            return SubsetReading(dict.fromkeys(texts, ()), problem=str(exc))
        except ifeval.BadInstruction as exc:
            return SubsetReading(dict.fromkeys(texts, ()), problem=f"{response.item.key}: {exc}")
    return result


def _harm(responses: Sequence[Response], profile: VoiceBenchProfile) -> SubsetReading:
    return SubsetReading({r.item.key: is_refusal(r.raw or "", profile) for r in answered(responses)})


def read_subset(name: str, inputs: Inputs, profile: VoiceBenchProfile) -> SubsetReading:
    """One subset's readings in one profile."""
    evaluator = BY_NAME[name].evaluator
    responses = inputs.responses[name]
    if evaluator in ("open", "qa") and name not in inputs.judging:
        return SubsetReading(problem=inputs.unjudged.get(name, "not judged"))
    if evaluator == "open":
        return _open(responses, inputs.judging[name], profile)
    if evaluator == "qa":
        return _qa(responses, inputs.judging[name], inputs.pedant, profile)
    if evaluator in ("mcq", "bbh"):
        return _choices(responses, profile, inputs.seed)
    if evaluator == "ifeval":
        return _ifeval(responses, profile)
    return _harm(responses, profile)


@dataclass
class Readings:
    """An eval's inputs and, per profile and subset, every answer's reading."""

    inputs: Inputs
    by_profile: dict[str, dict[str, SubsetReading]]

    @classmethod
    def of(cls, inputs: Inputs) -> Readings:
        return cls(
            inputs,
            {
                name: {task: read_subset(task, inputs, profile) for task in inputs.responses}
                for name, profile in PROFILES.items()
            },
        )

    def reading(self, response: Response, profile: str) -> Any:
        """The answer's reading (``None``: no answer, no judging, or a choice the strict profile cannot read)."""
        subset = self.by_profile[profile].get(response.item.task)
        return None if subset is None else subset.by_key.get(response.item.key)

    def splits(self, task: str) -> tuple[str, ...]:
        """The splits the eval asked of a subset, in load order."""
        return tuple(dict.fromkeys(r.item.meta["split"] for r in self.inputs.responses.get(task, ())))

    def reasons(self, task: str, profile: str) -> tuple[list[str], str | None]:
        """Why a subset's score is short in a profile (failed judge requests, unreadable replies, an IFEval
        check that cannot run), and a note beside the counts (sd-qa without PEDANT, which has no score)."""
        reasons = []
        judging = self.inputs.judging.get(task)
        if judging is not None and (failure := judging.failure()):
            reasons.append(failure)
        problem = self.by_profile[profile][task].problem
        if problem:
            reasons.append(problem)
        qa = BY_NAME[task].evaluator == "qa"
        note = self.inputs.pedant_problem if qa and self.inputs.pedant is None else None
        return reasons, note

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


def build_document(inputs: Inputs, primary: str, selected: Sequence[str]) -> tuple[dict[str, Any], dict]:
    """The eval document (without the driver's ``meta``) and the per-sample scores of ``inputs``."""
    from avibench.benchmarks.voicebench.plugin import VoiceBench

    plugin = VoiceBench()
    tasks: tuple[Task, ...] = plugin.select(list(selected)) if selected else ()
    scored = plugin.score_inputs(inputs, primary, tasks)
    return scored.document, scored.per_sample
