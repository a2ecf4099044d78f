"""``avibench probe`` against the fake server over real HTTP: counted, ignored and unverified, per media strategy."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import av
import numpy as np
import pytest
import soundfile as sf
from PIL import Image
from tiny_dataset import build_dataset

from avibench.infer.probe import BEEPS, COLOURS, beeps, is_right, make_case, says_missing
from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CliResult, invoke

if TYPE_CHECKING:
    from conftest import Serve

KEY = "sk-probe-test"


def user_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body["messages"][-1]["content"]


def count_beeps(samples: np.ndarray, rate: int) -> int:
    """Bursts of sound in a clip: 10 ms frames louder than a tenth of the loudest, counted where they start."""
    frame = rate // 100
    energy = np.abs(samples[: len(samples) // frame * frame]).reshape(-1, frame).max(axis=1)
    loud = energy > 0.1 * max(energy.max(), 1e-9)
    return int(np.sum(loud[1:] & ~loud[:-1]) + loud[0])


def colour_name(image: Image.Image) -> str:
    mean = np.asarray(image.convert("RGB"), dtype=float).reshape(-1, 3).mean(axis=0)
    return min(COLOURS, key=lambda name: float(np.sum((np.array(COLOURS[name]) - mean) ** 2)))


def _payload(url: str) -> tuple[str, bytes]:
    head, _, data = url.partition(",")
    return head, base64.b64decode(data)


def _first_video_frame(data: bytes) -> Image.Image:
    with av.open(io.BytesIO(data)) as container:
        return next(container.decode(video=0)).to_image()


def described(part: dict[str, Any]) -> str:
    """An audio part's format, or a URL part's data-URI head (``data:video/mp4``)."""
    if part["type"] == "input_audio":
        return part["input_audio"]["format"]
    return part[part["type"]]["url"].partition(";")[0]


def seeing(body: dict[str, Any]) -> str:
    """A model that really reads what it is sent: it counts the beeps it hears and names the colour it sees."""
    question = " ".join(p["text"] for p in user_parts(body) if p["type"] == "text")
    for part in user_parts(body):
        if part["type"] == "input_audio" and "beeps" in question:
            samples, rate = sf.read(io.BytesIO(base64.b64decode(part["input_audio"]["data"])))
            return f"I hear {count_beeps(samples, rate)} beeps."
        if part["type"] in ("image_url", "video_url") and "colour" in question:
            head, data = _payload(part[part["type"]]["url"])
            image = _first_video_frame(data) if "video" in head else Image.open(io.BytesIO(data))
            return f"It is {colour_name(image)}."
    return "There is nothing to hear or see in your message."


def blind(body: dict[str, Any]) -> str:
    return "Sorry, I cannot see or hear any media; no audio or image was attached."


def probe(server: FakeOpenAIServer, *extra: str) -> CliResult:
    args = ["probe", "--model", "m", "--base-url", server.base_url, "--timeout", "20", *extra]
    return invoke(args, {"OPENAI_API_KEY": KEY})


def verdict_lines(result: CliResult) -> dict[str, str]:
    return dict(re.findall(r"^(audio|image|video): (\w+|n/a) ", result.stdout, flags=re.M))


def test_generated_media_hold_what_the_questions_ask(tmp_path: Path) -> None:
    assert [count_beeps(beeps(n), 16000) for n in BEEPS] == list(BEEPS)
    image = make_case("image", tmp_path)
    assert [colour_name(Image.open(p.path)) for p, _ in image.clips] == [a for _, a in image.clips]
    video = make_case("video", tmp_path)
    for part, colour in video.clips:
        with av.open(str(part.path)) as container:
            assert (
                container.streams.audio and colour_name(next(container.decode(video=0)).to_image()) == colour
            )


def test_answers_are_read_for_the_first_count_or_colour(tmp_path: Path) -> None:
    audio, image = make_case("audio", tmp_path), make_case("image", tmp_path)
    assert is_right(audio, 0, "I count three beeps.") and is_right(audio, 1, "5")
    assert not is_right(audio, 0, "5 beeps, not 3") and not is_right(audio, 0, "The answer is **yes**.")
    assert is_right(image, 0, "Red.") and not is_right(image, 1, "It is red, not blue")
    assert says_missing("I cannot hear any audio in your message.")
    assert says_missing("The image was not provided.")
    assert says_missing("There is no video.") and says_missing("I do not see any image here.")
    assert not says_missing("I hear 3 beeps.") and not says_missing("Blue")
    # hedges and negations about the content are not statements that the media is missing
    assert not says_missing("I'm not sure, but the audio has 3 beeps")
    assert not says_missing("No, the image is red.") and not says_missing("The video is not red")


def test_usage_that_counts_media_is_counted(serve: Serve) -> None:
    server = serve()
    result = probe(server)
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "counted", "image": "counted", "video": "counted"}
    assert server.count == 6 and "cost: 6 request(s)" in result.stdout
    with_media = [user_parts(b) for b in server.bodies() if len(user_parts(b)) > 1]
    kinds = sorted(p["type"] for parts in with_media for p in parts if p["type"] != "text")
    assert kinds == ["image_url", "image_url", "input_audio"]


def test_dropped_media_are_ignored_and_exit_1(serve: Serve) -> None:
    server = serve(usage="text")
    result = probe(server)
    assert result.code == 1
    assert verdict_lines(result) == {"audio": "ignored", "image": "ignored", "video": "ignored"}
    assert "the audio does not reach the model" in result.stderr and "input_audio" in result.stderr
    assert "--media strategy" in result.stderr
    assert server.count == 6


def test_no_usage_and_answers_that_prove_nothing_are_unverified(serve: Serve) -> None:
    server = serve(usage="none")  # answers "The answer is **yes**." to everything
    result = probe(server)
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "unverified", "image": "unverified", "video": "unverified"}
    assert "no usage reported" in result.stdout and "expected 3 and 5" in result.stdout
    assert server.count == 9  # a third question per modality when no usage comes back


def test_no_usage_but_right_answers_about_two_clips_are_counted(serve: Serve) -> None:
    server = serve(usage="none", responder=seeing)
    result = probe(server)
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "counted", "image": "counted", "video": "counted"}
    assert "both answers right (3 and 5)" in result.stdout


def test_no_usage_and_a_model_that_says_it_got_nothing_is_ignored(serve: Serve) -> None:
    server = serve(usage="none", responder=blind)
    result = probe(server)
    assert result.code == 1
    assert verdict_lines(result) == {"audio": "ignored", "image": "ignored", "video": "ignored"}
    assert server.count == 6  # the answer with the first clip says enough


def test_a_lucky_guess_is_not_counted(serve: Serve) -> None:
    server = serve(usage="none", responder=lambda body: "3, red, green")
    result = probe(server)
    assert verdict_lines(result) == {"audio": "unverified", "image": "unverified", "video": "unverified"}


def test_a_failing_endpoint_is_unverified_with_why(serve: Serve) -> None:
    from avibench.testing.fake_openai import Fault, FaultPlan

    server = serve(plan=FaultPlan(markers={"beeps": Fault("400")}))
    result = probe(server)
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "unverified", "image": "counted", "video": "counted"}
    assert "the question with the audio failed: HTTP 400" in result.stdout


@pytest.mark.parametrize(
    ("media", "video_parts"),
    [
        ("data-uri", ["image_url:data:video/mp4"]),
        ("video-url", ["video_url:data:video/mp4"]),
        ("frames:3", ["image_url:data:image/jpeg"] * 3 + ["input_audio:wav"]),
    ],
)
def test_each_media_strategy(serve: Serve, media: str, video_parts: list[str]) -> None:
    """The video probe sends the clip as the run's strategy would, and reads all three server behaviours."""
    counting, dropping, silent = serve(), serve(usage="text"), serve(usage="none", responder=seeing)
    counted = probe(counting, "--media", media)
    assert verdict_lines(counted)["video"] == "counted", counted.stdout
    (body,) = [b for b in counting.bodies() if "colour is the video" in str(b) and len(user_parts(b)) > 1]
    sent = [f"{p['type']}:{described(p)}" for p in user_parts(body) if p["type"] != "text"]
    assert sent == video_parts
    ignored = probe(dropping, "--media", media)
    assert ignored.code == 1 and verdict_lines(ignored)["video"] == "ignored"
    read = probe(silent, "--media", media)
    assert verdict_lines(read)["video"] == "counted", read.stdout


