"""The dataset commands: ``tasks``, ``validate-data`` and ``sample-data``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from avibench.config import SAMPLE_ROOT, default_data_root
from avibench.dataset import read_json_array, task_dir
from avibench.errors import AvibenchError, DatasetError
from avibench.registry import AVIBENCH

data_root_option = click.option(
    "--data-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Dataset root (<root>/<stage>/<TASK>/data.json). Default: $DATA_ROOT, else data/levels if present, "
    "else the generated data/sample.",
)


def _count_entries(root: Path, name: str) -> str:
    path = task_dir(root, AVIBENCH.task(name)) / "data.json"
    if not path.is_file():
        return "-"
    try:
        return str(len(read_json_array(path)))
    except DatasetError:
        return "invalid"


@click.command(name="tasks")
@data_root_option
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON instead of a table.")
def tasks(data_root: Path | None, as_json: bool) -> None:
    """List the benchmark's task folders: stage, paper-level task, refine family, metric, modality, and the
    number of entries found under the dataset root."""
    root = data_root or default_data_root()
    rows = [
        {
            "task": t.name,
            "stage": t.stage,
            "paper_task": t.paper_task,
            "family": t.family,
            "metric": t.metric,
            "modality": t.modality,
            "double_confirm": t.double_confirm,
            "paper_count": t.paper_count,
            "found": _count_entries(root, t.name),
        }
        for t in AVIBENCH.tasks
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    headers = ["task", "stage", "paper_task", "family", "metric", "modality", "paper_count", "found"]
    widths = {h: max(len(h), *(len(str(r[h])) for r in rows)) for h in headers}
    click.echo(f"dataset root: {root}")
    click.echo("  ".join(h.ljust(widths[h]) for h in headers))
    click.echo("  ".join("-" * widths[h] for h in headers))
    for r in rows:
        click.echo("  ".join(str(r[h]).ljust(widths[h]) for h in headers))


@click.command(name="validate-data")
@click.argument("data_root", required=False, type=click.Path(path_type=Path))
@click.option(
    "--tasks", "task_names", default=None, help="Comma-separated task folders to check (default: all 15)."
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors for the exit code.")
def validate_data(data_root: Path | None, task_names: str | None, strict: bool) -> None:
    """Check a dataset and report every problem with its file, entry index and field.

    Checks: JSON validity (with line and column), required fields, the task name against its folder, media
    files that are missing or escape the task folder, the ground-truth shape for each task, and the order of
    double-confirm pre-questions. Exit code 0 when clean, 1 when errors were found.
    """
    from avibench.validate import validate_dataset

    root = data_root or default_data_root()
    try:
        specs = AVIBENCH.select(task_names)
    except KeyError as exc:
        raise AvibenchError(str(exc.args[0])) from None
    problems = validate_dataset(root, specs)
    for problem in problems:
        click.echo(str(problem))
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    click.echo(f"{root}: {len(specs)} task(s) checked, {errors} error(s), {warnings} warning(s)")
    if errors or (strict and warnings):
        sys.exit(1)


@click.command(name="sample-data")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=SAMPLE_ROOT,
    show_default=True,
    help="Where to write the dataset (it becomes a dataset root).",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Random seed; the same seed gives the same files."
)
@click.option(
    "--full-size", is_flag=True, help="Write the paper's per-task counts (5,864 entries) with tiny media."
)
@click.option("--force", is_flag=True, help="Overwrite a folder that already holds a dataset.")
def sample_data(out: Path, seed: int, full_size: bool, force: bool) -> None:
    """Generate the synthetic sample benchmark in the official layout, with real media (wav, png/jpg, mp4 with
    sound) whose ground truths are true of the media. Used by the demo and the tests; runs offline."""
    from avibench.sample_data import generate

    if out.exists() and any(out.iterdir()) and not force:
        existing = [t.name for t in AVIBENCH.tasks if (task_dir(out, t) / "data.json").is_file()]
        if len(existing) == len(AVIBENCH.tasks):
            click.echo(f"{out} already holds a dataset; keeping it (use --force to regenerate).")
            return
        raise AvibenchError(
            f"{out} exists and is not an avibench sample dataset; choose another --out or use --force"
        )
    start = time.perf_counter()
    counts = generate(out, seed=seed, full_size=full_size, progress=sys.stderr.isatty())
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    click.echo(
        f"wrote {sum(counts.values())} entries in {len(counts)} task folders to {out} "
        f"({size / 1e6:.1f} MB, {time.perf_counter() - start:.1f} s)"
    )
