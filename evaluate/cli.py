"""``avibench eval``: score a run's refined answers (or reference-format files) and write eval.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from avibench.config import default_data_root, default_output_dir, label_for, run_dir
from avibench.errors import AvibenchError
from avibench.evaluate.fense import ENV_MODE, FENSE_MODES, FenseConfig
from avibench.evaluate.predictions import reference_file_path, refine_journal_path
from avibench.evaluate.runner import PROFILES, evaluate
from avibench.evaluate.table import summary_table
from avibench.registry import AVIBENCH
from avibench.store import atomic_write_text


def _label_from_predictions(pred_dir: Path) -> str:
    """The run a predictions folder belongs to: the reference keeps files in ``<model>/tasks/``, and
    ``avibench export`` writes ``<run>/reference/tasks/``."""
    folder = pred_dir.resolve()
    if folder.name == "tasks":
        folder = folder.parent
    if folder.name == "reference" and any((folder.parent / stage).is_dir() for stage in ("infer", "refine")):
        folder = folder.parent
    return label_for(folder.name)


@click.command(name="eval")
@click.option(
    "--model", default=None, help="Model id of the run to score (its outputs/<label>/refine journals)."
)
@click.option(
    "--label", default=None, help="Run label (default: derived from --model or the predictions folder)."
)
@click.option(
    "--predictions",
    "pred_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Score reference-format files DIR/<TASK>.json (or DIR/tasks/<TASK>.json) instead of refine journals.",
)
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="reference",
    show_default=True,
    help="Profile written at the top level; both are computed and kept in summary.by_profile.",
)
@click.option(
    "--tasks",
    "task_names",
    default=None,
    help="Comma-separated tasks (VSQA selects both halves). Default: all.",
)
@click.option(
    "--data-root", type=click.Path(file_okay=False, path_type=Path), default=None, help="Dataset root."
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Runs folder (default outputs).",
)
@click.option(
    "--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="eval.json path."
)
@click.option(
    "--fense",
    "fense_mode",
    type=click.Choice(FENSE_MODES),
    default=None,
    help=f"FENSE models for AVC: real (configured local files), stand-in (packaged, not comparable) or off. "
    f"Default: ${ENV_MODE}, else real.",
)
def eval_command(
    model: str | None,
    label: str | None,
    pred_dir: Path | None,
    profile: str,
    task_names: str | None,
    data_root: Path | None,
    output_dir: Path | None,
    out_file: Path | None,
    fense_mode: str | None,
) -> None:
    """Score predictions against the dataset and write eval.json.

    \b
    avibench eval --model M                   scores outputs/<label>/refine/*.jsonl
    avibench eval --predictions DIR --out F   scores reference-format DIR/<TASK>.json files

    Both profiles are scored (reference reproduces the published evaluator, strict fixes its defects); AVC
    uses FENSE with models from AVIBENCH_FENSE_SBERT, AVIBENCH_FENSE_ECHECKER and AVIBENCH_FENSE_BERT, and is
    reported as not scored when they are missing. Exit code 1 when a prediction file is broken or a task
    failed to score; tasks without predictions are listed in coverage.
    """
    if model is None and pred_dir is None:
        raise click.UsageError("give --model (score a run's refine journals) or --predictions DIR")
    try:
        specs = AVIBENCH.select(task_names)
    except KeyError as exc:
        raise click.BadParameter(str(exc.args[0]), param_hint="--tasks") from None
    try:
        fense = FenseConfig.from_env(fense_mode)
    except ValueError as exc:
        raise AvibenchError(f"{ENV_MODE}: {exc}") from None
    root = data_root or default_data_root()
    if not root.is_dir():
        raise AvibenchError(f"dataset root {root} not found (use --data-root or set DATA_ROOT)")
    if label is None:
        label = label_for(model) if model else _label_from_predictions(pred_dir)  # type: ignore[arg-type]
    run = run_dir(output_dir or default_output_dir(), label)
    if pred_dir is not None:
        if not pred_dir.is_dir():
            raise AvibenchError(f"predictions folder {pred_dir} not found")
        if not any(reference_file_path(pred_dir, spec) for spec in specs):
            raise AvibenchError(
                f"no prediction files for the selected tasks in {pred_dir} (expected <TASK>.json or tasks/<TASK>.json)"
            )
        source, source_dir = "predictions", pred_dir
    else:
        if not any(refine_journal_path(run, spec).is_file() for spec in specs):
            raise AvibenchError(
                f"no refine journals for the selected tasks in {run / 'refine'}; "
                f"run 'avibench refine --model {model}' first"
            )
        source, source_dir = "refine", run
    result = evaluate(
        data_root=root,
        specs=specs,
        source=source,  # type: ignore[arg-type]
        source_dir=source_dir,
        profile=profile,
        fense=fense,
        model=model,
        label=label,
    )
    target = out_file or run / "eval.json"
    atomic_write_text(target, json.dumps(result.document, indent=4, ensure_ascii=False) + "\n")
    click.echo(summary_table(result.document))
    click.echo(f"wrote {target}")
    for error in result.errors:
        click.echo(f"error: {error}", err=True)
    if result.errors:
        sys.exit(1)
