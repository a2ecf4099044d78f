"""``avibench infer`` and ``avibench export``."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from avibench import __version__
from avibench.config import default_data_root, default_output_dir, label_for, run_dir
from avibench.dataset import available_tasks, fingerprint, task_dir
from avibench.errors import AvibenchError
from avibench.infer.backends.base import Backend, BackendSettings, InferRequest, MediaStrategy, load_backend
from avibench.infer.export import export_reference
from avibench.infer.journal import Shard, TaskPlan, infer_dir, now_iso, plan_task
from avibench.infer.progress import RunProgress, summary_table
from avibench.infer.runner import Runner, TaskOutcome, initial_outcomes
from avibench.llm import RetryPolicy, Scrubber
from avibench.registry import AVIBENCH, TaskSpec
from avibench.store import atomic_write_json

BASELINES = ("random", "oracle")
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def select_tasks(data_root: Path, tasks: str | None) -> tuple[TaskSpec, ...]:
    """The tasks to run: those named (all must exist under the root), else every task found there."""
    if not data_root.is_dir():
        raise AvibenchError(f"dataset root {data_root} does not exist (set --data-root or DATA_ROOT)")
    if not tasks:
        found = available_tasks(data_root)
        if not found:
            raise AvibenchError(f"{data_root}: no task found (expected <root>/<stage>/<TASK>/data.json)")
        return found
    try:
        specs = AVIBENCH.select(tasks)
    except KeyError as exc:
        raise AvibenchError(f"--tasks: {exc.args[0]}") from None
    for spec in specs:
        if not (task_dir(data_root, spec) / "data.json").is_file():
            raise AvibenchError(
                f"{task_dir(data_root, spec) / 'data.json'}: file not found (task {spec.name})"
            )
    return specs


def host_of(url: str) -> str:
    """Scheme, host and port of a base URL: no user info, path or query is recorded."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")


@dataclass
class RunSetup:
    label: str
    backend_name: str
    backend_cls: type[Backend]
    settings: BackendSettings
    request: InferRequest
    data_root: Path
    run_dir: Path
    specs: tuple[TaskSpec, ...]


def provenance(setup: RunSetup, options: dict[str, Any]) -> dict[str, Any]:
    """run.json: what made this run (never the API key)."""
    return {
        "label": setup.label,
        "model": setup.request.model,
        "backend": setup.backend_name,
        "params": setup.request.params(),
        "media": str(setup.request.media),
        "drop_audio_with_video": setup.request.drop_audio_with_video,
        "base_url_hosts": [host_of(u) for u in setup.settings.base_urls]
        if setup.backend_cls.needs_credentials
        else [],
        "data_root": str(setup.data_root),
        "dataset_fingerprint": fingerprint(setup.data_root, setup.specs),
        "tasks": [s.name for s in setup.specs],
        "version": __version__,
        **options,
    }


async def _execute(
    setup: RunSetup, plans: list[TaskPlan], concurrency: int, scrub: Scrubber
) -> dict[str, TaskOutcome]:
    if not any(p.pending for p in plans):  # nothing to ask: do not even start the backend
        return initial_outcomes(plans)
    total = sum(p.already_done + len(p.pending) for p in plans)
    progress = RunProgress(total, sum(p.already_done for p in plans))
    try:
        async with setup.backend_cls(setup.settings) as backend:
            runner = Runner(
                backend,
                setup.backend_name,
                setup.request,
                concurrency=concurrency,
                scrub=scrub,
                on_answer=progress,
            )
            return await runner.run(plans)
    finally:
        progress.close()


