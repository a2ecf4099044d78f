"""The infer journal: one JSONL file per task, one record per finished request, the latest per index wins.

A sample is done when its latest record has a non-empty ``predict`` and no ``error``. Planning a run reads
the journal, checks that it was made from the same dataset (same id at every recorded index) and lists
what is still to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.dataset import Sample, load_task
from avibench.errors import JournalMismatchError
from avibench.registry import TaskSpec
from avibench.store import latest_by_index


def infer_dir(run_dir: Path) -> Path:
    return run_dir / "infer"


def journal_path(run_dir: Path, task: str) -> Path:
    return infer_dir(run_dir) / f"{task}.jsonl"


def is_done(record: dict[str, Any] | None) -> bool:
    """Whether a journal record holds a usable answer (failures and empty answers do not)."""
    if not record or record.get("error") is not None:
        return False
    predict = record.get("predict")
    return isinstance(predict, str) and predict != ""


@dataclass(frozen=True)
class Shard:
    """Part ``index`` of ``count`` (0-based): the samples whose dataset index is ``index`` modulo ``count``.

    Selecting by dataset index (not by position among pending samples) keeps concurrent shards disjoint
    even when they start at different times.
    """

    index: int = 0
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            i, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"--shard must look like i/n (for example 0/4), got {text!r}") from None
        if n < 1 or not 0 <= i < n:
            raise ValueError(f"--shard {text}: need n >= 1 and 0 <= i < n (shards are numbered from 0)")
        return cls(i, n)

    def takes(self, index: int) -> bool:
        return index % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class TaskPlan:
    """One task of a run: what is already done and which samples are still to ask."""

    spec: TaskSpec
    path: Path
    selected: int
    already_done: int
    pending: list[Sample] = field(default_factory=list)
    other_shards: int = 0


def check_journal(
    path: Path, samples: list[Sample], latest: dict[int, dict[str, Any]], model: str | None = None
) -> None:
    """Raise :class:`JournalMismatchError` if the journal was made from other data (or by a model other than ``model``)."""
    for index, record in latest.items():
        if index >= len(samples):
            raise JournalMismatchError(
                f"{path}: has a record for entry {index} but data.json has only {len(samples)} entries; "
                "the dataset changed under this run: use another --label or move the journal away"
            )
        if str(record.get("id")) != samples[index].id:
            raise JournalMismatchError(
                f"{path}: entry {index} was answered for id {record.get('id')!r} but data.json now has id "
                f"{samples[index].id!r}; the dataset changed under this run: use another --label or move the "
                "journal away"
            )
        if model is not None and is_done(record) and record.get("model") != model:
            raise JournalMismatchError(
                f"{path}: entry {index} was answered by model {record.get('model')!r}, not {model!r}; "
                "use another --label for this model"
            )


def plan_task(
    data_root: Path, spec: TaskSpec, run_dir: Path, model: str, *, n_samples: int | None, shard: Shard
) -> TaskPlan:
    samples = load_task(data_root, spec)
    path = journal_path(run_dir, spec.name)
    latest = latest_by_index(path)
    check_journal(path, samples, latest, model)
    selected = samples[:n_samples] if n_samples is not None else samples
    plan = TaskPlan(spec=spec, path=path, selected=len(selected), already_done=0)
    for sample in selected:
        if is_done(latest.get(sample.index)):
            plan.already_done += 1
        elif shard.takes(sample.index):
            plan.pending.append(sample)
        else:
            plan.other_shards += 1
    return plan


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def make_record(
    sample: Sample,
    *,
    predict: str | None,
    error: str | None,
    backend: str,
    model: str,
    params: dict[str, Any],
    prompt_hash: str,
    latency_s: float,
    usage: dict[str, int] | None,
) -> dict[str, Any]:
    return {
        "index": sample.index,
        "id": sample.id,
        "task": sample.task,
        "subtask": sample.subtask,
        "predict": predict,
        "error": error,
        "backend": backend,
        "model": model,
        "params": params,
        "prompt_hash": prompt_hash,
        "latency_s": round(latency_s, 4),
        "usage": usage,
        "time": now_iso(),
        "version": __version__,
    }
