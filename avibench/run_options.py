"""The options that locate a run, declared once and meaning the same in every command.

``--benchmark`` (default ``avibench``) picks the plug-in; ``--model`` is the model id and ``--label`` the run's folder
(default: derived from the model id; ``$MODEL_LABEL`` also sets it); ``--output-dir`` is where runs go and
``--data-root`` where the benchmark's data is. :func:`locate` resolves them into one :class:`RunLocation`, which the
command passes down: nothing below the command line looks a benchmark up by name.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from avibench.config import default_output_dir, label_for
from avibench.contracts import RunPaths, migrate_legacy
from avibench.errors import AvibenchError
from avibench.plugin import SAMPLE_MARKER, Benchmark, benchmark_names, get_benchmark

F = TypeVar("F", bound=Callable[..., Any])
DEFAULT_BENCHMARK = "avibench"


def benchmark_option(func: F) -> F:
    return click.option(
        "--benchmark",
        "benchmark_name",
        envvar="BENCH",
        default=DEFAULT_BENCHMARK,
        show_default=True,
        help="Benchmark plug-in (see 'avibench benchmarks'); $BENCH also sets it.",
    )(func)


def data_root_option(func: F) -> F:
    return click.option(
        "--data-root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Dataset root (default: $DATA_ROOT, else the benchmark's download folder if present, else its "
        "generated sample).",
    )(func)


def label_option(func: F) -> F:
    return click.option(
        "--label",
        envvar="MODEL_LABEL",
        default=None,
        help="Run label: the run's folder under the output dir (default: from --model; $MODEL_LABEL).",
    )(func)


def output_dir_option(func: F) -> F:
    return click.option(
        "--output-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Where runs are kept (default: $OUTPUT_DIR or outputs).",
    )(func)


def run_options(func: F) -> F:
    """``--benchmark --model --label --output-dir --data-root``."""
    for option in reversed(
        (
            benchmark_option,
            click.option("--model", default=None, help="Model id of the run (its label is derived from it)."),
            label_option,
            output_dir_option,
            data_root_option,
        )
    ):
        func = option(func)
    return func


@dataclass(frozen=True)
class RunLocation:
    """One run of one benchmark: the plug-in, the run's paths, and the dataset root."""

    benchmark: Benchmark
    paths: RunPaths
    data_root: Path
    model: str | None

    @property
    def label(self) -> str:
        return self.paths.label


def resolve_benchmark(name: str) -> Benchmark:
    return get_benchmark(name)


def resolve_data_root(benchmark: Benchmark, data_root: Path | None) -> Path:
    return data_root or benchmark.default_data_root(os.environ.get("DATA_ROOT"))


def missing_data_root(benchmark: Benchmark, root: Path) -> str:
    """Why there is no dataset at ``root``, and what makes one: the sample folder names ``sample-data``."""
    if Path(root) == benchmark.sample_root:
        return (
            f"dataset root {root} does not exist: no {benchmark.name} data at {benchmark.download_root} and no "
            f"generated sample; point --data-root (or DATA_ROOT) at the dataset, or generate the sample with "
            f"'avibench sample-data --benchmark {benchmark.name}'"
        )
    return f"dataset root {root} does not exist (set --data-root or DATA_ROOT)"


def benchmarks_at(root: Path, other_than: Benchmark) -> list[str]:
    """The other installed benchmarks whose data ``root`` holds: the one its sample marker names, else every one
    that finds a task there."""
    try:
        marker = json.loads((Path(root) / SAMPLE_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        marker = None
    named = marker.get("benchmark") if isinstance(marker, dict) else None
    if isinstance(named, str) and named != other_than.name and named in benchmark_names():
        return [named]
    found = []
    for name in benchmark_names():
        if name == other_than.name:
            continue
        try:
            if get_benchmark(name).available(Path(root)):
                found.append(name)
        except Exception:  # a plug-in that cannot look at this folder holds no data in it
            continue
    return found


def no_task_found(benchmark: Benchmark, root: Path) -> str:
    """``root`` holds none of ``benchmark``'s tasks: say which benchmark's data it does hold."""
    others = benchmarks_at(root, benchmark)
    if not others:
        return f"{root}: no {benchmark.name} task found"
    return (
        f"{root}: no {benchmark.name} task found; it holds {' or '.join(others)} data: pass --benchmark "
        f"{others[0]}"
    )


def locate(
    benchmark_name: str,
    model: str | None,
    label: str | None,
    output_dir: Path | None,
    data_root: Path | None,
    *,
    notice: Callable[[str], None] | None = None,
) -> RunLocation:
    """Resolve the run-locating options; a run made before per-benchmark folders is moved with a notice."""
    if not label and not model:
        raise click.UsageError("pass --model MODEL or --label LABEL to name the run")
    try:
        label = label or label_for(model or "")
    except ValueError as exc:
        raise AvibenchError(str(exc)) from None
    benchmark = resolve_benchmark(benchmark_name)
    paths = RunPaths(output_dir or default_output_dir(), label, benchmark.name)
    moved = migrate_legacy(paths)
    if moved and notice is not None:
        notice(moved)
    return RunLocation(benchmark, paths, resolve_data_root(benchmark, data_root), model)
