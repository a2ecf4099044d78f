"""Plug-ins own their options: each benchmark's eval options are listed under it in --help, reach its
EvalRequest by name, and are refused for a benchmark that does not declare them."""

from __future__ import annotations

import inspect

from avibench.evaluate.cli import eval_command
from avibench.testing.harness import invoke


def test_help_lists_each_benchmark_options_under_it() -> None:
    shown = invoke(["eval", "--help"])
    assert shown.code == 0
    generic, _, plugins = shown.stdout.partition("\nOptions of ")
    assert "--fense" not in generic and "--judge-model" not in generic
    assert "\nOptions of AVI-Bench (--benchmark avibench):\n  --fense" in shown.stdout
    airbench = shown.stdout.split("\nOptions of AIR-Bench (--benchmark airbench):\n")[1]
    assert airbench.lstrip().startswith("--judge-model") and plugins


def test_the_generic_command_names_no_benchmark_option() -> None:
    source = inspect.getsource(inspect.getmodule(eval_command))
    assert "fense" not in source.lower() and "judge" not in source.lower()


def test_another_benchmarks_option_is_noted_and_not_passed(tmp_path) -> None:
    args = ["eval", "--benchmark", "mmar", "--label", "x", "--output-dir", str(tmp_path), "--fense", "off"]
    refused = invoke(args)
    assert "note: --fense: not an option of benchmark mmar, ignored" in refused.stderr
