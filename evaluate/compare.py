"""``avibench compare A B [C...]``: how runs differ, task by task and in every summary number, and where.

Each run after the first is compared with the first (the baseline) in one profile. Differences come with paired
bootstrap intervals (the same items drawn for both runs, see
:func:`avibench.level_metrics.bootstrap.paired_bootstrap`); a difference whose interval excludes 0 is marked
significant (``*``). The samples whose score changed are listed, each linked into its run's viewer page (written
beside its eval.json if missing). Output: ``<output dir>/compare-<benchmark>-<A>-vs-<B>[-vs-<C>...].{md,html,json}``.

Runs of different benchmarks or made from different data are refused unless ``--force`` (the page then says so).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate.document import (
    DASH,
    Cell,
    Document,
    Figure,
    Figures,
    Heading,
    Paragraph,
    Table,
    as_dict,
    as_number,
    fmt_delta,
    fmt_score,
    write_document,
)
from avibench.evaluate.eval_options import options_differ
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.samples import read_samples
from avibench.evaluate.svg import Series, grouped_bars
from avibench.evaluate.viewer import VIEWER_NAME, media_base_for, run_data_root, viewer_html
from avibench.manifest import load_manifest, page_caveats, tasks_differ
from avibench.plugin import lower_is_better
from avibench.run_options import benchmark_option, resolve_benchmark
from avibench.store import atomic_write_json, atomic_write_text

if TYPE_CHECKING:  # numpy: imported when runs are compared, not for --help
    from avibench.level_metrics.bootstrap import Difference

FLIPS_SHOWN = 100


class Run:
    """One run's eval.json summary and samples in the compared profile."""

    def __init__(self, paths: RunPaths, profile: str | None):
        self.paths = paths
        self.doc = load_eval(paths)
        self.summary = as_dict(self.doc.get("summary"))
        self.profile = profile or str(self.summary.get("profile") or "reference")
        self.rows = read_samples(paths)
        by_profile = as_dict(as_dict(self.summary.get("by_profile")).get(self.profile))
        self.tasks = as_dict(by_profile.get("tasks")) or as_dict(self.summary.get("tasks"))

    @property
    def label(self) -> str:
        return self.paths.label

    def scores(self) -> dict[tuple[str, str], float | None]:
        return {
            (str(r["task"]), str(r["key"])): as_number(as_dict(r.get("scores")).get(self.profile))
            for r in self.rows
        }


def _recorded(run: Run, key: str) -> float | None:
    """A summary number as the run's eval.json records it in the compared profile (``None``: not recorded)."""
    view = as_dict(as_dict(run.summary.get("by_profile")).get(run.profile))
    return as_number(view.get(key))


def _mark(diff: Difference) -> str:
    return "*" if diff.significant else ""


def difference_table(names: Sequence[str], diffs: Mapping[str, Difference], a: str, b: str) -> Table:
    rows = []
    for name in names:
        d = diffs.get(name)
        if d is None:
            rows.append([name, DASH, DASH, DASH, ""])
            continue
        rows.append([name, fmt_delta(d.delta), f"[{d.low:+.1f}, {d.high:+.1f}]", str(d.items), _mark(d)])
    return Table(["", f"{b} − {a}", "95% CI (paired)", "Items", "Significant"], rows)


def flips(base: Run, other: Run) -> list[dict[str, Any]]:
    """Samples both runs scored whose score changed, largest change first."""
    a, b = base.scores(), other.scores()
    out = []
    for key, before in a.items():
        after = b.get(key)
        if before is None or after is None or abs(after - before) < 1e-9:
            continue
        out.append({"task": key[0], "key": key[1], "before": before, "after": after})
    return sorted(out, key=lambda f: (-abs(f["after"] - f["before"]), f["task"], f["key"]))


def _viewer_link(page: Path, run: Run, task: str, key: str) -> str:
    target = os.path.relpath(run.paths.root / VIEWER_NAME, page.parent)
    return f"{Path(target).as_posix()}#sample={task}/{key}"


def ensure_viewer(run: Run, title: str, tasks: Sequence[str]) -> None:
    """Write the run's viewer page when it has none, so the comparison's links lead somewhere."""
    page = run.paths.root / VIEWER_NAME
    if page.is_file():
        return
    root = run_data_root(run.paths, as_dict(run.doc.get("meta")), Path("."))
    html = viewer_html(
        title, run.rows, tasks=tasks, profile=run.profile, media_base=media_base_for(page, root)
    )
    with contextlib.suppress(OSError):  # a run folder that cannot be written keeps its links dangling
        atomic_write_text(page, html)


def data_identity(benchmark: Any, run: Run) -> dict[str, str]:
    """Per task, the fingerprint of the data a run was made from: its manifest's, else its eval.json's data root's."""
    manifest = load_manifest(benchmark, run.paths)
    if manifest:
        entries = as_dict(manifest.get("tasks"))
        return {t: str(e["fingerprint"]) for t, e in entries.items() if as_dict(e).get("fingerprint")}
    root = as_dict(run.doc.get("meta")).get("data_root")
    if not isinstance(root, str) or not Path(root).is_dir():
        return {}
    return {t.name: benchmark.fingerprint(Path(root), [t]) for t in benchmark.available(Path(root))}


