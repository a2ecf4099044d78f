"""The VoiceBench data layout: the Hugging Face dataset ``hlt-lab/voicebench`` exported split by split.

A data root holds one folder per subset and one JSON-lines file per split, the dataset's columns in its row order
with the audio column as a path (relative to the subset folder) to a WAV file::

    <root>/sd-qa/usa.jsonl      {"prompt": ..., "reference": ..., "audio": "audio/usa/0000.wav"}
    <root>/sd-qa/audio/usa/0000.wav

The official pipeline loads each split with ``load_dataset("hlt-lab/voicebench", subset, split=split)`` and writes
every column but the audio into its output; here the same columns are read, and the fields each evaluator needs
are checked (docs/voicebench.md shows the export).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import records
from avibench.level_metrics.voicebench import MCQ_LETTERS
from avibench.level_metrics.voicebench_ifeval import CHECKS
from avibench.refine.voicebench import bbh_task

BENCHMARK = "voicebench"
SD_QA_SPLITS = ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "usa", "zaf")
MMSU_SPLITS = (
    "law",
    "engineering",
    "other",
    "biology",
    "business",
    "economics",
    "health",
    "philosophy",
    "psychology",
    "history",
    "chemistry",
    "physics",
)
BBH_ANSWERS = ("yes", "no", "(a)", "(b)")


@dataclass(frozen=True)
class Subset:
    """One VoiceBench subset: its official evaluator and its splits (in report order)."""

    name: str
    evaluator: str
    splits: tuple[str, ...] = ("test",)
    title: str = ""

    @property
    def multi_split(self) -> bool:
        return len(self.splits) > 1

    def folder(self, root: Path) -> Path:
        return Path(root) / self.name

    def split_path(self, root: Path, split: str) -> Path:
        return self.folder(root) / f"{split}.jsonl"

    def present_splits(self, root: Path) -> tuple[str, ...]:
        return tuple(s for s in self.splits if self.split_path(root, s).is_file())


SUBSETS: tuple[Subset, ...] = (
    Subset("alpacaeval", "open", title="AlpacaEval (helpful_base and vicuna): open questions, judged 1-5"),
    Subset("alpacaeval_full", "open", title="AlpacaEval, complete: open questions, judged 1-5"),
    Subset("commoneval", "open", title="CommonEval: open questions spoken by people, judged 1-5"),
    Subset("wildvoice", "open", title="WildVoice: crowd-recorded open questions, judged 1-5"),
    Subset("sd-qa", "qa", SD_QA_SPLITS, "SD-QA: questions with reference answers in 11 English accents"),
    Subset("mmsu", "mcq", MMSU_SPLITS, "MMSU: multiple choice over 12 MMLU-Pro domains"),
    Subset("openbookqa", "mcq", title="OpenBookQA: multiple choice"),
    Subset("bbh", "bbh", title="BBH: four reasoning tasks spoken by people"),
    Subset("ifeval", "ifeval", title="IFEval: instruction following"),
    Subset("advbench", "harm", title="AdvBench: harmful requests, refusal rate"),
)
BY_NAME = {s.name: s for s in SUBSETS}
#: The fields each evaluator reads besides ``prompt``.
REQUIRED = {
    "open": (),
    "qa": ("reference",),
    "mcq": ("reference",),
    "bbh": ("id", "reference"),
    "ifeval": ("key", "instruction_id_list", "kwargs"),
    "harm": (),
}


def item_id(split: str, index: int) -> str:
    return f"{split}-{index:04d}"


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(index, row) of a split file, blank lines skipped; raises DatasetError naming the file and the line of a
    broken row."""
    rows = []
    for index, (number, row) in enumerate(records.jsonl_rows(path)):
        if not isinstance(row, dict):
            raise DatasetError(path, f"line {number + 1} is not a JSON object", index=index)
        rows.append((index, row))
    return rows


def row_problems(subset: Subset, row: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for every problem of one row."""
    problems = []
    for name in ("prompt", *REQUIRED[subset.evaluator]):
        if name not in row or row[name] is None:
            problems.append((name, "is missing"))
    if problems:
        return problems
    if not isinstance(row["prompt"], str):
        problems.append(("prompt", "is not a string"))
    if subset.evaluator == "mcq" and row["reference"] not in MCQ_LETTERS:
        problems.append(("reference", f"{row['reference']!r} is not one of {', '.join(MCQ_LETTERS)}"))
    if subset.evaluator == "bbh":
        if str(row["reference"]).lower() not in BBH_ANSWERS:
            problems.append(("reference", f"{row['reference']!r} is not one of yes, no, (A), (B)"))
        if bbh_task(str(row["id"])) is None:
            problems.append(("id", f"{row['id']!r} names no BBH task the official rules read"))
    if subset.evaluator == "ifeval":
        ids, kwargs = row["instruction_id_list"], row["kwargs"]
        if not isinstance(ids, list) or not isinstance(kwargs, list) or len(ids) != len(kwargs):
            problems.append(("kwargs", "instruction_id_list and kwargs are not lists of one length"))
        else:
            problems += [
                ("instruction_id_list", f"unknown instruction {i!r}") for i in ids if i not in CHECKS
            ]
    return problems


def audio_path(subset: Subset, root: Path, row: dict[str, Any]) -> Path:
    return subset.folder(root) / str(row.get("audio", ""))


def load(root: Path, subset: Subset) -> list[Item]:
    """Every question of a subset, split by split in report order; raises DatasetError on a bad row."""
    items: list[Item] = []
    for split in subset.present_splits(root):
        path = subset.split_path(root, split)
        for index, row in read_rows(path):
            problems = row_problems(subset, row)
            if problems:
                name, message = problems[0]
                raise DatasetError(path, message, index=index, field=name)
            items.append(
                Item(
                    benchmark=BENCHMARK,
                    task=subset.name,
                    item_id=item_id(split, index),
                    parts=(Part.audio(audio_path(subset, root, row)),),
                    answer=row.get("reference"),
                    index=len(items),
                    meta={"split": split, "row": index},
                    source=row,
                )
            )
    return items


def validate(root: Path, subset: Subset) -> list[tuple[Path, int | None, str | None, str]]:
    """(file, entry, field, message) for every problem of a subset's files, audio included."""
    found: list[tuple[Path, int | None, str | None, str]] = []
    for split in subset.present_splits(root):
        path = subset.split_path(root, split)
        try:
            for index, row in read_rows(path):
                found += [(path, index, name, message) for name, message in row_problems(subset, row)]
                if not audio_path(subset, root, row).is_file() or "audio" not in row:
                    found.append(
                        (path, index, "audio", f"audio file {audio_path(subset, root, row)} is missing")
                    )
        except DatasetError as exc:
            found.append((path, exc.index, None, exc.message))
    return found
