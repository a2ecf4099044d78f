"""Eval's reuse stamp covers the scoring plug-in: a third-party plug-in's code (edited in place, as an editable
install is), its distribution's version and the model files its metric reads each make eval score again instead
of replaying the old result; so do FENSE's and PEDANT's configured models."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke, run_args

PLUGIN = '''"""The toy benchmark, its item score scaled by SCALE and by the number in its model file."""

from pathlib import Path
from typing import Any, ClassVar

from toy_benchmark import ToyBench

SCALE = {scale}
MODEL = Path({model!r})


class ScaledToy(ToyBench):
    name: ClassVar[str] = "scaled-toy"

    def model_files(self, options: Any) -> list[Path]:
        return [MODEL]

    def item_score(self, answer: Any, item: Any) -> float:
        return SCALE * float(MODEL.read_text()) * super().item_score(answer, item)
'''


def _dist(site: Path, version: str) -> None:
    info = site / "scaled_toy-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: scaled-toy\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[avibench.benchmarks]\nscaled-toy = scaled_toy:ScaledToy\n")


def _code(source: Path, scale: float, model: Path) -> None:
    package = source / "scaled_toy"
    package.mkdir(parents=True, exist_ok=True)
    init = package / "__init__.py"
    init.write_text(PLUGIN.format(scale=scale, model=str(model)))
    os.utime(init, ns=(init.stat().st_mtime_ns + 10**9,) * 2)  # an edit within one clock tick still shows


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path, Path]]:
    site, source, model = tmp_path / "site", tmp_path / "src", tmp_path / "model.txt"
    model.write_text("1.0")
    _dist(site, "0.1")
    _code(source, 1.0, model)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(source))
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    get_benchmark.cache_clear()
    yield site, source, model
    get_benchmark.cache_clear()
    for module in ("toy_benchmark", "scaled_toy"):
        sys.modules.pop(module, None)


def _headline(args: list[str], eval_json: Path) -> float:
    sys.modules.pop("scaled_toy", None)  # a new process imports the plug-in as it is on disk now
    get_benchmark.cache_clear()
    result = invoke(args)
    assert result.code == 0, result.stderr
    return json.loads(eval_json.read_text(encoding="utf-8"))["summary"]["headline"]


def test_eval_scores_again_when_the_plugin_its_version_or_its_model_changes(
    installed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    site, source, model = installed
    root, out = tmp_path / "data", tmp_path / "out"
    common = run_args("scaled-toy", root, out, "run")
    assert invoke(["sample-data", "--benchmark", "scaled-toy", "--out", str(root)]).code == 0
    server = FakeOpenAIServer(responder=lambda body: "Yes.")
    with server.run_in_thread():
        args = ["infer", *common, "--model", "m", "--base-url", server.base_url, "--skip-probe"]
        assert invoke(args, {"OPENAI_API_KEY": "sk-toy"}).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    eval_args, eval_json = ["eval", *common], out / "run" / "scaled-toy" / "eval.json"
    first = _headline(eval_args, eval_json)
    assert first > 0
    written = eval_json.stat().st_mtime_ns
    assert _headline(eval_args, eval_json) == first and eval_json.stat().st_mtime_ns == written  # replayed

    _code(source, 0.5, model)  # the plug-in's scoring constant edited in place
    assert _headline(eval_args, eval_json) == pytest.approx(first / 2)

    model.write_text("0.25")  # the model file its metric reads replaced
    assert _headline(eval_args, eval_json) == pytest.approx(first / 8)

    written = eval_json.stat().st_mtime_ns
    _dist(site, "0.2")  # a new release, its code the same
    _headline(eval_args, eval_json)
    assert eval_json.stat().st_mtime_ns != written


def test_fense_and_pedant_models_are_the_files_their_metrics_read(tmp_path: Path) -> None:
    sbert, echecker, bert = tmp_path / "sbert", tmp_path / "echecker.ckpt", tmp_path / "bert"
    sbert.mkdir()
    bert.mkdir()
    for path in (echecker, bert / "config.json", bert / "vocab.txt"):
        path.write_text("x")
    env = {
        "AVIBENCH_FENSE_SBERT": str(sbert),
        "AVIBENCH_FENSE_ECHECKER": str(echecker),
        "AVIBENCH_FENSE_BERT": str(bert),
        "AVIBENCH_VOICEBENCH_PEDANT": str(tmp_path / "pedant"),
    }
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        assert list(get_benchmark("avibench").model_files({"fense": "real"})) == [sbert, echecker, bert]
        assert list(get_benchmark("avibench").model_files({"fense": "off"})) == []
        stand_in = list(get_benchmark("avibench").model_files({"fense": "stand-in"}))
        assert stand_in and all(p.is_dir() for p in stand_in)
        pedant = list(get_benchmark("voicebench").model_files({}))
        assert pedant == [
            tmp_path / "pedant" / "lr_classifier.pkl",
            tmp_path / "pedant" / "tf-idf_vectorizer.pkl",
        ]
