"""The dataset commands: ``benchmarks``, ``tasks``, ``validate-data`` and ``sample-data``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from avibench import media_paths
from avibench.errors import AvibenchError, DatasetError
from avibench.media_paths import allow_option
from avibench.plugin import SAMPLE_MARKER, Benchmark, benchmark_names, get_benchmark
from avibench.run_options import (
    benchmark_option,
    benchmarks_at,
    data_root_option,
    missing_data_root,
    no_task_found,
    resolve_benchmark,
    resolve_data_root,
)
from avibench.store import atomic_write_text


@click.command(name="benchmarks")
def benchmarks() -> None:
    """List the installed benchmark plug-ins with their tasks and prompt templates."""
    for name in benchmark_names():
        try:
            bench = get_benchmark(name)
        except Exception as exc:  # a broken third-party plug-in must not hide the others
            click.echo(f"{name}: cannot be loaded ({type(exc).__name__}: {exc})")
            continue
        tasks = ", ".join(t.name for t in bench.tasks())
        click.echo(f"{name}: {bench.title or name}")
        click.echo(f"  tasks: {tasks}")
        click.echo(f"  templates: {', '.join(bench.templates)} (default {bench.templates[0]})")
        click.echo(f"  data: {bench.download_root} (sample: {bench.sample_root})")


def _count(bench, root: Path, task) -> int | str:
    """The questions found for ``task`` (a number), or ``"invalid"`` when its data does not load."""
    try:
        return len(bench.load(root, task))
    except DatasetError:
        return "invalid"


@click.command(name="tasks")
@benchmark_option
@data_root_option
@click.option("--json", "as_json", is_flag=True, help="Print the tasks as JSON instead of a table.")
def tasks(benchmark_name: str, data_root: Path | None, as_json: bool) -> None:
    """List the benchmark's tasks (their group and title) and the questions found under the dataset root.

    With --json, ``found`` is a number, ``null`` when the task has no data there, or ``"invalid"``."""
    bench = resolve_benchmark(benchmark_name)
    root = resolve_data_root(bench, data_root)
    found = set(bench.available(root)) if root.is_dir() else set()
    rows = [
        {
            "task": t.name,
            "group": t.group,
            "title": t.title,
            "found": _count(bench, root, t) if t in found else None,
        }
        for t in bench.tasks()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    headers = ["task", "group", "title", "found"]
    widths = {h: max(len(h), *(len(str(r[h])) for r in rows)) for h in headers}
    click.echo(f"benchmark: {bench.name}; dataset root: {root}")
    click.echo("  ".join(h.ljust(widths[h]) for h in headers))
    click.echo("  ".join("-" * widths[h] for h in headers))
    for r in rows:
        click.echo("  ".join(str("-" if r[h] is None else r[h]).ljust(widths[h]) for h in headers))


@click.command(name="validate-data")
@click.argument("data_root", required=False, type=click.Path(path_type=Path))
@benchmark_option
@click.option("--tasks", "task_names", default=None, help="Comma-separated tasks to check (default: all).")
@click.option("--strict", is_flag=True, help="Treat warnings as errors for the exit code.")
@allow_option
def validate_data(
    data_root: Path | None,
    benchmark_name: str,
    task_names: str | None,
    strict: bool,
    allow_media_outside_root: bool,
) -> None:
    """Check a dataset and report every problem with its file, entry and field.

    AVI-Bench checks JSON validity (with line and column), required fields, the task name against its folder,
    media files that are missing or escape the task folder, the ground-truth shape for each task, and the order
    of double-confirm pre-questions. Other benchmarks check their own official layout. For every benchmark, every
    media path must lie inside the data root (no '..', absolute path or link pointing out; a warning with
    --allow-media-outside-root) and every media file must decode as the audio, image or video it is declared as.
    Exit code 0 when clean, 1 when errors were found.
    """
    bench = resolve_benchmark(benchmark_name)
    root = resolve_data_root(bench, data_root)
    if not root.is_dir():
        raise AvibenchError(missing_data_root(bench, root))
    if not bench.available(root) and benchmarks_at(root, bench):
        raise AvibenchError(no_task_found(bench, root))
    specs = bench.select(task_names) if task_names else bench.tasks()
    problems = bench.validate(root, specs)
    # our own untouched sample's warnings are the official-scorer quirks it holds on purpose: one note, not a list
    # (a sample with errors was changed since, so everything is listed; media-path warnings always are)
    untouched = (root / SAMPLE_MARKER).is_file() and not any(p.severity == "error" for p in problems)
    quirks = [p for p in problems if p.severity == "warning"] if untouched else []
    problems += media_paths.problems(bench, root, specs, problems, allow=allow_media_outside_root)
    listed = [p for p in problems if not any(p is q for q in quirks)]
    for problem in listed:
        click.echo(str(problem))
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    click.echo(f"{root}: {len(specs)} task(s) checked, {errors} error(s), {warnings} warning(s)")
    if quirks:
        click.echo(
            f"note: {root} is a sample made by 'avibench sample-data': its {len(quirks)} warning(s) are cases it "
            "holds on purpose (official-scorer quirks the tests exercise), so they are not listed"
        )
    if errors or (strict and any(p.severity == "warning" for p in listed)):
        sys.exit(1)


def complete_sample(bench: Benchmark, root: Path) -> bool:
    """Whether ``root`` holds a finished sample of ``bench``: every task, and the marker written after them."""
    return (root / SAMPLE_MARKER).is_file() and len(bench.available(root)) == len(bench.tasks())


@click.command(name="sample-data")
@benchmark_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write the dataset (it becomes a dataset root; default: the benchmark's sample folder).",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Random seed; the same seed gives the same files."
)
@click.option(
    "--full-size", is_flag=True, help="Write the official per-task counts with tiny media (AVI-Bench: 5,864)."
)
@click.option("--force", is_flag=True, help="Overwrite a folder that already holds a dataset.")
def sample_data(benchmark_name: str, out: Path | None, seed: int, full_size: bool, force: bool) -> None:
    """Generate a benchmark's synthetic sample in its official layout, with real media whose ground truths are
    true of the media. Used by the demo and the tests; runs offline."""
    bench = resolve_benchmark(benchmark_name)
    out = out or bench.sample_root
    if seed < 0:
        raise AvibenchError(f"--seed must be a non-negative integer, got {seed}")
    if out.exists() and any(out.iterdir()) and not force:
        if complete_sample(bench, out):
            click.echo(f"{out} already holds a dataset; keeping it (use --force to regenerate).")
            return
        found = len(bench.available(out))
        why = (
            f"{found} of its {len(bench.tasks())} tasks"
            if (out / SAMPLE_MARKER).is_file()
            else f"no {SAMPLE_MARKER}, which sample-data writes last"
        )
        raise AvibenchError(
            f"{out} holds no complete {bench.name} sample ({why}): regenerate it with 'avibench sample-data "
            f"--benchmark {bench.name} --out {out} --force', or choose another --out"
        )
    start = time.perf_counter()
    counts = bench.generate_sample(out, seed=seed, full_size=full_size)
    marker = {"benchmark": bench.name, "seed": seed, "full_size": full_size, "questions": counts}
    atomic_write_text(out / SAMPLE_MARKER, json.dumps(marker, indent=2) + "\n")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    click.echo(
        f"wrote {sum(counts.values())} questions in {len(counts)} tasks to {out} "
        f"({size / 1e6:.1f} MB, {time.perf_counter() - start:.1f} s)"
    )
