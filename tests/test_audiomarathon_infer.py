"""Long clips through the openai backend against the local server: memory, conversion on the wire, resume, TTFT."""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np
import pytest
import soundfile as sf

from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import invoke, journal_lines

KEY = "sk-marathon-7c1d"
SECONDS, RATE = 300.0, 16000
CLIP_BYTES = int(SECONDS * RATE) * 2  # 16-bit mono


def long_clip(path: Path) -> None:
    t = np.arange(int(SECONDS * RATE)) / RATE
    noise = np.random.default_rng(0).normal(0, 0.002, t.size)
    sf.write(path, 0.3 * np.sin(2 * np.pi * 220 * t) + noise, RATE, subtype="PCM_16")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample with every MC and SER clip replaced by one 300 s, 16 kHz clip (hard links)."""
    root = tmp_path_factory.mktemp("long") / "data"
    assert invoke(["sample-data", "--benchmark", "audiomarathon", "--out", str(root)]).code == 0
    clip = root.parent / "long.wav"
    long_clip(clip)
    for wav in [*(root / "MC").rglob("*.wav"), *(root / "SER").rglob("*.wav")]:
        wav.unlink()
        os.link(clip, wav)
    return root


def infer(data: Path, out: Path, base_url: str, *extra: str):
    args = [
        "infer",
        "--skip-probe",  # request counts and bodies are the questions' only
        "--benchmark",
        "audiomarathon",
        "--model",
        "m",
        "--data-root",
        str(data),
        "--output-dir",
        str(out),
        "--base-url",
        base_url,
        "--retry-delay",
        "0.005",
        *extra,
    ]
    return invoke(args, {"OPENAI_API_KEY": KEY})


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[str]:
    """The local server in its own process, so that only the client's memory is measured here."""
    port_file = tmp_path / "port"
    command = [sys.executable, "-m", "avibench.testing.fake_openai", "--port-file", str(port_file)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not port_file.is_file() or not port_file.read_text():
            assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_long_clips_hold_one_encoded_copy_per_request_in_flight(
    data: Path, tmp_path: Path, server_process: str
) -> None:
    warm = infer(data, tmp_path / "warm-up", server_process, "--tasks", "MC", "--n-samples", "1")
    assert warm.code == 0, warm.stderr  # every module the run needs is imported before measuring
    tracemalloc.start()
    try:
        result = infer(data, tmp_path, server_process, "--tasks", "MC,SER", "--concurrency", "4")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 0, result.stderr
    records = [*journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "MC.jsonl")]
    records += journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "SER.jsonl")
    assert len(records) == 8 and all(r["error"] is None for r in records)
    encoded = CLIP_BYTES * 4 / 3
    assert all(encoded < r["request_bytes"] < encoded + 4000 for r in records)
    # Four requests in flight hold one base64 copy of their clip each (51 MB), plus the blocks being encoded.
    # A second copy per request (the messages beside the body, a body joined into one buffer, the transport's
    # buffer of a body written whole) would need eight.
    assert peak < 1.5 * 4 * encoded, f"peak {peak / 1e6:.0f} MB"


def decoded(part: dict) -> tuple[str, float, int]:
    raw = base64.b64decode(part["input_audio"]["data"])
    with av.open(io.BytesIO(raw)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return part["input_audio"]["format"], samples / stream.rate, stream.rate


@pytest.mark.parametrize(("fmt", "rate"), [("flac", None), ("mp3", "8000")])
def test_audio_is_converted_on_the_wire(data: Path, tmp_path: Path, fmt: str, rate: str | None) -> None:
    server = FakeOpenAIServer(responder=lambda body: "A")
    extra = ["--tasks", "MC", "--n-samples", "1", "--audio-format", fmt]
    extra += ["--audio-sample-rate", rate] if rate else []
    with server.run_in_thread():
        assert infer(data, tmp_path / "as-is", server.base_url, "--tasks", "MC", "--n-samples", "1").code == 0
        result = infer(data, tmp_path / fmt, server.base_url, *extra)
    assert result.code == 0, result.stderr
    as_is, converted = (body["messages"][1]["content"][0] for body in server.bodies())
    assert (
        base64.b64decode(as_is["input_audio"]["data"])
        == (data / "MC" / "wav" / "genres" / "mc_0000.wav").read_bytes()
    )
    name, seconds, got_rate = decoded(converted)
    assert (name, got_rate) == (fmt, int(rate or 16000)) and seconds == pytest.approx(SECONDS, abs=0.1)
    (record,) = journal_lines(tmp_path / fmt / "m" / "audiomarathon" / "infer" / "MC.jsonl")
    (plain,) = journal_lines(tmp_path / "as-is" / "m" / "audiomarathon" / "infer" / "MC.jsonl")
    assert record["request_bytes"] < 0.6 * plain["request_bytes"]
    assert record["params"]["audio_format"] == fmt and "audio_format" not in plain["params"]
    assert record["prompt_hash"] != plain["prompt_hash"]


def test_sample_rate_needs_a_format(data: Path, tmp_path: Path) -> None:
    result = infer(data, tmp_path, "http://127.0.0.1:9/v1", "--audio-sample-rate", "8000")
    assert result.code == 2 and "--audio-sample-rate applies to converted audio" in result.stderr


def test_resume_with_long_clips_asks_only_what_failed(data: Path, tmp_path: Path) -> None:
    server = FakeOpenAIServer(responder=lambda body: "B", plan=FaultPlan(by_request={2: Fault("400")}))
    with server.run_in_thread():
        first = infer(data, tmp_path, server.base_url, "--tasks", "MC", "--concurrency", "1")
        assert first.code == 1 and server.count == 4
        second = infer(data, tmp_path, server.base_url, "--tasks", "MC", "--concurrency", "1")
        assert second.code == 0 and server.count == 5
        third = infer(data, tmp_path, server.base_url, "--tasks", "MC")
        assert third.code == 0 and server.count == 5
    records = journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "MC.jsonl")
    failed = [r for r in records if r["error"] is not None]
    assert len(records) == 5 and len(failed) == 1 and "request_bytes" not in failed[0]
    assert records[-1]["key"] == failed[0]["key"] and records[-1]["predict"] == "B"


