"""Daily-Omni's official scoring, as pure functions.

The official scripts only print. The API tester (``test_model_api/main_tester.py``) hands one record per question to
``print_statistics``; a question is correct when the reply, stripped and upper-cased, *starts with* the gold letter
(so "Based on the video..." reads as B, "(B)" is wrong and "Answer: C" is right when the answer is A). Each record
is one of four kinds, and each kind moves the printed counts its own way:

* ``answered``: attempted, in the denominator, in every group;
* ``failure``: a reply beginning ``error_`` (the tester's retries ran out): attempted, counted as an API failure,
  so it leaves the denominator (attempted minus failures);
* ``not_found``: the video file is missing: skipped *and* counted as an API failure, so it leaves the denominator
  twice (it was never attempted, and is subtracted again);
* ``skipped``: missing fields, or a worker that raised: skipped only.

Overall accuracy is correct / (attempted - failures); the groups (QA type, video category, duration) count the
answered records only, so with a missing video they add up to more than the overall denominator.

The local Qwen2.5-Omni script (``test_model/Qwen2.5-Omni/testmodel.py``) reads otherwise: the text after a first
"assistant", a leading letter A-D in any case, then exact match; every failure leaves the denominator once, and
every group of the dataset is shown, empty ones as 0/0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from avibench.kits.multiple_choice import accuracy_by
from avibench.level_metrics.task_metrics import tallied

RecordKind = Literal["answered", "failure", "not_found", "skipped"]
Rule = Literal["api", "local"]
GROUPS: tuple[tuple[str, str], ...] = (
    ("qa_type", "Accuracy by QA Type"),
    ("video_category", "Accuracy by Video Category"),
    ("video_duration", "Accuracy by Video Duration"),
)
#: The durations the local script always lists, in its order.
LOCAL_DURATIONS: tuple[str, ...] = ("30s", "60s")

_ASSISTANT = re.compile(r"assistant\s*([\s\S]*)$")
_LEADING_LETTER = re.compile(r"\s*([A-D])", re.IGNORECASE)


def api_tester_correct(reply: str | None, gold: str) -> bool:
    """The API tester's ``evaluate_answer``: the stripped, upper-cased reply starts with the gold letter."""
    if not reply or reply.startswith("error_"):
        return False
    return reply.strip().upper().startswith(gold.strip().upper())


def local_answer(decoded: str) -> str:
    """The local script's answer: after a first "assistant" (if any), a leading letter A-D in any case,
    upper-cased; otherwise the text itself (which then matches no letter)."""
    found = _ASSISTANT.search(decoded)
    text = found.group(1).strip() if found else decoded
    letter = _LEADING_LETTER.match(text)
    return letter.group(1).upper() if letter else text


def local_correct(reply: str | None, gold: str) -> bool:
    """The local script's verdict: its answer equals the gold letter (both stripped and upper-cased)."""
    if not reply:
        return False
    answer = local_answer(reply)
    return bool(answer) and answer.strip().upper() == gold.strip().upper()


def weight(kind: RecordKind, rule: Rule) -> int:
    """What a record adds to the overall denominator: answered 1; an API failure 0 (attempted, then
    subtracted); a missing video -1 under the API tester (subtracted though never attempted), 0 under the
    local script; other skips 0."""
    if kind == "answered":
        return 1
    if kind == "not_found" and rule == "api":
        return -1
    return 0


def _share(totals: Mapping[Any, float]) -> float | None:
    n = totals.get("n", 0.0)
    return 100.0 * totals.get("correct", 0.0) / n if n > 0 else None


@tallied(lambda v: {"correct": float(v[0]), "n": float(v[1])}, _share)
def weighted_accuracy(values: Sequence[Any]) -> float | None:
    """100 * correct / denominator over ``(correct, weight)`` values (see :func:`weight`); ``None`` when the
    denominator is not positive (the tester prints "0/0 = ---")."""
    n = sum(float(v[1]) for v in values)
    return 100.0 * sum(float(v[0]) for v in values) / n if n > 0 else None


@dataclass(frozen=True)
class Record:
    """One question as the official statistics count it."""

    kind: RecordKind
    correct: bool
    qa_type: str
    video_category: str
    video_duration: str


def _cell(cell: Mapping[str, Any]) -> dict[str, Any]:
    """A printed group, ``correct/total = accuracy%``, from the kit's ``{"accuracy", "n"}``."""
    n, accuracy = int(cell["n"]), cell["accuracy"]
    correct = round(accuracy * n / 100) if n else 0
    return {"correct": correct, "total": n, "accuracy": None if accuracy is None else round(accuracy, 2)}


def statistics(
    records: Sequence[Record],
    requested: int,
    *,
    rule: Rule = "api",
    groups: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Any]:
    """The printed figures under their printed names (accuracies in percent, two decimals as printed).

    ``rule="api"``: ``print_statistics``; ``rule="local"``: the local script, whose groups are ``groups`` (every
    value the dataset holds, and the two durations) listed even when empty."""
    skipped = sum(r.kind in ("not_found", "skipped") for r in records)
    attempted = sum(r.kind in ("answered", "failure") for r in records)
    failures = sum(r.kind in ("failure", "not_found") for r in records)
    answered = [r for r in records if r.kind == "answered"]
    correct = sum(r.correct for r in answered)
    evaluated = sum(weight(r.kind, rule) for r in records)
    doc: dict[str, Any] = {
        "Overall Accuracy": round(100.0 * correct / evaluated, 2) if evaluated > 0 else None,
        "Overall Correct": correct,
        "Items Requested": requested,
    }
    if rule == "api":
        doc |= {
            "Items Skipped (Missing fields/video)": skipped,
            "Items Attempted (Processed)": attempted,
            "API Call Failures (Errors/Retries exceeded)": failures,
            "Items Evaluated for Accuracy": evaluated,
        }
    else:
        doc |= {"Skipped/Failed items": requested - len(answered), "Items Evaluated for Accuracy": evaluated}
    names = [name for name, _ in GROUPS]
    fixed = {name: list((groups or {}).get(name, ())) for name in names} if rule == "local" else None
    table = accuracy_by(
        [{name: getattr(r, name) for name in names} for r in answered],
        [float(r.correct) for r in answered],
        names,
        fixed=fixed,
        empty_group_zero=False,
        total=None,
    )
    for name, title in GROUPS:
        # the local script shows exactly the groups it scanned (every type and category, the two durations)
        keys = fixed[name] if fixed is not None else sorted(table[name])
        doc[title] = {key: _cell(table[name][key]) for key in keys}
    return doc