def mismatches(benchmark: Any, runs: Sequence[Run]) -> list[str]:
    """Why these runs are not comparable: another benchmark, other data for a task both have, or other values of
    the plug-in's own eval options."""
    reasons = []
    for run in runs:
        recorded = as_dict(run.doc.get("meta")).get("benchmark")
        if recorded and recorded != benchmark.name:
            reasons.append(f"{run.label}'s eval.json scores {recorded}, not {benchmark.name}")
    base = runs[0]
    base_data = data_identity(benchmark, base)
    for other in runs[1:]:
        data = data_identity(benchmark, other)
        differ = sorted(t for t in set(base_data) & set(data) if base_data[t] != data[t])
        if differ:
            reasons.append(
                f"{base.label} and {other.label} were made from different data ({tasks_differ(differ)})"
            )
    reasons += options_differ([(run.label, as_dict(run.doc.get("meta"))) for run in runs])
    return reasons


def _interval(run: Run, task: str) -> tuple[float, float] | None:
    """A task's stored interval, where eval computed it for the profile compared (intervals are the primary
    profile's)."""
    from avibench.evaluate.uncertainty import interval_of

    if as_dict(run.summary.get("intervals")).get("profile", run.profile) != run.profile:
        return None
    return interval_of(run.summary, "tasks", task)


def differences(benchmark: Any, base: Run, other: Run) -> dict[str, Difference]:
    """``other − base`` for every shared task and summary number in the base's profile, with paired bootstrap
    intervals; a summary number's difference is that of the two eval files' own numbers."""
    from avibench.evaluate.uncertainty import aggregator, question_counts, task_units
    from avibench.level_metrics.bootstrap import paired_bootstrap

    diffs = paired_bootstrap(
        task_units(base.rows, base.profile, base.tasks, benchmark.metric_of),
        task_units(other.rows, base.profile, other.tasks, benchmark.metric_of),
        aggregator(benchmark, question_counts(base.rows, base.profile)),
        aggregate_b=aggregator(benchmark, question_counts(other.rows, base.profile)),
        fixed_a=base.tasks,
        fixed_b=other.tasks,
    )
    for key, d in diffs.items():
        pa, pb = _recorded(base, key), _recorded(other, key)
        if key not in base.tasks and key not in other.tasks and pa is not None and pb is not None:
            diffs[key] = replace(d, delta=round(pb - pa, 2))  # the eval files' own numbers
    return diffs


def build_comparison(benchmark: Any, runs: Sequence[Run], page: Path) -> tuple[Document, dict[str, Any]]:
    base = runs[0]
    labels = [r.label for r in runs]
    doc = Document(f"{benchmark.title or benchmark.name}: {' vs '.join(labels)}")
    doc.add(
        Paragraph(
            f"Profile: {base.profile}. Baseline: {base.label}. Differences are later run minus baseline on 0–100, "
            "over the items both runs scored, with 95% paired bootstrap intervals (1,000 resamples, seed 0); * "
            "marks an interval that excludes 0. A summary number's difference is that of the two runs' own numbers."
            + (" Task scores are error rates: lower is better." if lower_is_better(benchmark) else "")
        )
    )
    task_names = list(dict.fromkeys(t for r in runs for t in r.tasks))
    series = [
        Series(
            r.label,
            [as_number(r.tasks.get(t)) for t in task_names],
            [_interval(r, t) for t in task_names],
        )
        for r in runs
    ]
    by_profile = as_dict(as_dict(base.summary.get("by_profile")).get(base.profile))
    chance = as_dict(by_profile.get("chance", base.summary.get("chance")))
    levels = [as_number(chance.get(t)) for t in task_names]
    doc.add(
        Figures([Figure("Tasks", grouped_bars(task_names, series, chance=levels if any(levels) else None))])
    )
    data: dict[str, Any] = {"profile": base.profile, "baseline": base.label, "comparisons": []}
    for other in runs[1:]:
        diffs = differences(benchmark, base, other)
        aggregates = [k for k in diffs if k not in task_names]
        doc.add(Heading(f"{other.label} versus {base.label}"))
        doc.add(Heading("Tasks", 3), difference_table(task_names, diffs, base.label, other.label))
        if aggregates:
            doc.add(
                Heading("Summary numbers", 3), difference_table(aggregates, diffs, base.label, other.label)
            )
        changed = flips(base, other)
        gained = sum(f["after"] > f["before"] for f in changed)
        doc.add(
            Heading("Samples whose score changed", 3),
            Paragraph(
                f"{len(changed)} samples changed: {gained} better, {len(changed) - gained} worse in {other.label}. "
                f"The {min(len(changed), FLIPS_SHOWN)} largest changes, each linked into both runs' viewers:"
            ),
        )
        doc.add(
            Table(
                ["Task", "Key", base.label, other.label, f"{base.label} viewer", f"{other.label} viewer"],
                [
                    [
                        f["task"],
                        f["key"],
                        fmt_score(100 * f["before"]),
                        fmt_score(100 * f["after"]),
                        Cell("open", href=_viewer_link(page, base, f["task"], f["key"])),
                        Cell("open", href=_viewer_link(page, other, f["task"], f["key"])),
                    ]
                    for f in changed[:FLIPS_SHOWN]
                ],
                align="llrrll",
                css="flips",
            )
        )
        data["comparisons"].append(
            {
                "run": other.label,
                "differences": {
                    k: {
                        "delta": d.delta,
                        "low": d.low,
                        "high": d.high,
                        "items": d.items,
                        "significant": d.significant,
                    }
                    for k, d in diffs.items()
                },
                "changed": changed,
            }
        )
    return doc, data


