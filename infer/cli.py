"""``avibench infer`` and ``avibench export``."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from avibench import __version__
from avibench.errors import AvibenchError
from avibench.failures import Advice, FailureGuard, MaxFailures, commonest
from avibench.infer.backends.base import Backend, BackendSettings, InferRequest, MediaStrategy, load_backend
from avibench.infer.journal import (
    Shard,
    TaskPlan,
    file_states,
    finished_plan,
    generation_settings,
    now_iso,
    plan_task,
    remember_answered,
    remember_finished,
)
from avibench.infer.media_options import AUDIO_RATE, request_options
from avibench.infer.probe_record import probe_path
from avibench.llm import ChatError, RetryPolicy, Scrubber, host_of
from avibench.manifest import (
    MEDIA_OUTSIDE_KEY,
    OTHER_DATA_HELP,
    bind_tasks,
    binding_differs,
    binding_of,
    check_binding,
    check_data,
    load_manifest,
    manifest_path,
    new_manifest,
    record_other_data,
    save_if_changed,
    unbind_unanswered,
    use_run_data,
)
from avibench.media_paths import MediaRef, allow_option, dataset_file, load_checked, media_refs, summary
from avibench.plugin import Benchmark, Task
from avibench.run_lock import run_lock
from avibench.run_options import RunLocation, locate, missing_data_root, no_task_found, run_options
from avibench.store import append_records, atomic_write_json
from avibench.streams import result_heading

if TYPE_CHECKING:  # media and progress load av, numpy and tqdm: imported when a run starts, not for --help
    from avibench.infer.probe import RunProbe
    from avibench.infer.progress import StageProgress
    from avibench.infer.runner import TaskOutcome

BASELINES = ("random", "oracle")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The sampling temperatures providers accept.
MAX_TEMPERATURE = 2.0


class Temperature(click.ParamType):
    """A temperature in [0, 2], or ``none`` to send none (the provider's default, as the reference does)."""

    name = "temperature"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float | None:
        if value is None or isinstance(value, float):
            return value
        if str(value).strip().lower() == "none":
            return None
        try:
            number = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number or 'none'", param, ctx)
        if not 0.0 <= number <= MAX_TEMPERATURE:
            self.fail(f"{value} is outside 0-{MAX_TEMPERATURE:g}", param, ctx)
        return number


def select_tasks(benchmark: Benchmark, data_root: Path, tasks: str | None) -> tuple[Task, ...]:
    """The tasks to run: those named (all must exist under the root), else the default tasks found there."""
    if not data_root.is_dir():
        raise AvibenchError(missing_data_root(benchmark, data_root))
    found = benchmark.available(data_root)
    if not tasks:
        chosen = tuple(t for t in benchmark.default_tasks() if t in found)
        if not chosen:
            raise AvibenchError(no_task_found(benchmark, data_root))
        return chosen
    specs = benchmark.select(tasks)
    for spec in specs:
        if spec not in found:
            files = ", ".join(str(p) for p in benchmark.data_files(data_root, spec))
            raise AvibenchError(f"{files}: file not found (task {spec.name})")
    return specs


def _notice(text: str) -> None:
    click.echo(text, err=True)


@dataclass
class RunSetup:
    run: RunLocation
    backend_name: str
    backend_cls: type[Backend]
    settings: BackendSettings
    request: InferRequest
    specs: tuple[Task, ...]
    max_failures: MaxFailures | None = None

    @property
    def host_list(self) -> list[str]:
        return [host_of(u) for u in self.settings.base_urls] if self.backend_cls.needs_credentials else []

    @property
    def hosts(self) -> str:
        return ", ".join(self.host_list) or f"the {self.backend_name} backend"


def provenance(setup: RunSetup, options: dict[str, Any]) -> dict[str, Any]:
    """run.json: what made this run (never the API key)."""
    return {
        "label": setup.run.label,
        "benchmark": setup.run.benchmark.name,
        "model": setup.request.model,
        "backend": setup.backend_name,
        "params": setup.request.params(),
        "media": str(setup.request.media),
        "drop_audio_with_video": setup.request.drop_audio_with_video,
        "audio_format": setup.request.audio_format,
        "audio_sample_rate": setup.request.audio_sample_rate,
        "stream": setup.request.stream,
        "base_url_hosts": [host_of(u) for u in setup.settings.base_urls]
        if setup.backend_cls.needs_credentials
        else [],
        "template": setup.request.template,
        "system_prompt": setup.request.system_prompt,
        "data_root": str(setup.run.data_root.resolve()),
        "dataset_fingerprint": setup.run.benchmark.fingerprint(setup.run.data_root, setup.specs),
        "tasks": [s.name for s in setup.specs],
        "version": __version__,
        **options,
    }


async def _execute(
    setup: RunSetup,
    plans: list[TaskPlan],
    concurrency: int,
    scrub: Scrubber,
    progress: StageProgress,
    media_probe: RunProbe,
) -> tuple[dict[str, TaskOutcome], str | None]:
    """Per-task outcomes and, when the run stopped early, why. The media probe goes first, on the same backend."""
    from avibench.infer.runner import Runner, initial_outcomes

    if not any(p.pending for p in plans):  # nothing to ask: do not even start the backend
        media_probe.settle("the run had nothing left to ask and no verdict on file")
        return initial_outcomes(plans), None
    guard = FailureGuard(advice=Advice(setup.request.model, setup.hosts), limit=setup.max_failures)
    async with setup.backend_cls(setup.settings) as backend:
        try:
            await media_probe.run(backend, setup.request)
        except ChatError as exc:  # a failure no request gets past: asking the questions would repeat it
            media_probe.settle(f"the probe failed: {exc}")
            return initial_outcomes(
                plans
            ), f"stopped before asking any question: {exc}; {guard.advice.fix(exc)}"
        for line in media_probe.lines():
            _notice(line)
        stop = media_probe.stop_reason(setup.request.model)
        if stop is not None:
            return initial_outcomes(plans), stop
        runner = Runner(
            backend,
            setup.backend_name,
            setup.request,
            concurrency=concurrency,
            scrub=scrub,
            on_answer=progress,
            guard=guard,
            empty_answers=setup.run.benchmark.empty_answers,
        )
        outcomes = await runner.run(plans)
        return outcomes, runner.stopped


@click.command(name="infer")
@run_options
@click.option(
    "--backend",
    "backend_name",
    help="Backend from the avibench.backends entry points (default openai; random/oracle follow --model).",
)
@click.option(
    "--tasks",
    help="Tasks to run, comma separated: task names, or groups (the group column of 'avibench tasks', spaces "
    "written as hyphens); default: the benchmark's default tasks found under the data root.",
)
@click.option(
    "--prompt-template",
    "template",
    default=None,
    help="Prompt template id (default: the benchmark's official one; see 'avibench benchmarks').",
)
@click.option("--system-prompt", default=None, help="System prompt (default: the benchmark's own).")
@click.option("--n-samples", type=click.IntRange(min=1), help="Ask at most the first N entries of each task.")
@click.option(
    "--variants",
    type=click.Choice(["all", "first"]),
    default="all",
    show_default=True,
    help="all: ask every variant of each item; first: ask only each item's first variant (e.g. STAR-Bench "
    "rotations off: rotation 0 only).",
)
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
    type=Temperature(),
    default="0",
    show_default=True,
    help="Sampling temperature sent with every request, 0-2, or 'none' to send none (as the reference does); "
    "0 makes runs repeatable.",
)
@click.option("--seed", type=int, help="Sent to the endpoint; also seeds the random baseline (default 0).")
@request_options
@click.option(
    "--audio-sample-rate",
    type=click.IntRange(min=8000, max=48000),
    default=None,
    help=f"Sample rate (Hz) of converted audio, mono (default {AUDIO_RATE} with --audio-format).",
)
@click.option(
    "--stream",
    is_flag=True,
    help="Ask for streamed answers, so each record also holds the time to the first token and decode speed.",
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
    "--device",
    default="auto",
    show_default=True,
    help="transformers backend: auto (cuda when available), cuda, cuda:N or cpu.",
)
@click.option(
    "--dtype",
    type=click.Choice(["auto", "bfloat16", "float16", "float32"]),
    default="auto",
    show_default=True,
    help="transformers backend: weights' dtype (auto: bfloat16 on GPU, float32 on CPU).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="transformers backend: the most questions generated together (out of memory halves a batch).",
)
@click.option(
    "--attn",
    default="sdpa",
    show_default=True,
    help="transformers backend: attention kernel (sdpa, flash_attention_2 where installed, eager).",
)
@click.option(
    "--max-failures",
    default=None,
    metavar="N|P%",
    help="Stop the run when more than N questions (or P% of those finished, judged after 20) have failed.",
)
@click.option(
    "--allow-mixed",
    is_flag=True,
    help="Add answers to a label whose answers were made with another model, backend or other generation "
    "settings (temperature, max tokens, media, template, system prompt); every page states the mix per task.",
)
@click.option("--allow-other-data", is_flag=True, help=OTHER_DATA_HELP)
@click.option(
    "--drop-audio-with-video",
    is_flag=True,
    help="Reproduce the reference: do not send a sample's audio files when it has a video.",
)
@allow_option
@click.option(
    "--skip-probe",
    is_flag=True,
    help="Do not check first that the model reads the run's audio, images and video (see 'avibench probe'); "
    "the pages then say 'media not verified'.",
)
def infer(**opts: Any) -> None:
    """Ask a model every selected sample and journal its answers; re-running carries on where it stopped.

    Answers go to OUTPUT_DIR/<label>/<benchmark>/infer/<TASK>.jsonl. --backend transformers runs a local
    checkpoint in-process (--model PATH; see --device, --dtype, --batch-size, --attn). Questions already answered are skipped
    and failed ones are asked again. The exit code is 1 if any question failed. A failure no retry can fix (a
    rejected key, a model the endpoint does not serve, no server accepting connections) stops the run after a
    few identical ones, with what to fix; so does --max-failures. Every invocation is appended to
    infer/runs.jsonl, and progress, new kinds of failure and the summary to infer/run.log.

    Before the first question, a media probe checks with a few tiny requests that the model reads each
    modality the questions send (see 'avibench probe'; verdicts are kept in infer/probe.json, so a re-run asks
    nothing again): a modality it ignores stops the run, one it cannot verify is a warning; --skip-probe skips it.

    Before any request, every media path must lie inside the data root (see --allow-media-outside-root) and every
    file to be sent must decode as the audio, image or video it is declared as; the first that does not stops the
    run (exit 2) naming its dataset file, entry and field. Files found good are remembered in
    infer/media_checked.json, so a resume decodes nothing again.

    The openai backend reads the key from OPENAI_API_KEY and the endpoint from --base-url or OPENAI_BASE_URL;
    --model random and --model oracle are offline baselines that need neither.
    """
    setup, plans, options = _prepare(opts)
    paths = setup.run.paths
    from avibench.infer.probe import RunProbe, endpoint_key, needed_modalities

    media_probe = RunProbe(
        probe_path(paths.infer_dir),
        endpoint_key(setup.request.model, setup.backend_name, setup.host_list, setup.request),
        needed_modalities((item for p in plans for item in p.pending), setup.request),
        skip=opts["skip_probe"],
        offline=not setup.backend_cls.reads_media,
    )
    scrub = Scrubber([setup.settings.api_key or ""])
    mixed = {p.task: dict(p.mixed) for p in plans if p.mixed}
    meta = {
        **provenance(setup, options),
        "started": now_iso(),
        **({"mixed_settings": mixed} if mixed else {}),
    }
    # a re-run with nothing to ask keeps run.json (the invocation that made the answers), which eval reads
    asks = any(p.pending for p in plans) or not paths.run_json.is_file()
    if asks:
        atomic_write_json(paths.run_json, meta)
    append_records(paths.runs_log, [{"event": "start", **meta}])
    from avibench.infer.progress import RunLog, StageProgress, summary_table

    log = RunLog(paths.stage_log("infer"))
    log.write(f"infer {setup.run.label}: model {setup.request.model}, backend {setup.backend_name}, tasks "
              f"{','.join(p.task for p in plans)}")  # fmt: skip
    if mixed:
        _notice(f"note: --allow-mixed: answers on record made with other settings: {mixed}")
    total = sum(p.already_done + len(p.pending) for p in plans)
    progress = StageProgress("infer", total, sum(p.already_done for p in plans), log=log)
    try:
        outcomes, stopped = asyncio.run(
            _execute(setup, plans, opts["concurrency"], scrub, progress, media_probe)
        )
    except KeyboardInterrupt:
        progress.close()
        line = (
            f"interrupted: {progress.done} answer(s) of this run saved in {paths.infer_dir} ({progress.failed} "
            "failed; questions in flight were not saved); re-run the same command to resume"
        )
        log.write(line)
        append_records(paths.runs_log, [{"event": "interrupted", "time": now_iso(), "saved": progress.done}])
        click.echo(line, err=True)
        sys.exit(130)
    progress.close()
    if not stopped:
        for plan in plans:
            outcome = outcomes.get(plan.task)
            if outcome is not None and not outcome.failed:
                remember_answered(plan, outcome.done)
    counts = {
        name: {"done": o.done, "failed": o.failed, "skipped": o.skipped} for name, o in outcomes.items()
    }
    end = {"finished": now_iso(), "counts": counts, "stopped": stopped, "media_probe": media_probe.verdicts()}
    if asks:
        atomic_write_json(paths.run_json, {**meta, **end})
    append_records(paths.runs_log, [{"event": "end", **end}])
    table = summary_table(outcomes.values())
    log.write("summary\n" + table)
    click.echo(result_heading("infer", paths.benchmark, paths.label))
    click.echo(table)
    errors = sum((o.errors for o in outcomes.values()), Counter())
    failed = sum(o.failed for o in outcomes.values())
    if failed:
        click.echo(f"commonest failure: {commonest(errors)}", err=True)
    if stopped:
        log.write(stopped)
        click.echo(stopped, err=True)
        sys.exit(1)
    if failed:
        click.echo(f"{failed} sample(s) failed; re-run the same command to retry them.", err=True)
        sys.exit(1)


