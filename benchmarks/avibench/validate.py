"""``avibench validate-data``: check a dataset in the official layout and report every problem.

Each problem names the file, the entry index and the field, so a broken download or a hand-made task can
be fixed without reading a traceback. Errors are what would make a stage crash or score wrongly;
warnings are what the reference tolerates but is probably unintended.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from avibench.benchmarks.avibench.dataset import PRE_PREFIX, task_dir
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.benchmarks.avibench.prompting import PromptError, build_text
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec, TaskTable
from avibench.errors import DatasetError
from avibench.kits import records
from avibench.plugin import Problem

Severity = Literal["error", "warning"]
REPEATED_IDS_EXPECTED = {"AVQA", "AVLG", "VSQA_V"}
AVLG_FRAMES = tuple(f"frame_{k}" for k in range(10))


def _media_refs(inp: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    video = inp.get("video")
    if video is not None:
        yield "input.video", video
    for name in ("audio_list", "image_list"):
        value = inp.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            yield f"input.{name}", value
            continue
        for k, item in enumerate(value):
            yield f"input.{name}[{k}]", item


def _check_media(folder: Path, path: str, index: int, inp: dict[str, Any]) -> Iterator[Problem]:
    root = folder.resolve()
    for field, ref in _media_refs(inp):
        if not isinstance(ref, str):
            yield Problem(path, f"expected a media path string, found {type(ref).__name__}", index, field)
            continue
        if not ref.startswith("./input/"):
            yield Problem(path, f"media path {ref!r} must start with ./input/", index, field)
            continue
        resolved = (folder / ref).resolve()
        if not resolved.is_relative_to(root):
            yield Problem(path, f"media path {ref!r} escapes the task folder", index, field)
        elif not resolved.is_file():
            yield Problem(path, f"media file {ref!r} not found", index, field)


def _retrieval_range(spec: TaskSpec, inp: dict[str, Any], gt: Any) -> str | None:
    """Retrieval GT indices point into the candidate list: wavs for VAR, images for AVR."""
    if not isinstance(gt, list):
        return None
    candidates = inp.get("audio_list" if spec.name == "VAR" else "image_list")
    if not isinstance(candidates, list):
        return None
    out = [i for i in gt if isinstance(i, int) and i >= len(candidates)]
    if out:
        return f"index {out[0]} is out of range for {len(candidates)} candidates"
    return None


def check_entry(spec: TaskSpec, folder: Path, path: str, index: int, entry: Any) -> Iterator[Problem]:
    if not isinstance(entry, dict):
        yield Problem(path, f"expected an object, found {type(entry).__name__}", index)
        return
    for key in ("id", "task", "input", "output"):
        if key not in entry:
            yield Problem(path, "missing", index, key)
    if "id" in entry and not isinstance(entry["id"], str | int):
        yield Problem(path, f"expected a string, found {type(entry['id']).__name__}", index, "id")
    if "task" in entry and entry["task"] != spec.name:
        yield Problem(path, f"task is {entry['task']!r} but the folder is {spec.name}", index, "task")
    inp = entry.get("input")
    if "input" in entry and not isinstance(inp, dict):
        yield Problem(path, "expected an object", index, "input")
    if isinstance(inp, dict):
        question = inp.get("question")
        if not isinstance(question, dict):
            yield Problem(path, "missing or not an object", index, "input.question")
        else:
            try:
                build_text(spec.name, question)
            except PromptError as exc:
                yield Problem(path, str(exc), index, "input.question")
            if question.get("text") is None and not str(entry.get("id", "")).startswith(PRE_PREFIX):
                yield Problem(path, "question text is null", index, "input.question.text", "warning")
        yield from _check_media(folder, path, index, inp)
    output = entry.get("output")
    if "output" in entry:
        if not isinstance(output, dict) or "question_answer" not in output:
            yield Problem(path, "missing", index, "output.question_answer")
        else:
            gt = output["question_answer"]
            message = metric_kind(spec.metric).check_truth(gt, entry)
            if message is None and spec.metric == "retrieval" and isinstance(inp, dict):
                message = _retrieval_range(spec, inp, gt)
            if message:
                yield Problem(path, message, index, "output.question_answer")


def _check_pairs(spec: TaskSpec, path: str, entries: list[Any]) -> Iterator[Problem]:
    ids = [str(e.get("id")) for e in entries if isinstance(e, dict) and "id" in e]
    if spec.name not in REPEATED_IDS_EXPECTED:
        for dup, n in Counter(ids).items():
            if n > 1:
                yield Problem(path, f"id {dup!r} occurs {n} times", field="id", severity="warning")
    seen_formal: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or "id" not in entry:
            continue
        entry_id = str(entry["id"])
        if not entry_id.startswith(PRE_PREFIX):
            seen_formal.add(entry_id)
        elif not spec.double_confirm:
            yield Problem(path, "pre-question in a task without double-confirm", index, "id", "warning")
        elif entry_id[len(PRE_PREFIX) :] not in seen_formal:
            yield Problem(
                path,
                f"pre-question {entry_id!r} does not follow a formal entry with id {entry_id[len(PRE_PREFIX) :]!r}"
                " (the reference then never applies its double-confirm)",
                index,
                "id",
                "warning",
            )


def validate_task(data_root: Path | str, spec: TaskSpec) -> list[Problem]:
    folder = task_dir(data_root, spec)
    path = folder / "data.json"
    shown = str(path)
    if not folder.is_dir():
        return [Problem(str(folder), "task folder not found")]
    try:
        entries = records.read_records(path)
    except DatasetError as exc:
        return [Problem(shown, exc.message)]
    problems: list[Problem] = []
    if not entries:
        problems.append(Problem(shown, "no entries", severity="warning"))
    for index, entry in enumerate(entries):
        problems.extend(check_entry(spec, folder, shown, index, entry))
    problems.extend(_check_pairs(spec, shown, entries))
    return problems


def validate_dataset(
    data_root: Path | str, tasks: tuple[TaskSpec, ...] | None = None, benchmark: TaskTable = AVIBENCH
) -> list[Problem]:
    root = Path(data_root)
    if not root.is_dir():
        return [Problem(str(root), "dataset root not found")]
    problems = unknown_folders(root, benchmark)
    for spec in tasks or benchmark.tasks:
        problems.extend(validate_task(root, spec))
    return problems


def unknown_folders(root: Path, benchmark: TaskTable = AVIBENCH) -> list[Problem]:
    """A ``data.json`` in a folder that is no task of the benchmark (a typo, a task in the wrong stage): infer and
    eval would never read it."""
    known = {(spec.stage, spec.name) for spec in benchmark.tasks}
    names = ", ".join(f"{s.stage}/{s.name}" for s in benchmark.tasks)
    return [
        Problem(str(path), f"unknown task folder {path.parent.relative_to(root)} (known: {names})")
        for path in sorted(root.glob("*/*/data.json"))
        if (path.parent.parent.name, path.parent.name) not in known
    ]
