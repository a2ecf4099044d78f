"""A whole infer run against the fake server: faults, failures, resume, key hygiene, export, shards."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.contracts import is_answered as is_done
from avibench.store import latest_by_index
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-run-test-5f3a9c1e7d"
COUNTS = {"AMIC": 12, "VMIC": 8}
TOTAL = sum(COUNTS.values())
# the requests counted here are the questions': tests/test_probe_infer.py counts the probe's
FAST = ["--retry-delay", "0.005", "--timeout", "0.5", "--skip-probe"]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    markers = {"AMIC": {3: "<<PERMA>>", 5: "<<BADREQ>>", 7: "<<ECHO>>"}}
    return build_dataset(tmp_path_factory.mktemp("run") / "levels", COUNTS, markers)


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    with fake.run_in_thread():
        yield fake


def infer(server: FakeOpenAIServer, data_root: Path, out: Path, *extra: str):
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    args = ["infer", "--model", "m", "--data-root", str(data_root), "--output-dir", str(out), *FAST, *extra]
    return invoke(args, env)


def done_counts(out: Path, task: str) -> Counter[int]:
    return Counter(
        r["index"] for r in journal_lines(out / "m" / "avibench" / "infer" / f"{task}.jsonl") if is_done(r)
    )


def test_run_completes_with_30_percent_faulty_requests(server, data_root: Path, tmp_path: Path) -> None:
    kinds = ("429:0.01", "500", "502", "503", "reset", "malformed", "empty", "null", "hang:3")
    server.plan = FaultPlan(rate=0.3, seed=7, random_faults=tuple(Fault.parse(k) for k in kinds))
    result = infer(
        server, data_root, tmp_path, "--max-attempts", "12", "--concurrency", "6", "--tasks", "VMIC,AMIC"
    )
    assert result.code == 0, result.stderr
    for task, count in COUNTS.items():
        assert done_counts(tmp_path, task) == Counter(range(count))
    faulty = sum(r.fault is not None for r in server.requests)
    assert faulty >= 3 and server.count == TOTAL + faulty
    # every request the endpoint received is accounted for: the journal records store the client's attempts
    attempts = sum(
        r.get("attempts", 0)
        for task in COUNTS
        for r in journal_lines(tmp_path / "m" / "avibench" / "infer" / f"{task}.jsonl")
    )
    assert attempts == server.count


def test_failed_sample_is_recorded_and_only_it_is_retried(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(markers={"<<PERMA>>": Fault("503")})
    first = infer(server, data_root, tmp_path, "--max-attempts", "3", "--tasks", "AMIC")
    assert first.code == 1
    assert "HTTP 503" in first.stderr and "re-run" in first.stderr
    latest = latest_by_index(tmp_path / "m" / "avibench" / "infer" / "AMIC.jsonl")
    assert latest[3]["predict"] is None and latest[3]["error"].startswith("HTTP 503")
    assert latest[3]["attempts"] == 3 and latest[0]["attempts"] == 1
    assert sorted(i for i, r in latest.items() if is_done(r)) == [i for i in range(12) if i != 3]
    assert server.count == 11 + 3

    server.plan = FaultPlan()
    second = infer(server, data_root, tmp_path, "--tasks", "AMIC")
    assert second.code == 0, second.stderr
    assert server.count == 15
    assert "<<PERMA>>" in json.dumps(server.requests[-1].body)
    assert done_counts(tmp_path, "AMIC") == Counter(range(12))

    third = infer(server, data_root, tmp_path, "--tasks", "AMIC")
    assert third.code == 0 and server.count == 15  # a finished run makes no request
    assert "skipped" in third.stdout  # the closing table is a result: stdout


def test_non_retryable_error_fails_at_once(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(markers={"<<BADREQ>>": Fault("400")})
    result = infer(server, data_root, tmp_path, "--tasks", "AMIC", "--max-attempts", "5")
    assert result.code == 1
    assert server.count == 12
    latest = latest_by_index(tmp_path / "m" / "avibench" / "infer" / "AMIC.jsonl")
    assert latest[5]["error"] == "HTTP 400: injected HTTP 400" and latest[5]["predict"] is None


def test_api_key_never_written_anywhere(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(markers={"<<ECHO>>": Fault("echo-auth"), "<<PERMA>>": Fault("reset")})
    result = infer(server, data_root, tmp_path, "--tasks", "AMIC", "--max-attempts", "2")
    assert result.code == 1
    assert any(r.authorization == f"Bearer {KEY}" for r in server.requests)  # it was sent, so it could leak
    latest = latest_by_index(tmp_path / "m" / "avibench" / "infer" / "AMIC.jsonl")
    assert "Bearer ***" in latest[7]["error"]
    assert KEY not in result.stdout + result.stderr
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 2
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path


def test_dataset_changed_under_journal_stops(tmp_path: Path, data_root: Path) -> None:
    root = tmp_path / "levels"
    shutil.copytree(data_root, root)
    args = ["infer", "--model", "oracle", "--data-root", str(root), "--output-dir", str(tmp_path / "out")]
    assert invoke([*args, "--tasks", "VMIC"]).code == 0
    data_file = root / "perception" / "VMIC" / "data.json"
    entries = json.loads(data_file.read_text())
    entries[1]["id"] = "99999"
    data_file.write_text(json.dumps(entries))
    journal = tmp_path / "out" / "oracle" / "avibench" / "infer" / "VMIC.jsonl"
    before = journal.read_bytes()
    result = invoke([*args, "--tasks", "VMIC"])
    assert result.code == 2
    assert "entry 1" in result.stderr and "'99999'" in result.stderr and "dataset changed" in result.stderr
    assert journal.read_bytes() == before


def test_other_model_under_same_label_stops(tmp_path: Path, data_root: Path) -> None:
    args = ["--data-root", str(data_root), "--output-dir", str(tmp_path), "--tasks", "VMIC", "--label", "run"]
    assert invoke(["infer", "--model", "oracle", *args]).code == 0
    result = invoke(["infer", "--model", "random", *args])
    assert result.code == 2 and "another --label" in result.stderr


def test_export_reference_format(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(markers={"<<PERMA>>": Fault("500")})
    assert infer(server, data_root, tmp_path, "--max-attempts", "1").code == 1
    common = ["--model", "m", "--data-root", str(data_root), "--output-dir", str(tmp_path)]
    result = invoke(["export", *common])
    assert result.code == 0, result.stderr
    unrefined = json.loads((tmp_path / "m" / "avibench" / "reference" / "tasks" / "AMIC.json").read_text())
    assert unrefined == [None] * 12  # the official scorer reads refined answers: none are refined yet
    assert invoke(["export", *common, "--stage", "infer"]).code == 0
    amic = json.loads((tmp_path / "m" / "avibench" / "reference" / "tasks" / "AMIC.json").read_text())
    assert len(amic) == 12 and amic[3] is None
    assert amic[0] == {"task": "AMIC", "subtask": None, "id": "00000", "predict": "The answer is **yes**."}
    vmic = json.loads((tmp_path / "m" / "avibench" / "reference" / "tasks" / "VMIC.json").read_text())
    assert [slot["id"] for slot in vmic] == [f"{i:05d}" for i in range(8)]
    out = tmp_path / "elsewhere"
    invoke(
        [
            "export",
            "--model",
            "m",
            "--data-root",
            str(data_root),
            "--output-dir",
            str(tmp_path),
            "--out",
            str(out),
            "--stage",
            "infer",
        ]
    )
    assert json.loads((out / "tasks" / "AMIC.json").read_text()) == amic


def test_shards_are_disjoint_and_cover_everything(tmp_path: Path, data_root: Path) -> None:
    args = ["infer", "--model", "oracle", "--data-root", str(data_root), "--output-dir", str(tmp_path)]
    assert invoke([*args, "--shard", "0/3"]).code == 0
    first = latest_by_index(tmp_path / "oracle" / "avibench" / "infer" / "AMIC.jsonl")
    assert sorted(first) == [0, 3, 6, 9]
    assert invoke([*args, "--shard", "2/3"]).code == 0
    assert invoke([*args, "--shard", "1/3"]).code == 0
    for task, count in COUNTS.items():
        lines = journal_lines(tmp_path / "oracle" / "avibench" / "infer" / f"{task}.jsonl")
        assert sorted(r["index"] for r in lines) == list(range(count))


def test_n_samples_caps_each_task(tmp_path: Path, data_root: Path) -> None:
    args = ["infer", "--model", "random", "--data-root", str(data_root), "--output-dir", str(tmp_path)]
    assert invoke([*args, "--n-samples", "2"]).code == 0
    for task in COUNTS:
        assert len(journal_lines(tmp_path / "random" / "avibench" / "infer" / f"{task}.jsonl")) == 2


def test_missing_media_fails_that_sample_only(tmp_path: Path, data_root: Path) -> None:
    root = tmp_path / "levels"
    shutil.copytree(data_root, root)
    (root / "perception" / "AMIC" / "input" / "wavs" / "00002.wav").unlink()
    fake = FakeOpenAIServer()
    with fake.run_in_thread():
        result = infer(fake, root, tmp_path / "out", "--tasks", "AMIC")
    assert result.code == 1
    latest = latest_by_index(tmp_path / "out" / "m" / "avibench" / "infer" / "AMIC.jsonl")
    assert latest[2]["error"].startswith("media file not found") and latest[2]["predict"] is None
    assert sum(is_done(r) for r in latest.values()) == 11 and fake.count == 11


def test_missing_credentials_say_what_to_set(tmp_path: Path, data_root: Path) -> None:
    result = invoke(
        ["infer", "--model", "gpt-x", "--data-root", str(data_root), "--output-dir", str(tmp_path)]
    )
    assert result.code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "OPENAI_API_KEY" in line and "--model random" in line


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--media", "frames:0", "media strategy"),
        ("--shard", "3/2", "shard"),
        ("--tasks", "NOPE", "unknown task"),
    ],
)
def test_bad_options_are_one_line_errors(
    tmp_path: Path, data_root: Path, flag: str, value: str, message: str
) -> None:
    args = [
        "infer",
        "--model",
        "random",
        "--data-root",
        str(data_root),
        "--output-dir",
        str(tmp_path),
        flag,
        value,
    ]
    result = invoke(args)
    assert result.code == 2 and message in result.stderr