def _extra_body(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise AvibenchError(f"--extra-body: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise AvibenchError(f"--extra-body: expected a JSON object, got {type(value).__name__}")
    return value


def _template(benchmark: Benchmark, template: str | None) -> str:
    if template is None:
        return benchmark.templates[0]
    if template not in benchmark.templates:
        raise AvibenchError(
            f"--prompt-template {template!r}: benchmark {benchmark.name} has {', '.join(benchmark.templates)}"
        )
    return template


def _prepare(opts: dict[str, Any]) -> tuple[RunSetup, list[TaskPlan], dict[str, Any]]:
    if not opts["model"]:
        raise click.UsageError(
            "infer needs --model (a model id, or random / oracle for the offline baselines)"
        )
    model: str = opts["model"].strip()
    backend_name = opts["backend_name"] or (model if model in BASELINES else "openai")
    backend_cls = load_backend(backend_name)
    try:
        media = MediaStrategy.parse(opts["media"])
        shard = Shard.parse(opts["shard"])
    except ValueError as exc:
        raise AvibenchError(str(exc)) from None
    if opts["audio_sample_rate"] is not None and opts["audio_format"] is None:
        raise AvibenchError(
            "--audio-sample-rate applies to converted audio: add --audio-format wav, flac or mp3"
        )
    run = locate(
        opts["benchmark_name"], model, opts["label"], opts["output_dir"], opts["data_root"], notice=_notice
    )
    manifest = load_manifest(run.benchmark, run.paths, _notice)
    run = use_run_data(run, manifest, opts["data_root"])
    template = _template(run.benchmark, opts["template"])
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
    settings = BackendSettings(
        model=model,
        api_key=api_key,
        base_urls=base_urls,
        timeout=opts["timeout"],
        retry=RetryPolicy(max_attempts=opts["max_attempts"], base_delay=opts["retry_delay"]),
        rpm=opts["rpm"],
        max_connections=max(opts["concurrency"], 1),
        seed=opts["seed"] if opts["seed"] is not None else 0,
        benchmark=run.benchmark,
        device=opts["device"],
        dtype=opts["dtype"],
        batch_size=opts["batch_size"],
        attn=opts["attn"],
    )
    request = InferRequest(
        model=model,
        temperature=opts["temperature"],
        max_tokens=opts["max_tokens"],
        seed=opts["seed"],
        media=media,
        drop_audio_with_video=opts["drop_audio_with_video"],
        system_prompt=opts["system_prompt"],
        extra_body=_extra_body(opts["extra_body"]),
        template=template,
        audio_format=opts["audio_format"],
        audio_sample_rate=opts["audio_sample_rate"],
        stream=opts["stream"],
    )
    specs = select_tasks(run.benchmark, run.data_root, opts["tasks"])
    click.get_current_context().with_resource(  # held until the command ends: nobody else plans these questions
        run_lock(run.paths.root, "infer", run.label, (shard.index, shard.count))
    )
    manifest = _bind(run, manifest, binding_of(model, backend_name, request.provenance()), specs, opts)
    setup = RunSetup(
        run=run,
        backend_name=backend_name,
        backend_cls=backend_cls,
        settings=settings,
        request=request,
        specs=specs,
        max_failures=MaxFailures.parse(opts["max_failures"]) if opts["max_failures"] else None,
    )

    def plan(spec: Task) -> TaskPlan:
        """The task's plan; a task found finished before, with nothing it rests on changed, is not checked again."""
        journal = run.paths.infer_journal(spec.name)
        inputs = {
            "version": __version__,
            "benchmark": run.benchmark.name,
            "data": file_states(run.benchmark.data_files(run.data_root, spec)),
            "model": model,
            "request": request.provenance(),
            "selection": [opts["n_samples"], str(shard), opts["variants"], opts["allow_mixed"]],
        }
        finished = finished_plan(journal, spec.name, inputs)
        if finished is not None:
            return finished
        items, outside = load_checked(
            run.benchmark, run.data_root, spec, template, allow=opts["allow_media_outside_root"]
        )
        if outside:
            manifest.setdefault(MEDIA_OUTSIDE_KEY, {})[spec.name] = summary(outside)
        planned = plan_task(
            items,
            journal,
            spec.name,
            model,
            n_samples=opts["n_samples"],
            shard=shard,
            first_only=opts["variants"] == "first",
            settings=lambda item: generation_settings({**request.provenance(), **request.for_item(item)}),
            allow_mixed=opts["allow_mixed"],
        )
        remember_finished(planned, items, inputs)
        planned.stamp = (items, inputs)
        return planned

    plans = [plan(spec) for spec in specs]
    if backend_cls.reads_media:
        from avibench.infer.media_verdicts import CACHE_NAME, DecodeCache, check_decodes

        check_decodes(_sent_media(run, plans, request), DecodeCache(run.paths.infer_dir / CACHE_NAME))
    save_if_changed(run.paths, manifest)
    options = {
        "n_samples": opts["n_samples"],
        "variants": opts["variants"],
        "shard": str(shard),
        "concurrency": opts["concurrency"],
        "rpm": opts["rpm"],
        "timeout": opts["timeout"],
        "max_attempts": opts["max_attempts"],
        "retry_delay": opts["retry_delay"],
    }
    return setup, plans, options


def _sent_media(run: RunLocation, plans: list[TaskPlan], request: InferRequest) -> Iterator[MediaRef]:
    """The media files the pending questions send, in the order they are asked."""
    from avibench.infer.media import sent_parts

    for plan in plans:
        file = dataset_file(run.benchmark, run.data_root, run.benchmark.task(plan.task))
        for item in plan.pending:
            sent = sent_parts(item, request)
            yield from (ref for ref in media_refs([item], file) if ref.part in sent)


def _bind(
    run: RunLocation,
    manifest: dict[str, Any] | None,
    binding: dict[str, Any],
    specs: tuple[Task, ...],
    opts: dict[str, Any],
) -> dict[str, Any]:
    """Check this invocation against the run's manifest (a new run gets one); the manifest with its tasks.

    Data changed in place under the run is left to the journal check, which names the question that changed."""
    names = [s.name for s in specs]
    if manifest is None:
        manifest = new_manifest(run.paths, binding, run.data_root, created_by="infer")
        mixed = False
    else:
        if binding_differs(manifest, binding, names):
            unbind_unanswered(run.paths, manifest, binding)
        recorded = [t for t in manifest.get("tasks") or {} if t in {s.name for s in run.benchmark.tasks()}]
        same_root = Path(str(manifest.get("data_root"))).resolve() == run.data_root.resolve()
        other = (
            []
            if same_root
            else check_data(
                run.benchmark,
                run.paths,
                manifest,
                run.data_root,
                list(dict.fromkeys([*recorded, *names])),
                stage="answer",
                allow_other_data=opts["allow_other_data"],
            )
        )
        if other:
            record_other_data(run.paths, manifest, "infer", run.data_root, other)
        mixed = bool(check_binding(run.paths, manifest, binding, names, allow_mixed=opts["allow_mixed"]))
        if mixed:
            _notice(f"note: --allow-mixed: {manifest_path(run.paths)} now records the binding of each task")
    bind_tasks(manifest, binding, run.benchmark, run.data_root, specs, mixed=mixed)
    return manifest


@click.command(name="export")
@run_options
@click.option("--format", "fmt", type=click.Choice(["reference"]), default="reference", show_default=True)
@click.option(
    "--stage",
    type=click.Choice(["refine", "infer"]),
    default="refine",
    show_default=True,
    help="refine: the refined answers (what the official scorer reads); infer: the raw answers.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Where to write (default: OUTPUT_DIR/<label>/<benchmark>/reference).",
)
@click.option("--tasks", help="Tasks to export (default: every task with a journal).")
@click.option("--allow-other-data", is_flag=True, help=OTHER_DATA_HELP)
def export(fmt: str, stage: str, out: Path | None, tasks: str | None, **opts: Any) -> None:
    """Write a run's answers in the official pipeline's prediction format (nothing where missing or failed)."""
    from avibench.contracts import journal_responses

    run = locate(
        opts["benchmark_name"],
        opts["model"],
        opts["label"],
        opts["output_dir"],
        opts["data_root"],
        notice=_notice,
    )
    if not run.paths.infer_dir.is_dir():
        raise AvibenchError(f"{run.paths.infer_dir}: no infer journals for run {run.label!r}")
    specs = [
        t
        for t in (run.benchmark.select(tasks) if tasks else run.benchmark.tasks())
        if run.paths.infer_journal(t.name).is_file()
    ]
    if not specs:
        raise AvibenchError(f"{run.paths.infer_dir}: no journal for the selected tasks")
    manifest = load_manifest(run.benchmark, run.paths, _notice)
    run = use_run_data(run, manifest, opts["data_root"])
    allowed = opts["allow_other_data"]
    if check_data(
        run.benchmark, run.paths, manifest, run.data_root, specs, stage="export", allow_other_data=allowed
    ):
        _notice(f"note: --allow-other-data: exporting run {run.label!r} against the data at {run.data_root}")
    responses = {
        t.name: journal_responses(run.paths, t.name, run.benchmark.load(run.data_root, t)) for t in specs
    }
    target = out or run.paths.root / "reference"
    written = run.benchmark.write_predictions(responses, target, stage=stage)
    for task, path in written.items():
        answered = sum(r.status == "answered" for r in responses[task])
        click.echo(f"{path}: {answered} answers")
