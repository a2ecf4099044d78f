"""VLMEvalKit's judge fallback for WorldSense (``--judge-model``), declared on the judged-answers kit.

For an answer exact matching cannot read, VLMEvalKit builds its option-matching prompt
(``prompts/worldsense/judge.json``, word for word) from the question field, the options it parsed from that field
and the prediction, and asks the judge up to three times until ``can_infer`` reads a letter (or Z) from the reply;
otherwise the answer is Z. In the reference profile the options are VLMEvalKit's (for WorldSense's one-line
questions: none, so only Z can come back); the strict profile shows the judge the question's candidates. Replies
are journaled per question and profile under ``<run>/judge/worldsense.jsonl`` and never sent again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from avibench.benchmarks.worldsense.options import TEMPLATE_FILE
from avibench.items import Item
from avibench.kits.judged import Judge, JudgeJob, JudgeSettings, Verdicts
from avibench.level_metrics.worldsense import Matching, can_infer, option_text

#: No parser per profile: each request's reply is read against the options that request shows.
JUDGE = Judge("worldsense", TEMPLATE_FILE)


@dataclass(frozen=True)
class Ask:
    """One answer to judge: the question, the options the prompt shows, the prediction, and the profile."""

    item: Item
    choices: Mapping[str, str]
    prediction: str
    profile: str


def prompt(ask: Ask) -> str:
    spec = JUDGE.protocol
    options = option_text(ask.choices, str(spec["options_header"]), str(spec["option_line"]))
    return str(spec["template"]).format(
        question=ask.item.meta["question"], options=options, prediction=ask.prediction
    )


def _reads(choices: Mapping[str, str], matching: Matching, reply: str) -> bool:
    return can_infer(reply, choices, matching) is not None


def judge(
    asks: Sequence[Ask], run_root: Path, settings: JudgeSettings, matching: Matching
) -> tuple[dict[tuple[str, str], str | None], Verdicts]:
    """The letter each answer in ``asks`` resolves to by (profile, item key): the one ``can_infer`` reads from the
    judge's reply, else Z (``None``: the request got no reply yet); and the verdicts' account."""
    jobs = [
        JudgeJob(
            f"{a.item.key}@{a.profile}",
            [{"role": "user", "content": prompt(a)}],
            accept=partial(_reads, a.choices, matching),
        )
        for a in asks
    ]
    verdicts = JUDGE.run(jobs, run_root, settings)
    letters: dict[tuple[str, str], str | None] = {}
    for ask, job in zip(asks, jobs, strict=True):
        (reply,) = verdicts.replies[job.key]
        letters[(ask.profile, ask.item.key)] = (
            None if reply is None else can_infer(reply, ask.choices, matching) or "Z"
        )
    return letters, verdicts
