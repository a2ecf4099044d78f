"""The file contracts between the stages: where a run's files live, what their records hold, what counts as done.

Every stage meets the others only through these files, and this module is the one place that spells them out:

* run paths: ``<output dir>/<label>/<benchmark>/{infer,refine}/<TASK>.jsonl``, ``eval.json`` and the report pages;
* the infer record (one finished request) and the refine record (one normalised answer), as typed dicts;
* the record key: the question's :attr:`avibench.items.Item.key` (records written before keys existed carry only
  their dataset ``index``, which is their key);
* what counts as answered (a non-empty answer and no error) and the refine methods.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypedDict

from avibench.file_memo import file_key, memoised
from avibench.items import Item, Response
from avibench.store import read_records

INFER = "infer"
REFINE = "refine"
EVAL_NAME = "eval.json"

RefineMethod = Literal["rule", "llm", "passthrough", "unparsed", "failed"]
REFINE_METHODS: tuple[RefineMethod, ...] = ("rule", "llm", "passthrough", "unparsed", "failed")
#: Methods whose ``predict`` is a canonical answer (or the raw answer of a task that is not refined).
RESOLVED_METHODS = frozenset({"rule", "llm", "passthrough"})


class InferRecord(TypedDict, total=False):
    """One finished request in ``infer/<TASK>.jsonl`` (the latest record per key wins).

    ``attempts`` is how many HTTP requests the client sent for it (retries inside the client included); a
    record without it (older runs, backends that do not retry) stands for one request."""

    key: str
    item_id: str
    variant: str
    index: int
    id: str
    task: str
    subtask: str | None
    predict: str | None
    error: str | None
    finish_reason: str | None
    backend: str
    model: str
    params: dict[str, Any]
    template: str
    prompt_hash: str
    content_hash: str | None
    latency_s: float
    usage: dict[str, int] | None
    attempts: int
    timings: dict[str, float] | None
    request_bytes: int
    """The size of the request body sent (remote backends; absent for in-process models and failures)."""
    empty_answer: bool
    """Set (true) on a record whose empty ``predict`` is the model's answer: the benchmark scores silence."""
    time: str
    version: str


class RefineRecord(TypedDict, total=False):
    """One normalised answer in ``refine/<TASK>.jsonl`` (the latest record per key wins)."""

    key: str
    item_id: str
    variant: str
    index: int
    id: str
    task: str
    subtask: str | None
    raw: str
    raw_hash: str
    predict: str | None
    method: RefineMethod
    error: str | None
    refine_model: str | None
    llm_output: str | None
    refine_mode: str
    time: str
    version: str


def record_key(record: dict[str, Any]) -> str | None:
    """The key a journal record belongs to; ``None`` for a record that names none."""
    key = record.get("key")
    if isinstance(key, str) and key:
        return key
    index = record.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        return str(index)
    return None


