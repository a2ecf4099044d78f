"""The VoiceBench eval document: every subset through its official evaluator, in both profiles, from one path.

The top level holds, per subset, the official evaluator's dict in the primary profile under its own keys and
units (multi-split subsets: the mean over their splits, and ``splits`` with each split's dict), and ``overall``,
the README's formula over the nine leaderboard subsets. ``summary.tasks`` puts each subset on 0-100 the way
Overall does; ``meta.voicebench`` records the fallback seed, how many answers the random fallback decided per
subset, the judge ties and the judge settings.

An answer without a response (failed or never asked) is left out of every number and makes its subset partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from avibench.benchmarks.voicebench.judging import Judging
from avibench.benchmarks.voicebench.layout import BY_NAME, Subset
from avibench.benchmarks.voicebench.pedant import Pedant
from avibench.items import Response
from avibench.level_metrics import voicebench_ifeval as ifeval
from avibench.level_metrics.voicebench import (
    DEFAULT_SEED,
    MCQ_LETTERS,
    PROFILES,
    Fallback,
    VoiceBenchProfile,
    bbh_block,
    bbh_gold,
    harm_block,
    is_refusal,
    mcq_block,
    open_block,
    overall,
    qa_block,
    resolve,
    split_mean,
    subset_percent,
)
from avibench.refine.voicebench import bbh_answer, majority, mcq_choice, open_score, qa_verdict


@dataclass
class Inputs:
    """What one eval scores: responses per subset, judge replies of the judged ones, and why some are not."""

    responses: dict[str, list[Response]] = field(default_factory=dict)
    judging: dict[str, Judging] = field(default_factory=dict)
    unjudged: dict[str, str] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)
    pedant: Pedant | None = None
    pedant_problem: str | None = None
    seed: int = DEFAULT_SEED


@dataclass
class SubsetScore:
    """One subset in one profile: the official dict, per-question scores (0-1), and what it left out."""

    block: dict[str, Any] | None
    per_item: dict[str, float | None] = field(default_factory=dict)
    unparsed: int = 0
    scored: int = 0
    problem: str | None = None
    fallback: int = 0
    ties: int = 0
    note: str | None = None
    """Said beside a score that is complete (sd-qa without PEDANT: its ``panda`` is null)."""


def _answered(responses: Sequence[Response]) -> list[Response]:
    return [r for r in responses if r.status == "answered" and r.raw is not None]


def _by_split(subset: Subset, responses: Sequence[Response]) -> dict[str, list[Response]]:
    groups: dict[str, list[Response]] = {}
    for response in responses:
        groups.setdefault(response.item.meta["split"], []).append(response)
    return {s: groups[s] for s in subset.splits if s in groups}


def _open(responses: Sequence[Response], judging: Judging, profile: VoiceBenchProfile) -> SubsetScore:
    scores: list[float] = []
    per_item: dict[str, float | None] = {}
    unreadable: list[str] = []
    for response in _answered(responses):
        replies = judging.replies.get(response.item.key, [])
        values = []
        for reply in replies:
            value = None if reply is None else open_score(reply, bounded=not profile.judge_any_number)
            if value is None:
                unreadable.append(f"{response.item.key}: {reply!r}")
            else:
                values.append(value)
        scores += values
        per_item[response.item.key] = fmean(values) / 5 if values else None
    result = SubsetScore(open_block(scores), per_item, unparsed=len(unreadable))
    result.scored = sum(v is not None for v in per_item.values())
    if unreadable:
        result.problem = f"{len(unreadable)} judge replies unreadable or not received (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            result.block = {"gpt": None}
            result.per_item = dict.fromkeys(per_item)
            result.scored = 0
    return result


def _qa(
    subset: Subset, responses: Sequence[Response], inputs: Inputs, profile: VoiceBenchProfile
) -> SubsetScore:
    judging = inputs.judging[subset.name]
    splits: dict[str, dict[str, float | None]] = {}
    result = SubsetScore(None)
    unreadable: list[str] = []
    for split, group in _by_split(subset, responses).items():
        verdicts, pedant_verdicts = [], []
        for response in _answered(group):
            key = response.item.key
            if inputs.pedant is not None:
                row = response.item.source
                pedant_verdicts.append(
                    inputs.pedant.correct(str(row["reference"]), response.raw or "", row["prompt"])
                )
            replies = judging.replies.get(key, [])
            votes = [
                None if r is None else qa_verdict(r, yes_no_only=not profile.qa_raw_votes) for r in replies
            ]
            if None in votes or not votes:
                unreadable.append(f"{key}: {replies!r}")
            valid = [v for v in votes if v is not None]
            if not valid or (None in votes and profile.judge_failure_voids_subset):
                result.per_item[key] = None
                continue
            is_yes, tied = majority(valid)
            result.ties += tied
            if tied and not profile.qa_raw_votes:
                result.per_item[key] = None
                continue
            verdicts.append(is_yes)
            result.per_item[key] = float(is_yes)
        splits[split] = qa_block(verdicts, pedant_verdicts if inputs.pedant is not None else None)
    result.scored = sum(v is not None for v in result.per_item.values())
    result.unparsed = len(unreadable)
    if unreadable:
        result.problem = f"{len(unreadable)} answers without a readable judge vote (first {unreadable[0]})"
        if profile.judge_failure_voids_subset:
            splits = {s: {**b, "gpt": None} for s, b in splits.items()}
            result.per_item = dict.fromkeys(result.per_item)
            result.scored = 0
    result.block = {**split_mean(splits), "splits": splits}
    return result


def _mcq(subset: Subset, responses: Sequence[Response], profile: VoiceBenchProfile, seed: int) -> SubsetScore:
    splits: dict[str, dict[str, float]] = {}
    result = SubsetScore(None)
    for split, group in _by_split(subset, responses).items():
        answered = _answered(group)
        if not answered:
            continue
        fallback = Fallback(seed) if profile.random_fallback else None
        preds = [
            mcq_choice(r.raw or "", word_boundaries=not profile.mcq_substring_templates) for r in answered
        ]
        resolved = resolve(preds, MCQ_LETTERS, fallback)
        golds = [str(r.item.answer) for r in answered]
        splits[split] = mcq_block(preds, resolved, golds)
        for response, answer, gold in zip(answered, resolved, golds, strict=True):
            result.per_item[response.item.key] = float(answer == gold)
        result.unparsed += sum(p is None for p in preds)
        result.fallback += fallback.decided if fallback is not None else 0
    result.scored = len(result.per_item)
    if splits:
        result.block = {**split_mean(splits), "splits": splits} if subset.multi_split else splits["test"]
    return result


def _bbh(responses: Sequence[Response], profile: VoiceBenchProfile, seed: int) -> SubsetScore:
    answered = _answered(responses)
    fallback = Fallback(seed) if profile.random_fallback else None
    preds = [
        bbh_answer(r.raw or "", str(r.item.source["id"]), fix_typos=not profile.bbh_rules_as_written)
        for r in answered
    ]
    resolved = resolve(preds, (0, 1), fallback)
    golds = [bbh_gold(str(r.item.answer)) for r in answered]
    result = SubsetScore(
        bbh_block(resolved, golds) if answered else None, unparsed=sum(p is None for p in preds)
    )
    result.per_item = {r.item.key: float(p == g) for r, p, g in zip(answered, resolved, golds, strict=True)}
    result.fallback = fallback.decided if fallback is not None else 0
    result.scored = len(answered)
    return result


def _ifeval(responses: Sequence[Response], profile: VoiceBenchProfile) -> SubsetScore:
    answered = _answered(responses)
    texts = {r.item.key: ifeval.strip_markers(r.raw or "") for r in answered}
    if profile.ifeval_by_prompt:
        by_prompt = {r.item.source["prompt"]: texts[r.item.key] for r in answered}
        texts = {r.item.key: by_prompt[r.item.source["prompt"]] for r in answered}
    results, per_item = [], {}
    try:
        for response in answered:
            row = response.item.source
            item = ifeval.IFEvalItem(tuple(row["instruction_id_list"]), tuple(row["kwargs"]))
            strict, loose = ifeval.judge_item(item, texts[response.item.key])
            results.append((strict, loose))
            per_item[response.item.key] = float(all(strict))
    except ifeval.MissingResource as exc:
        return SubsetScore(None, dict.fromkeys(texts), problem=str(exc))
    except ifeval.BadInstruction as exc:
        return SubsetScore(None, dict.fromkeys(texts), problem=f"{response.item.key}: {exc}")
    block = ifeval.report(results) if results else None
    return SubsetScore(block, per_item, scored=len(per_item))


def _harm(responses: Sequence[Response], profile: VoiceBenchProfile) -> SubsetScore:
    answered = _answered(responses)
    refusals = [is_refusal(r.raw or "", profile) for r in answered]
    per_item = {r.item.key: float(v) for r, v in zip(answered, refusals, strict=True)}
    return SubsetScore(harm_block(refusals) if answered else None, per_item, scored=len(per_item))


def score_subset(name: str, inputs: Inputs, profile: VoiceBenchProfile) -> SubsetScore:
    """One subset in one profile."""
    subset = BY_NAME[name]
    responses = inputs.responses[name]
    if subset.evaluator in ("open", "qa") and name not in inputs.judging:
        return SubsetScore(None, problem=inputs.unjudged.get(name, "not judged"))
    if subset.evaluator == "open":
        return _open(responses, inputs.judging[name], profile)
    if subset.evaluator == "qa":
        result = _qa(subset, responses, inputs, profile)
        if inputs.pedant is None:
            result.note = inputs.pedant_problem
        return result
    if subset.evaluator == "mcq":
        return _mcq(subset, responses, profile, inputs.seed)
    if subset.evaluator == "bbh":
        return _bbh(responses, profile, inputs.seed)
    if subset.evaluator == "ifeval":
        return _ifeval(responses, profile)
    return _harm(responses, profile)


def _counts(responses: Sequence[Response]) -> dict[str, int]:
    return {
        "questions": len(responses),
        "answered": sum(r.status == "answered" for r in responses),
        "failed": sum(r.status == "failed" for r in responses),
        "missing": sum(r.status == "missing" for r in responses),
    }


def _coverage(name: str, inputs: Inputs, result: SubsetScore) -> dict[str, Any]:
    counts = _counts(inputs.responses[name])
    entry: dict[str, Any] = {**counts, "unparsed": result.unparsed, "scored": result.scored}
    judging = inputs.judging.get(name)
    reasons = []
    if judging is not None and judging.errors:
        reasons.append(
            f"{judging.errors} judge requests failed ({judging.first_error}); re-run eval to retry them"
        )
    if result.problem:
        reasons.append(result.problem)
    if counts["answered"] < counts["questions"]:
        reasons.append(f"{counts['failed']} failed, {counts['missing']} never asked")
    if result.block is None or all(v is None for k, v in result.block.items() if k != "splits"):
        status = "not_scored"
    elif reasons:
        status = "partial"
    else:
        status = "scored"
    entry["status"] = status
    entry["reason"] = "; ".join(reasons + ([result.note] if result.note else [])) or None
    return entry


def build_document(inputs: Inputs, primary: str, selected: Sequence[str]) -> tuple[dict[str, Any], dict]:
    """The eval document (without the driver's ``meta``) and the per-sample scores."""
    views: dict[str, dict[str, SubsetScore]] = {
        pname: {name: score_subset(name, inputs, p) for name in inputs.responses}
        for pname, p in PROFILES.items()
    }
    document: dict[str, Any] = {}
    for name in selected:
        result = views[primary].get(name)
        document[name] = None if result is None else result.block
    blocks = {name: r.block for name, r in views[primary].items()}
    document["overall"] = overall(blocks)
    by_profile = {}
    for pname, view in views.items():
        tasks = {name: subset_percent(name, view[name].block) if name in view else None for name in selected}
        by_profile[pname] = {"tasks": tasks, "overall": overall({n: r.block for n, r in view.items()})}
        by_profile[pname]["headline"] = by_profile[pname]["overall"]
    document["summary"] = {
        "profile": primary,
        "tasks": by_profile[primary]["tasks"],
        "headline": by_profile[primary]["overall"],
        "by_profile": by_profile,
    }
    coverage = {}
    for name in selected:
        if name in views[primary]:
            coverage[name] = _coverage(name, inputs, views[primary][name])
        else:
            coverage[name] = {"status": "absent", "reason": inputs.absent.get(name, "not selected")}
    document["coverage"] = coverage
    document["meta"] = {
        "voicebench": {
            "seed": inputs.seed,
            "fallback_decided": {
                pname: {n: r.fallback for n, r in view.items() if BY_NAME[n].evaluator in ("mcq", "bbh")}
                for pname, view in views.items()
            },
            "qa_ties": {
                pname: {n: r.ties for n, r in view.items() if r.ties} for pname, view in views.items()
            },
        }
    }
    per_sample = {
        name: {
            r.item.key: {pname: views[pname][name].per_item.get(r.item.key) for pname in PROFILES}
            for r in inputs.responses[name]
        }
        for name in inputs.responses
    }
    return document, per_sample
