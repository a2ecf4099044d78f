"""The ``avibench`` command line. Stage commands live beside their stage and are imported on first use."""

from __future__ import annotations

import atexit
import errno
import functools
import gc
import importlib
import sys

import click

from avibench import __version__
from avibench.errors import AvibenchError

# command name -> "module:attribute"; loaded lazily so `avibench --help` stays fast and a stage that is
# not installed or not built yet does not break the others.
COMMANDS: dict[str, str] = {
    "benchmarks": "avibench.commands:benchmarks",
    "tasks": "avibench.commands:tasks",
    "validate-data": "avibench.commands:validate_data",
    "sample-data": "avibench.commands:sample_data",
    "probe": "avibench.infer.probe_cli:probe_command",
    "infer": "avibench.infer.cli:infer",
    "export": "avibench.infer.cli:export",
    "refine": "avibench.refine.cli:refine",
    "eval": "avibench.evaluate.cli:eval_command",
    "report": "avibench.evaluate.report_cli:report",
    "leaderboard": "avibench.evaluate.report_cli:leaderboard",
    "run": "avibench.run_command:run",
    "cards": "avibench.evaluate.cards:cards",
    "view": "avibench.evaluate.viewer:view",
    "compare": "avibench.evaluate.compare:compare",
    "merge": "avibench.infer.merge:merge",
    "gate": "avibench.evaluate.gate:gate",
    "runs": "avibench.evaluate.runs:runs",
    "demo": "avibench.benchmarks.avibench.demo:demo",
}

SHORT_HELP: dict[str, str] = {
    "benchmarks": "List the installed benchmark plug-ins, their tasks and prompt templates.",
    "tasks": "List the benchmark's tasks and the samples found under a dataset root.",
    "validate-data": "Check a dataset folder and report every problem with file, entry and field.",
    "sample-data": "Generate the synthetic sample benchmark (real media) in the official layout.",
    "probe": "Check with a few tiny requests that the model reads the audio, images and video it is sent.",
    "infer": "Ask a model every selected sample; resumable.",
    "export": "Write a run's answers in the reference pipeline's format.",
    "refine": "Normalise raw answers to each task family's canonical format; resumable.",
    "eval": "Score refined answers (or reference-format files) and write eval.json.",
    "report": "Write report.md and report.html for one run.",
    "leaderboard": "Rank every run in outputs/ beside the published results.",
    "run": "One model through every stage of several benchmarks, then its card (card.json/.md/.html).",
    "cards": "Models side by side across benchmarks, from their cards.",
    "view": "Browse every sample of a run (question, media, answers, scores) in one HTML page.",
    "compare": "Compare runs: per-task and per-stage differences with paired intervals, flipped samples.",
    "merge": "Merge the output folders of shards run on separate hosts into one run.",
    "gate": "Pass or fail a run against a baseline run or a threshold, with intervals (for CI).",
    "runs": "List every run under the output dir with its stages' state and last activity.",
    "demo": "Run the whole pipeline offline on the sample benchmark (oracle and random) as a self-test.",
}


#: OS errors that mean "this path cannot be written here": said in one line with what to pass instead.
UNWRITABLE = frozenset(
    {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR, errno.EEXIST}
)
#: What each command takes to write somewhere else.
WRITE_ELSEWHERE: dict[str, str] = {
    "infer": "pass --output-dir DIR, a folder you can write",
    "refine": "copy the run into a folder you can write and pass --output-dir DIR",
    "eval": "pass --out FILE to write eval.json (and its samples) where you can write",
    "report": "pass --out DIR to write the report pages where you can write",
    "view": "pass --out FILE to write the page where you can write",
    "compare": "pass --out DIR to write the comparison where you can write",
    "export": "pass --out DIR to write the predictions where you can write",
    "leaderboard": "pass --out DIR to write the leaderboard where you can write",
    "demo": "pass --output-dir DIR, a folder you can write",
    "sample-data": "pass --out DIR, a folder you can write",
    "run": "pass --output-dir DIR, a folder you can write",
}


def unwritable_message(command: str | None, exc: OSError) -> str:
    """One line: the path that cannot be written, why, and the option that writes elsewhere."""
    where = f" {exc.filename}" if exc.filename else ""
    hint = WRITE_ELSEWHERE.get(command or "", "write to a folder you can write")
    return f"cannot write{where} ({exc.strerror or exc}); {hint}"


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if exc.errno not in UNWRITABLE:
                raise
            raise AvibenchError(unwritable_message(ctx.invoked_subcommand, exc)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
            return getattr(module, attr)
        except (ModuleNotFoundError, AttributeError) as exc:
            missing = getattr(exc, "name", None)
            if isinstance(exc, ModuleNotFoundError) and missing and not module_name.startswith(missing):
                raise
            return _not_built(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, SHORT_HELP.get(name, "")) for name in COMMANDS])


def _not_built(name: str) -> click.Command:
    @click.command(name=name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def stub() -> None:
        raise AvibenchError(f"'avibench {name}' is not built yet in this version ({__version__}).")

    return stub


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="avibench")
def cli() -> None:
    """avibench: evaluate omni-modal LLMs on AVI-Bench and the benchmarks installed beside it.

    \b
    The pipeline has three resumable stages, each reading and writing files under
    outputs/<label>/<benchmark>/ (--benchmark NAME, default avibench; see 'avibench benchmarks'):
      avibench infer  --model M     ask the model      -> outputs/<label>/<benchmark>/infer/<TASK>.jsonl
      avibench refine --model M     normalise answers  -> outputs/<label>/<benchmark>/refine/<TASK>.jsonl
      avibench eval   --model M     score              -> outputs/<label>/<benchmark>/eval.json
    'avibench run --model M --benchmarks all' takes a model through every stage of every benchmark and writes
    its card (outputs/<label>/card.html).
    Re-running a stage carries on where it stopped. Run 'avibench COMMAND --help' for details.
    """


@functools.cache
def _freeze_at_exit() -> None:
    """At exit the interpreter runs one last cyclic collection over everything the command built (a fifth of a
    full-size eval); frozen first, those objects are only freed, as they would be anyway."""
    atexit.register(gc.freeze)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: user errors are one line on stderr and exit code 2, never a traceback."""
    _freeze_at_exit()
    try:
        code = cli.main(args=argv, prog_name="avibench", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except AvibenchError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("Interrupted; re-run the same command to carry on.", err=True)
        sys.exit(130)
    if isinstance(code, int) and code:
        sys.exit(code)


if __name__ == "__main__":
    main()