def test_a_benchmark_probes_only_what_its_tasks_send(serve: Serve, tmp_path: Path) -> None:
    root = build_dataset(tmp_path / "levels", {"AMIC": 2, "VMIC": 2})
    server = serve()
    result = probe(server, "--benchmark", "avibench", "--data-root", str(root), "--tasks", "AMIC")
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "counted"} and server.count == 2
    both = probe(server, "--benchmark", "avibench", "--data-root", str(root), "--tasks", "AMIC,VMIC")
    assert verdict_lines(both) == {"audio": "counted", "image": "counted"}


def test_offline_baselines_read_no_media() -> None:
    result = invoke(["probe", "--model", "random"])
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "n/a", "image": "n/a", "video": "n/a"}
    assert "cost" not in result.stdout


@pytest.mark.slow
def test_a_local_model_is_probed_from_its_processor(tmp_path: Path) -> None:
    """The transformers backend counts the tokens its processor builds: nothing is generated, no request sent."""
    from avibench.testing.tiny_models import build

    checkpoint = build("qwen2-audio", tmp_path / "ckpt")
    args = ["probe", "--backend", "transformers", "--model", str(checkpoint), "--device", "cpu"]
    result = invoke(args)
    assert result.code == 0, result.stderr
    assert verdict_lines(result) == {"audio": "counted", "image": "unverified", "video": "unverified"}
    without, with_audio = map(
        int, re.search(r"prompt (\d+) tokens without the audio, (\d+)", result.stdout).groups()
    )
    assert with_audio - without >= 16 and "cost" not in result.stdout
    assert "the question with the image failed" in result.stdout  # an audio-only model refuses images


