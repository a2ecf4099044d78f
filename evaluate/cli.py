"""``avibench eval``: score a run's refined answers (or official-format predictions) and write eval.json."""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from avibench import __version__
from avibench.background import Background
from avibench.config import label_for
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate import reuse
from avibench.evaluate.completeness import (
    EXIT_INCOMPLETE,
    answer_provenance,
    asked_subset,
    fill_coverage,
    incomplete_summary,
    task_gaps,
    unrefined_notes,
    warning_lines,
)
from avibench.evaluate.document import as_dict
from avibench.evaluate.run_files import throughput
from avibench.evaluate.samples import interval_row, questions, sample_row_of, samples_file, write_pending
from avibench.evaluate.unparsed import unparsed_of
from avibench.infer.probe_record import probe_path, recorded_verdicts
from avibench.manifest import (
    OTHER_DATA_HELP,
    check_data,
    check_model,
    load_manifest,
    manifest_path,
    record_other_data,
    run_meta,
    use_run_data,
)
from avibench.plugin import (
    PROFILES,
    Benchmark,
    EvalRequest,
    Task,
    benchmark_names,
    declared_eval_options,
    deprecation_notice,
    get_benchmark,
)
from avibench.run_options import locate, run_options
from avibench.store import PendingLines, atomic_write_text
from avibench.streams import result_heading


def _label_from_predictions(path: Path) -> str:
    """The run a predictions path belongs to: the reference keeps files in ``<model>/tasks/``, and
    ``avibench export`` writes ``<run>/reference/tasks/``."""
    folder = path.resolve()
    if folder.is_file():
        return label_for(folder.stem)
    if folder.name == "tasks":
        folder = folder.parent
    if folder.name == "reference" and any((folder.parent / stage).is_dir() for stage in ("infer", "refine")):
        folder = folder.parent.parent  # <label>/<benchmark>/reference
    return label_for(folder.name)


def recorded_template(paths: RunPaths) -> str | None:
    """The prompt template the run was asked with, as infer recorded it in run.json (``None``: unrecorded)."""
    try:
        run = json.loads(paths.run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    template = run.get("template") if isinstance(run, dict) else None
    return str(template) if template else None


HELP_FOR = "avibench.help_for"
"""``ctx.meta`` key: set when ``--help`` is asked, to the benchmark named on the command line (``None``: none)."""


class PluginOptionsCommand(click.Command):
    """A command that also takes every installed benchmark's own options; the command itself names none of them.

    The option names come from each plug-in's light declaration (``avibench.eval_options``), so parsing imports
    only the plug-in that scores. ``--help`` lists the options of the benchmark named with ``--benchmark`` under
    it."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if any(a in ("--help", "-h") for a in args):
            named = [a.partition("=")[2] for a in args if a.startswith("--benchmark=")]
            named += [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--benchmark"]
            ctx.meta[HELP_FOR] = named[-1] if named else None
        return super().parse_args(ctx, args)

    def plugin_options(self, ctx: click.Context) -> dict[str, list[click.Option]]:
        """Benchmark name -> its options: every installed benchmark's, or only the one asked for help."""
        names = benchmark_names()
        if HELP_FOR in ctx.meta:
            names = [n for n in names if n == ctx.meta[HELP_FOR]]
        out: dict[str, list[click.Option]] = {}
        core = super().get_params(ctx)
        for name in names:
            try:
                out[name] = checked_eval_options(name, declared_eval_options(name), core)
            except AvibenchError:
                continue  # a plug-in that does not load, or names an option like eval's, is refused when asked for
        return out

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = list(super().get_params(ctx))
        seen = {p.name for p in params}
        for options in self.plugin_options(ctx).values():
            for option in options:
                if option.name not in seen:  # an option several benchmarks share is parsed once
                    seen.add(option.name)
                    params.insert(-1, option)  # before --help
        return params

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        own = [p.get_help_record(ctx) for p in super().get_params(ctx)]
        with formatter.section("Options"):
            formatter.write_dl([r for r in own if r is not None])
        if ctx.meta.get(HELP_FOR) is None:
            with formatter.section("Options of a benchmark"):
                formatter.write_text("Each benchmark's own options: avibench eval --benchmark NAME --help")
            return
        name = ctx.meta[HELP_FOR]
        try:
            options = checked_eval_options(name, declared_eval_options(name), super().get_params(ctx))
        except AvibenchError as exc:
            with formatter.section(f"Options of --benchmark {name}"):
                formatter.write_text(f"refused: {exc}")
            return
        records = [r for o in options if (r := o.get_help_record(ctx)) is not None]
        title = get_benchmark(name).title or name
        with formatter.section(f"Options of {title} (--benchmark {name})"):
            if records:
                formatter.write_dl(records)
            else:
                formatter.write_text("none")


def checked_eval_options(
    name: str, declared: Sequence[click.Option], core: Sequence[click.Parameter]
) -> list[click.Option]:
    """The eval options the benchmark ``name`` declares; one named like an option of eval itself (``--profile``)
    would be listed and never reach the plug-in, so the plug-in is refused, naming the option."""
    options = list(declared)
    names = {p.name for p in core}
    flags = {flag for p in core for flag in (*p.opts, *p.secondary_opts)}
    clashes = sorted(
        "/".join(o.opts) for o in options if o.name in names or (set(o.opts) | set(o.secondary_opts)) & flags
    )
    if clashes:
        raise AvibenchError(
            f"benchmark {name} declares the eval option {', '.join(clashes)}, named like eval's own "
            "option, which would take its value: the plug-in must rename it (docs/plugins.md)"
        )
    return options


def own_options(benchmark: Benchmark, given: dict[str, Any]) -> dict[str, Any]:
    """The plug-in options ``benchmark`` declares, by name. Another benchmark's option is left out with a note
    (a script that runs several benchmarks may pass one benchmark's options to all of them)."""
    ctx = click.get_current_context(silent=True)
    core = click.Command.get_params(ctx.command, ctx) if ctx is not None else []
    names = {o.name for o in checked_eval_options(benchmark.name, benchmark.eval_options(), core)}

    def user_gave(name: str) -> bool:  # another benchmark's option left at its default was not given
        return ctx is None or ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)

    foreign = sorted(
        name for name, value in given.items() if value is not None and name not in names and user_gave(name)
    )
    if foreign:
        flags = ", ".join("--" + name.replace("_", "-") for name in foreign)
        click.echo(f"note: {flags}: not an option of benchmark {benchmark.name}, ignored", err=True)
    return {name: value for name, value in given.items() if name in names}


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while eval runs: it builds a few hundred thousand small objects (items,
    scores, rows) that live until it ends and form no cycles to free early, and the collector walking them again
    and again took about a tenth of an eval."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@click.command(name="eval", cls=PluginOptionsCommand)
