"""``avibench run``: one model through infer, refine, eval, report and the viewer on several benchmarks, then
its card.

It drives the stage commands themselves, in-process, with the arguments a user would type, so a run made
this way is the same run the separate commands make, with the same resumability: re-running carries on where
it stopped and a finished run asks nothing. Options it does not know are handed to every stage command that
declares them (``--concurrency 16`` goes to infer and refine); ``--STAGE.OPTION`` (``--infer.concurrency 16``)
hands one to that stage only. A benchmark's data is its ``--data-root BENCH=DIR``, else its download folder;
without either it is not run (a row of the card says so) unless ``--sample`` lets it fall back to the generated
sample. One benchmark's failure never stops the others.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from avibench.cli import UNWRITABLE, unwritable_message
from avibench.commands import complete_sample
from avibench.config import default_output_dir, label_for
from avibench.contracts import RunPaths
from avibench.errors import AvibenchError
from avibench.evaluate.card import TASKS_INSTEAD, BenchmarkOutcome, build_card, write_card
from avibench.evaluate.completeness import EXIT_INCOMPLETE
from avibench.evaluate.document import fmt_score
from avibench.plugin import Benchmark, benchmark_names, get_benchmark
from avibench.run_options import DEFAULT_BENCHMARK, label_option, output_dir_option

#: The stage commands a benchmark goes through, in order.
STAGES = ("infer", "refine", "eval", "report", "view")
SAMPLE_DATA = "sample-data"
#: A stage's exit code on Ctrl-C: the run stops there (re-running carries on).
EXIT_INTERRUPTED = 130
#: Options ``run`` sets itself for every stage; passing one through would contradict it.
RESERVED = frozenset(
    {
        "--benchmark",
        "--model",
        "--label",
        "--output-dir",
        "--data-root",
        "--allow-partial",
        "--tasks",
        "--predictions",
        "--out",
        "--serve",
        "--port",
        "--help",
        "-h",
    }
)
EXIT_ERROR = 1
EXIT_USAGE = 2


@dataclass(frozen=True)
class StageOption:
    """A pass-through option as the stage commands declare it."""

    stages: tuple[str, ...]
    takes_value: bool


def _commands(ctx: click.Context) -> dict[str, click.Command]:
    """The stage commands and ``sample-data``, loaded as ``avibench`` itself loads them."""
    from avibench.cli import cli

    commands = {}
    for name in (SAMPLE_DATA, *STAGES):
        command = cli.get_command(ctx, name)
        if command is None:
            raise AvibenchError(f"stage command {name!r} is not installed")
        commands[name] = command
    return commands


def stage_options(commands: Mapping[str, click.Command]) -> dict[str, StageOption]:
    """Every option name (``--x``, ``--no-x``) the stage commands declare, with the stages that take it."""
    found: dict[str, list[str]] = {}
    value: dict[str, bool] = {}
    for stage in STAGES:
        command = commands[stage]
        for param in command.get_params(click.Context(command)):  # plug-ins' own options included
            if not isinstance(param, click.Option):
                continue
            for name in (*param.opts, *param.secondary_opts):
                found.setdefault(name, []).append(stage)
                value.setdefault(name, not (param.is_flag or param.count))
    return {name: StageOption(tuple(stages), value[name]) for name, stages in found.items()}


def route_options(args: Sequence[str], options: Mapping[str, StageOption]) -> dict[str, list[str]]:
    """Split the pass-through arguments by stage; an unknown or reserved option is a usage error."""
    routed: dict[str, list[str]] = {stage: [] for stage in STAGES}
    tokens = iter(args)
    for token in tokens:
        if not token.startswith("-"):
            raise click.UsageError(f"unexpected argument {token!r}: run takes options only")
        name, sep, inline = token.partition("=")
        scope: tuple[str, ...] | None = None
        stage, dot, rest = name[2:].partition(".")
        if name.startswith("--") and dot:
            if stage not in STAGES:
                raise click.UsageError(f"{name}: {stage!r} is not a stage ({', '.join(STAGES)})")
            scope, name = (stage,), f"--{rest}"
        if name in RESERVED:
            raise click.UsageError(f"{name} is set by 'avibench run' itself (see 'avibench run --help')")
        option = options.get(name)
        if option is None or (scope is not None and scope[0] not in option.stages):
            where = f"the {scope[0]} stage" if scope else "any stage"
            raise click.UsageError(f"no such option: {name} (not an option of {where})")
        passed = [name]
        if sep:
            passed = [f"{name}={inline}"]
        elif option.takes_value:
            value = next(tokens, None)
            if value is None:
                raise click.UsageError(f"option {name} requires a value")
            passed.append(value)
        for target in scope or option.stages:
            routed[target].extend(passed)
    return routed


def select_benchmarks(names: str) -> list[Benchmark]:
    """``all`` (the default benchmark first, then the others by name) or a comma-separated list, in order.

    With ``all``, a plug-in that cannot be loaded is left out with a warning rather than stopping the others."""
    installed = benchmark_names()
    if names.strip().lower() == "all":
        loaded = []
        for name in sorted(installed, key=lambda n: (n != DEFAULT_BENCHMARK, n)):
            try:
                loaded.append(get_benchmark(name))
            except Exception as exc:  # a broken third-party plug-in must not hide the others
                click.echo(
                    f"warning: {name}: cannot be loaded ({type(exc).__name__}: {exc}); not run", err=True
                )
        return loaded
    wanted = list(dict.fromkeys(n.strip().lower() for n in names.split(",") if n.strip()))
    if not wanted:
        raise click.UsageError("--benchmarks: name at least one benchmark, or 'all'")
    unknown = [n for n in wanted if n not in installed]
    if unknown:
        raise click.UsageError(
            f"--benchmarks: unknown {', '.join(unknown)}; installed: {', '.join(installed)}"
        )
    return [get_benchmark(n) for n in wanted]


def parse_data_roots(values: Sequence[str], selected: Sequence[Benchmark]) -> dict[str, Path]:
    """``BENCH=DIR`` pairs; each must name a selected benchmark and an existing folder."""
    names = {b.name for b in selected}
    roots: dict[str, Path] = {}
    for value in values:
        bench, sep, folder = value.partition("=")
        bench = bench.strip().lower()
        if not sep or not bench or not folder:
            raise click.UsageError(f"--data-root {value!r}: expected BENCH=DIR, e.g. mmar=data/mmar")
        if bench not in names:
            raise click.UsageError(f"--data-root {value!r}: {bench} is not among --benchmarks")
        if not Path(folder).is_dir():
            raise AvibenchError(f"--data-root {value!r}: {folder} is not a folder")
        roots[bench] = Path(folder)
    return roots


def choose_data(
    benchmark: Benchmark, explicit: Path | None, sample: bool
) -> tuple[Path | None, bool, str | None]:
    """(data root, whether the sample must be generated first, why the benchmark is not run)."""
    if explicit is not None:
        return explicit, False, None
    download = benchmark.download_root
    if download.is_dir() and benchmark.available(download):
        return download, False, None
    if not sample:
        return (
            None,
            False,
            f"no data at {download}: download it there, pass --data-root {benchmark.name}=DIR, or --sample to "
            "use the generated sample",
        )
    root = benchmark.sample_root
    return root, not complete_sample(benchmark, root), None


@dataclass(frozen=True)
class StageResult:
    """A stage command's exit code and, when it stopped on an error, the error's one line."""

    code: int
    cause: str | None = None


def call_stage(command: click.Command, name: str, args: list[str]) -> StageResult:
    """Run one stage command in-process; its exit code (2 for a user error, 1 for anything it raised) and why."""
    try:
        code = command.main(args=args, prog_name=f"avibench {name}", standalone_mode=False)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
    except click.ClickException as exc:
        exc.show()
        return StageResult(exc.exit_code, exc.format_message())
    except AvibenchError as exc:
        click.echo(f"error: {exc}", err=True)
        return StageResult(EXIT_USAGE, str(exc))
    except (click.exceptions.Abort, KeyboardInterrupt):
        raise
    except Exception as exc:  # one benchmark's crash must not stop the others; say what it was
        if isinstance(exc, OSError) and exc.errno in UNWRITABLE:
            message = unwritable_message(name, exc)
            click.echo(f"error: {message}", err=True)
            return StageResult(EXIT_USAGE, message)
        message = f"avibench {name} failed: {type(exc).__name__}: {exc}"
        click.echo(f"error: {message}", err=True)
        return StageResult(EXIT_ERROR, message)
    return StageResult(code if isinstance(code, int) else 0)


def _stopped(stage: str, result: StageResult) -> str:
    """A failed stage's row reason: its exit code and the error it stopped on."""
    return f"{stage} exited with {result.code}" + (f": {result.cause}" if result.cause else "")