class _ZeroUsage(FakeOpenAIServer):
    """A gateway that reports usage with every count zero."""

    def _completion(self, body, text, fault):  # type: ignore[override]
        completion = super()._completion(body, text, fault)
        completion["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        return completion


def test_an_endpoint_refusing_audio_parts_is_ignored_not_unverified(serve: Serve) -> None:
    """Every audio question of a run would be refused the same way: the run must stop, not fail each one."""
    server = serve(reject_parts=("input_audio",))
    result = probe(server)
    assert result.code == 1, result.stdout
    assert verdict_lines(result) == {"audio": "ignored", "image": "counted", "video": "counted"}
    assert "refuses the question with the audio: HTTP 400: Unsupported content part type" in result.stdout
    assert server.rejected == 1  # refused at once, not retried; the question without it was answered


def test_usage_of_all_zeros_is_no_count_and_never_ignored() -> None:
    server = _ZeroUsage(responder=seeing)
    with server.run_in_thread():
        result = probe(server)
    assert result.code == 0, result.stdout
    assert verdict_lines(result) == {"audio": "counted", "image": "counted", "video": "counted"}
    assert result.stdout.count("no usage reported; both answers right") == 3


def test_a_rejected_key_names_the_setting_and_exits_1(serve: Serve) -> None:
    from avibench.testing.fake_openai import Fault, FaultPlan

    server = serve(plan=FaultPlan(rate=1.0, random_faults=(Fault("401"),)))
    result = probe(server)
    assert result.code != 0 and server.count == 3
    assert (
        "rejects the API key (HTTP 401): check OPENAI_API_KEY" in result.stderr and KEY not in result.stderr
    )


class _ShrinkingUsage(FakeOpenAIServer):
    """A gateway whose prompt counts are noise: fewer tokens for a prompt with media than for the text alone."""

    def _completion(self, body, text, fault):  # type: ignore[override]
        completion = super()._completion(body, text, fault)
        completion["usage"]["prompt_tokens"] = (
            40 if "input_audio" in str(body) or "data:" in str(body) else 100
        )
        return completion


def test_usage_that_shrinks_with_the_media_is_unverified_not_ignored() -> None:
    """'ignored' stops a run; counts that fall when media are added prove nothing either way."""
    server = _ShrinkingUsage(responder=seeing)
    with server.run_in_thread():
        result = probe(server)
    assert result.code == 0, result.stdout
    assert verdict_lines(result) == {"audio": "unverified", "image": "unverified", "video": "unverified"}
    assert "fewer with the audio, so the counts say nothing" in result.stdout