@run_options
@click.option(
    "--predictions",
    "pred_path",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="Score the official pipeline's output at PATH instead of the run's journals; each benchmark reads its "
    "own official format (docs/<benchmark>.md; AVI-Bench: DIR/<TASK>.json or DIR/tasks/<TASK>.json).",
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
    help="Comma-separated tasks, or groups (the group column of 'avibench tasks', spaces written as hyphens). "
    "Default: the benchmark's default task set.",
)
@click.option(
    "--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="eval.json path."
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help=f"Exit 0 even when a selected task is incomplete (default: exit {EXIT_INCOMPLETE} after the warning).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="Write the run's eval.json even when this eval scores less of it than the eval.json there (default: "
    "write such an eval beside it, named after what it scored).",
)
@click.option("--allow-other-data", is_flag=True, help=OTHER_DATA_HELP)
@_without_cyclic_gc()
def eval_command(
    benchmark_name: str,
    model: str | None,
    label: str | None,
    output_dir: Path | None,
    data_root: Path | None,
    pred_path: Path | None,
    profile: str,
    task_names: str | None,
    out_file: Path | None,
    allow_partial: bool,
    replace: bool,
    allow_other_data: bool,
    **plugin_options: Any,
) -> None:
    """Score answers against the dataset and write eval.json.

    \b
    avibench eval --model M                      scores the run's refine journals
    avibench eval --predictions PATH [--out F]   scores the official pipeline's prediction files

    Both profiles are scored (reference reproduces the official scorer, strict fixes its defects). The top
    level of eval.json holds the official scorer's own output for the chosen profile, beside summary (both
    profiles, 0-100), coverage and meta. Exit code 1 when a prediction file is broken or a task failed to score;
    3 (after a warning, unless --allow-partial) when a selected task has missing, failed, unrefined
    or unscored questions: summary.incomplete then lists them and every number that rests on them.

    \b
    Answers refine has not seen yet: one the benchmark's rules read as it stands
    is scored, and eval says how many (a note; meta.unrefined_read); one they
    cannot read (or any, for a plug-in that scores itself) is unrefined: exit 3.
    """
    if model is None and label is None and pred_path is None:
        raise click.UsageError("give --model or --label (score a run's journals) or --predictions PATH")
    if label is None and model is None:
        label = _label_from_predictions(pred_path)  # type: ignore[arg-type]
    notice = partial(click.echo, err=True)
    run = locate(benchmark_name, model, label, output_dir, data_root, notice=notice)
    manifest = load_manifest(run.benchmark, run.paths, notice)
    check_model(run.paths, manifest, model)
    run = use_run_data(run, manifest, data_root)
    benchmark = run.benchmark
    options = own_options(benchmark, plugin_options)
    if (deprecated := deprecation_notice(benchmark)) is not None:
        click.echo(deprecated, err=True)
    tasks = benchmark.select(task_names)
    scored_here = [t for t in tasks if pred_path is not None or run.paths.infer_journal(t.name).is_file()]
    other = check_data(
        benchmark,
        run.paths,
        manifest,
        run.data_root,
        scored_here,
        stage="score",
        allow_other_data=allow_other_data,
    )
    other_entry = (
        record_other_data(run.paths, manifest, "eval", run.data_root, other) if manifest and other else None
    )
    if pred_path is None and not any(
        run.paths.refine_journal(t.name).is_file() or run.paths.infer_journal(t.name).is_file() for t in tasks
    ):
        raise AvibenchError(
            f"no journals for the selected tasks in {run.paths.root}; run 'avibench infer' and "
            f"'avibench refine --benchmark {benchmark.name} --label {run.label}' first"
        )
    target = out_file or run.paths.eval_json
    read = [f for t in tasks for f in benchmark.data_files(run.data_root, t)] + [manifest_path(run.paths)]
    if pred_path is None:
        read += [run.paths.run_json, probe_path(run.paths.infer_dir)]
        read += [
            j for t in tasks for j in (run.paths.infer_journal(t.name), run.paths.refine_journal(t.name))
        ]
    stamp = reuse.input_stamp(
        read,
        pred_path,
        {
            "benchmark": benchmark.name,
            "data_root": str(run.data_root.resolve()),
            "run": str(run.paths.root.resolve()),
            "model": model,
            "profile": profile,
            "tasks": [t.name for t in tasks],
            "explicit_tasks": task_names is not None,
            "allow_partial": allow_partial,
            "replace": replace,
            "allow_other_data": allow_other_data,
            "options": options,
        },
        run_root=run.paths.root,
        plugin=reuse.plugin_state(benchmark, options),
    )
    # where eval.json cannot be written, eval runs and fails as it always did, naming the path
    done = reuse.reusable(target, stamp) if os.access(target.parent, os.W_OK) else None
    if done is not None:
        reuse.replay(done)
        return
    reuse.forget(target)
    request = EvalRequest(
        data_root=run.data_root,
        tasks=tasks,
        profile=profile,
        paths=run.paths,
        predictions=pred_path,
        options=options,
        model=model,
        template=None if pred_path is not None else recorded_template(run.paths),
    )
    scored = benchmark.evaluate(request)
    document = scored.document
    meta = document.setdefault("meta", {})
    meta.setdefault("profile", profile)
    meta.setdefault("version", __version__)
    meta.setdefault("model", model)
    meta.setdefault("label", run.label)
    meta.setdefault("source", "predictions" if pred_path is not None else "refine")
    meta.setdefault("created", datetime.now(UTC).isoformat(timespec="seconds"))
    meta.setdefault("data_root", str(run.data_root.resolve()))
    if request.template is not None:
        meta.setdefault("template", request.template)
    meta["benchmark"] = benchmark.name
    if options and benchmark.declared:  # what the core read with (a self-scoring plug-in records its own)
        meta.setdefault(
            "options",
            {
                k: v if v is None or isinstance(v, str | int | float | bool) else str(v)
                for k, v in options.items()
            },
        )
    meta["dataset"] = benchmark.dataset_kind(run.data_root, tasks)
    if manifest:
        meta["run"] = run_meta(manifest, other_entry)
    journals = pred_path is None
    if journals:
        meta.update(answer_provenance(run.paths, tasks, lambda t: benchmark.load(run.data_root, t)))
        meta["media_probe"] = recorded_verdicts(run.paths.infer_dir)
        meta["throughput"] = throughput(run.paths, [t.name for t in tasks])
    gaps = task_gaps(
        benchmark,
        run.paths,
        tasks,
        document,
        data_root=run.data_root,
        journals=journals,
    )
    fill_coverage(benchmark, document, tasks, gaps, run.data_root)
    incomplete = incomplete_summary(benchmark, gaps, tasks)
    if incomplete is not None:
        document.setdefault("summary", {})["incomplete"] = incomplete
    if read_unrefined := {name: gap.read_unrefined for name, gap in gaps.items() if gap.read_unrefined}:
        meta["unrefined_read"] = read_unrefined
    asked = partial(questions, benchmark, run.data_root, run.paths, tasks, scored.per_sample, scored.values)
    with PendingLines(target.parent) as samples:
        lines = partial(
            write_pending, (sample_row_of(benchmark, q, run.data_root, profile) for q in asked()), samples
        )
        # the lines are written while the intervals are computed
        with Background(lines, "writing samples.jsonl"):
            rows = [interval_row(benchmark, q, profile) for q in asked()]
            if rows and isinstance(document.get("summary"), dict):
                from avibench.evaluate.uncertainty import run_intervals  # numpy: imported only when scoring

                document["summary"]["intervals"] = run_intervals(
                    benchmark, rows, document["summary"], profile
                )
        requested = target
        kept = None if replace or target != run.paths.eval_json else _scores_less(benchmark, target, document)
        if kept is not None:
            target = target.with_name(f"eval-{_scored_name(tasks) if task_names else 'partial'}.json")
        atomic_write_text(target, json.dumps(document, indent=4, ensure_ascii=False) + "\n")
        samples.commit(samples_file(target))
    unparsed = unparsed_of(as_dict(document.get("coverage")))
    lines = [
        (False, result_heading("eval", benchmark.name, run.label)),
        *((False, line) for line in benchmark.summary_lines(document)),
        (False, f"unparsed: {unparsed.count()} (strict profile)"),
        *([(True, f"WARNING: {unparsed.warning()}")] if unparsed.mostly else []),
        *((True, f"error: {error}") for error in scored.errors),
        *((True, note) for note in scored.notes),
        *(
            (True, line)
            for line in warning_lines(
                benchmark,
                run.label,
                gaps,
                allow_partial=allow_partial,
                subset=asked_subset(run.paths) if journals else None,
            )
        ),
        *((True, line) for line in unrefined_notes(gaps, benchmark, run.label)),
        (False, f"wrote {target}"),
    ]
    if kept is not None:
        lines.append(
            (
                True,
                f"note: kept {run.paths.eval_json}, which scores more ({kept}); this eval is in {target} "
                "(pass --replace to replace eval.json with it)",
            )
        )
    for err, line in lines:
        click.echo(line, err=err)
    code = (
        1
        if scored.errors
        else EXIT_INCOMPLETE
        if any(g.incomplete for g in gaps.values()) and not allow_partial
        else 0
    )
    if not scored.errors and target == requested:  # a failed task or judge request is retried next time
        reuse.record(target, stamp, [target, samples_file(target)], lines=lines, exit_code=code)
    if code:
        sys.exit(code)


