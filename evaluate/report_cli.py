"""``avibench report`` and ``avibench leaderboard``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import click

from avibench.config import default_output_dir
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate import reuse
from avibench.evaluate.board_runs import BoardOptions, entry_refusals
from avibench.evaluate.document import Paragraph, as_dict, write_document
from avibench.evaluate.leaderboard import write_leaderboard
from avibench.evaluate.page_reuse import Printed, page_stamp, replayed
from avibench.evaluate.report import build_report
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.sections import ReportOptions
from avibench.manifest import page_caveats
from avibench.plugin import Benchmark
from avibench.run_options import benchmark_option, locate, resolve_benchmark

#: The flag that sets each user-supplied entry field, named in validation messages.
ENTRY_FLAGS = {
    "id": "--id",
    "model_name": "--model-name",
    "provider": "--provider",
    "model_id": "--model-id",
    "benchmark_version": "--benchmark-version",
    "model_release_date": "--release-date",
    "model_release_source_url": "--release-url",
    "source.type": "--source-type",
    "source.url": "--source-url",
    "submitter": "--submitter",
    "notes": "--notes",
}


class ValidationFailed(AvibenchError):
    """A leaderboard entry or file that breaks schema rules; the message lists every broken rule."""

    def __init__(self, what: str, problems: list[str]):
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{what} breaks {len(problems)} leaderboard schema rule(s):\n{lines}")


def _output_dir_option(func):
    return click.option(
        "--output-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder holding the runs (default: $OUTPUT_DIR or outputs).",
    )(func)


@click.command(name="report")
@benchmark_option
@click.option("--model", "model", default=None, help="Model id of the run (its label is derived from it).")
@click.option("--label", envvar="MODEL_LABEL", default=None, help="Run label; overrides --model.")
@_output_dir_option
@click.option(
    "--price-in", type=float, default=None, help="USD per million prompt tokens (adds a cost column)."
)
@click.option("--price-out", type=float, default=None, help="USD per million completion tokens.")
@click.option(
    "--published",
    "published_names",
    default=None,
    metavar="NAMES",
    help="Comma-separated published models to draw beside the run (default: the three best).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for report.md and report.html (default: beside eval.json).",
)
@click.option(
    "--allow-other-data",
    is_flag=True,
    help="Write the report although the run was scored on other data than it was made from (stated on the page).",
)
def report(
    benchmark_name: str,
    model: str | None,
    label: str | None,
    output_dir: Path | None,
    price_in: float | None,
    price_out: float | None,
    published_names: str | None,
    out: Path | None,
    allow_other_data: bool,
) -> None:
    """Write report.md and a self-contained report.html beside the run's eval.json (or into --out).

    A report whose run files, data, options and code are unchanged since it was written is left as it is, and
    what it printed is printed again; delete report.md to build it again."""
    if (price_in is None) != (price_out is None):
        raise click.UsageError("give both --price-in and --price-out, or neither")
    run = locate(benchmark_name, model, label, output_dir, None, notice=partial(click.echo, err=True))
    meta = as_dict(load_eval(run.paths).get("meta"))
    names = tuple(n.strip() for n in published_names.split(",") if n.strip()) if published_names else None
    _check_published(run.benchmark, names)
    md, page = (
        (out / "report.md", out / "report.html") if out else (run.paths.report_md, run.paths.report_html)
    )
    stamp = page_stamp(
        run,
        meta,
        {
            "page": str(md.resolve()),
            "price": [price_in, price_out],
            "published": names,
            "other": allow_other_data,
        },
    )
    if replayed(md, stamp):
        return
    printed = Printed()
    notes = page_caveats(
        run.benchmark,
        run.paths,
        meta,
        stage="report",
        allow_other_data=allow_other_data,
        notice=printed.notice,
    )
    options = ReportOptions(price_in=price_in, price_out=price_out, published=names)
    doc = build_report(run.benchmark, run.paths, options)
    doc.blocks[1:1] = [Paragraph(note) for note in notes]  # right under the run's introduction
    write_document(doc, md, page)
    printed(f"wrote {md}")
    printed(f"wrote {page}")
    reuse.record(md, stamp, [md, page], lines=printed.lines, exit_code=0)


def _check_published(benchmark: Benchmark, names: Sequence[str] | None) -> None:
    """Refuse a ``--published`` name the benchmark has no published row for, listing the ones it has."""
    known = [str(r["model"]) for r in benchmark.published()]
    unknown = [n for n in names or () if n.lower() not in {k.lower() for k in known}]
    if unknown:
        listed = ", ".join(dict.fromkeys(known)) or "none"
        raise AvibenchError(
            f"--published: no published {benchmark.name} result named {', '.join(map(repr, unknown))}; "
            f"published: {listed}"
        )


def _with_flags(problems: list[str]) -> list[str]:
    """Append the flag that fixes a field to each problem about a user-supplied field."""
    out = []
    for problem in problems:
        field = problem.split(":", 1)[0].removeprefix("entry.")
        flag = ENTRY_FLAGS.get(field)
        out.append(f"{problem} (set it with {flag})" if flag else problem)
    return out


@click.command(name="leaderboard")
@benchmark_option
@_output_dir_option
@click.option(
    "--entry", "entry_label", default=None, metavar="LABEL", help="Print LABEL's official-format entry."
)
@click.option(
    "--runs",
    "run_list",
    default=None,
    metavar="A,B",
    help="Show only these run labels (comma-separated; default: every run with an eval.json).",
)
@click.option(
    "--include-unofficial",
    is_flag=True,
    help="Rank runs on a generated sample or other data beside the published results, marked.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --entry: print the entry of a run on other data or with stand-in FENSE anyway.",
)
@click.option(
    "--validate",
    "validate_path",
    default=None,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Check a leaderboard results.json file against schema v2.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the leaderboard pages (default: the output dir).",
)
@click.option(
    "--id", "entry_id", default=None, help="Entry id slug (default: from model name and benchmark version)."
)
@click.option("--model-name", default=None, help="Display name (default: eval.json meta.model).")
@click.option("--provider", default=None, help="Provider or research group.")
@click.option("--model-id", default=None, help="Exact model identifier (default: eval.json meta.model).")
@click.option("--benchmark-version", default=None, help="AVI-Bench only (default: the release scored).")
@click.option(
    "--release-date", default=None, metavar="YYYY-MM-DD", help="Official release date of the model."
)
@click.option("--release-url", default=None, metavar="https://...", help="Source of the release date.")
@click.option(
    "--source-type", default="participant", show_default=True, help="paper, participant or maintainer."
)
@click.option("--source-url", default=None, metavar="https://...", help="Where the result is documented.")
@click.option("--submitter", default=None)
@click.option("--notes", default=None, help="At most 1000 characters (default: profile and version used).")
@click.option(
    "--tasks/--no-tasks",
    "with_tasks",
    default=False,
    show_default=True,
    help="Include the 14 per-task scores in scores.tasks (published entries leave it empty).",
)
def leaderboard(
    benchmark_name: str,
    output_dir: Path | None,
    entry_label: str | None,
    run_list: str | None,
    include_unofficial: bool,
    force: bool,
    validate_path: Path | None,
    out: Path | None,
    **fields: object,
) -> None:
    """Rank every run in the output dir beside the published results (leaderboard.md/.html/.json).

    \b
    Only runs on the official dataset are ranked; runs on a generated sample or other data are listed in a
    table of their own (rank them anyway, marked, with --include-unofficial).
    With --entry LABEL, print that run's entry in the official leaderboard format (schema v2) instead,
    after checking it against every schema rule; a run on other data or with stand-in FENSE needs --force.
    With --validate FILE, check a results.json file.
    """
    output_dir = output_dir or default_output_dir()
    benchmark = resolve_benchmark(benchmark_name)
    entry_options = {k: v for k, v in fields.items() if k not in ("source_type", "with_tasks")}
    if entry_label is None and (
        any(v is not None for v in entry_options.values())
        or fields["source_type"] != "participant"
        or fields["with_tasks"]
    ):
        raise click.UsageError(
            "the entry options (--provider, --release-date, ...) only apply with --entry LABEL"
        )
    if entry_label is None and force:
        raise click.UsageError("--force only applies with --entry LABEL")
    if entry_label is None and validate_path is None:
        runs = tuple(r.strip() for r in run_list.split(",") if r.strip()) if run_list else None
        options = BoardOptions(runs=runs, include_unofficial=include_unofficial, out=out)
        for path in write_leaderboard(benchmark, output_dir, options):
            click.echo(f"wrote {path}")
        return
    if run_list or include_unofficial:
        raise click.UsageError(
            "--runs and --include-unofficial shape the leaderboard pages, not --entry or --validate"
        )
    if not benchmark.has_submission_format:
        raise click.UsageError(
            f"--entry and --validate use a benchmark's official leaderboard file format; {benchmark.name} has "
            "none (the AVI-Bench one: --benchmark avibench)"
        )
    from avibench.evaluate.run_files import load_eval

    if validate_path is not None and entry_label is not None:
        raise click.UsageError("--validate and --entry are separate modes; pass one of them")
    if validate_path is not None:
        count, problems = benchmark.validate_submission(validate_path)
        if problems:
            raise ValidationFailed(str(validate_path), problems)
        click.echo(f"{validate_path}: valid leaderboard file (schema v2, {count} entries)")
        return
    if entry_label is not None:
        doc = load_eval(RunPaths(output_dir, entry_label, benchmark.name))
        refusals = entry_refusals(as_dict(doc.get("meta")))
        if refusals and not force:
            raise AvibenchError(
                f"run '{entry_label}' is not comparable with the leaderboard: {'; '.join(refusals)}. "
                "Pass --force to print its entry anyway."
            )
        entry, problems = benchmark.submission_entry(doc, entry_label, fields)
        if problems:
            raise ValidationFailed(f"the entry for run '{entry_label}'", _with_flags(problems))
        click.echo(json.dumps(entry, indent=2, ensure_ascii=False))
