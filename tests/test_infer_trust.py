"""Infer stops on failures no retry can fix, refuses to mix settings or edited questions, and reports as it goes."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.store import read_records
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke

KEY = "sk-trust-test-1234"
FAST = ["--retry-delay", "0.001", "--timeout", "2", "--concurrency", "2", "--skip-probe"]


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dataset(tmp_path_factory.mktemp("trust") / "levels", {"AMIC": 30})


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    with fake.run_in_thread():
        yield fake


def run(server: FakeOpenAIServer | None, root: Path, out: Path, *extra: str, model: str = "m", env=None):
    environment = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url if server else "", **(env or {})}
    args = ["infer", "--model", model, "--data-root", str(root), "--output-dir", str(out), *FAST, *extra]
    return invoke(args, environment)


def journal(out: Path, label: str = "m") -> list[dict]:
    return list(read_records(out / label / "avibench" / "infer" / "AMIC.jsonl"))


@pytest.mark.parametrize(
    ("status", "advice"), [("404", "does not serve model 'm'"), ("401", "check OPENAI_API_KEY")]
)
def test_permanent_error_stops_after_a_few_with_what_to_fix(
    server, data_root: Path, tmp_path: Path, status: str, advice: str
) -> None:
    server.plan = FaultPlan(rate=1.0, random_faults=(Fault(status),))
    result = run(server, data_root, tmp_path, "--concurrency", "1")
    assert result.code == 1
    assert server.count == 3  # not 30: three identical failures are enough
    assert advice in result.stderr and "stopped after 3 x 'HTTP" in result.stderr
    assert "re-run the same command" not in result.stderr


def test_max_failures_stops_a_run_that_fails_too_much(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(rate=1.0, random_faults=(Fault("400"),))
    result = run(server, data_root, tmp_path, "--concurrency", "1", "--max-failures", "4")
    assert result.code == 1 and server.count == 5
    assert "5 of 5 questions failed, more than --max-failures 4" in result.stderr
    bad = run(server, data_root, tmp_path, "--max-failures", "lots")
    assert bad.code == 2 and "--max-failures 'lots'" in bad.stderr


def test_dead_replica_fails_no_question(server, data_root: Path, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    result = run(
        None, data_root, tmp_path, "--base-url", dead, "--base-url", server.base_url, "--retry-delay", "2"
    )
    assert result.code == 0, result.stderr
    assert server.count == 30 and all(r["error"] is None for r in journal(tmp_path))


def test_filtered_answer_is_a_failure_with_its_finish_reason(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(by_request={1: Fault("filtered"), 2: Fault("filtered")})
    result = run(server, data_root, tmp_path, "--concurrency", "1", "--n-samples", "2")
    assert result.code == 1
    first = journal(tmp_path)[0]
    assert first["predict"] is None and first["finish_reason"] == "content_filter"
    assert "filtered answer (finish_reason content_filter)" in first["error"]
    assert server.count == 3  # the filtered question was asked twice, the next one once


def test_other_generation_settings_are_refused_unless_allowed(data_root: Path, tmp_path: Path) -> None:
    first = run(None, data_root, tmp_path, "--n-samples", "10", model="oracle")
    assert first.code == 0
    mixed = run(None, data_root, tmp_path, "--temperature", "0.7", model="oracle")
    assert mixed.code == 2
    assert "is bound to temperature 0.0, not temperature 0.7" in mixed.stderr
    assert "--allow-mixed" in mixed.stderr
    allowed = run(None, data_root, tmp_path, "--temperature", "0.7", "--allow-mixed", model="oracle")
    assert allowed.code == 0
    runs = list(read_records(tmp_path / "oracle" / "avibench" / "infer" / "runs.jsonl"))
    starts = [r for r in runs if r["event"] == "start"]
    assert len(starts) == 2 and [r for r in runs if r["event"] == "end"]
    assert starts[1]["mixed_settings"] == {"AMIC": {"temperature": 10}}
    temperatures = sorted(r["params"]["temperature"] for r in journal(tmp_path, "oracle"))
    assert temperatures == [0.0] * 10 + [0.7] * 20


def _data_json(root: Path) -> Path:
    return next(root.rglob("AMIC/data.json"))


def test_edited_question_or_media_under_a_journal_is_found(data_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "levels"
    shutil.copytree(data_root, root)
    assert run(None, root, tmp_path / "out", model="oracle").code == 0
    shutil.copytree(root, tmp_path / "moved")  # a copy elsewhere (new paths and times) resumes as it is
    again = run(None, tmp_path / "moved", tmp_path / "out", model="oracle")
    assert again.code == 0, again.stderr

    path = _data_json(root)
    entries = json.loads(path.read_text())
    entries[4]["input"]["question"]["text"] += " (edited)"
    path.write_text(json.dumps(entries))
    edited = run(None, root, tmp_path / "out", model="oracle")
    assert edited.code == 2 and "entry 4" in edited.stderr and "content hash differs" in edited.stderr

    entries[4]["input"]["question"]["text"] = entries[4]["input"]["question"]["text"].removesuffix(
        " (edited)"
    )
    path.write_text(json.dumps(entries))
    wav = path.parent / entries[6]["input"]["audio_list"][0]
    wav.write_bytes(wav.read_bytes()[:-2000])
    replaced = run(None, root, tmp_path / "out", model="oracle")
    assert replaced.code == 2 and "entry 6" in replaced.stderr


def test_batch_job_prints_progress_lines_and_new_failures(server, data_root: Path, tmp_path: Path) -> None:
    server.plan = FaultPlan(by_request={3: Fault("400"), 9: Fault("400")})
    result = run(server, data_root, tmp_path, "--concurrency", "1", env={"AVIBENCH_PROGRESS_INTERVAL": "0"})
    assert result.code == 1
    lines = result.stderr.splitlines()
    progress = [line for line in lines if line.startswith("infer: ") and " done, " in line]
    assert len(progress) >= 25 and "/s, elapsed" in progress[-1] and "30/30 done" in progress[-1]
    assert "commonest failure: HTTP 400: injected HTTP 400 (x2)" in progress[-1]
    new = [line for line in lines if "new failure" in line]
    assert new == [
        "infer: new failure (AMIC): HTTP 400: injected HTTP 400"
    ]  # printed once, when it first happened
    assert "commonest failure: HTTP 400: injected HTTP 400 (x2)" in lines[-2]
    log = (tmp_path / "m" / "avibench" / "infer" / "run.log").read_text()
    assert "new failure" in log and "summary" in log


def test_temperature_is_validated_and_none_sends_none(server, data_root: Path, tmp_path: Path) -> None:
    bad = run(server, data_root, tmp_path, "--temperature", "2.5")
    assert bad.code == 2 and "outside 0-2" in bad.stderr
    extra = ["--n-samples", "1", "--temperature", "none", "--system-prompt", "Be brief."]
    ok = run(server, data_root, tmp_path, *extra, "--extra-body", '{"reasoning_effort": "low"}')
    assert ok.code == 0, ok.stderr
    body = server.bodies()[0]
    assert "temperature" not in body and body["reasoning_effort"] == "low"
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}


def test_unknown_task_folder_and_wrong_task_field_are_reported_and_refused(
    data_root: Path, tmp_path: Path
) -> None:
    root = tmp_path / "levels"
    shutil.copytree(data_root, root)
    stray = root / "perception" / "AMIC_old"
    shutil.copytree(_data_json(root).parent, stray)
    path = _data_json(root)
    entries = json.loads(path.read_text())
    entries[2]["task"] = "VMIC"
    path.write_text(json.dumps(entries))
    checked = invoke(["validate-data", str(root)])
    assert checked.code != 0
    assert "unknown task folder perception/AMIC_old" in checked.stdout + checked.stderr
    assert "task is 'VMIC' but the folder is AMIC" in checked.stdout + checked.stderr
    refused = run(None, root, tmp_path / "out", model="oracle")
    assert refused.code == 2 and "entry 2" in refused.stderr and "field task" in refused.stderr


@pytest.mark.parametrize(
    ("base_url", "says"),
    [
        ("127.0.0.1:{port}/v1", "needs http:// or https://"),
        ("http://user:{key}@127.0.0.1:{port}/v1", "holds a user name or password"),
    ],
)
def test_a_base_url_no_request_can_use_fails_before_any_request(
    server, data_root: Path, tmp_path: Path, base_url: str, says: str
) -> None:
    """A URL without a scheme failed every question as a retried connection failure (never permanent, so the run
    went on to the end), and one with credentials as a retried 'malformed response'."""
    url = base_url.format(port=server.port, key=KEY)
    result = run(server, data_root, tmp_path, env={"OPENAI_BASE_URL": url})
    assert result.code != 0 and says in result.stderr and "Traceback" not in result.stderr
    assert server.count == 0 and KEY not in result.stderr + result.stdout
