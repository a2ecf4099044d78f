"""Answers a run's benchmark could not read. A run whose answers are mostly unparsed scores the model's answer
format, not what it knows (the reference profile may still give it chance-level credit), so eval, the report and
the card flag it, whatever its completeness."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from avibench.evaluate.document import as_dict

#: Above this share of unparsed answers a benchmark is flagged "mostly unparsed".
MOSTLY = 0.5
#: Coverage statuses of tasks that were scored (a part not scored, e.g. not judged, is counted elsewhere).
SCORED_STATUSES = ("scored", "complete", "partial")


@dataclass(frozen=True)
class Unparsed:
    """Answers the strict profile could not read, of the answers of the scored tasks."""

    unparsed: int
    answers: int

    @property
    def mostly(self) -> bool:
        return self.answers > 0 and self.unparsed > MOSTLY * self.answers

    def count(self) -> str:
        return f"{self.unparsed} of {self.answers} answers"

    def warning(self) -> str:
        """The flag's one line."""
        return (
            f"mostly unparsed: {self.count()} could not be read (strict profile), so these scores measure the "
            "answer format, not the model; look at the replies (avibench view) or refine them with an LLM "
            "(avibench refine --mode llm)"
        )

    def as_json(self) -> dict[str, Any]:
        return {"unparsed": self.unparsed, "answers": self.answers, "mostly": self.mostly}


def unparsed_of(coverage: Mapping[str, Any]) -> Unparsed:
    """The unparsed answers of the scored tasks in an eval.json ``coverage``."""
    unparsed = answers = 0
    for entry in coverage.values():
        entry = as_dict(entry)
        if entry.get("status") not in SCORED_STATUSES:
            continue
        unparsed += _count(entry.get("unparsed"))
        answers += _count(entry.get("answered"))
    return Unparsed(unparsed, answers)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
