"""The run manifest: what one run (``<label>/<benchmark>``) is bound to, checked by every stage.

``infer`` writes ``manifest.json`` when it creates a run: the benchmark, model, backend, the generation settings
that change answers (:data:`avibench.infer.journal.GENERATION_SETTINGS`), the prompt template, the data root and,
per task, the dataset fingerprint (:meth:`avibench.plugin.Benchmark.fingerprint`; every infer record also carries
its question's content hash). Every later stage reads it:

* a stage on another dataset than the run's (a task whose fingerprint differs) is refused unless
  ``--allow-other-data``, which the manifest and eval.json record and every page states;
* infer with another model, backend or generation settings than the run's, on any task, is refused unless
  ``--allow-mixed``; the manifest then holds each task's own binding and every page states the mix per task;
* media a dataset names outside its data root are refused unless ``--allow-media-outside-root``; the manifest
  then records them per task (``media_outside_root``) and every page states it.

A stage given no ``--data-root`` uses the run's own. A run made before manifests existed is adopted: its manifest
is written from its infer journals and run log, with a one-line notice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from avibench.contracts import RunPaths, is_answered, latest_by_key
from avibench.errors import AvibenchError
from avibench.store import atomic_write_json, read_records

if TYPE_CHECKING:
    from avibench.plugin import Benchmark, Task
    from avibench.run_options import RunLocation

MANIFEST_NAME = "manifest.json"
SCHEMA = 1
#: The generation settings bound to a run (the same list infer checks per record).
SETTINGS = ("temperature", "max_tokens", "media", "drop_audio_with_video", "template", "system_prompt")
#: What binds a task's answers: the model, the backend and the generation settings.
BINDING = ("model", "backend", *SETTINGS)
#: Per task, the media read from outside the data root by ``--allow-media-outside-root``: how many files, the first.
MEDIA_OUTSIDE_KEY = "media_outside_root"
OTHER_DATA_HELP = (
    "Use the data at --data-root although it is not the dataset this run was made from (recorded and stated on "
    "every page)."
)


class RunMismatchError(AvibenchError):
    """A stage asked to work on another dataset, model or settings than its run is bound to."""


def manifest_path(paths: RunPaths) -> Path:
    return paths.root / MANIFEST_NAME


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def binding_of(model: str | None, backend: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """The binding of answers made by ``model`` on ``backend`` with request parameters ``params``."""
    return {"model": model, "backend": backend, **{k: params.get(k) for k in SETTINGS}}


def describe(binding: Mapping[str, Any], keys: Iterable[str] | None = None) -> str:
    """``model "m", backend openai, temperature 0.0`` for the given keys (default: all that are set)."""
    keys = list(keys) if keys is not None else [k for k in BINDING if binding.get(k) is not None]
    return ", ".join(f"{k.replace('_', ' ')} {_shown(k, binding.get(k))}" for k in keys)


def _shown(key: str, value: Any) -> str:
    if value is None:
        return "none"
    return str(value) if key == "backend" else json.dumps(value)


def read_manifest(paths: RunPaths) -> dict[str, Any] | None:
    """The run's manifest, or ``None`` when it has none; a damaged one is an error naming the file and field."""
    path = manifest_path(paths)
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AvibenchError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AvibenchError(f"{path}: cannot read: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("tasks"), dict):
        raise AvibenchError(
            f"{path} field tasks: missing or not an object; move the file away to re-adopt the run"
        )
    return doc


def save_manifest(paths: RunPaths, manifest: Mapping[str, Any]) -> bool:
    """Write the manifest; ``False`` when its folder cannot be written (a reading stage on someone's results)."""
    try:
        atomic_write_json(manifest_path(paths), manifest)
    except OSError:
        return False
    return True


def new_manifest(
    paths: RunPaths, binding: Mapping[str, Any], data_root: Path | None, *, created_by: str
) -> dict[str, Any]:
    """A manifest binding the run to ``binding`` and the data at ``data_root`` (None: unknown), with no task yet."""
    return {
        "schema": SCHEMA,
        "label": paths.label,
        "benchmark": paths.benchmark,
        **dict(binding),
        "data_root": str(data_root.resolve()) if data_root is not None else None,
        "tasks": {},
        "mixed": False,
        "other_data": [],
        "created": _now(),
        "created_by": created_by,
    }


def _starts(paths: RunPaths) -> list[dict[str, Any]]:
    """Every recorded infer invocation's settings, oldest first (infer/runs.jsonl, else infer/run.json)."""
    starts = [r for r in read_records(paths.runs_log) if r.get("event") == "start"]
    if starts:
        return starts
    try:
        run_json = json.loads(paths.run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [run_json] if isinstance(run_json, dict) else []


def _adopted_fingerprints(
    benchmark: Benchmark, starts: Sequence[Mapping[str, Any]]
) -> dict[str, tuple[str, str]]:
    """Per task, (data root, fingerprint) from the latest invocation whose recorded fingerprint still matches its
    data root (only then are the per-task fingerprints computed now those the answers were made from)."""
    known: dict[str, tuple[str, str]] = {}
    for start in starts:
        root, names, recorded = start.get("data_root"), start.get("tasks"), start.get("dataset_fingerprint")
        if not isinstance(root, str) or not isinstance(names, list) or not Path(root).is_dir():
            continue
        try:
            specs = [benchmark.task(str(n)) for n in names]
        except Exception:  # a task this version no longer has: nothing to adopt from this invocation
            continue
        if benchmark.fingerprint(Path(root), specs) != recorded:
            continue
        for spec in specs:
            known[spec.name] = (root, benchmark.fingerprint(Path(root), [spec]))
    return known


def adopt(benchmark: Benchmark, paths: RunPaths) -> dict[str, Any] | None:
    """A manifest for a run made before manifests, from its journals and run log; ``None`` without journals."""
    journals = sorted(paths.infer_dir.glob("*.jsonl")) if paths.infer_dir.is_dir() else []
    tasks = {t.name for t in benchmark.tasks()}
    journals = [p for p in journals if p.stem in tasks]
    if not journals:
        return None
    starts = _starts(paths)
    fingerprints = _adopted_fingerprints(benchmark, starts)
    per_task: dict[str, dict[str, Any]] = {}
    for journal in journals:
        answered = [r for r in latest_by_key(journal).values() if is_answered(r)]
        if not answered:
            continue
        entry = _adopted_binding(journal.stem, starts, max(answered, key=lambda r: str(r.get("time") or "")))
        if journal.stem in fingerprints:
            entry["data_root"], entry["fingerprint"] = fingerprints[journal.stem]
        per_task[journal.stem] = entry
    if not per_task:
        return None
    top = {k: v for k, v in next(iter(per_task.values())).items() if k in BINDING}
    root = next((e["data_root"] for e in per_task.values() if e.get("data_root")), None)
    root = root or (starts[-1].get("data_root") if starts else None)
    manifest = new_manifest(paths, top, Path(root) if root else None, created_by="adopted")
    manifest["tasks"] = per_task
    manifest["mixed"] = any({k: e.get(k) for k in top} != top for e in per_task.values())
    return manifest


def _adopted_binding(
    task: str, starts: Sequence[Mapping[str, Any]], record: Mapping[str, Any]
) -> dict[str, Any]:
    """A task's binding from the latest infer invocation that ran it, else from its latest answer. Only what was
    recorded is bound: a setting an older version did not record is unknown, so never refused, and so is the
    answer-length limit of a record (a question's own limit says nothing of the run's)."""
    start = next((s for s in reversed(starts) if task in (s.get("tasks") or [])), None)
    if start is not None:
        sent = start.get("params") if isinstance(start.get("params"), dict) else {}
        binding = {k: start[k] for k in ("model", "backend") if k in start}
        binding.update({k: sent.get(k) for k in ("temperature", "max_tokens")})  # absent: not sent
        binding.update({k: start[k] for k in SETTINGS if k in start})
        return binding
    params = record.get("params") if isinstance(record.get("params"), dict) else {}
    binding = {k: record[k] for k in ("model", "backend") if k in record}
    binding.update({k: params[k] for k in SETTINGS if k in params and k != "max_tokens"})
    return binding


def load_manifest(
    benchmark: Benchmark, paths: RunPaths, notice: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """The run's manifest; a run with journals but no manifest is adopted (written when its folder allows)."""
    manifest = read_manifest(paths)
    if manifest is not None:
        return manifest
    manifest = adopt(benchmark, paths)
    if manifest is None:
        return None
    written = save_manifest(paths, manifest)
    if notice is not None:
        where = f"wrote {manifest_path(paths)}" if written else "not written: the folder is read-only"
        notice(
            f"note: run {paths.label!r} was made before run manifests; adopted it from its journals and run log "
            f"({where})"
        )
    return manifest


def use_run_data(run: RunLocation, manifest: Mapping[str, Any] | None, given: Path | None) -> RunLocation:
    """The run with the data root to use: the one given, else the run's own where it still exists."""
    if given is not None or not manifest:
        return run
    own = manifest.get("data_root")
    if isinstance(own, str) and own and Path(own).is_dir() and Path(own) != run.data_root:
        return replace(run, data_root=Path(own))
    return run


def other_data_tasks(
    benchmark: Benchmark, manifest: Mapping[str, Any], root: Path, tasks: Iterable[Task | str]
) -> list[str]:
    """The tasks among ``tasks`` whose recorded fingerprint differs from their data under ``root``."""
    recorded = manifest.get("tasks") or {}
    known = {t.name: t for t in benchmark.tasks()}
    differ = []
    for task in tasks:
        spec = known.get(task) if isinstance(task, str) else task
        if spec is None:
            continue
        entry = recorded.get(spec.name)
        fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
        if fingerprint and benchmark.fingerprint(root, [spec]) != fingerprint:
            differ.append(spec.name)
    return differ


def _run_root(manifest: Mapping[str, Any], tasks: Sequence[str]) -> str:
    entries = manifest.get("tasks") or {}
    roots = {
        str(entries[t].get("data_root"))
        for t in tasks
        if isinstance(entries.get(t), dict) and entries[t].get("data_root")
    }
    return ", ".join(sorted(roots)) if roots else str(manifest.get("data_root") or "?")


def check_data(
    benchmark: Benchmark,
    paths: RunPaths,
    manifest: Mapping[str, Any] | None,
    root: Path,
    tasks: Iterable[Task | str],
    *,
    stage: str,
    allow_other_data: bool,
    fix: str | None = None,
) -> list[str]:
    """Refuse a stage on other data than the run's; returns the tasks that differ (allowed and recorded).

    ``fix`` is what brings the stage back to the run's data (default: pass ``--data-root`` at it)."""
    if not manifest:
        return []
    differ = other_data_tasks(benchmark, manifest, root, tasks)
    if not differ:
        return []
    own = _run_root(manifest, differ)
    if not allow_other_data:
        which = tasks_differ(differ)
        if own == str(root.resolve()):
            raise RunMismatchError(
                f"the data at {root} changed since run {paths.label!r} ({paths.root}) was made from it ({which}); "
                f"restore it, use another --label, or pass --allow-other-data to {stage} the run on it "
                "anyway (recorded and stated on every page)"
            )
        fix = fix or f"pass --data-root {own} to {stage} it on its own data"
        raise RunMismatchError(
            f"run {paths.label!r} ({paths.root}) was made from the data at {own}, not {root} ({which}); "
            f"{fix}, or --allow-other-data to {stage} it on {root} anyway (recorded and stated on every page)"
        )
    return differ


def check_model(paths: RunPaths, manifest: Mapping[str, Any] | None, model: str | None) -> None:
    """Refuse ``--model`` naming another model than the one whose answers the run holds: eval records it as the
    model of the scores (``meta.model``), so ``--model B --label A`` would publish A's answers as B's."""
    if not manifest or model is None:
        return
    entries = manifest.get("tasks") or {}
    bound = {manifest.get("model")} | {e.get("model") for e in entries.values() if isinstance(e, dict)}
    models = sorted(m for m in bound if isinstance(m, str) and m)
    if models and model not in models:
        held = ", ".join(f'"{m}"' for m in models)
        raise RunMismatchError(
            f'run {paths.label!r} ({manifest_path(paths)}) holds the answers of model {held}, not "{model}"; '
            "drop --model (--label names the run), or pass the label of the run that model made"
        )


def tasks_differ(differ: Sequence[str]) -> str:
    """'task MMAR differs', 'tasks AMIC, VMIC differ' or '15 tasks differ', for the refusal lines."""
    if len(differ) == 1:
        return f"task {differ[0]} differs"
    return f"tasks {', '.join(differ)} differ" if len(differ) <= 4 else f"{len(differ)} tasks differ"


def check_scored_data(
    benchmark: Benchmark,
    paths: RunPaths,
    manifest: Mapping[str, Any] | None,
    meta: Mapping[str, Any],
    *,
    stage: str,
    allow_other_data: bool,
    eval_file: Path | None = None,
) -> list[str]:
    """Refuse a page of an eval.json scored on other data than the run's (an eval made before manifests, or
    on main before they existed); an eval that recorded ``meta.run`` was checked when it scored.

    Returns the tasks that differ when ``allow_other_data`` lets them through."""
    if not manifest or isinstance(meta.get("run"), dict):
        return []
    root = meta.get("data_root")
    if not isinstance(root, str) or not root or not Path(root).is_dir():
        return []
    names = {t.name for t in benchmark.tasks()}
    recorded = [t for t in manifest.get("tasks") or {} if t in names]
    fix = (
        f"{eval_file or paths.eval_json} was scored there; re-score it with `avibench eval --benchmark "
        f"{paths.benchmark} --label {paths.label}` (which uses the run's data)"
    )
    return check_data(
        benchmark,
        paths,
        manifest,
        Path(root),
        recorded,
        stage=stage,
        allow_other_data=allow_other_data,
        fix=fix,
    )


def record_other_data(
    paths: RunPaths, manifest: dict[str, Any], stage: str, root: Path, tasks: Sequence[str]
) -> dict[str, Any]:
    """Add an ``--allow-other-data`` use to the manifest (written when the folder allows); returns the entry."""
    entry = {
        "stage": stage,
        "data_root": str(root),
        "run_data_root": _run_root(manifest, tasks),
        "tasks": list(tasks),
        "time": _now(),
    }
    manifest.setdefault("other_data", []).append(entry)
    save_manifest(paths, manifest)
    return entry


def binding_differs(
    manifest: Mapping[str, Any], binding: Mapping[str, Any], tasks: Iterable[str]
) -> list[str]:
    """The binding fields in which ``binding`` differs from the run's (and from each named task's own)."""
    entries = manifest.get("tasks") or {}
    references = [manifest] + [entries[t] for t in tasks if isinstance(entries.get(t), dict)]
    return [k for k in BINDING if any(k in ref and ref[k] != binding.get(k) for ref in references)]


def check_binding(
    paths: RunPaths,
    manifest: Mapping[str, Any],
    binding: Mapping[str, Any],
    tasks: Sequence[str],
    *,
    allow_mixed: bool,
) -> list[str]:
    """Refuse answers made with another model, backend or settings than the run's unless ``allow_mixed``."""
    differ = binding_differs(manifest, binding, tasks)
    if differ and not allow_mixed:
        raise RunMismatchError(
            f"run {paths.label!r} ({manifest_path(paths)}) is bound to {describe(manifest, differ)}, not "
            f"{describe(binding, differ)}; use another --label, or --allow-mixed to mix them in this run (every "
            "page then states the mix per task)"
        )
    return differ


def _holds_an_answer(journal: Path) -> bool:
    return journal.is_file() and any(is_answered(r) for r in latest_by_key(journal).values())


def unbind_unanswered(paths: RunPaths, manifest: dict[str, Any], binding: Mapping[str, Any]) -> None:
    """Forget the binding of every task whose infer journal holds no answer: answers bind a run, so a task whose
    every request failed (a misspelt model's 404) takes the next invocation's binding instead of refusing it. When no
    task holds an answer, the run itself takes ``binding`` (and is not mixed)."""
    entries = manifest.setdefault("tasks", {})
    for task in [t for t in entries if not _holds_an_answer(paths.infer_journal(t))]:
        del entries[task]
    if not entries:
        manifest.update({k: binding.get(k) for k in BINDING})
        manifest["mixed"] = False


def save_if_changed(paths: RunPaths, manifest: Mapping[str, Any]) -> None:
    """Write the manifest unless the file already holds it: a re-run that changes nothing leaves it (and so what
    eval's reuse stamp sees) untouched."""
    if read_manifest(paths) != json.loads(json.dumps(manifest)):
        atomic_write_json(manifest_path(paths), manifest)


def bind_tasks(
    manifest: dict[str, Any],
    binding: Mapping[str, Any],
    benchmark: Benchmark,
    root: Path,
    specs: Sequence[Task],
    *,
    mixed: bool,
) -> None:
    """Record each task's binding and fingerprint.

    A task on record made from other data (``--allow-other-data``) keeps its fingerprint. One made from the data at
    ``root`` takes the data's fingerprint as it is now: infer checks every answer against its question before the
    manifest is written (an edited question stops it), so what changed in place is only added questions, which
    this run answers; keeping the old fingerprint made refine and eval refuse the run's own data afterwards."""
    entries = manifest.setdefault("tasks", {})
    here = str(root.resolve())
    for spec in specs:
        old = entries.get(spec.name) if isinstance(entries.get(spec.name), dict) else {}
        recorded = old.get("fingerprint") if old.get("data_root") not in (None, here) else None
        entries[spec.name] = {
            **dict(binding),
            "data_root": old.get("data_root") or here,
            "fingerprint": recorded or benchmark.fingerprint(root, [spec]),
        }
    if mixed:
        manifest["mixed"] = True


def mix_lines(manifest: Mapping[str, Any] | None) -> list[str]:
    """Per task, what its answers were made with, when a run mixes models or settings (else nothing)."""
    if not manifest or not manifest.get("mixed"):
        return []
    entries = {t: e for t, e in sorted((manifest.get("tasks") or {}).items()) if isinstance(e, dict)}
    varying = [k for k in BINDING if len({json.dumps(e.get(k)) for e in entries.values()}) > 1]
    return [f"{task}: {describe(entry, varying or BINDING[:1])}" for task, entry in entries.items()]


def run_meta(manifest: Mapping[str, Any] | None, other_data: Mapping[str, Any] | None) -> dict[str, Any]:
    """What eval.json records of the run's binding (``meta.run``): the mix per task, data used by override."""
    if not manifest:
        return {}
    entries = manifest.get("tasks") or {}
    meta: dict[str, Any] = {
        "manifest": MANIFEST_NAME,
        "fingerprints": {t: e.get("fingerprint") for t, e in entries.items() if isinstance(e, dict)},
    }
    if manifest.get("mixed"):
        meta["mixed"] = mix_lines(manifest)
    uses = [dict(e) for e in manifest.get("other_data") or [] if isinstance(e, dict)]
    if other_data is not None and other_data not in uses:
        uses.append(dict(other_data))
    if uses:
        meta["other_data"] = uses
    outside = manifest.get(MEDIA_OUTSIDE_KEY)
    if isinstance(outside, dict) and outside:
        meta[MEDIA_OUTSIDE_KEY] = dict(outside)
    return meta


def caveats(meta: Mapping[str, Any], other_data: Sequence[str] = ()) -> list[str]:
    """The sentences every page shows about a run's binding, from eval.json's ``meta.run`` (``other_data``: the
    tasks of an eval.json without one that a page shows on other data by ``--allow-other-data``)."""
    run = meta.get("run") if isinstance(meta.get("run"), dict) else {}
    lines = []
    if other_data:
        lines.append(
            f"Scored on other data than the run's (--allow-other-data): {meta.get('data_root')} for "
            f"{', '.join(other_data)}"
        )
    for use in run.get("other_data") or []:
        if isinstance(use, dict):
            lines.append(
                f"{use.get('stage')} used other data than the run's (--allow-other-data): {use.get('data_root')} "
                f"instead of {use.get('run_data_root')} for {', '.join(use.get('tasks') or [])}"
            )
    if run.get("mixed"):
        lines.append("Mixed run (--allow-mixed), answers per task made with " + "; ".join(run["mixed"]))
    outside = run.get(MEDIA_OUTSIDE_KEY)
    if isinstance(outside, dict) and outside:
        lines.append(media_outside_line(outside))
    return lines


def media_outside_line(outside: Mapping[str, Any]) -> str:
    """The sentence a page states about media read from outside the data root (``--allow-media-outside-root``)."""
    per_task = [
        f"{task}: {entry.get('files')} file(s), first {entry.get('first')}"
        for task, entry in sorted(outside.items())
        if isinstance(entry, dict)
    ]
    return "Media from outside the data root were used (--allow-media-outside-root): " + "; ".join(per_task)


def binding_mark(meta: Mapping[str, Any]) -> str:
    """The short mark a leaderboard row of a mixed run carries ("" otherwise)."""
    run = meta.get("run") if isinstance(meta.get("run"), dict) else {}
    mark = f" [mixed run: {'; '.join(run['mixed'])}]" if run.get("mixed") else ""
    return mark + (" [media outside the data root]" if run.get(MEDIA_OUTSIDE_KEY) else "")


def page_caveats(
    benchmark: Benchmark,
    paths: RunPaths,
    meta: Mapping[str, Any],
    *,
    stage: str,
    allow_other_data: bool,
    notice: Callable[[str], None] | None = None,
) -> list[str]:
    """Check a page's eval.json against its run's manifest; the sentences the page states about the run."""
    manifest = load_manifest(benchmark, paths, notice)
    other = check_scored_data(
        benchmark, paths, manifest, meta, stage=stage, allow_other_data=allow_other_data
    )
    return caveats(meta, other)
