"""A plug-in's eval option named like one of eval's own options would be listed in help and never reach the
plug-in (eval's own option takes the value): it is refused, naming the benchmark and the option."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from avibench.plugin import get_benchmark
from avibench.testing.harness import invoke

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
def clash_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    info = site / "clash-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: clash\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[avibench.benchmarks]\nclash-toy = clash_toy:ClashToy\nstrict-toy = strict_toy_benchmark:StrictToyBench\n",
        encoding="utf-8",
    )
    (site / "clash_toy.py").write_text(CLASHING, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    get_benchmark.cache_clear()
    yield
    get_benchmark.cache_clear()
    for module in ("clash_toy", "strict_toy_benchmark", "toy_benchmark"):
        sys.modules.pop(module, None)


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
