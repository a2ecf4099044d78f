"""What the openai backend sends: content order, media encodings and strategies, sampling parameters."""

from __future__ import annotations

import base64
import io
import json
import wave
from pathlib import Path

import pytest
from tiny_dataset import build_dataset

from avibench.benchmarks.avibench.dataset import load_task
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import invoke

KEY = "sk-wire-test-key"


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dataset(tmp_path_factory.mktemp("wire") / "levels", {"AVM": 1, "VAR": 1, "VMIC": 1})


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    with fake.run_in_thread():
        yield fake


def run(server: FakeOpenAIServer, data_root: Path, out: Path, task: str, *extra: str) -> list[dict]:
    """Run one task through the CLI and return the user content parts of each request."""
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url}
    args = [
        "infer",
        "--skip-probe",  # the questions' bodies only: tests/test_probe*.py check the probe's
        "--model",
        "m",
        "--data-root",
        str(data_root),
        "--output-dir",
        str(out),
        "--tasks",
        task,
        *extra,
    ]
    result = invoke(args, env)
    assert result.code == 0, result.stderr
    return server.bodies()


def types(parts: list[dict]) -> list[str]:
    return [p["type"] for p in parts]


def decode_uri(url: str, mime: str) -> bytes:
    prefix = f"data:{mime};base64,"
    assert url.startswith(prefix), url[:40]
    return base64.b64decode(url[len(prefix) :], validate=True)


def test_data_uri_sends_audio_files_beside_the_video(server, data_root: Path, tmp_path: Path) -> None:
    (body,) = run(server, data_root, tmp_path, "AVM")
    sample = load_task(data_root, "AVM")[0]
    system, user = body["messages"]
    assert system == {"role": "system", "content": "You are a helpful assistant."}
    parts = user["content"]
    assert types(parts) == ["input_audio", "image_url", "text"]
    assert parts[0]["input_audio"]["format"] == "wav"
    assert base64.b64decode(parts[0]["input_audio"]["data"]) == sample.audios[0].read_bytes()
    assert decode_uri(parts[1]["image_url"]["url"], "video/mp4") == sample.video.read_bytes()
    assert parts[2] == {"type": "text", "text": sample.text}
    assert body["temperature"] == 0 and "max_tokens" not in body and "seed" not in body


def test_drop_audio_with_video_reproduces_the_reference(server, data_root: Path, tmp_path: Path) -> None:
    (body,) = run(server, data_root, tmp_path, "AVM", "--drop-audio-with-video")
    assert types(body["messages"][1]["content"]) == ["image_url", "text"]


def test_video_url_strategy(server, data_root: Path, tmp_path: Path) -> None:
    (body,) = run(server, data_root, tmp_path, "AVM", "--media", "video-url")
    parts = body["messages"][1]["content"]
    assert types(parts) == ["input_audio", "video_url", "text"]
    sample = load_task(data_root, "AVM")[0]
    assert decode_uri(parts[1]["video_url"]["url"], "video/mp4") == sample.video.read_bytes()


def _wav_info(data: bytes) -> tuple[int, int, int]:
    with wave.open(io.BytesIO(data)) as wav:
        return wav.getframerate(), wav.getnchannels(), wav.getnframes()


@pytest.mark.parametrize("drop", [False, True])
def test_frames_strategy_sends_n_jpegs_and_the_soundtrack(
    server, data_root: Path, tmp_path: Path, drop: bool
) -> None:
    extra = ["--drop-audio-with-video"] if drop else []
    (body,) = run(server, data_root, tmp_path, "AVM", "--media", "frames:4", *extra)
    parts = body["messages"][1]["content"]
    expected = ["image_url"] * 4 + ["input_audio", "text"]
    assert types(parts) == (expected if drop else ["input_audio", *expected])
    frames = [decode_uri(p["image_url"]["url"], "image/jpeg") for p in parts if p["type"] == "image_url"]
    assert all(f.startswith(b"\xff\xd8") for f in frames)
    assert len(set(frames)) == 4  # the clip changes colour, so evenly spread frames differ
    track = parts[-2]["input_audio"]
    assert track["format"] == "wav"
    rate, channels, count = _wav_info(base64.b64decode(track["data"]))
    assert (rate, channels) == (16000, 1)
    assert 0.9 * 16000 <= count <= 1.1 * 16000  # the one-second soundtrack


def test_images_come_before_audios_in_list_order(server, data_root: Path, tmp_path: Path) -> None:
    (body,) = run(
        server, data_root, tmp_path, "VAR", "--max-tokens", "7", "--seed", "3", "--temperature", "0.5"
    )
    sample = load_task(data_root, "VAR")[0]
    parts = body["messages"][1]["content"]
    assert types(parts) == ["image_url", "input_audio", "input_audio", "input_audio", "text"]
    assert decode_uri(parts[0]["image_url"]["url"], "image/png") == sample.images[0].read_bytes()
    sent = [base64.b64decode(p["input_audio"]["data"]) for p in parts[1:4]]
    assert sent == [p.read_bytes() for p in sample.audios]
    assert (body["max_tokens"], body["seed"], body["temperature"]) == (7, 3, 0.5)


def test_record_holds_usage_latency_and_provenance(server, data_root: Path, tmp_path: Path) -> None:
    run(server, data_root, tmp_path, "VMIC")
    (record,) = [
        json.loads(x) for x in (tmp_path / "m" / "avibench" / "infer" / "VMIC.jsonl").read_text().splitlines()
    ]
    assert record["predict"] == "The answer is **yes**." and record["error"] is None
    assert record["usage"]["total_tokens"] > 0 and record["latency_s"] > 0
    assert record["backend"] == "openai" and record["model"] == "m"
    assert record["params"] == {
        "temperature": 0.0,
        "media": "data-uri",
        "drop_audio_with_video": False,
        "system_prompt": None,
        "template": "official",
    }
    assert len(record["prompt_hash"]) == 16
    run_json = json.loads((tmp_path / "m" / "avibench" / "infer" / "run.json").read_text())
    assert run_json["base_url_hosts"] == [f"http://127.0.0.1:{server.port}"]
    assert run_json["dataset_fingerprint"] and run_json["media"] == "data-uri"