def complete_tasks(benchmark: Benchmark, document: dict[str, Any]) -> set[str]:
    """The reported tasks an eval.json scored completely: a score and nothing missing, failed or unrefined."""
    summary = document.get("summary") if isinstance(document.get("summary"), dict) else {}
    scores = summary.get("tasks") if isinstance(summary.get("tasks"), dict) else {}
    incomplete = summary.get("incomplete") if isinstance(summary.get("incomplete"), dict) else {}
    partial = {benchmark.reported_task(folder) for folder in incomplete.get("tasks") or {}}
    return {task for task, score in scores.items() if score is not None} - partial


def _scores_less(benchmark: Benchmark, path: Path, document: dict[str, Any]) -> str | None:
    """What the eval.json at ``path`` scores completely that ``document`` does not (None: nothing)."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(old, dict):
        return None
    lost = sorted(complete_tasks(benchmark, old) - complete_tasks(benchmark, document))
    if not lost:
        return None
    return f"{', '.join(lost) if len(lost) <= 4 else f'{len(lost)} tasks'} complete there, not here"


def _scored_name(tasks: tuple[Task, ...] | list[Task]) -> str:
    """A file-name part for the selected tasks: their names, or their count when there are many."""
    names = [t.name for t in tasks]
    return label_for("-".join(names) if len(names) <= 4 else f"{len(names)}tasks")
