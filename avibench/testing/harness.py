"""Helpers for tests that drive the ``avibench`` command line in-process."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from avibench.cli import cli
from avibench.errors import AvibenchError

#: Variables that would leak the caller's configuration into a test run.
CLEARED_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "JUDGE_API_KEY",
    "JUDGE_BASE_URL",
    "MODEL_LABEL",
    "DATA_ROOT",
    "OUTPUT_DIR",
    "AVIBENCH_ALLOW_MEDIA_OUTSIDE_ROOT",
)


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def invoke(args: list[str], env: Mapping[str, str] | None = None) -> CliResult:
    """Run ``avibench ARGS`` like the console entry point would (user errors: exit 2, one line on stderr)."""
    environment: dict[str, str | None] = dict.fromkeys(CLEARED_ENV)
    environment.update(env or {})
    result = CliRunner().invoke(cli, args, env=environment, catch_exceptions=True)
    code, stderr = result.exit_code, result.stderr
    if isinstance(result.exception, AvibenchError):
        code, stderr = 2, stderr + f"error: {result.exception}\n"
    elif result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliResult(code, result.stdout, stderr)


def run_args(benchmark: str, root: Path, out: Path, label: str = "run") -> list[str]:
    """The options every stage command of one run takes: the benchmark, its data root, the output folder and the
    run's label."""
    return ["--benchmark", benchmark, "--data-root", str(root), "--output-dir", str(out), "--label", label]


def journal_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a journal parsed strictly (a torn or invalid line raises)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@contextmanager
def registered_plugins(site: Path, dist: str, entries: Mapping[str, str], *code: Path) -> Iterator[Path]:
    """Benchmarks registered as a third-party distribution ``dist`` registers them: entry points
    (``{name: "module:Class"}``) in a ``dist-info`` folder under ``site``, which goes on ``sys.path`` with the
    folders of their ``code``; on leaving, the path, the plug-in lookup and every module loaded from those folders
    are as before. Yields ``site`` (a test may write a plug-in module there)."""
    from avibench.plugin import get_benchmark

    info = site / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[avibench.benchmarks]\n{lines}", encoding="utf-8")
    folders = [str(site), *(str(folder) for folder in code)]
    saved = list(sys.path)
    sys.path[:0] = folders
    get_benchmark.cache_clear()
    try:
        yield site
    finally:
        sys.path[:] = saved
        get_benchmark.cache_clear()
        for name, module in list(sys.modules.items()):
            origin = getattr(module, "__file__", None) or ""
            if any(origin.startswith(folder + "/") for folder in folders):
                del sys.modules[name]
