"""VLMEvalKit's judge fallback for WorldSense (``--judge-model``): the answers exact matching cannot read, asked.

For such an answer VLMEvalKit builds its option-matching prompt (``prompts/worldsense/judge.json``, word for word)
from the question field, the options it parsed from that field and the prediction, and asks the judge up to three
times until ``can_infer`` reads a letter (or Z) from the reply; otherwise the answer is Z. In the reference profile
the options are VLMEvalKit's (for WorldSense's one-line questions: none, so only Z can come back); the strict
profile shows the judge the question's candidates. Replies are journaled per question and profile under
``<run>/judge/worldsense.jsonl`` and never sent again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from avibench.evaluate.judge import JudgeJob, JudgeSettings, run_judge
from avibench.items import Item
from avibench.level_metrics.worldsense import Matching, can_infer, option_text


def journal_path(run_root: Path) -> Path:
    return Path(run_root) / "judge" / "worldsense.jsonl"


@dataclass(frozen=True)
class Ask:
    """One answer to judge: the question, the options the prompt shows, the prediction, and the profile."""

    item: Item
    choices: Mapping[str, str]
    prediction: str
    profile: str


@dataclass
class Judged:
    """The letter each judged answer resolved to (``None``: the request got no reply yet), by (profile, key)."""

    letters: dict[tuple[str, str], str | None] = field(default_factory=dict)
    requests: int = 0
    reused: int = 0
    errors: int = 0


def prompt(ask: Ask, spec: Mapping[str, object]) -> str:
    options = option_text(ask.choices, str(spec["options_header"]), str(spec["option_line"]))
    return str(spec["template"]).format(
        question=ask.item.meta["question"], options=options, prediction=ask.prediction
    )


def _accept(choices: Mapping[str, str], matching: Matching) -> Callable[[str], bool]:
    return lambda reply: can_infer(reply, choices, matching) is not None


def judge(
    asks: Sequence[Ask],
    run_root: Path,
    settings: JudgeSettings,
    spec: Mapping[str, object],
    matching: Matching,
) -> Judged:
    """Ask (or take from the journal) every answer in ``asks``: up to ``spec["asks"]`` times each."""
    jobs = [
        JudgeJob(
            f"{a.item.key}@{a.profile}",
            [{"role": "user", "content": prompt(a, spec)}],
            accept=_accept(a.choices, matching),
        )
        for a in asks
    ]
    reasks = int(str(spec["asks"])) - 1
    outcome = run_judge(jobs, journal_path(run_root), settings, accept=lambda _: False, reasks=reasks)
    judged = Judged(requests=outcome.requests, reused=outcome.reused, errors=outcome.errors)
    for ask, job in zip(asks, jobs, strict=True):
        reply = outcome.replies[job.key]
        if reply.reply is None:
            judged.letters[(ask.profile, ask.item.key)] = None
            continue
        read = can_infer(reply.reply, ask.choices, matching) if reply.valid else None
        judged.letters[(ask.profile, ask.item.key)] = read or "Z"
    return judged
