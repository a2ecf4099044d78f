"""The VoiceBench data layout: the Hugging Face dataset ``hlt-lab/voicebench`` exported split by split.

One folder per subset, one JSON-lines file per split with the dataset's columns in row order, the audio column a
WAV path relative to the subset folder (``<root>/sd-qa/usa.jsonl``, ``<root>/sd-qa/audio/usa/0000.wav``;
docs/voicebench.md, "Data layout", shows the export). The fields each evaluator reads are checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.level_metrics.voicebench import MCQ_LETTERS
from avibench.level_metrics.voicebench_ifeval import CHECKS
from avibench.plugin import Problem
from avibench.refine.voicebench import bbh_task, data

BENCHMARK = "voicebench"
BBH_ANSWERS = ("yes", "no", "(a)", "(b)")


@dataclass(frozen=True)
class Subset:
    """One VoiceBench subset: its official evaluator and its splits (in report order)."""

    name: str
    evaluator: str
    splits: tuple[str, ...]
    title: str

    @property
    def multi_split(self) -> bool:
        return len(self.splits) > 1

    def folder(self, root: Path) -> Path:
        return Path(root) / self.name

    def split_path(self, root: Path, split: str) -> Path:
        return self.folder(root) / f"{split}.jsonl"

    def present_splits(self, root: Path) -> tuple[str, ...]:
        return tuple(s for s in self.splits if self.split_path(root, s).is_file())


SUBSETS = tuple(
    Subset(s["name"], s["evaluator"], tuple(s["splits"]), s["title"]) for s in data("subsets.json")["subsets"]
)
BY_NAME = {s.name: s for s in SUBSETS}


def _given(value: Any) -> str | None:
    return None if value is not None else "is missing"


def _bbh_reference(value: Any) -> str | None:
    return None if str(value).lower() in BBH_ANSWERS else f"{value!r} is not one of yes, no, (A), (B)"


def _bbh_id(value: Any) -> str | None:
    return None if bbh_task(str(value)) else f"{value!r} names no BBH task the official rules read"


def _list(value: Any) -> str | None:
    return None if isinstance(value, list) else "is not a list"


def _instructions(value: Any) -> str | None:
    return _list(value) or next((f"unknown instruction {i!r}" for i in value if i not in CHECKS), None)


#: The fields each evaluator reads besides ``prompt``, and their checks.
FIELDS: dict[str, dict[str, fields.Check]] = {
    "open": {},
    "qa": {"reference": _given},
    "mcq": {"reference": fields.one_of(MCQ_LETTERS)},
    "bbh": {"id": _bbh_id, "reference": _bbh_reference},
    "ifeval": {"key": _given, "instruction_id_list": _instructions, "kwargs": _list},
    "harm": {},
}


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(index, row) of a split file, blank lines skipped; raises DatasetError naming the file and the line of a
    broken row."""
    rows = []
    for index, (number, row) in enumerate(records.jsonl_rows(path)):
        if not isinstance(row, dict):
            raise DatasetError(path, f"line {number + 1} is not a JSON object", index=index)
        rows.append((index, row))
    return rows


def row_problems(path: Path, index: int, subset: Subset, row: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of one row; an IFEval row's kwargs must hold one entry per instruction."""
    found = list(fields.problems(path, index, row, {"prompt": fields.string, **FIELDS[subset.evaluator]}))
    yield from found
    if subset.evaluator == "ifeval" and not found and len(row["instruction_id_list"]) != len(row["kwargs"]):
        yield Problem(str(path), "does not hold one entry per instruction", index, "kwargs")


def audio_path(subset: Subset, root: Path, row: dict[str, Any]) -> Path:
    return subset.folder(root) / str(row.get("audio", ""))


def load(root: Path, subset: Subset) -> list[Item]:
    """Every question of a subset, split by split in report order; raises DatasetError on a bad row."""
    items: list[Item] = []
    for split in subset.present_splits(root):
        path = subset.split_path(root, split)
        for index, row in read_rows(path):
            fields.raise_first(row_problems(path, index, subset, row))
            items.append(
                Item(
                    benchmark=BENCHMARK,
                    task=subset.name,
                    item_id=f"{split}-{index:04d}",
                    parts=(Part.audio(audio_path(subset, root, row)),),
                    answer=row.get("reference"),
                    index=len(items),
                    meta={"split": split, "row": index},
                    source=row,
                )
            )
    return items


def validate(root: Path, subset: Subset) -> list[Problem]:
    """Every problem of a subset's files, audio included."""
    found: list[Problem] = []
    for split in subset.present_splits(root):
        path = subset.split_path(root, split)
        try:
            rows = read_rows(path)
        except DatasetError as exc:
            found.append(Problem(str(path), exc.message, exc.index))
            continue
        for index, row in rows:
            found += row_problems(path, index, subset, row)
            if "audio" not in row or not audio_path(subset, root, row).is_file():
                message = f"audio file {audio_path(subset, root, row)} is missing"
                found.append(Problem(str(path), message, index, "audio"))
    return found
