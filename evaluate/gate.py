"""``avibench gate``: an accuracy gate for CI that tells a regression from noise.

A run passes unless a benchmark's headline is *shown* to be worse:

* ``--baseline B``: the run's headline is below B's and the 95% paired bootstrap interval of the difference (the
  same items drawn for both runs, as ``avibench compare`` draws them) lies wholly below zero;
* ``--threshold X``: the run's headline is below X and its whole 95% interval (eval.json ``summary.intervals``)
  lies below X.

A headline below the bar whose interval still reaches it is noise at this sample size: the gate passes and says
so. A benchmark without a headline (ASR's error rates, each task its own number) is gated task by task, and where
its numbers are error rates, worse means higher: above the bar, with the interval wholly above it. Exit codes: 0
pass, 1 a number is shown worse than its bar, 2 (when none is) a run or number the gate needs is missing; every
benchmark that can be gated is, whatever another lacks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate.card import headline_name
from avibench.evaluate.compare import Run, differences
from avibench.evaluate.document import as_dict, as_number
from avibench.evaluate.uncertainty import interval_of
from avibench.plugin import Benchmark, lower_is_better
from avibench.run_options import resolve_benchmark

if TYPE_CHECKING:  # numpy: imported when a baseline is compared, not for --help
    from avibench.level_metrics.bootstrap import Difference


@dataclass(frozen=True)
class Verdict:
    """One gated number (a benchmark's headline, or a task's where it has none): the bar, the interval judged and
    why it passed or failed; ``lower_is_better``: an error rate, worse when higher."""

    benchmark: str
    headline: str
    score: float
    bar: float
    low: float | None
    high: float | None
    failed: bool
    why: str
    lower_is_better: bool = False


@dataclass(frozen=True)
class Gated:
    """A number the gate judges: its key, its value and the part of ``summary.intervals`` its interval is in."""

    key: str
    score: float
    section: str


def gated_numbers(benchmark: Benchmark, run: Run) -> list[Gated]:
    """The run's headline in its profile; for a benchmark without one, each scored task's number."""
    key = headline_name(run.summary)
    view = as_dict(as_dict(run.summary.get("by_profile")).get(run.profile))
    score = as_number(
        view.get(key, run.summary.get(key) if run.summary.get("profile") == run.profile else None)
    )
    if score is not None:
        return [Gated(key, score, "aggregates")]
    tasks = [Gated(t, v, "tasks") for t, value in run.tasks.items() if (v := as_number(value)) is not None]
    if benchmark.has_headline or not tasks:
        what = key if benchmark.has_headline else "task score"
        raise AvibenchError(f"{run.paths.eval_json}: no {what} in profile {run.profile}{_why_missing(run)}")
    return tasks


def _why_missing(run: Run) -> str:
    """Why an evaluated run has no headline: the incomplete tasks eval recorded (a judge without a key, say)."""
    tasks = as_dict(as_dict(run.summary.get("incomplete")).get("tasks"))
    if not tasks:
        return "; run eval first"
    reasons = [
        f"{t}: {as_dict(e).get('reason') or as_dict(e).get('text') or 'incomplete'}" for t, e in tasks.items()
    ]
    more = f"; and {len(reasons) - 3} more" if len(reasons) > 3 else ""
    return f": the run is incomplete ({'; '.join(reasons[:3])}{more}); complete it and run eval again"


def _worse(a: float, b: float, lower: bool) -> bool:
    return a > b if lower else a < b


def against_threshold(benchmark: str, run: Run, threshold: float, number: Gated, lower: bool) -> Verdict:
    key, score = number.key, number.score
    intervals = as_dict(run.summary.get("intervals"))
    interval = (
        interval_of(run.summary, number.section, key)
        if intervals.get("profile", run.profile) == run.profile
        else None
    )
    if interval is None:
        raise AvibenchError(
            f"{run.paths.eval_json}: no interval of {key} in profile {run.profile} (eval computes intervals for "
            "its primary profile); re-run eval with --profile " + run.profile
        )
    low, high = interval
    worse, side, bound = (">", "above", low) if lower else ("<", "below", high)
    shown = f"95% interval [{low:.2f}, {high:.2f}]"
    failed = _worse(score, threshold, lower) and _worse(bound, threshold, lower)
    if failed:
        why = f"{key} {score:.2f} {worse} {threshold:g}, and its whole {shown} is {side} it"
    elif _worse(score, threshold, lower):
        why = f"{key} {score:.2f} {worse} {threshold:g}, but its {shown} reaches it: noise"
    else:
        why = f"{key} {score:.2f} {'<=' if lower else '>='} {threshold:g}"
    return Verdict(benchmark, key, score, threshold, low, high, failed, why, lower)


@dataclass(frozen=True)
class Baseline:
    """What a run is gated against for one benchmark: the baseline run, its numbers by key, and the paired
    differences of every number (computed once, however many numbers are gated)."""

    run: Run
    bars: dict[str, float]
    diffs: dict[str, Difference]

    @classmethod
    def of(cls, benchmark: Benchmark, base: Run, run: Run) -> Baseline:
        bars = {n.key: n.score for n in gated_numbers(benchmark, base)}
        return cls(base, bars, differences(benchmark, base, run))


def against_baseline(benchmark: str, run: Run, baseline: Baseline, number: Gated, lower: bool) -> Verdict:
    key, score = number.key, number.score
    bar, diff = baseline.bars.get(key), baseline.diffs.get(key)
    if bar is None or diff is None:
        raise AvibenchError(
            f"{run.paths.root} and {baseline.run.paths.root} share no scored item to compare {key} on"
        )
    shown = f"difference {diff.delta:+.2f}, 95% paired interval [{diff.low:+.2f}, {diff.high:+.2f}] over {diff.items} items"
    worse = ">" if lower else "<"
    failed = _worse(diff.delta, 0, lower) and _worse(diff.low if lower else diff.high, 0, lower)
    if failed:
        why = f"{key} {score:.2f} {worse} baseline {bar:.2f}: {shown} excludes zero"
    elif _worse(diff.delta, 0, lower):
        why = f"{key} {score:.2f} {worse} baseline {bar:.2f}, but {shown} includes zero: noise"
    else:
        why = f"{key} {score:.2f} {'<=' if lower else '>='} baseline {bar:.2f} ({shown})"
    return Verdict(benchmark, key, score, bar, diff.low, diff.high, failed, why, lower)


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
) -> tuple[list[Verdict], dict[str, str]]:
    """Each benchmark's verdicts, and the benchmarks that could not be gated with why (a run, an eval.json or a
    number missing): one missing never hides the others' verdicts."""
    verdicts: list[Verdict] = []
    errors: dict[str, str] = {}
    for name in benchmarks:
        try:
            benchmark = resolve_benchmark(name)
            lower = lower_is_better(benchmark)
            run = Run(RunPaths(output_dir, label, name), profile)
            base = None
            if baseline is not None:
                base = Baseline.of(benchmark, Run(RunPaths(output_dir, baseline, name), run.profile), run)
            for number in gated_numbers(benchmark, run):
                if base is not None:
                    verdicts.append(against_baseline(name, run, base, number, lower))
                else:
                    verdicts.append(against_threshold(name, run, float(threshold), number, lower))  # type: ignore[arg-type]
        except AvibenchError as exc:
            errors[name] = str(exc)
    return verdicts, errors


