"""A right answer scored 0 by a wrong double-confirm pre-question says why, in samples.jsonl and the viewer."""

from __future__ import annotations

import json
from pathlib import Path

from avibench.testing.harness import invoke


def test_a_gated_answer_names_its_pre_question_and_outcome(sample_root: Path, tmp_path: Path) -> None:
    args = [
        "--data-root",
        str(sample_root),
        "--output-dir",
        str(tmp_path),
        "--model",
        "oracle",
        "--tasks",
        "ASQA",
    ]
    assert invoke(["infer", *args]).code == 0
    journal = tmp_path / "oracle" / "avibench" / "infer" / "ASQA.jsonl"
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    pre = next(r for r in records if str(r["id"]).startswith("pre_"))
    pre["predict"] = "No, I do not hear that."
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert invoke(["refine", *args]).code == 0
    assert invoke(["eval", *args]).code == 0
    rows = [
        json.loads(line)
        for line in (tmp_path / "oracle" / "avibench" / "samples.jsonl").read_text().splitlines()
    ]
    formal_id = pre["id"].removeprefix("pre_")
    (gated,) = [r for r in rows if r["item_id"] == formal_id and r["variant"] != "pre"]
    assert gated["scores"]["reference"] == 0.0 and gated["outcome"] == "incorrect"
    assert gated["note"] == (
        f"double-confirm pre-question {pre['id']} (expected 'yes', answered '**no**'): answered wrong, so this "
        "question scores 0"
    )
    passed = [r for r in rows if r["variant"] != "pre" and r["item_id"] != formal_id and "note" in r]
    assert passed and all(r["note"].endswith("answered right") for r in passed)
    assert all("note" not in r for r in rows if r["variant"] == "pre")

    assert invoke(["view", "--label", "oracle", "--output-dir", str(tmp_path)]).code == 0
    page = (tmp_path / "oracle" / "avibench" / "viewer.html").read_text()
    assert "answered wrong, so this question scores 0" in page and "Why this score" in page
