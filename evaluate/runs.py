"""``avibench runs``: every run under the output dir, with its benchmark, model, dataset, stages and last activity.

A run is a ``<output dir>/<label>/<benchmark>/`` folder holding a manifest, a journal or an eval.json (a folder an
infer left empty when it stopped before its first question is no run). For each stage it says ``done``, ``failed N``
or ``pending N`` (questions left): infer compares the journal with the questions the dataset holds for the run's
tasks, refine compares refined answers with answered questions (and says how many of those left eval scored as
they stand, read by the benchmark's rules), and eval says whether eval.json exists and is
newer than both journals (``stale`` when a journal changed after it), and ``partial (...)`` naming every task its
coverage does not call scored (not scored, partial, judge replies unreadable ...).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from avibench.config import default_output_dir
from avibench.contracts import RunPaths, is_answered, latest_by_key
from avibench.errors import AvibenchError
from avibench.plugin import Benchmark, benchmark_names, get_benchmark


@dataclass(frozen=True)
class RunStatus:
    label: str
    benchmark: str
    model: str
    dataset: str
    infer: str
    refine: str
    eval: str
    last_activity: str


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def dataset_kind(bench: Benchmark, root: str | None, tasks: Sequence[str]) -> str:
    """The plug-in's verdict (``official``, ``sample`` or ``other``), or ``missing`` when the folder is gone."""
    if not root:
        return "unknown"
    if not Path(root).is_dir():
        return "missing"
    return bench.dataset_kind(Path(root), [bench.task(t) for t in tasks])["kind"]


def _expected(bench: Benchmark, root: str | None, tasks: Sequence[str]) -> int | None:
    if not root or not Path(root).is_dir():
        return None
    try:
        return sum(len(bench.load(Path(root), bench.task(t))) for t in tasks)
    except Exception:  # a dataset that no longer loads leaves the count unknown
        return None


def stage_states(
    bench: Benchmark, paths: RunPaths, root: str | None, tasks: Sequence[str]
) -> tuple[str, str, str]:
    answered = failed = refined = 0
    newest_journal = 0.0
    for task in tasks:
        infer_path, refine_path = paths.infer_journal(task), paths.refine_journal(task)
        infer = latest_by_key(infer_path) if infer_path.is_file() else {}
        refine = latest_by_key(refine_path) if refine_path.is_file() else {}
        for key, record in infer.items():
            if is_answered(record):
                answered += 1
                refined += key in refine and refine[key].get("raw") == record.get("predict")
            else:
                failed += 1
        newest_journal = max(
            [newest_journal, *(p.stat().st_mtime for p in (infer_path, refine_path) if p.is_file())]
        )
    expected = _expected(bench, root, tasks)
    left = None if expected is None else max(expected - answered - failed, 0)
    infer = "failed " + str(failed) if failed else ("pending " + str(left) if left else "done")
    if not answered and not failed:
        infer = "pending" + (f" {expected}" if expected else "")
    refine = (
        "done"
        if answered and refined >= answered
        else (f"pending {answered - refined}" if answered else "pending")
    )
    if not paths.eval_json.is_file():
        evaluation = "pending"
    elif paths.eval_json.stat().st_mtime < newest_journal:
        evaluation = "stale"
    else:
        document = _read_json(paths.eval_json)
        evaluation = eval_state(document.get("coverage") or {})
        read = (document.get("meta") or {}).get("unrefined_read") or {}
        if refine != "done" and (as_they_stand := sum(v for v in read.values() if isinstance(v, int))):
            refine += f" ({as_they_stand} scored as they stand)"
    return infer, refine, evaluation


#: Coverage statuses that leave nothing out.
SCORED_STATUSES = frozenset({"scored", "complete"})


def eval_state(coverage: dict[str, Any]) -> str:
    """``done`` when every task's coverage is scored, else ``partial (...)`` naming the tasks by status."""
    lacking: dict[str, list[str]] = {}
    for task, info in coverage.items():
        status = str(info.get("status") or "scored") if isinstance(info, dict) else "scored"
        unselected = status == "absent" and isinstance(info, dict) and info.get("reason") == "not selected"
        if status not in SCORED_STATUSES and not unselected:
            lacking.setdefault(status.replace("_", " "), []).append(task)
    if not lacking:
        return "done"
    named = [
        f"{status}: {', '.join(tasks) if len(tasks) <= 3 else f'{len(tasks)} tasks'}"
        for status, tasks in sorted(lacking.items())
    ]
    return f"partial ({'; '.join(named)})"


def run_status(bench: Benchmark, paths: RunPaths) -> RunStatus:
    run_json = _read_json(paths.run_json)
    meta = _read_json(paths.eval_json).get("meta") or {}
    manifest = _read_json(paths.root / "manifest.json")
    root = run_json.get("data_root") or meta.get("data_root")
    tasks = run_json.get("tasks") or sorted(p.stem for p in paths.infer_dir.glob("*.jsonl"))
    tasks = [t for t in tasks if t in {task.name for task in bench.tasks()}]
    infer, refine, evaluation = stage_states(bench, paths, root, tasks)
    files = [p for p in paths.root.rglob("*") if p.is_file()]
    latest = max((p.stat().st_mtime for p in files), default=paths.root.stat().st_mtime)
    return RunStatus(
        label=paths.label,
        benchmark=bench.name,
        model=str(run_json.get("model") or manifest.get("model") or meta.get("model") or "unknown"),
        dataset=f"{dataset_kind(bench, root, tasks)} ({root})" if root else "unknown",
        infer=infer,
        refine=refine,
        eval=evaluation,
        last_activity=datetime.fromtimestamp(latest, UTC).isoformat(timespec="seconds"),
    )


def holds_a_run(folder: Path) -> bool:
    """A manifest, a stage's folder or an eval.json: more than the lock an infer stopped early leaves behind."""
    return any((folder / name).exists() for name in ("manifest.json", "infer", "refine", "eval.json"))


def list_runs(output_dir: Path) -> list[RunStatus]:
    """Every run folder under ``output_dir`` of an installed benchmark, most recent activity first."""
    out = []
    for name in benchmark_names():
        bench = get_benchmark(name)
        for folder in sorted(Path(output_dir).glob(f"*/{name}")):
            if holds_a_run(folder):
                out.append(run_status(bench, RunPaths(Path(output_dir), folder.parent.name, name)))
    return sorted(out, key=lambda r: r.last_activity, reverse=True)


@click.command(name="runs")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
def runs(output_dir: Path | None, as_json: bool) -> None:
    """List every run under the output dir: benchmark, model, dataset, each stage's state, last activity."""
    output_dir = output_dir or default_output_dir()
    if not Path(output_dir).is_dir():
        raise AvibenchError(f"{output_dir}: no such folder (no runs yet; start one with `avibench infer`)")
    found = list_runs(output_dir)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in found], indent=2))
        return
    headers = list(RunStatus.__dataclass_fields__)
    cells = [[str(v) for v in asdict(r).values()] for r in found]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    for row in cells:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    if not found:
        click.echo(f"no runs under {output_dir}")