@click.command(name="infer")
@click.option(
    "--model",
    required=True,
    help="Model id sent to the endpoint, or 'random' / 'oracle' (offline baselines).",
)
@click.option(
    "--label",
    envvar="MODEL_LABEL",
    help="Run label: outputs go to OUTPUT_DIR/<label>/ (default: from --model).",
)
@click.option(
    "--backend",
    "backend_name",
    help="Backend from the avibench.backends entry points (default openai; random/oracle follow --model).",
)
@click.option(
    "--data-root",
    type=click.Path(path_type=Path),
    help="Dataset root (default: $DATA_ROOT, data/levels, data/sample).",
)
@click.option(
    "--output-dir", type=click.Path(path_type=Path), help="Where runs go (default: $OUTPUT_DIR or outputs)."
)
@click.option(
    "--tasks", help="Tasks to run, comma separated (VSQA selects VSQA_I and VSQA_V); default: all found."
)
@click.option("--n-samples", type=click.IntRange(min=1), help="Ask at most the first N entries of each task.")
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Requests in flight over the whole run.",
)
@click.option(
    "--rpm", type=click.FloatRange(min=0, min_open=True), help="Requests per minute limit (retries included)."
)
@click.option(
    "--base-url",
    "base_urls",
    multiple=True,
    help="Endpoint base URL; repeat to spread requests over several servers (default $OPENAI_BASE_URL).",
)
@click.option(
    "--temperature",
    type=float,
    default=0.0,
    show_default=True,
    help="Sampling temperature sent with every request (the reference sends none; 0 makes runs repeatable).",
)
@click.option("--max-tokens", type=click.IntRange(min=1), help="Answer length limit sent with every request.")
@click.option("--seed", type=int, help="Sent to the endpoint; also seeds the random baseline (default 0).")
@click.option(
    "--media",
    default="data-uri",
    show_default=True,
    help="How videos are sent: data-uri, video-url (vLLM) or frames:N.",
)
@click.option(
    "--shard",
    default="0/1",
    show_default=True,
    help="Run part i of n (0-based): samples whose index is i modulo n.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=180.0,
    show_default=True,
    help="Seconds per request.",
)
@click.option(
    "--max-attempts",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Requests per sample before it is recorded as failed.",
)
@click.option(
    "--retry-delay",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="Seconds before the first retry; doubled for each further retry, up to 30 s (a server's Retry-After wins).",
)
@click.option(
    "--drop-audio-with-video",
    is_flag=True,
    help="Reproduce the reference: do not send a sample's audio files when it has a video.",
)
def infer(**opts: Any) -> None:
    """Ask a model every selected sample and journal its answers; re-running carries on where it stopped.

    Answers go to OUTPUT_DIR/<label>/infer/<TASK>.jsonl. Samples already answered are skipped and failed ones
    are asked again. The exit code is 1 if any sample failed.

    The openai backend reads the key from OPENAI_API_KEY and the endpoint from --base-url or OPENAI_BASE_URL;
    --model random and --model oracle are offline baselines that need neither.
    """
    setup, plans, options = _prepare(opts)
    scrub = Scrubber([setup.settings.api_key or ""])
    meta = {**provenance(setup, options), "started": now_iso()}
    atomic_write_json(infer_dir(setup.run_dir) / "run.json", meta)
    outcomes = asyncio.run(_execute(setup, plans, opts["concurrency"], scrub))
    counts = {
        name: {"done": o.done, "failed": o.failed, "skipped": o.skipped} for name, o in outcomes.items()
    }
    atomic_write_json(
        infer_dir(setup.run_dir) / "run.json", {**meta, "finished": now_iso(), "counts": counts}
    )
    click.echo(summary_table(outcomes.values()), err=True)
    failed = sum(o.failed for o in outcomes.values())
    if failed:
        click.echo(f"{failed} sample(s) failed; re-run the same command to retry them.", err=True)
        sys.exit(1)


