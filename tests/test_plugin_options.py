"""Plug-ins own their options: each benchmark's eval options are listed under it in --help, reach its
EvalRequest by name, and are refused for a benchmark that does not declare them."""

from __future__ import annotations

from avibench.evaluate.cli import eval_command
from avibench.testing.harness import invoke


def test_help_lists_each_benchmark_options_under_it() -> None:
    generic = invoke(["eval", "--help"])
    assert generic.code == 0 and "--fense" not in generic.stdout and "--judge-model" not in generic.stdout
    assert "avibench eval --benchmark NAME --help" in generic.stdout
    avibench = invoke(["eval", "--benchmark", "avibench", "--help"])
    assert "\nOptions of AVI-Bench (--benchmark avibench):\n  --fense" in avibench.stdout
    assert "--judge-model" not in avibench.stdout
    airbench = invoke(["eval", "--benchmark=airbench", "--help"]).stdout
    assert (
        airbench.split("\nOptions of AIR-Bench (--benchmark airbench):\n")[1]
        .lstrip()
        .startswith("--judge-model")
    )
    mmar = invoke(["eval", "--benchmark", "mmar", "--help"]).stdout
    assert "Options of MMAR (--benchmark mmar):\n  none" in mmar


def test_the_generic_command_names_no_benchmark_option() -> None:
    names = {p.name for p in eval_command.params}
    assert "allow_partial" in names and not {n for n in names if "fense" in n or "judge" in n}


def test_another_benchmarks_option_is_noted_and_not_passed(tmp_path) -> None:
    args = ["eval", "--benchmark", "mmar", "--label", "x", "--output-dir", str(tmp_path), "--fense", "off"]
    refused = invoke(args)
    assert "note: --fense: not an option of benchmark mmar, ignored" in refused.stderr