def kept_older_eval(paths: RunPaths, since_ns: int) -> str | None:
    """Why the label's eval.json is not this run's eval, when eval wrote beside it (it scored less than the
    eval.json there, which it keeps): the card's row is then partial, not the older file's status."""
    beside = paths.root / "eval-partial.json"
    try:
        written = beside.stat().st_mtime_ns >= since_ns
    except OSError:
        return None
    if not written:
        return None
    return (
        f"this run's eval is incomplete ({beside.name}); {paths.eval_json.name} holds an older eval that scores "
        f"more (avibench eval --benchmark {paths.benchmark} --label {paths.label} --replace to replace it)"
    )


def _announce(position: str, benchmark: str, stage: str) -> None:
    click.secho(f"\n[{position}] {benchmark}: {stage}", bold=True, err=True)


def run_benchmark(
    benchmark: Benchmark,
    commands: Mapping[str, click.Command],
    routed: Mapping[str, list[str]],
    *,
    model: str,
    label: str,
    output_dir: Path,
    data_root: Path,
    generate: bool,
    position: str,
) -> BenchmarkOutcome:
    """The benchmark's stages in order. A stage that fails some questions (exit 1) lets the next ones take what
    it made; one that stops on a user error (exit 2) ends the benchmark."""
    outcome = BenchmarkOutcome(benchmark.name, data_root=str(data_root.resolve()))
    if generate:
        _announce(position, benchmark.name, f"{SAMPLE_DATA} (no data at {benchmark.download_root})")
        args = ["--benchmark", benchmark.name, "--out", str(data_root)]
        result = call_stage(commands[SAMPLE_DATA], SAMPLE_DATA, args)
        outcome.stages[SAMPLE_DATA] = result.code
        if result.code:
            outcome.error = _stopped(SAMPLE_DATA, result)
            return outcome
    where = ["--benchmark", benchmark.name, "--label", label, "--output-dir", str(output_dir)]
    args = {
        "infer": [*where, "--model", model, "--data-root", str(data_root)],
        "refine": [*where, "--model", model, "--data-root", str(data_root)],
        "eval": [*where, "--model", model, "--data-root", str(data_root), "--allow-partial"],
        "report": [*where, "--model", model],
        "view": [*where, "--data-root", str(data_root)],
    }
    paths = RunPaths(output_dir, label, benchmark.name)
    for stage in STAGES:
        _announce(position, benchmark.name, stage)
        started = time.time_ns()
        result = call_stage(commands[stage], stage, [*args[stage], *routed[stage]])
        outcome.stages[stage] = result.code
        if result.code == EXIT_INTERRUPTED:
            raise KeyboardInterrupt
        if result.code not in (
            0,
            EXIT_ERROR,
        ):  # a user error: the later stages need what this one did not make
            outcome.error = _stopped(stage, result)
            break
        if stage == "eval":
            outcome.partial = kept_older_eval(paths, started)
    return outcome


