"""Per-sample results: ``samples.jsonl`` beside eval.json, one line per question as asked.

Each line says what was asked (question text, media paths relative to the data root), the ground truth, what the
model answered (raw and refined, with the refine method), the sample's score in every profile, why it failed if it
did, its latency, tokens and request attempts. The viewer, ``compare`` and the confidence intervals read it; any
other tool can too (it is plain JSON lines, written atomically after eval.json).

``outcome`` summarises a line in the primary profile: ``correct`` (full credit), ``partial`` (between 0 and 1),
``incorrect`` (0), ``unparsed`` (refine could not read an answer), ``failed`` (the request failed), ``missing``
(never asked) or ``not_scored`` (answered but left out of the task score, e.g. a double-confirm pre-question).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from avibench.contracts import EVAL_NAME, RunPaths, is_answered, latest_read_only
from avibench.errors import AvibenchError
from avibench.items import Item
from avibench.store import PendingLines, atomic_write_lines, read_records

if TYPE_CHECKING:
    from avibench.plugin import Benchmark, Task

SAMPLES_NAME = "samples.jsonl"
OUTCOMES = ("correct", "partial", "incorrect", "unparsed", "failed", "missing", "not_scored")


def samples_path(paths: RunPaths) -> Path:
    return paths.root / SAMPLES_NAME


def samples_file(eval_file: Path) -> Path:
    """The samples file of an eval file: ``samples.jsonl`` beside ``eval.json``, ``<stem>.samples.jsonl`` beside
    any other name, so two eval files in one folder never share one."""
    if eval_file.name == EVAL_NAME:
        return eval_file.with_name(SAMPLES_NAME)
    return eval_file.with_name(f"{eval_file.stem}.{SAMPLES_NAME}")


def _text_under(value: str, root: str, cwd: str) -> str | None:
    """The path ``value`` relative to ``root`` by its text alone ("." for the root), ``None`` outside it."""
    absolute = os.path.normpath(os.path.join(cwd, value))
    prefix = root if root.endswith(os.sep) else root + os.sep
    if absolute == root:
        return "."
    if absolute.startswith(prefix):
        return absolute[len(prefix) :].replace(os.sep, "/")
    return None


_folder_under = functools.lru_cache(maxsize=4096)(_text_under)


def _relative(value: str, root: str, cwd: str) -> str:
    """The media path ``value`` relative to the data root ``root`` (absolute and normalised), forward slashes.

    A path under the root is made relative by its text alone, a file's folder once (an eval writes about 15,000
    paths from a few dozen folders; a filesystem call each was a large part of its time). Only a path outside
    the root is resolved (a link may still put it there), and kept as it is when it has no relative form.
    """
    folder, name = os.path.split(value)
    if name not in ("", ".", "..") and (under := _folder_under(folder, root, cwd)) is not None:
        return name if under == "." else f"{under}/{name}"
    if (whole := _text_under(value, root, cwd)) is not None:
        return whole
    path = Path(value)
    try:
        return Path(os.path.relpath(path.resolve(), Path(root).resolve())).as_posix()
    except ValueError:
        return path.as_posix()


#: One encoder for every row (``json.dumps`` with options builds a new encoder per call); a value JSON cannot
#: hold (a path, a set) is written as its text.
_ROW_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


_SCALARS = (str, int, float, bool, type(None))


def _json_safe(value: Any) -> Any:
    """``value`` as it reads back from its line in samples.jsonl: a text answer, most of them, is that already,
    and a flat list or tuple of such scalars reads back as a list of them (AIR-Bench's 21,000 values)."""
    if type(value) in _SCALARS:
        return value
    if type(value) in (list, tuple) and all(type(v) in _SCALARS for v in value):
        return list(value)
    return json.loads(_ROW_ENCODER.encode(value))


def outcome_of(infer: Mapping[str, Any] | None, method: str | None, score: float | None) -> str:
    """The one-word outcome of a sample (see the module docstring)."""
    if infer is None:
        return "missing"
    if not is_answered(dict(infer)):
        return "failed"
    if method == "unparsed":
        return "unparsed"
    if score is None:
        return "not_scored"
    if score >= 1.0:
        return "correct"
    return "incorrect" if score <= 0.0 else "partial"


def _attempts(record: Mapping[str, Any]) -> int:
    value = record.get("attempts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _identity(benchmark: Benchmark, item: Item) -> dict[str, Any]:
    """A question's reported task, the item group it is drawn with and its run, as its line names them."""
    reported = benchmark.reported_task(item.task)
    return {"reported_task": reported, "group": f"{reported}/{item.item_id}", "run": benchmark.run_of(item)}


def sample_row(
    benchmark: Benchmark,
    item: Item,
    data_root: Path,
    infer: Mapping[str, Any] | None,
    refine: Mapping[str, Any] | None,
    scores: Mapping[str, float | None],
    primary: str,
    values: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One line of samples.jsonl; ``item`` is the question as it was asked (its template's wording). Its answer
    and values are kept as they are: they read back from the line as :func:`_json_safe` makes them."""
    answered = infer is not None and is_answered(dict(infer))
    raw = infer.get("predict") if answered and infer else None
    current = refine if refine is not None and answered and refine.get("raw") == raw else None
    method = (current or {}).get("method") or ("failed" if infer is not None and not answered else None)
    identity = _identity(benchmark, item)
    infer = infer or {}
    cwd = os.getcwd()
    root = os.path.normpath(os.path.join(cwd, data_root))
    return {
        "task": item.task,
        "reported_task": identity["reported_task"],
        "key": item.key,
        "item_id": item.item_id,
        "variant": item.variant,
        "index": item.index,
        "group": identity["group"],
        "run": identity["run"],
        "question": item.text,
        "template": item.template,
        "system": item.system,
        "options": list(item.options),
        "media": [
            {"kind": p.kind, "path": _relative(p.value, root, cwd), "channel": p.channel}
            for p in item.parts
            if p.kind != "text"
        ],
        "answer": item.answer,
        "raw": raw,
        "refined": (current or {}).get("predict"),
        "method": method,
        "scores": dict(scores),
        **({"values": dict(values)} if values else {}),
        **({"note": note} if values and (note := benchmark.sample_note(values, primary)) else {}),
        "outcome": outcome_of(infer or None, method, scores.get(primary)),
        "error": infer.get("error") or (current or {}).get("error"),
        "latency_s": infer.get("latency_s"),
        "usage": infer.get("usage"),
        "attempts": _attempts(infer) if infer else 0,
    }


def items_as_asked(
    benchmark: Benchmark, data_root: Path, task: Task, infer: Mapping[str, Mapping[str, Any]]
) -> list[Item]:
    """The task's questions in load order, each in the wording it was asked with: an infer record names its
    prompt template, and a question asked with another template than the default is loaded with that one."""
    items = benchmark.load(data_root, task)
    asked = {
        str(record["params"]["template"])
        for record in infer.values()
        if isinstance(record.get("params"), dict) and record["params"].get("template")
    }
    default = {benchmark.templates[0], *(item.template for item in items if item.template)}
    other = {template: benchmark.load(data_root, task, template) for template in sorted(asked - default)}
    if not other:
        return items
    by_template = {t: {item.key: item for item in loaded} for t, loaded in other.items()}
    out = []
    for item in items:
        params = infer.get(item.key, {}).get("params")
        template = params.get("template") if isinstance(params, dict) else None
        out.append(by_template.get(str(template), {}).get(item.key, item))
    return out


class Question(NamedTuple):
    """What one line of samples.jsonl is made from: the question as asked, its journal records, its scores and
    values in every profile."""

    item: Item
    infer: Mapping[str, Any] | None
    refine: Mapping[str, Any] | None
    scores: Mapping[str, float | None]
    values: Mapping[str, Any] | None


def questions(
    benchmark: Benchmark,
    data_root: Path,
    paths: RunPaths,
    tasks: Sequence[Task],
    per_sample: Mapping[str, Mapping[str, Mapping[str, float | None]]],
    values: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
) -> Iterator[Question]:
    """Every question of the tasks that have data and a journal or scores, in load order, as it was asked (a task
    without data under ``data_root`` has no questions to show; eval's completeness says so)."""
    present = set(benchmark.available(data_root))
    for task in tasks:
        if task not in present:
            continue
        has_journal = paths.infer_journal(task.name).is_file() or paths.refine_journal(task.name).is_file()
        if not has_journal and task.name not in per_sample:
            continue
        infer = latest_read_only(paths.infer_journal(task.name))
        refine = latest_read_only(paths.refine_journal(task.name))
        scores = per_sample.get(task.name, {})
        task_values = (values or {}).get(task.name, {})
        for item in items_as_asked(benchmark, data_root, task, infer):
            yield Question(
                item,
                infer.get(item.key),
                refine.get(item.key),
                scores.get(item.key, {}),
                task_values.get(item.key),
            )


def sample_row_of(benchmark: Benchmark, question: Question, data_root: Path, primary: str) -> dict[str, Any]:
    """The samples.jsonl line of one of the :func:`questions`."""
    q = question
    return sample_row(benchmark, q.item, data_root, q.infer, q.refine, q.scores, primary, q.values)


def write_samples(path: Path, rows: Iterator[dict[str, Any]] | Sequence[dict[str, Any]]) -> int:
    """Write the rows as JSON lines (atomically, encoded as they are written); returns how many."""
    return atomic_write_lines(path, (_ROW_ENCODER.encode(row) for row in rows))


def write_pending(rows: Iterable[dict[str, Any]], pending: PendingLines) -> None:
    """Write each row's JSON line to ``pending`` as it comes (the lines on disk, not in memory), then flush."""
    for row in rows:
        pending.write(_ROW_ENCODER.encode(row))
    pending.flush()


def interval_row(benchmark: Benchmark, question: Question, profile: str) -> dict[str, Any]:
    """What the intervals read of a question's line (:mod:`avibench.evaluate.uncertainty`), for ``profile``
    alone: its task, item group and run, its score and its value as it reads back from the line. A full-size
    AVI-Bench eval that held its rows whole held about 10 MiB of text and 18 MiB of both profiles' values."""
    kept: dict[str, Any] = _identity(benchmark, question.item)
    if profile in question.scores:
        kept["scores"] = {profile: question.scores[profile]}
    if question.values and profile in question.values:
        kept["values"] = {profile: _json_safe(question.values[profile])}
    return kept


def read_samples(paths: RunPaths) -> list[dict[str, Any]]:
    """The run's samples.jsonl; a missing file says to re-run eval."""
    path = samples_path(paths)
    if not path.is_file():
        raise AvibenchError(
            f"{path}: no per-sample results for run '{paths.label}'; run `avibench eval --benchmark "
            f"{paths.benchmark} --label {paths.label}` (eval writes samples.jsonl beside eval.json)"
        )
    return list(read_records(path))