@click.command(name="gate")
@click.option("--label", required=True, help="The run to gate.")
@click.option("--baseline", default=None, help="Label of the run to compare with (paired intervals).")
@click.option(
    "--threshold",
    type=float,
    default=None,
    help="Bar for the headline on its own 0-100 scale: a 0.69 accuracy is 69 (error rates: the most allowed).",
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
    a drop within the noise included, passes, and every line says why. A benchmark without a headline (ASR) is
    gated task by task, and its error rates fail when shown above the bar. A benchmark that cannot be gated (its
    run, eval.json or headline missing) is named on stderr after the others' lines: exit 2, unless another
    failed (exit 1). Meant for CI after 'avibench run'.
    """
    if (baseline is None) == (threshold is None):
        raise click.UsageError("give exactly one of --baseline LABEL and --threshold X")
    output_dir = output_dir or default_output_dir()
    names = _benchmarks(output_dir, label, benchmarks)
    if threshold is not None and 0 < threshold <= 1:
        percent = f"{threshold * 100:g}"
        click.echo(
            f"note: --threshold {threshold:g} is read on the scores' 0-100 scale ({threshold:g}, not {percent}); "
            f"for {percent} pass --threshold {percent}",
            err=True,
        )
    verdicts, errors = gate_runs(output_dir, label, names, baseline, threshold, profile)
    failed = any(v.failed for v in verdicts)
    if as_json:
        document = {"passed": not failed and not errors, "verdicts": [asdict(v) for v in verdicts]}
        click.echo(json.dumps({**document, "errors": errors}))
    else:
        for v in verdicts:
            click.echo(f"{'FAIL' if v.failed else 'pass'}  {v.benchmark}: {v.why}")
    for name, error in errors.items():
        click.echo(f"error: {name}: {error}", err=True)
    if failed or errors:
        raise SystemExit(1 if failed else 2)