def asked_rows(card: Mapping[str, Any], outcomes: Sequence[BenchmarkOutcome]) -> list[Mapping[str, Any]]:
    """The card's rows of the benchmarks this invocation was asked to run (the card also shows the label's other
    benchmarks, from older runs, which neither the exit code nor the closing table counts)."""
    asked = {o.benchmark for o in outcomes}
    return [row for row in card["benchmarks"] if row["benchmark"] in asked]


def exit_code(card: Mapping[str, Any], outcomes: Sequence[BenchmarkOutcome], allow_partial: bool) -> int:
    """2 when a stage stopped with a user error, 1 for any other failure, 3 when a benchmark asked for is partial
    or not run (unless ``allow_partial``), else 0."""
    codes = [c for o in outcomes for c in o.stages.values()]
    if EXIT_USAGE in codes:
        return EXIT_USAGE
    if any(c not in (0, EXIT_INCOMPLETE) for c in codes) or any(o.error for o in outcomes):
        return EXIT_ERROR
    if not allow_partial and any(r["status"] != "complete" for r in asked_rows(card, outcomes)):
        return EXIT_INCOMPLETE
    return 0


def summary_lines(card: Mapping[str, Any], outcomes: Sequence[BenchmarkOutcome]) -> Iterator[str]:
    """The closing table: a line per benchmark asked for with its status and headline in both profiles, and why a
    benchmark is not complete where a stage or eval said so."""
    yield f"{'benchmark':<15}{'status':<10}{'reference':>11}{'strict':>9}  data"
    for row in asked_rows(card, outcomes):
        headline = row.get("headline") or {}
        dataset = row.get("dataset")
        data = f"{dataset['kind']} data" if dataset else "-"
        reason = row.get("reason")
        unparsed = row.get("unparsed") or {}
        if unparsed.get("mostly"):
            flag = f"mostly unparsed ({unparsed['unparsed']} of {unparsed['answers']} answers)"
            reason = f"{reason}; {flag}" if reason else flag
        yield (
            f"{row['benchmark']:<15}{row['status']:<10}{fmt_score(headline.get('reference')):>11}"
            f"{fmt_score(headline.get('strict')):>9}  {data}" + (f"; {reason}" if reason else "")
        )
        if row.get("headline_name") == TASKS_INSTEAD:  # no headline: each task, in both profiles
            tasks = row.get("tasks") or {}
            for task, score in (tasks.get("reference") or {}).items():
                strict = (tasks.get("strict") or {}).get(task)
                yield f"  {task:<24}{fmt_score(score):>10}{fmt_score(strict):>9}"


