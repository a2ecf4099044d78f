"""Fixtures of the browser tests: a headless chromium, small scored runs and a full-size viewer page.

These tests need Debian's ``chromium``; they live outside ``tests/`` so that ``make test`` does not. Screenshots are
kept under ``outputs/browser/`` as CI artefacts.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from avibench.cli import main
from avibench.contracts import RunPaths
from avibench.evaluate.samples import sample_row, write_samples
from avibench.plugin import get_benchmark
from avibench.testing.cdp import Browser, find_browser

SCREENSHOTS = Path("outputs") / "browser"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: needs a headless chromium (make test-browser)")


def cli(*args: str) -> None:
    try:
        main(list(args))
    except SystemExit as exc:
        assert not exc.code, f"avibench {' '.join(args)} exited with {exc.code}"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = find_browser()
    if executable is None:
        pytest.fail("no chromium found: install it (apt-get install -y chromium) to run the browser tests")
    driver = Browser(executable)
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two scored runs (random and oracle) on the sample benchmark, with every page written."""
    base = tmp_path_factory.mktemp("runs")
    data, out = base / "data", base / "out"
    cli("sample-data", "--out", str(data))
    common = ["--data-root", str(data), "--output-dir", str(out)]
    for model in ("random", "oracle"):
        cli("infer", "--model", model, *common)
        cli("refine", "--model", model, "--mode", "rules", *common)
        cli("eval", "--model", model, "--fense", "off", "--allow-partial", *common)  # AVC is not scored
        cli("report", "--model", model, "--output-dir", str(out), "--price-in", "1.25", "--price-out", "10")
        cli("view", "--model", model, "--output-dir", str(out))
    cli(
        "leaderboard", "--output-dir", str(out), "--include-unofficial"
    )  # rank the sample runs to filter them
    cli("compare", "random", "oracle", "--output-dir", str(out))
    return out


@pytest.fixture(scope="session")
def full_size(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """The full-size sample (5,864 questions) with answers of every outcome, and its viewer page."""
    base = tmp_path_factory.mktemp("full")
    data, out = base / "data", base / "out"
    bench = get_benchmark("avibench")
    bench.generate_sample(data, seed=0, full_size=True)
    rng = random.Random(0)
    rows = []
    for task in bench.tasks():
        for item in bench.load(data, task):
            roll = rng.random()
            failed = roll < 0.03
            infer = {
                "predict": None if failed else f"answer {item.key}",
                "error": "HTTP 500" if failed else None,
            }
            infer.update(latency_s=round(rng.random(), 3), attempts=1 + (roll < 0.1))
            method = "unparsed" if 0.03 <= roll < 0.08 else "rule"
            refine = {"raw": infer["predict"], "predict": "x", "method": method}
            score = None if failed or item.variant else float(rng.random() < 0.4)
            scores = {} if score is None else {"reference": score, "strict": score}
            rows.append(sample_row(bench, item, data, infer, refine, scores, "reference"))
    paths = RunPaths(out, "full", "avibench")
    paths.root.mkdir(parents=True)
    write_samples(paths.root / "samples.jsonl", rows)
    eval_doc = {"summary": {"profile": "reference", "tasks": {}}, "meta": {"data_root": str(data)}}
    paths.eval_json.write_text(json.dumps(eval_doc), encoding="utf-8")
    cli("view", "--label", "full", "--output-dir", str(out))
    return paths.root / "viewer.html", rows
