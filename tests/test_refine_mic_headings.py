"""A heading before an AMIC / VMIC answer ("Sound sources: 1 bird.") is not a class: the counts after it are the
answer, through the rules and through ``avibench refine``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import RefineContext, class_list
from avibench.refine.rules_mic import parse_mic
from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

AMIC = RefineContext(task="AMIC", family="mic", classes=class_list(AVIBENCH.task("AMIC")))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Sound sources: 1 bird.", {"bird": "1"}),
        ("Sound sources: 1 bird, 2 dogs.", {"bird": "1", "dog": "2"}),
        ("**Sound sources:** 2 dogs and 1 man", {"dog": "2", "man": "1"}),
        ("Answer: 2 dogs.", {"dog": "2"}),
        ("Detected: 3 cats", {"cat": "3"}),
        # the name before the colon is a class: its count, a unit after it ("dog: 2 barks")
        ("dog: 2 barks", {"dog": "2"}),
    ],
)
def test_a_heading_is_not_a_class(raw: str, expected: dict[str, str]) -> None:
    parsed = parse_mic(raw, AMIC)
    assert parsed is not None and json.loads(parsed) == expected


def test_refine_reads_the_counts_after_a_heading(tmp_path: Path) -> None:
    root, out = build_dataset(tmp_path / "levels", {"AMIC": 2}), tmp_path / "out"
    server = FakeOpenAIServer(responder=lambda body: "Sound sources: 1 bird.")
    with server.run_in_thread():
        args = ["infer", "--model", "m", "--data-root", str(root), "--output-dir", str(out), "--skip-probe"]
        assert invoke([*args, "--base-url", server.base_url], {"OPENAI_API_KEY": "sk-mic"}).code == 0
    refine = ["refine", "--label", "m", "--data-root", str(root), "--output-dir", str(out), "--mode", "rules"]
    assert invoke(refine).code == 0
    records = list(read_records(out / "m" / "avibench" / "refine" / "AMIC.jsonl"))
    assert records and all(json.loads(r["predict"]) == {"bird": "1"} for r in records), records