def test_streaming_records_time_to_first_token(data: Path, tmp_path: Path) -> None:
    server = FakeOpenAIServer(
        responder=lambda body: "The answer is B", first_token_delay=0.3, token_delay=0.1
    )
    with server.run_in_thread():
        result = infer(data, tmp_path, server.base_url, "--tasks", "SGR", "--n-samples", "1", "--stream")
    assert result.code == 0, result.stderr
    (record,) = journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "SGR.jsonl")
    assert server.bodies()[0]["stream_options"] == {"include_usage": True}
    assert record["predict"] == "The answer is B" and record["params"]["stream"] is True
    timings, usage = record["timings"], record["usage"]
    assert 0.3 <= timings["ttft_s"] < record["latency_s"]
    # three more words, 0.1 s apart on the server; a loaded client may read them together, so only bound it
    assert 0 < timings["decode_s"] <= record["latency_s"] - timings["ttft_s"] + 0.01
    assert (usage["completion_tokens"], usage["audio_tokens"]) == (4, 256)
    assert timings["output_tokens_per_s"] == pytest.approx(3 / timings["decode_s"], rel=0.01)


def test_report_shows_the_efficiency_axis(data: Path, tmp_path: Path) -> None:
    server = FakeOpenAIServer(
        responder=lambda body: "b is my answer", first_token_delay=0.1, token_delay=0.02
    )
    with server.run_in_thread():
        assert (
            infer(data, tmp_path, server.base_url, "--tasks", "SGR,MC", "--n-samples", "1", "--stream").code
            == 0
        )
    common = ["--benchmark", "audiomarathon", "--output-dir", str(tmp_path), "--label", "m"]
    # one question of two tasks: eval says the run is partial (exit 3) and scores it with --allow-partial
    assert invoke(["eval", *common, "--data-root", str(data)]).code == 3
    assert invoke(["eval", *common, "--data-root", str(data), "--allow-partial"]).code == 0
    assert invoke(["report", *common]).code == 0
    report = (tmp_path / "m" / "audiomarathon" / "report.md").read_text()
    section = report[report.index("## Efficiency") : report.index("### Published")]
    rows = {
        line.split(" | ")[0].strip("| "): line.split(" | ")
        for line in section.splitlines()
        if line[:2] == "| "
    }
    (sgr,) = journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "SGR.jsonl")
    (mc,) = journal_lines(tmp_path / "m" / "audiomarathon" / "infer" / "MC.jsonl")
    assert rows["SGR"][1:5] == [
        "1",
        f"{sgr['latency_s']:.2f}",
        f"{sgr['latency_s']:.2f}",
        f"{sgr['timings']['ttft_s']:.3f}",
    ]
    assert rows["SGR"][-1] == f"{90 / sgr['latency_s']:.1f} |"  # the sample's clips last 90 s
    assert rows["MC"][-1] == f"{SECONDS / mc['latency_s']:.1f} |"
    assert rows["MC"][-2] == f"{mc['request_bytes'] / 1e6:.2f}"
    assert "## Efficiency" in report and "counts the prefill twice" in report
    assert "| SCR | RACE | Qwen2.5-Omni | 0.745 | 0.349 | 0.396 | yes | 0.396 |" in report
