"""``avibench report`` and ``avibench leaderboard``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from avibench.config import default_output_dir, label_for
from avibench.errors import AvibenchError
from avibench.evaluate.leaderboard import (
    EntryFields,
    read_results,
    run_entry,
    validate_entry,
    validate_results,
    write_leaderboard,
)
from avibench.evaluate.published import BENCHMARK_VERSION
from avibench.evaluate.report import load_eval, write_report

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
@click.option("--model", "model", default=None, help="Model id of the run (its label is derived from it).")
@click.option("--label", default=None, help="Run label (folder under the output dir); overrides --model.")
@_output_dir_option
def report(model: str | None, label: str | None, output_dir: Path | None) -> None:
    """Write outputs/<label>/report.md and a self-contained report.html from the run's eval.json and journals."""
    if not label and not model:
        raise click.UsageError("pass --model MODEL or --label LABEL")
    if not label:
        try:
            label = label_for(model or "")
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--model") from None
    md_path, html_path = write_report(output_dir or default_output_dir(), label)
    click.echo(f"wrote {md_path}")
    click.echo(f"wrote {html_path}")


def _with_flags(problems: list[str]) -> list[str]:
    """Append the flag that fixes a field to each problem about a user-supplied field."""
    out = []
    for problem in problems:
        field = problem.split(":", 1)[0].removeprefix("entry.")
        flag = ENTRY_FLAGS.get(field)
        out.append(f"{problem} (set it with {flag})" if flag else problem)
    return out


@click.command(name="leaderboard")
@_output_dir_option
@click.option(
    "--entry", "entry_label", default=None, metavar="LABEL", help="Print LABEL's official-format entry."
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
    "--id", "entry_id", default=None, help="Entry id slug (default: from model name and benchmark version)."
)
@click.option("--model-name", default=None, help="Display name (default: eval.json meta.model).")
@click.option("--provider", default=None, help="Provider or research group.")
@click.option("--model-id", default=None, help="Exact model identifier (default: eval.json meta.model).")
@click.option("--benchmark-version", default=BENCHMARK_VERSION, show_default=True)
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
    output_dir: Path | None, entry_label: str | None, validate_path: Path | None, **fields: object
) -> None:
    """Rank every run in the output dir beside the published results (leaderboard.md/.html/.json).

    \b
    With --entry LABEL, print that run's entry in the official leaderboard format (schema v2) instead,
    after checking it against every schema rule. With --validate FILE, check a results.json file.
    """
    output_dir = output_dir or default_output_dir()
    entry_fields = EntryFields(**fields)
    if validate_path is not None and entry_label is not None:
        raise click.UsageError("--validate and --entry are separate modes; pass one of them")
    if entry_label is None and entry_fields != EntryFields():
        raise click.UsageError(
            "the entry options (--provider, --release-date, ...) only apply with --entry LABEL"
        )
    if validate_path is not None:
        results = read_results(validate_path)
        problems = validate_results(results)
        if problems:
            raise ValidationFailed(str(validate_path), problems)
        count = len(results["entries"])
        click.echo(f"{validate_path}: valid leaderboard file (schema v2, {count} entries)")
        return
    if entry_label is not None:
        doc = load_eval(output_dir / entry_label, entry_label)
        entry = run_entry(doc, entry_label, entry_fields)
        problems = validate_entry(entry)
        if problems:
            raise ValidationFailed(f"the entry for run '{entry_label}'", _with_flags(problems))
        click.echo(json.dumps(entry, indent=2, ensure_ascii=False))
        return
    for path in write_leaderboard(output_dir):
        click.echo(f"wrote {path}")