@click.command(
    name="run",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.option("--model", required=True, help="Model id (random / oracle: the offline baselines).")
@click.option(
    "--benchmarks",
    "benchmark_list",
    default="all",
    show_default=True,
    metavar="all|NAME,NAME",
    help="Benchmarks to run, in order ('avibench benchmarks' lists them).",
)
@label_option
@output_dir_option
@click.option(
    "--data-root",
    "data_roots",
    multiple=True,
    metavar="BENCH=DIR",
    help="A benchmark's dataset root; repeat per benchmark (default: its download folder).",
)
@click.option(
    "--sample",
    is_flag=True,
    help="A benchmark whose data is not found runs on its generated sample (made if missing) instead of "
    "being reported as not run.",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help=f"Exit 0 even when a benchmark is partial or not run (default: exit {EXIT_INCOMPLETE}).",
)
@click.pass_context
def run(
    ctx: click.Context,
    model: str,
    benchmark_list: str,
    label: str | None,
    output_dir: Path | None,
    data_roots: tuple[str, ...],
    sample: bool,
    allow_partial: bool,
) -> None:
    """Take a model through infer, refine, eval, report and the viewer on each benchmark, then write its card.

    \b
    avibench run --model M --benchmarks all --sample --concurrency 16 --fense stand-in

    Writes OUTPUT_DIR/<label>/card.json, card.md and card.html: a row per benchmark with its headline in both
    profiles, interval, chance level, completeness, the closest published models, the data's kind, the media
    probe and the settings, linking each benchmark's report and viewer.

    A benchmark's data is its --data-root BENCH=DIR, else its download folder ('avibench benchmarks' lists them;
    $DATA_ROOT, which names one benchmark's data, is not read); without either it is reported as not run, or
    with --sample runs on its generated sample. Any other option goes to every stage command that declares it (see 'avibench infer --help' and the
    others); --STAGE.OPTION (e.g. --refine.concurrency 4) to that stage only. Re-running carries on where it
    stopped; a finished run asks nothing, and an unchanged one is neither scored nor its pages built again. Exit code 0 when every benchmark asked for is complete; 3 when one
    is partial or not run (unless --allow-partial), judged parts without a judge key included ("not judged");
    1 when a stage failed and 2 when a stage stopped on a user error, after every benchmark has been taken as
    far as it goes. The label's other benchmarks, from earlier runs, are on the card but count for neither.
    """
    commands = _commands(ctx)
    routed = route_options(ctx.args, stage_options(commands))
    selected = select_benchmarks(benchmark_list)
    roots = parse_data_roots(data_roots, selected)
    try:
        label = label or label_for(model)
    except ValueError as exc:
        raise AvibenchError(str(exc)) from None
    out = output_dir or default_output_dir()
    plans = [(b, *choose_data(b, roots.get(b.name), sample)) for b in selected]
    outcomes: list[BenchmarkOutcome] = []
    for index, (benchmark, root, generate, not_run) in enumerate(plans, start=1):
        position = f"{index}/{len(plans)}"
        if root is None:
            click.secho(f"\n[{position}] {benchmark.name}: not run: {not_run}", bold=True, err=True)
            outcomes.append(BenchmarkOutcome(benchmark.name, not_run=not_run))
            continue
        outcomes.append(
            run_benchmark(
                benchmark,
                commands,
                routed,
                model=model,
                label=label,
                output_dir=out,
                data_root=root,
                generate=generate,
                position=position,
            )
        )
    card = card_for(out, label, model, outcomes)
    paths = write_card(card, out / label)
    click.echo("")
    for line in summary_lines(card, outcomes):
        click.echo(line)
    click.echo(f"card: {paths[2]} ({paths[0].name}, {paths[1].name} beside it)")
    code = exit_code(card, outcomes, allow_partial)
    if code == EXIT_INCOMPLETE:
        click.echo(
            f"exit code {EXIT_INCOMPLETE}: a benchmark is partial or not run; pass --allow-partial to accept it",
            err=True,
        )
    ctx.exit(code)


def card_for(
    output_dir: Path, label: str, model: str | None, outcomes: Sequence[BenchmarkOutcome]
) -> dict[str, Any]:
    """The card of this invocation's benchmarks, then of every other benchmark the label has an eval.json for."""
    asked = [o.benchmark for o in outcomes]
    others = [
        n for n in benchmark_names() if n not in asked and RunPaths(output_dir, label, n).eval_json.is_file()
    ]
    benchmarks = [get_benchmark(n) for n in (*asked, *others)]
    return build_card(output_dir, label, benchmarks, model=model, outcomes={o.benchmark: o for o in outcomes})