def asked_first_variants_only(paths: RunPaths) -> bool:
    """Whether the run's last infer asked each item's first variant only (``infer --variants first``)."""
    try:
        run = json.loads(paths.run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(run, dict) and run.get("variants") == "first"


def latest_by_key(path: Path | str) -> dict[str, dict[str, Any]]:
    """The latest record for each key of a journal (later lines supersede earlier ones)."""
    return _latest(read_records(path))


def _latest(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        key = record_key(record)
        if key is not None:
            latest[key] = record
    return latest


_RECORDS: dict[tuple[Any, ...], tuple[dict[str, Any], ...]] = {}
_LATEST: dict[tuple[Any, ...], Mapping[str, Mapping[str, Any]]] = {}


def records_read_only(path: Path | str) -> tuple[dict[str, Any], ...]:
    """Every record of a journal in order, read once per version of the file, for readers that change nothing
    in it (eval reads each journal for scoring, completeness, provenance, per-sample rows and throughput)."""
    return memoised(_RECORDS, file_key(path), lambda: tuple(read_records(path)))


def latest_read_only(path: Path | str) -> Mapping[str, Mapping[str, Any]]:
    """:func:`latest_by_key` of :func:`records_read_only` (the same record objects), once per version."""
    return memoised(_LATEST, file_key(path), lambda: MappingProxyType(_latest(records_read_only(path))))


def is_answered(record: dict[str, Any] | None) -> bool:
    """Whether an infer record holds a usable answer: a non-empty string and no error, or an empty one marked
    ``empty_answer`` (infer keeps a model's silence as its answer only where the benchmark scores silence,
    :attr:`avibench.plugin.Benchmark.empty_answers`; a blank ``predict`` without the mark is no answer)."""
    if not record or record.get("error") is not None:
        return False
    predict = record.get("predict")
    return isinstance(predict, str) and (predict != "" or record.get("empty_answer") is True)


@dataclass(frozen=True)
class RunPaths:
    """Where one run of one benchmark keeps its files."""

    output_dir: Path
    label: str
    benchmark: str

    @property
    def label_dir(self) -> Path:
        return Path(self.output_dir) / self.label

    @property
    def root(self) -> Path:
        return self.label_dir / self.benchmark

    @property
    def infer_dir(self) -> Path:
        return self.root / INFER

    @property
    def refine_dir(self) -> Path:
        return self.root / REFINE

    def infer_journal(self, task: str) -> Path:
        return self.infer_dir / f"{task}.jsonl"

    def refine_journal(self, task: str) -> Path:
        return self.refine_dir / f"{task}.jsonl"

    @property
    def eval_json(self) -> Path:
        return self.root / EVAL_NAME

    @property
    def report_md(self) -> Path:
        return self.root / "report.md"

    @property
    def report_html(self) -> Path:
        return self.root / "report.html"

    @property
    def run_json(self) -> Path:
        """The latest infer invocation's settings (every invocation is kept in :attr:`runs_log`)."""
        return self.infer_dir / "run.json"

    @property
    def runs_log(self) -> Path:
        """Every infer invocation, appended: settings at the start, counts at the end."""
        return self.infer_dir / "runs.jsonl"

    def stage_log(self, stage: str) -> Path:
        """The human-readable log of a stage's invocations (progress lines, new failures, the summary)."""
        return self.root / stage / "run.log"


#: What a run folder held before runs were kept per benchmark (AVI-Bench only): moved into ``<label>/avibench/``.
LEGACY_ENTRIES = (INFER, REFINE, EVAL_NAME, "report.md", "report.html", "reference")


def migrate_legacy(paths: RunPaths, legacy_benchmark: str = "avibench") -> str | None:
    """Move a run made before per-benchmark folders into its benchmark folder; returns the notice to print.

    Nothing is deleted: each entry is renamed as a whole, and only when the new place does not exist yet.
    """
    if paths.benchmark != legacy_benchmark or not (paths.label_dir / INFER).is_dir():
        return None
    moved = []
    for name in LEGACY_ENTRIES:
        source, target = paths.label_dir / name, paths.root / name
        if source.exists() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(source), str(target))
            moved.append(name)
    if not moved:
        return None
    return f"note: moved run {paths.label!r} into {paths.root} (runs are now kept per benchmark): {', '.join(moved)}"


def journal_responses(paths: RunPaths, task: str, items: Sequence[Item]) -> list[Response]:
    """One response per item from a run's infer and refine journals (the latest record per key).

    A refine record counts only while it was made from the infer answer now on record (same raw text); otherwise
    the answer is reported as not refined yet (``refined`` is ``None``, ``method`` is ``None``).
    """
    infer = latest_read_only(paths.infer_journal(task))
    refine = latest_read_only(paths.refine_journal(task))
    responses = []
    for item in items:
        record = infer.get(item.key)
        if record is None:
            responses.append(Response(item, "missing"))
            continue
        if not is_answered(record):
            responses.append(Response(item, "failed", method="failed"))
            continue
        raw = record["predict"]
        refined_record = refine.get(item.key)
        if refined_record is None or refined_record.get("raw") != raw:
            responses.append(Response(item, "answered", raw=raw))
            continue
        method = refined_record.get("method")
        predict = refined_record.get("predict")
        refined = predict if method in RESOLVED_METHODS and isinstance(predict, str) else None
        recorded = predict if isinstance(predict, str) else None
        responses.append(
            Response(item, "answered", raw=raw, refined=refined, method=method, recorded=recorded)
        )
    return responses
