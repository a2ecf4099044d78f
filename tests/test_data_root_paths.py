"""The data root a run records is absolute: a run made with a relative ``--data-root`` and viewed from another
folder still links its media."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from avibench.testing.harness import invoke


def test_a_relative_data_root_is_recorded_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here, elsewhere, out = tmp_path / "here", tmp_path / "elsewhere", tmp_path / "outputs"
    here.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(here)
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", "mmar-data"]).code == 0
    ran = invoke(
        [
            "run",
            "--model",
            "oracle",
            "--benchmarks",
            "mmar",
            "--data-root",
            "mmar=mmar-data",
            "--output-dir",
            str(out),
        ]
    )
    assert ran.code == 0, ran.stderr
    data = here / "mmar-data"
    run = out / "oracle" / "mmar"
    assert json.loads((run / "eval.json").read_text())["meta"]["data_root"] == str(data)
    assert json.loads((run / "infer" / "run.json").read_text())["data_root"] == str(data)
    (row,) = json.loads((out / "oracle" / "card.json").read_text())["benchmarks"]
    assert row["data_root"] == str(data)

    monkeypatch.chdir(elsewhere)
    page = elsewhere / "viewer.html"
    assert (
        invoke(
            [
                "view",
                "--benchmark",
                "mmar",
                "--label",
                "oracle",
                "--output-dir",
                str(out),
                "--out",
                "viewer.html",
            ]
        ).code
        == 0
    )
    base = page.read_text().split('"media_base":"')[1].split('"')[0]
    (first,) = [p for p in data.joinpath("audio").iterdir()][:1]
    assert (page.parent / base / "audio" / first.name).is_file(), base
    assert os.path.relpath(data, elsewhere) + "/" == base
