"""A plug-in's eval option named like one of eval's own options would be listed in help and never reach the
plug-in (eval's own option takes the value): it is refused, naming the benchmark and the option."""

from __future__ import annotations

from pathlib import Path

import pytest

from avibench.testing.harness import invoke, registered_plugins

CLASHING = """
from typing import Any, ClassVar

import click

from strict_toy_benchmark import StrictToyBench


class ClashToy(StrictToyBench):
    name: ClassVar[str] = "clash-toy"

    def eval_options(self) -> list[Any]:
        return [click.Option(["--profile"], default="mine", help="the plug-in's own profile")]
"""


@pytest.fixture
def clash_installed(tmp_path: Path) -> None:
    with registered_plugins(
        tmp_path / "site",
        "clash",
        {"clash-toy": "clash_toy:ClashToy", "strict-toy": "strict_toy_benchmark:StrictToyBench"},
        Path(__file__).parent,
    ) as site:
        (site / "clash_toy.py").write_text(CLASHING, encoding="utf-8")
        yield


def test_an_option_named_like_evals_own_is_refused(clash_installed: None, tmp_path: Path) -> None:
    root = tmp_path / "data"
    assert invoke(["sample-data", "--benchmark", "clash-toy", "--out", str(root)]).code == 0
    args = ["eval", "--benchmark", "clash-toy", "--data-root", str(root), "--output-dir", str(tmp_path / "o")]
    refused = invoke([*args, "--model", "oracle"])
    assert refused.code == 2
    assert "benchmark clash-toy" in refused.stderr and "--profile" in refused.stderr
    assert "eval's own option" in refused.stderr
    helped = invoke(["eval", "--benchmark", "clash-toy", "--help"])
    assert "the plug-in's own profile" not in helped.stdout
    assert "refused" in helped.stdout and "--profile" in helped.stdout


def test_other_benchmarks_keep_working_beside_a_clashing_one(clash_installed: None, tmp_path: Path) -> None:
    helped = invoke(["eval", "--benchmark", "strict-toy", "--help"])
    assert helped.code == 0 and "--strictness" in helped.stdout
    root = tmp_path / "data"
    assert invoke(["sample-data", "--benchmark", "strict-toy", "--out", str(root)]).code == 0
    common = ["--benchmark", "strict-toy", "--data-root", str(root), "--output-dir", str(tmp_path / "o")]
    assert invoke(["infer", *common, "--model", "oracle"]).code == 0
    evaluated = invoke(["eval", *common, "--model", "oracle", "--profile", "strict"])
    assert evaluated.code == 0, evaluated.stderr
