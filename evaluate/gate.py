"""``avibench gate``: an accuracy gate for CI that tells a regression from noise.

A run passes unless a benchmark's headline is *shown* to be worse:

* ``--baseline B``: the run's headline is below B's and the 95% paired bootstrap interval of the difference (the
  same items drawn for both runs, as ``avibench compare`` draws them) lies wholly below zero;
* ``--threshold X``: the run's headline is below X and its whole 95% interval (eval.json ``summary.intervals``)
  lies below X.

A headline below the bar whose interval still reaches it is noise at this sample size: the gate passes and says
so. Exit codes: 0 pass, 1 a headline is shown below its bar, 2 a run or number the gate needs is missing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import click

from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate.card import headline_name
from avibench.evaluate.compare import Run, differences
from avibench.evaluate.document import as_dict, as_number
from avibench.evaluate.uncertainty import interval_of
from avibench.run_options import resolve_benchmark


@dataclass(frozen=True)
class Verdict:
    """One benchmark's gate: its headline, the bar, the interval judged and why it passed or failed."""

    benchmark: str
    headline: str
    score: float
    bar: float
    low: float | None
    high: float | None
    failed: bool
    why: str


def _headline(run: Run) -> tuple[str, float]:
    key = headline_name(run.summary)
    view = as_dict(as_dict(run.summary.get("by_profile")).get(run.profile))
    score = as_number(
        view.get(key, run.summary.get(key) if run.summary.get("profile") == run.profile else None)
    )
    if score is None:
        raise AvibenchError(f"{run.paths.eval_json}: no {key} in profile {run.profile}; run eval first")
    return key, score


def against_threshold(benchmark: str, run: Run, threshold: float) -> Verdict:
    key, score = _headline(run)
    intervals = as_dict(run.summary.get("intervals"))
    interval = (
        interval_of(run.summary, "aggregates", key)
        if intervals.get("profile", run.profile) == run.profile
        else None
    )
    if interval is None:
        raise AvibenchError(
            f"{run.paths.eval_json}: no interval of {key} in profile {run.profile} (eval computes intervals for "
            "its primary profile); re-run eval with --profile " + run.profile
        )
    low, high = interval
    failed = score < threshold and high < threshold
    if failed:
        why = f"{key} {score:.2f} < {threshold:g}, and its whole 95% interval [{low:.2f}, {high:.2f}] is below it"
    elif score < threshold:
        why = f"{key} {score:.2f} < {threshold:g}, but its 95% interval [{low:.2f}, {high:.2f}] reaches it: noise"
    else:
        why = f"{key} {score:.2f} >= {threshold:g}"
    return Verdict(benchmark, key, score, threshold, low, high, failed, why)


def against_baseline(benchmark: str, run: Run, base: Run) -> Verdict:
    key, score = _headline(run)
    _, bar = _headline(base)
    diff = differences(resolve_benchmark(benchmark), base, run).get(key)
    if diff is None:
        raise AvibenchError(
            f"{run.paths.root} and {base.paths.root} share no scored item to compare {key} on"
        )
    failed = diff.delta < 0 and diff.high < 0
    shown = f"difference {diff.delta:+.2f}, 95% paired interval [{diff.low:+.2f}, {diff.high:+.2f}] over {diff.items} items"
    if failed:
        why = f"{key} {score:.2f} < baseline {bar:.2f}: {shown} excludes zero"
    elif diff.delta < 0:
        why = f"{key} {score:.2f} < baseline {bar:.2f}, but {shown} includes zero: noise"
    else:
        why = f"{key} {score:.2f} >= baseline {bar:.2f} ({shown})"
    return Verdict(benchmark, key, score, bar, diff.low, diff.high, failed, why)


def _benchmarks(output_dir: Path, label: str, names: str | None) -> list[str]:
    if names and names != "all":
        return [n.strip() for n in names.split(",") if n.strip()]
    folder = output_dir / label
    found = sorted(p.parent.name for p in folder.glob("*/eval.json"))
    if not found:
        raise AvibenchError(f"{folder}: no benchmark of run {label} has an eval.json; run eval first")
    return found


def gate_runs(
    output_dir: Path,
    label: str,
    benchmarks: Sequence[str],
    baseline: str | None,
    threshold: float | None,
    profile: str | None,
) -> list[Verdict]:
    verdicts = []
    for name in benchmarks:
        run = Run(RunPaths(output_dir, label, name), profile)
        if baseline is not None:
            base = Run(RunPaths(output_dir, baseline, name), run.profile)
            verdicts.append(against_baseline(name, run, base))
        else:
            verdicts.append(against_threshold(name, run, float(threshold)))  # type: ignore[arg-type]
    return verdicts


@click.command(name="gate")
@click.option("--label", required=True, help="The run to gate.")
@click.option("--baseline", default=None, help="Label of the run to compare with (paired intervals).")
@click.option(
    "--threshold", type=float, default=None, help="Bar for the headline on its own 0-100 scale (0.69 -> 69)."
)
@click.option(
    "--benchmarks", default=None, help="Comma separated (default: every benchmark the run has scored)."
)
@click.option(
    "--profile",
    type=click.Choice(("reference", "strict")),
    default=None,
    help="Profile of the headline (default: the run's primary one).",
)
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
def gate(
    label: str,
    baseline: str | None,
    threshold: float | None,
    benchmarks: str | None,
    profile: str | None,
    output_dir: Path | None,
    as_json: bool,
) -> None:
    """Fail (exit 1) only when a headline is shown to be below its bar, with intervals; exit 0 otherwise.

    With --baseline B a headline fails when it is below B's and the 95% paired bootstrap interval of the difference
    excludes zero; with --threshold X when it is below X and its whole 95% interval is below X. Anything else,
    a drop within the noise included, passes, and every line says why. Meant for CI after 'avibench run'.
    """
    if (baseline is None) == (threshold is None):
        raise click.UsageError("give exactly one of --baseline LABEL and --threshold X")
    output_dir = output_dir or default_output_dir()
    verdicts = gate_runs(
        output_dir, label, _benchmarks(output_dir, label, benchmarks), baseline, threshold, profile
    )
    if as_json:
        click.echo(
            json.dumps(
                {"passed": not any(v.failed for v in verdicts), "verdicts": [asdict(v) for v in verdicts]}
            )
        )
    else:
        for v in verdicts:
            click.echo(f"{'FAIL' if v.failed else 'pass'}  {v.benchmark}: {v.why}")
    if any(v.failed for v in verdicts):
        raise SystemExit(1)
