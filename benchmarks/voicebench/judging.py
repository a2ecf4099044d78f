"""VoiceBench's judge, declared on the judged-answers kit: the open subsets' 1-5 scores and sd-qa's yes/no votes.

As the official ``api_judge.py``: one request per answer for its three samples (``n=3``), every choice read
stripped, a reply never re-asked; settings and prompts in ``prompts/voicebench/judge.json`` (docs/voicebench.md,
"The judge"). A failed request leaves each of the answer's three replies not received (``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from avibench.benchmarks.voicebench.options import TEMPLATE_FILE
from avibench.items import Response
from avibench.kits.judged import Judge
from avibench.level_metrics.voicebench import PROFILES
from avibench.refine.voicebench import open_score, qa_verdict


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
    prompt, filled in the official order (prompt, then reference, then response)."""
    protocol, row, reply = OPEN.protocol, response.item.source, response.raw or ""
    if evaluator == "qa":
        values = {"prompt": row["prompt"], "reference": str(row["reference"]), "response": reply}
    else:
        values = {"prompt": row["prompt"], "response": reply}
    content = protocol[evaluator]
    for (
        name,
        value,
    ) in values.items():  # the official str.replace chain: a {response} in the prompt is filled too
        content = content.replace("{" + name + "}", value)
    return [{"role": "system", "content": protocol["system"]}, {"role": "user", "content": content}]
