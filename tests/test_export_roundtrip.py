"""export --format reference then eval --predictions gives back the same scores as eval on the journals."""

from __future__ import annotations

import json
from pathlib import Path

from avibench.testing.harness import invoke


def test_export_then_rescore_reproduces_eval_json(sample_root: Path, tmp_path: Path) -> None:
    common = ["--model", "random", "--data-root", str(sample_root), "--output-dir", str(tmp_path)]
    assert invoke(["infer", *common]).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["eval", *common, "--fense", "stand-in"]).code == 0
    exported = invoke(["export", *common])  # the refined answers by default
    assert exported.code == 0, exported.stderr
    run = tmp_path / "random" / "avibench"
    rescored = run / "rescored.json"
    again = invoke(
        [
            "eval",
            *common,
            "--fense",
            "stand-in",
            "--predictions",
            str(run / "reference"),
            "--out",
            str(rescored),
        ]
    )
    assert again.code == 0, again.stderr
    first, second = json.loads((run / "eval.json").read_text()), json.loads(rescored.read_text())
    assert first["summary"]["by_profile"]["strict"]["overall"] is not None
    for key in first:
        if key not in ("meta", "coverage"):
            assert second[key] == first[key], key
    assert {t: c["scored"] for t, c in second["coverage"].items()} == {
        t: c["scored"] for t, c in first["coverage"].items()
    }
