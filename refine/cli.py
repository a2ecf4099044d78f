"""``avibench refine``: normalise a run's raw answers to each task family's canonical format."""

from __future__ import annotations

import sys
from collections import Counter
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from avibench.contracts import REFINE_METHODS as METHODS
from avibench.errors import AvibenchError
from avibench.manifest import OTHER_DATA_HELP, check_data, load_manifest, record_other_data, use_run_data
from avibench.run_lock import run_lock
from avibench.run_options import locate, run_options
from avibench.streams import result_heading

if TYPE_CHECKING:  # the runner loads the LLM client and the rules: imported when refine runs, not for --help
    from avibench.refine.runner import TaskSummary


def _summary_line(s: TaskSummary) -> str:
    counts = " ".join(f"{m}={s.methods[m]}" for m in METHODS if s.methods[m])
    share = "-" if s.share_without_llm is None else f"{100 * s.share_without_llm:.1f}%"
    line = (
        f"{s.task:<7} answered={s.done:<5} refined now={s.refined_now:<5} requests={s.requests:<4} "
        f"without LLM={share:<6} changed={s.changed:<4} {counts}"
    )
    return line + (f" (commonest failure: {s.commonest_error})" if s.errors else "")


@click.command(name="refine")
@run_options
@click.option(
    "--tasks", default=None, help="Comma-separated task folders (default: all with an infer journal)."
)
@click.option(
    "--mode",
    type=click.Choice(["auto", "rules", "llm"]),
    default="auto",
    show_default=True,
    help="auto: rules, then the LLM for what they leave; rules: no LLM; llm: every answer through the LLM.",
)
@click.option("--refine-model", default=None, help="Refine LLM (default REFINE_MODEL or gemini-2.5-flash).")
@click.option("--refine-base-url", default=None, help="OpenAI-compatible base URL(s), comma-separated.")
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=None, help="Parallel LLM requests (default 8)."
)
@click.option(
    "--reparse",
    is_flag=True,
    help="Re-apply the current rules to every refined answer (after the rules improved); LLM replies already "
    "paid for are re-read, never asked again.",
)
@click.option("--progress/--no-progress", default=True, help="Show a progress bar for LLM work.")
@click.option("--allow-other-data", is_flag=True, help=OTHER_DATA_HELP)
def refine(
    benchmark_name: str,
    model: str | None,
    label: str | None,
    output_dir: Path | None,
    data_root: Path | None,
    tasks: str | None,
    mode: str,
    refine_model: str | None,
    refine_base_url: str | None,
    concurrency: int | None,
    reparse: bool,
    progress: bool,
    allow_other_data: bool,
) -> None:
    """Normalise raw answers to each task family's canonical format; resumable per sample.

    Reads outputs/<label>/<benchmark>/infer/<TASK>.jsonl and appends to .../refine/<TASK>.jsonl. The LLM is
    configured by REFINE_MODEL, REFINE_BASE_URL and REFINE_API_KEY (falling back to OPENAI_BASE_URL and
    OPENAI_API_KEY), REFINE_CONCURRENCY, REFINE_TIMEOUT and REFINE_MAX_RETRIES; its replies are cached in
    <output dir>/.refine-cache.jsonl, shared by every label. Before using infer's endpoint (OPENAI_BASE_URL without REFINE_BASE_URL) refine checks
    that it serves the refine model; a rejected key or an unknown model stops refine at the first request.
    """
    notice = partial(click.echo, err=True)
    run = locate(benchmark_name, model, label, output_dir, data_root, notice=notice)
    selected = run.benchmark.select(tasks) if tasks else run.benchmark.tasks()
    if not run.paths.infer_dir.is_dir():
        raise AvibenchError(
            f"{run.paths.infer_dir}: no infer results for run {run.label!r}; run 'avibench infer' first"
        )
    from avibench.failures import commonest
    from avibench.refine.llm_fallback import LLMSettings
    from avibench.refine.runner import refine_run

    manifest = load_manifest(run.benchmark, run.paths, notice)
    run = use_run_data(run, manifest, data_root)
    answered = [t for t in selected if run.paths.infer_journal(t.name).is_file()]
    other = check_data(
        run.benchmark,
        run.paths,
        manifest,
        run.data_root,
        answered,
        stage="refine",
        allow_other_data=allow_other_data,
    )
    if manifest and other:
        record_other_data(run.paths, manifest, "refine", run.data_root, other)
    click.get_current_context().with_resource(run_lock(run.paths.root, "refine", run.label))
    settings = LLMSettings.from_env(model=refine_model, base_urls=refine_base_url, concurrency=concurrency)
    if mode == "llm" and not settings.configured:
        raise AvibenchError(
            "--mode llm needs REFINE_BASE_URL/REFINE_API_KEY (or OPENAI_BASE_URL/OPENAI_API_KEY)"
        )
    llm_note = f"LLM {settings.model}" if settings.configured and mode != "rules" else "no LLM"
    if settings.configured and mode != "rules" and settings.borrowed:
        llm_note += " at OPENAI_BASE_URL (no REFINE_BASE_URL set)"
    click.echo(f"refine {run.label}: mode {mode}, {llm_note}", err=True)
    click.echo(result_heading("refine", run.benchmark.name, run.label))
    try:
        summaries = refine_run(
            run.benchmark,
            selected,
            data_root=run.data_root,
            paths=run.paths,
            mode=mode,  # type: ignore[arg-type]
            settings=settings,
            progress=progress,
            reparse=reparse,
            on_task=lambda s: click.echo(_summary_line(s)),
        )
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: answers refined so far are saved in {run.paths.refine_dir} (LLM replies in its cache); "
            "re-run the same command to resume",
            err=True,
        )
        sys.exit(130)
    failed = sum(s.failed for s in summaries)
    done = sum(s.done for s in summaries)
    free = sum(s.methods["rule"] + s.methods["passthrough"] for s in summaries)
    unparsed = sum(s.methods["unparsed"] for s in summaries)
    share = f"{100 * free / done:.1f}%" if done else "-"
    changed = sum(s.changed for s in summaries)
    click.echo(
        f"total: answered={done} without LLM={share} unparsed={unparsed} failed={failed} changed={changed}"
    )
    errors = sum((s.errors for s in summaries), Counter())
    if errors:
        click.echo(f"commonest failure: {commonest(errors)}", err=True)
    if failed:
        click.echo(f"{failed} refinements failed; re-run the same command to retry them.", err=True)
        sys.exit(1)
