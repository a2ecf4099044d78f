"""MMAR and MMAU through every command: baselines, a faulty endpoint and resume, rescoring, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan, request_text
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-mmar-9d2c41"


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("mm")
    found = {}
    for bench in ("mmar", "mmau"):
        assert invoke(["sample-data", "--benchmark", bench, "--out", str(base / bench)]).code == 0
        found[bench] = base / bench
    return found


def _eval(out: Path, label: str, bench: str) -> dict:
    return json.loads((out / label / bench / "eval.json").read_text())


@pytest.mark.parametrize("bench", ["mmar", "mmau"])
def test_oracle_is_perfect_and_random_near_chance_in_both_profiles(
    bench: str, roots: dict[str, Path], tmp_path: Path
) -> None:
    for model in ("oracle", "random"):
        common = ["--benchmark", bench, "--data-root", str(roots[bench]), "--output-dir", str(tmp_path)]
        assert invoke(["infer", *common, "--model", model]).code == 0
        assert invoke(["refine", *common, "--model", model, "--mode", "rules"]).code == 0
        result = invoke(["eval", *common, "--model", model])
        assert result.code == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1] == f"wrote {tmp_path / model / bench / 'eval.json'}"
    oracle, random_doc = _eval(tmp_path, "oracle", bench), _eval(tmp_path, "random", bench)
    for profile in ("reference", "strict"):
        assert oracle["summary"]["by_profile"][profile]["headline"] == 100.0
    assert oracle["total"] == {"accuracy": 100.0, "n": 30}
    assert oracle["meta"]["data_version"] and oracle["meta"]["template"] == "mmar-official"
    chance = next(iter(random_doc["summary"]["chance"].values()))
    assert 20 < chance < 50 and abs(random_doc["summary"]["headline"] - chance) < 30
    keys = {"modality", "category", "sub-category", "total"} if bench == "mmar" else {"task", "difficulty"}
    assert keys <= set(oracle)


def test_faulty_endpoint_then_resume_asks_only_what_failed(roots: dict[str, Path], tmp_path: Path) -> None:
    def answer(body: dict) -> str:
        return "The answer is " + request_text(body).split("\n")[1].split(". ", 1)[-1]

    server = FakeOpenAIServer(responder=answer)
    server.plan = FaultPlan(by_request={3: Fault("400"), 7: Fault("400"), 9: Fault("500")})
    common = ["--benchmark", "mmar", "--data-root", str(roots["mmar"]), "--output-dir", str(tmp_path)]
    args = ["infer", *common, "--model", "m", "--retry-delay", "0.005", "--prompt-template", "mmar-lettered"]
    with server.run_in_thread():
        args += ["--base-url", server.base_url]
        first = invoke(args, {"OPENAI_API_KEY": KEY})
        assert first.code == 1
        records = journal_lines(tmp_path / "m" / "mmar" / "infer" / "MMAR.jsonl")
        assert sum(r["error"] is not None for r in records) == 2
        assert all(r["params"]["template"] == "mmar-lettered" for r in records)
        before = len(server.requests)
        assert invoke(args, {"OPENAI_API_KEY": KEY}).code == 0
        assert len(server.requests) == before + 2
    assert KEY not in (tmp_path / "m" / "mmar" / "infer" / "MMAR.jsonl").read_text()


def test_export_then_rescore_reproduces_both_profiles(roots: dict[str, Path], tmp_path: Path) -> None:
    common = ["--benchmark", "mmau", "--data-root", str(roots["mmau"]), "--output-dir", str(tmp_path)]
    for step in (["infer"], ["refine", "--mode", "rules"], ["eval"], ["export"]):
        assert invoke([*step, *common, "--model", "random"]).code == 0
    exported = tmp_path / "random" / "mmau" / "reference" / "mmau-predictions.jsonl"
    first = json.loads(exported.read_text().splitlines()[0])
    assert "model_output" in first and "choices" in first
    rescored = tmp_path / "rescored.json"
    result = invoke(["eval", "--benchmark", "mmau", "--predictions", str(exported), "--out", str(rescored)])
    assert result.code == 0, result.stderr
    original, again = _eval(tmp_path, "random", "mmau"), json.loads(rescored.read_text())
    for profile in ("reference", "strict"):
        assert again["summary"]["by_profile"][profile] == original["summary"]["by_profile"][profile]


def test_bad_data_is_reported_with_file_line_and_field(roots: dict[str, Path], tmp_path: Path) -> None:
    root = tmp_path / "broken"
    root.mkdir()
    lines = (roots["mmar"] / "MMAR-meta.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    records[1]["answer"] = "not a choice"
    records[2]["modality"] = "smell"
    records[3]["id"] = records[4]["id"]
    (root / "MMAR-meta.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    result = invoke(["validate-data", str(root), "--benchmark", "mmar"])
    assert result.code == 1
    text = result.stdout
    assert "entry 1 field answer" in text and "entry 2 field modality" in text and "field id" in text
    assert "audio" in text and "Traceback" not in text


def test_bad_prediction_files_fail_with_one_line(tmp_path: Path) -> None:
    garbage = tmp_path / "preds.json"
    garbage.write_text("{not json")
    out = ["--output-dir", str(tmp_path / "outputs")]
    result = invoke(["eval", "--benchmark", "mmar", "--predictions", str(garbage), *out])
    assert result.code == 2 and str(garbage) in result.stderr and "Traceback" not in result.stderr
    lacking = tmp_path / "lacking.jsonl"
    lacking.write_text(json.dumps({"id": "x", "answer_prediction": "A"}) + "\n")
    result = invoke(["eval", "--benchmark", "mmar", "--predictions", str(lacking), *out])
    assert result.code == 2 and "field" in result.stderr
    assert not (tmp_path / "outputs").exists()
