"""``avibench demo``: the whole pipeline on the generated sample benchmark, offline, as a self-test.

It generates the sample data, runs the ``oracle`` and ``random`` baselines through infer, refine (rules
only), eval (with stand-in FENSE models, labelled so) and report, then checks that the oracle scores 100 on
every task but AVC in both profiles. If it does not, something in the pipeline is broken and the demo fails.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import click

from avibench.benchmarks.avibench.table import summary_numbers
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError

PERFECT = 100.0
TOLERANCE = 0.01
BASELINES = ("oracle", "random")
#: How many standard errors a random run's task score may stray from the task's chance level. A per-question
#: score in [0, 1] with mean p has variance at most p(1 - p), so a task of n questions strays by more than
#: Z * sqrt(p(1 - p) / n) only when the random baseline or a scorer is broken (or with odds below 1 in 10,000).
CHANCE_Z = 4.0
#: Points of slack for tasks whose chance level is near 0 or 100 (the Monte Carlo estimates are not exact).
CHANCE_FLOOR = 2.0


def _run(args: list[str]) -> None:
    """Run one avibench command in-process; a non-zero exit stops the demo with the command named."""
    from avibench.cli import cli

    click.secho(f"\n$ avibench {' '.join(args)}", bold=True)
    try:
        code = cli.main(args=args, prog_name="avibench", standalone_mode=False)
    except SystemExit as exc:
        code = exc.code
    if code:
        raise AvibenchError(f"demo step 'avibench {' '.join(args)}' failed with exit code {code}")


def oracle_failures(eval_doc: dict) -> list[str]:
    """Tasks (other than AVC) where the oracle is not perfect, per profile."""
    failures = []
    for profile, block in eval_doc["summary"]["by_profile"].items():
        for task, score in block["tasks"].items():
            if task == "AVC":
                continue
            if score is None or abs(score - PERFECT) > TOLERANCE:
                failures.append(f"{profile}/{task}: {score}")
    return failures


def chance_rows(eval_doc: dict) -> list[tuple[str, float, float, float]]:
    """Per task (AVC excluded: FENSE has no answer space to guess from): the run's score, the chance level and
    the tolerance its number of formal questions allows (see :data:`CHANCE_Z`)."""
    summary = eval_doc["summary"]
    counts = summary["by_profile"][summary["profile"]]["counts"]
    rows = []
    for task, chance in summary["chance"].items():
        if task == "AVC":
            continue
        n = counts.get(task, 0)
        p = chance / 100
        tolerance = max(CHANCE_FLOOR, CHANCE_Z * 100 * math.sqrt(p * (1 - p) / max(n, 1)))
        rows.append((task, summary["tasks"].get(task) or 0.0, chance, tolerance))
    return rows


def _headline(label: str, eval_doc: dict) -> str:
    numbers = summary_numbers(eval_doc["summary"])
    stages, tax = numbers["stages"], numbers["taxonomy"]
    cells = [stages.get(s.name) for s in AVIBENCH.stages] + [
        numbers["overall"],
        *(tax.get(k) for k in sorted(tax)),
    ]
    return f"{label:<8}" + "".join(f"{'-' if v is None else f'{v:.2f}':>9}" for v in cells)


def _second_benchmark(root: Path, out: Path, seed: int) -> dict[str, float | None]:
    """The oracle through MMAR's sample, to show a second benchmark plug-in in the same pipeline; its headline per
    profile."""
    _run(["sample-data", "--benchmark", "mmar", "--out", str(root), "--seed", str(seed)])
    common = ["--benchmark", "mmar", "--data-root", str(root), "--output-dir", str(out), "--model", "oracle"]
    _run(["infer", *common])
    _run(["refine", *common, "--mode", "rules"])
    _run(["eval", *common])
    doc = json.loads(RunPaths(out, "oracle", "mmar").eval_json.read_text())
    return {p: block.get("headline") for p, block in doc["summary"]["by_profile"].items()}


@click.command(name="demo")
@click.option(
    "--data-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data/sample"),
    show_default=True,
)
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
def demo(data_root: Path, output_dir: Path | None, seed: int) -> None:
    """Run the whole pipeline offline on the sample benchmark with the oracle and random baselines, then the
    oracle through MMAR's sample as a second benchmark."""
    out = output_dir or default_output_dir()
    _run(["sample-data", "--out", str(data_root), "--seed", str(seed)])
    _run(["validate-data", str(data_root)])
    common = ["--data-root", str(data_root), "--output-dir", str(out)]
    for model in BASELINES:
        _run(["infer", "--model", model, "--seed", str(seed), *common])
        _run(["refine", "--model", model, "--mode", "rules", *common])
        _run(["eval", "--model", model, "--fense", "stand-in", *common])
        _run(["report", "--model", model, "--output-dir", str(out)])
    _run(["leaderboard", "--output-dir", str(out)])
    mmar_headlines = _second_benchmark(data_root.parent / "mmar-sample", out, seed)

    paths = {m: RunPaths(out, m, AVIBENCH.name) for m in BASELINES}
    docs = {m: json.loads(paths[m].eval_json.read_text()) for m in BASELINES}
    header = f"{'model':<8}" + "".join(
        f"{h:>9}" for h in ("Percep.", "Underst.", "Reason.", "Sensat.", "Overall", "L1", "L2", "L3", "L4")
    )
    click.secho(
        "\nHeadline (0-100; AVC uses stand-in FENSE models, not comparable to published FENSE)", bold=True
    )
    click.echo(header)
    for model, doc in docs.items():
        click.echo(_headline(model, doc))
    click.echo(
        f"\nReports: {', '.join(str(paths[m].report_html) for m in BASELINES)}; leaderboard: {out / 'leaderboard.md'}"
    )
    rows = chance_rows(docs["random"])
    click.echo(
        "\nrandom vs chance (per task, score/chance +- tolerance): "
        + ", ".join(f"{t} {s:.1f}/{c:.1f}+-{tol:.1f}" for t, s, c, tol in rows)
    )
    failures = oracle_failures(docs["oracle"])
    failures += [
        f"random scores {s:.1f} on {t}, more than {tol:.1f} points from its chance level {c:.1f}"
        for t, s, c, tol in rows
        if abs(s - c) > tol
    ]
    click.echo(
        "\nMMAR through the same pipeline (oracle): "
        + ", ".join(f"{p} {v:.2f}" if v is not None else f"{p} -" for p, v in mmar_headlines.items())
    )
    failures += [f"mmar/{p}: {v}" for p, v in mmar_headlines.items() if v != PERFECT]
    if failures:
        click.secho("SELF-TEST FAILED: " + "; ".join(failures), fg="red", err=True)
        sys.exit(1)
    click.secho(
        "Self-test passed: the oracle scores 100 on every task but AVC in both profiles; random lands near chance.",
        fg="green",
    )
