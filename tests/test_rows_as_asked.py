"""Rows show what was asked: samples.jsonl takes each question in the template it was asked with, and the viewer
serves media from the run's data root, not from the benchmark's default sample folder."""

from __future__ import annotations

import json
from pathlib import Path

from avibench.benchmarks.airbench import sample
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke


def test_rows_carry_the_wording_of_a_non_default_template(tmp_path: Path) -> None:
    root = sample.generate(tmp_path / "data", per_subset=1, chat=False)
    args = [
        "--benchmark",
        "airbench",
        "--data-root",
        str(root),
        "--output-dir",
        str(tmp_path),
        "--model",
        "m",
    ]
    server = FakeOpenAIServer(responder=lambda body: "A")
    with server.run_in_thread():
        infer = ["infer", *args, "--base-url", server.base_url, "--prompt-template", "air-clean"]
        assert invoke(infer, {"OPENAI_API_KEY": "sk-m"}).code == 0
    sent = [json.dumps(body) for body in server.bodies()]
    assert invoke(["eval", *args, "--tasks", "foundation"]).code == 0
    rows = [
        json.loads(line) for line in (tmp_path / "m" / "airbench" / "samples.jsonl").read_text().splitlines()
    ]
    assert rows and {row["template"] for row in rows} == {"air-clean"}
    assert all(
        "from options A and B to respond" in row["question"] for row in rows if len(row["options"]) == 2
    )
    assert all(json.dumps(row["question"])[1:-1] in "".join(sent) for row in rows)
    doc = json.loads((tmp_path / "m" / "airbench" / "eval.json").read_text())
    assert doc["meta"]["template"] == "air-clean"


def test_view_serves_media_from_the_run_data_root(tmp_path: Path) -> None:
    root = tmp_path / "elsewhere"
    bench = ["--benchmark", "mmar"]
    assert invoke(["sample-data", *bench, "--out", str(root)]).code == 0
    args = [*bench, "--data-root", str(root), "--output-dir", str(tmp_path / "out"), "--model", "oracle"]
    for step in (["infer"], ["refine", "--mode", "rules"], ["eval"]):
        assert invoke([*step, *args]).code == 0, step
    run = ["view", *bench, "--output-dir", str(tmp_path / "out"), "--model", "oracle"]
    viewed = invoke(run)
    assert viewed.code == 0, viewed.stderr
    assert viewed.stdout.strip().endswith(f"media from {root})")
    page = (tmp_path / "out" / "oracle" / "mmar" / "viewer.html").read_text()
    assert '"media_base":"../../../elsewhere/"' in page
