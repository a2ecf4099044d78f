"""Helpers for tests that drive the ``avibench`` command line in-process."""

from __future__ import annotations

import json
from collections.abc import Mapping
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


def journal_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a journal parsed strictly (a torn or invalid line raises)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