def folder_benchmark(folder: Path) -> str | None:
    """The benchmark of a run folder given on the command line (``<output dir>/<label>/<benchmark>``)."""
    return folder.name if (folder / "eval.json").is_file() or (folder / "manifest.json").is_file() else None


def run_paths_of(arg: str, output_dir: Path, benchmark: str) -> RunPaths:
    """A run named by its label (under ``output_dir``) or by its folder: ``<output dir>/<label>/<benchmark>`` or
    ``<output dir>/<label>``."""
    folder = Path(arg)
    if folder_benchmark(folder) is not None:
        folder = folder.resolve()
        return RunPaths(folder.parent.parent, folder.parent.name, folder.name)
    if (folder / benchmark).is_dir():
        folder = folder.resolve()
        return RunPaths(folder.parent, folder.name, benchmark)
    if "/" in arg or os.sep in arg:
        raise AvibenchError(
            f"{arg}: no run folder of benchmark {benchmark} there; give a run's label (`avibench runs` lists "
            "them) or its folder, <output dir>/<label>/<benchmark>"
        )
    return RunPaths(output_dir, arg, benchmark)


@click.command(name="compare")
@click.argument("labels", nargs=-1, required=True)
@benchmark_option
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option(
    "--profile", type=click.Choice(("reference", "strict")), default=None, help="Default: the baseline's."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the comparison (default: the output dir).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Compare runs of different benchmarks or data, or scored on other data than their own (stated on the page).",
)
def compare(
    labels: tuple[str, ...],
    benchmark_name: str,
    output_dir: Path | None,
    profile: str | None,
    out: Path | None,
    force: bool,
) -> None:
    """Compare runs LABEL_A LABEL_B [...]: per-task and per-stage differences with paired bootstrap intervals,
    a significance mark, and the samples whose score changed (linked into the viewer).

    A run is named by its label (under --output-dir) or by its folder, OUTPUT_DIR/LABEL/BENCHMARK (the
    benchmark is then the folder's). A run with no scored task is refused (exit 2): there is nothing to compare.
    """
    if len(labels) < 2:
        raise click.UsageError("give at least two run labels")
    output_dir = output_dir or default_output_dir()
    ctx = click.get_current_context()
    if ctx.get_parameter_source("benchmark_name") in (None, ParameterSource.DEFAULT):
        benchmark_name = next(
            (b for arg in labels if (b := folder_benchmark(Path(arg))) is not None), benchmark_name
        )
    benchmark = resolve_benchmark(benchmark_name)
    where = [run_paths_of(arg, output_dir, benchmark.name) for arg in labels]
    base = Run(where[0], profile)
    runs = [base, *(Run(paths, base.profile) for paths in where[1:])]
    for run in runs:
        if not any(as_number(v) is not None for v in run.tasks.values()):
            raise AvibenchError(
                f"run {run.label!r} ({run.paths.eval_json}) has no scored task in the {base.profile} profile: "
                "nothing to compare; complete and score it first (`avibench runs` shows what it lacks)"
            )
    labels = tuple(run.label for run in runs)
    notes = [
        f"{run.label}: {note}"
        for run in runs
        for note in page_caveats(
            benchmark, run.paths, as_dict(run.doc.get("meta")), stage="compare", allow_other_data=force
        )
    ]
    reasons = mismatches(benchmark, runs)
    if reasons and not force:
        raise AvibenchError(
            f"compare: {'; '.join(reasons)}; compare runs of one benchmark and dataset, or pass --force"
        )
    notes += [f"Compared anyway (--force): {reason}." for reason in reasons]
    stem = (out or output_dir) / f"compare-{benchmark.name}-{'-vs-'.join(labels)}"
    html_path = stem.with_suffix(".html")
    for run in runs:
        ensure_viewer(
            run,
            f"{benchmark.title or benchmark.name} samples: {run.label}",
            [t.name for t in benchmark.tasks()],
        )
    doc, data = build_comparison(benchmark, runs, html_path)
    doc.blocks[1:1] = [Paragraph(note) for note in notes]
    if notes:
        data["notes"] = notes
    write_document(doc, stem.with_suffix(".md"), html_path)
    atomic_write_json(stem.with_suffix(".json"), data)
    for path in (stem.with_suffix(".md"), html_path, stem.with_suffix(".json")):
        click.echo(f"wrote {path}")
