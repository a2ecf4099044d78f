"""Judging VoiceBench's open and reference-based answers through the shared judge runner.

The official ``api_judge.py`` asks ``gpt-4o-mini`` once per answer for three samples in one request (``n=3``,
temperature 0.5, top-p 0.95, 1,024 tokens) with the prompts of ``prompts/voicebench/judge.json``, and reads every
choice of the reply. So does this: one request per answer, every choice read. Replies are journaled per answer
(its choices together) under ``<run>/judge/<subset>.jsonl``; a finished eval re-run sends nothing. A reply is
never re-asked, and one with fewer choices than asked is scored with the ones it has: the official evaluator
reads what it got. A failed request leaves each of the answer's three replies not received (``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench.evaluate.judge import JudgeJob, JudgeSettings, run_judge
from avibench.items import Item, Response
from avibench.refine.voicebench import fill, judge_protocol, open_score

PROTOCOL = judge_protocol()
DEFAULT_JUDGE_MODEL = str(PROTOCOL["model"])
SAMPLES = int(PROTOCOL["samples"])


@dataclass(frozen=True)
class VoiceJudgeSettings(JudgeSettings):
    """The shared judge settings with the official sampling parameters."""

    temperature: float = float(PROTOCOL["temperature"])
    max_tokens: int = int(PROTOCOL["max_tokens"])
    top_p: float = float(PROTOCOL["top_p"])
    samples: int = SAMPLES

    def params(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "frequency_penalty": PROTOCOL["frequency_penalty"],
            "presence_penalty": PROTOCOL["presence_penalty"],
            **self.sampling(),
        }


def journal_path(run_root: Path, subset: str) -> Path:
    return Path(run_root) / "judge" / f"{subset}.jsonl"


def judge_messages(item: Item, response: str, evaluator: str) -> list[dict[str, str]]:
    """The official request: the system message and the open or reference-based prompt, filled in the official
    order (prompt, then reference, then response)."""
    row = item.source
    if evaluator == "qa":
        content = fill(
            PROTOCOL["qa"],
            {"prompt": row["prompt"], "reference": str(row["reference"]), "response": response},
        )
    else:
        content = fill(PROTOCOL["open"], {"prompt": row["prompt"], "response": response})
    return [{"role": "system", "content": PROTOCOL["system"]}, {"role": "user", "content": content}]


def _accept(evaluator: str) -> Callable[[str], bool]:
    if evaluator == "open":
        return lambda reply: open_score(reply.strip(), bounded=False) is not None
    return lambda reply: True


@dataclass
class Judging:
    """One subset's judge replies: item key -> the replies of its samples (``None`` for a failed request)."""

    replies: dict[str, list[str | None]] = field(default_factory=dict)
    requests: int = 0
    reused: int = 0
    errors: int = 0
    first_error: str | None = None


def judge(
    responses: Sequence[Response],
    evaluator: str,
    run_root: Path,
    settings: VoiceJudgeSettings,
    recorded: Mapping[str, list[str]],
) -> Judging:
    """Every answered response's judge replies: the ones a predictions file recorded, else asked (or reused
    from the journal). Raises AvibenchError when requests are needed and no key is set."""
    judging = Judging()
    jobs: list[JudgeJob] = []
    for response in responses:
        if response.status != "answered" or response.raw is None:
            continue
        key = response.item.key
        if key in recorded:
            judging.replies[key] = [str(s).strip() for s in recorded[key]]
            continue
        jobs.append(JudgeJob(key, judge_messages(response.item, response.raw, evaluator)))
    if not jobs:
        return judging
    subset = responses[0].item.task
    outcome = run_judge(jobs, journal_path(run_root, subset), settings, accept=_accept(evaluator), reasks=0)
    judging.requests, judging.reused, judging.errors = outcome.requests, outcome.reused, outcome.errors
    for job in jobs:
        reply = outcome.replies[job.key]
        if reply.error is not None and judging.first_error is None:
            judging.first_error = reply.error
        received = [choice.strip() for choice in reply.choices]
        judging.replies[job.key] = received if reply.error is None else [None] * SAMPLES
    return judging
