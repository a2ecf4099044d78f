"""The benchmark corpus as a regression test: no wrong rule output, and the coverage target holds."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import build_context
from avibench.refine.rules import apply_rules

BENCH = Path(__file__).resolve().parent.parent / "bench" / "refine_coverage.py"


def _bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("refine_coverage", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def test_corpus_has_no_wrong_rule_output_and_meets_coverage(capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench_module().main([]) == 0
    out = capsys.readouterr().out
    share = float(out.split("refined by rules: ")[1].split("= ")[1].split("%")[0])
    assert share >= 90.0
    assert "wrong rule outputs: 0/" in out
    left, hedges = out.split("hedges left unparsed: ")[1].split()[0].split("/")
    assert left == hedges and int(hedges) > 0


def test_every_task_meets_its_coverage_target() -> None:
    bench = _bench_module()
    rows = [
        json.loads(line) for line in bench.CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    by, wrong, _ = bench.tallies(rows)
    assert wrong == []
    for key, tally in by["all"].items():
        if key.startswith("task "):
            assert tally.share >= 90.0, key


def test_rules_stay_fast_on_long_adversarial_text() -> None:
    contexts = [
        build_context(AVIBENCH.task(t)) for t in ("AVQA", "AVSQA", "ASQA", "AMIC", "VAR", "AVL", "AVLG")
    ]
    start = time.perf_counter()
    for piece in ("dog two ", "#b", "**a", "answer is ", "clip 1, ", "frame_1: ["):
        text = (piece * (19_000 // len(piece)))[:19_000]
        for ctx in contexts:
            apply_rules(text, ctx)
    assert time.perf_counter() - start < 10.0