def _prepare(opts: dict[str, Any]) -> tuple[RunSetup, list[TaskPlan], dict[str, Any]]:
    model: str = opts["model"].strip()
    backend_name = opts["backend_name"] or (model if model in BASELINES else "openai")
    backend_cls = load_backend(backend_name)
    try:
        media = MediaStrategy.parse(opts["media"])
        shard = Shard.parse(opts["shard"])
        label = opts["label"] or label_for(model)
    except ValueError as exc:
        raise AvibenchError(str(exc)) from None
    api_key = os.environ.get("OPENAI_API_KEY") or None
    base_urls = tuple(opts["base_urls"]) or tuple(
        u for u in os.environ.get("OPENAI_BASE_URL", "").split(",") if u.strip()
    )
    if backend_cls.needs_credentials:
        if not api_key:
            raise AvibenchError(
                f"the {backend_name} backend needs OPENAI_API_KEY (and OPENAI_BASE_URL or --base-url for a "
                "non-OpenAI endpoint); or run offline with --model random or --model oracle"
            )
        base_urls = base_urls or (DEFAULT_BASE_URL,)
    data_root = opts["data_root"] or default_data_root()
    settings = BackendSettings(
        model=model,
        api_key=api_key,
        base_urls=base_urls,
        timeout=opts["timeout"],
        retry=RetryPolicy(max_attempts=opts["max_attempts"], base_delay=opts["retry_delay"]),
        rpm=opts["rpm"],
        max_connections=max(opts["concurrency"], 1),
        seed=opts["seed"] if opts["seed"] is not None else 0,
    )
    request = InferRequest(
        model=model,
        temperature=opts["temperature"],
        max_tokens=opts["max_tokens"],
        seed=opts["seed"],
        media=media,
        drop_audio_with_video=opts["drop_audio_with_video"],
    )
    specs = select_tasks(data_root, opts["tasks"])
    setup = RunSetup(
        label=label,
        backend_name=backend_name,
        backend_cls=backend_cls,
        settings=settings,
        request=request,
        data_root=data_root,
        run_dir=run_dir(opts["output_dir"] or default_output_dir(), label),
        specs=specs,
    )
    plans = [
        plan_task(data_root, spec, setup.run_dir, model, n_samples=opts["n_samples"], shard=shard)
        for spec in specs
    ]
    options = {
        "n_samples": opts["n_samples"],
        "shard": str(shard),
        "concurrency": opts["concurrency"],
        "rpm": opts["rpm"],
        "timeout": opts["timeout"],
        "max_attempts": opts["max_attempts"],
        "retry_delay": opts["retry_delay"],
    }
    return setup, plans, options


@click.command(name="export")
@click.option("--model", required=True, help="Run label (or the model id it was derived from).")
@click.option("--format", "fmt", type=click.Choice(["reference"]), default="reference", show_default=True)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Folder to write tasks/<TASK>.json into (default: OUTPUT_DIR/<label>/reference).",
)
@click.option("--data-root", type=click.Path(path_type=Path), help="Dataset root the run was made from.")
@click.option(
    "--output-dir", type=click.Path(path_type=Path), help="Where runs are (default: $OUTPUT_DIR or outputs)."
)
@click.option("--tasks", help="Tasks to export (default: every task with a journal).")
def export(
    model: str, fmt: str, out: Path | None, data_root: Path | None, output_dir: Path | None, tasks: str | None
) -> None:
    """Write a run's answers as the reference pipeline's prediction files (null where missing or failed)."""
    label = label_for(model)
    folder = run_dir(output_dir or default_output_dir(), label)
    if not infer_dir(folder).is_dir():
        raise AvibenchError(f"{infer_dir(folder)}: no infer journals for run {label!r}")
    root = data_root or default_data_root()
    specs = select_tasks(root, tasks) if tasks else AVIBENCH.tasks
    target = out or folder / "reference"
    written = export_reference(root, specs, folder, target)
    if not written:
        raise AvibenchError(f"{infer_dir(folder)}: no journal for the selected tasks")
    for task, count in written.items():
        click.echo(f"{target / 'tasks' / (task + '.json')}: {count} answers")
