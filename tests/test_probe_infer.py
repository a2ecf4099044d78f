"""infer runs the media probe first: once per run and endpoint, a stop on an ignored modality, a warning on an
unverified one, and the verdicts in run.json, probe.json, eval.json and the pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tiny_dataset import build_dataset

from avibench.testing.fake_openai import FakeOpenAIServer
from avibench.testing.harness import CliResult, invoke

if TYPE_CHECKING:
    from conftest import Serve

KEY = "sk-probe-infer"
COUNTS = {"AMIC": 4, "VMIC": 3}
PROBE_TEXTS = ("How many beeps are in the audio?", "What colour is the image?", "What colour is the video?")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_dataset(tmp_path_factory.mktemp("probe-run") / "levels", COUNTS)


def infer(server: FakeOpenAIServer, root: Path, out: Path, tasks: str, *extra: str) -> CliResult:
    args = ["infer", "--model", "m", "--data-root", str(root), "--output-dir", str(out), "--tasks", tasks]
    args += ["--base-url", server.base_url, "--retry-delay", "0.005", *extra]
    return invoke(args, {"OPENAI_API_KEY": KEY})


def probe_requests(server: FakeOpenAIServer) -> int:
    return sum(any(t in json.dumps(r.body) for t in PROBE_TEXTS) for r in server.requests)


def infer_dir(out: Path) -> Path:
    return out / "m" / "avibench" / "infer"


def run_json(out: Path) -> dict[str, Any]:
    return json.loads((infer_dir(out) / "run.json").read_text())


def answers(out: Path, task: str) -> int:
    journal = infer_dir(out) / f"{task}.jsonl"
    if not journal.is_file():
        return 0
    return sum(json.loads(line)["error"] is None for line in journal.read_text().splitlines())


def test_counted_media_are_probed_once_per_run_and_endpoint(serve: Serve, root: Path, tmp_path: Path) -> None:
    server = serve()
    first = infer(server, root, tmp_path, "AMIC", "--n-samples", "2")
    assert first.code == 0, first.stderr
    assert "media probe: audio: counted (prompt" in first.stderr
    assert probe_requests(server) == 2 and server.count == 2 + 2
    assert run_json(tmp_path)["media_probe"] == {"audio": "counted"}
    stored = json.loads((infer_dir(tmp_path) / "probe.json").read_text())
    assert stored["endpoint"]["model"] == "m" and stored["results"]["audio"]["requests"] == 2

    # the rest, and a task sending images: only the image is probed, the audio verdict is on file
    second = infer(server, root, tmp_path, "AMIC,VMIC")
    assert second.code == 0, second.stderr
    assert "media probe: audio: counted (prompt 16 tokens without the audio, 272 with it)" in second.stderr
    assert "[on file from an earlier run]" in second.stderr and "media probe: image: counted" in second.stderr
    assert probe_requests(server) == 4 and server.count == sum(COUNTS.values()) + 4
    assert run_json(tmp_path)["media_probe"] == {"audio": "counted", "image": "counted"}

    # a finished run re-run asks nothing, probe included, and keeps its verdicts
    third = infer(server, root, tmp_path, "AMIC,VMIC")
    assert third.code == 0 and server.count == sum(COUNTS.values()) + 4
    assert run_json(tmp_path)["media_probe"] == {"audio": "counted", "image": "counted"}


def test_another_endpoint_is_probed_again(serve: Serve, root: Path, tmp_path: Path) -> None:
    assert infer(serve(), root, tmp_path, "AMIC", "--n-samples", "2").code == 0
    other = serve()
    assert infer(other, root, tmp_path, "AMIC").code == 0
    assert probe_requests(other) == 2 and other.count == 2 + 2


def test_an_ignored_modality_stops_the_run_before_any_question(
    serve: Serve, root: Path, tmp_path: Path
) -> None:
    dropping = serve(usage="text")
    result = infer(dropping, root, tmp_path, "AMIC,VMIC")
    assert result.code == 1
    assert dropping.count == probe_requests(dropping) == 4  # two per modality, no question
    assert answers(tmp_path, "AMIC") == answers(tmp_path, "VMIC") == 0
    stop = [line for line in result.stderr.splitlines() if line.startswith("stopped before asking")]
    assert stop == [
        "stopped before asking any question: the audio does not reach model m (prompt 16 tokens without the "
        "audio, 16 with it); check that the server accepts input_audio parts (vLLM: a model with an audio "
        "encoder and --limit-mm-per-prompt allowing audio), that the model hears audio, and --audio-format, "
        "or pass --skip-probe to run anyway"
    ]
    assert "media probe: image: ignored" in result.stderr
    assert run_json(tmp_path)["media_probe"] == {"audio": "ignored", "image": "ignored"}

    # the user fixes the server: an ignored verdict is never reused, so the next run probes again and goes on
    fixed = serve()
    again = infer(fixed, root, tmp_path, "AMIC,VMIC")
    assert again.code == 0, again.stderr
    assert probe_requests(fixed) == 4 and answers(tmp_path, "AMIC") == COUNTS["AMIC"]


def test_an_unverified_modality_warns_and_the_run_goes_on(serve: Serve, root: Path, tmp_path: Path) -> None:
    silent = serve(usage="none")
    result = infer(silent, root, tmp_path, "AMIC")
    assert result.code == 0, result.stderr
    assert "warning: media probe: audio: unverified (no usage reported" in result.stderr
    assert "answers may not rest on the audio" in result.stderr
    assert probe_requests(silent) == 3 and answers(tmp_path, "AMIC") == COUNTS["AMIC"]
    assert run_json(tmp_path)["media_probe"] == {"audio": "unverified"}
    assert infer(silent, root, tmp_path, "AMIC", "--n-samples", "4").code == 0
    assert probe_requests(silent) == 3  # an unverified verdict holds for the same endpoint


def test_a_failed_probe_question_is_asked_again_next_run(serve: Serve, root: Path, tmp_path: Path) -> None:
    from avibench.testing.fake_openai import Fault, FaultPlan

    server = serve(plan=FaultPlan(markers={"beeps": Fault("400")}))
    first = infer(server, root, tmp_path, "AMIC", "--n-samples", "2")
    assert first.code == 0, first.stderr
    assert (
        "warning: media probe: audio: unverified (the question with the audio failed: HTTP 400"
        in first.stderr
    )
    server.plan = FaultPlan()
    second = infer(server, root, tmp_path, "AMIC")
    assert second.code == 0 and "media probe: audio: counted" in second.stderr
    # the refused question with the audio, then the one without it (refused too: the marker is in the question)
    assert probe_requests(server) == 2 + 2


def test_skip_probe_sends_no_probe_request(serve: Serve, root: Path, tmp_path: Path) -> None:
    server = serve(usage="text")  # would be ignored, but nobody asks
    result = infer(server, root, tmp_path, "AMIC", "--skip-probe")
    assert result.code == 0, result.stderr
    assert probe_requests(server) == 0 and server.count == COUNTS["AMIC"]
    assert run_json(tmp_path)["media_probe"] == {"audio": "skipped"}


def _pipeline(out: Path, root: Path, model: str, *infer_extra: str) -> dict[str, Any]:
    run = ["--model", model, "--data-root", str(root), "--output-dir", str(out), "--tasks", "AMIC"]
    assert invoke(["infer", *run, *infer_extra]).code == 0
    assert invoke(["refine", *run, "--mode", "rules"]).code == 0
    assert invoke(["eval", *run]).code == 0
    assert invoke(["report", "--model", model, "--output-dir", str(out)]).code == 0
    return json.loads((out / model / "avibench" / "eval.json").read_text())


def test_pages_state_the_verdicts_or_that_media_were_not_verified(root: Path, tmp_path: Path) -> None:
    oracle = _pipeline(tmp_path, root, "oracle")
    assert oracle["meta"]["media_probe"] == {"audio": "n/a"}
    assert "Media: audio n/a." in (tmp_path / "oracle" / "avibench" / "report.md").read_text()
    skipped = _pipeline(tmp_path, root, "random", "--skip-probe")
    assert skipped["meta"]["media_probe"] == {"audio": "skipped"}
    assert (
        "Media not verified (--skip-probe)." in (tmp_path / "random" / "avibench" / "report.md").read_text()
    )
    assert invoke(["leaderboard", "--output-dir", str(tmp_path)]).code == 0
    board = (tmp_path / "leaderboard.md").read_text()
    assert "; media: audio n/a" in board and "; media not verified (--skip-probe)" in board


def test_an_endpoint_refusing_a_needed_modality_stops_the_run_after_the_probe(
    serve: Serve, root: Path, tmp_path: Path
) -> None:
    """A server without an audio encoder answers every audio question with a 400: the probe's one refused question
    stops the run, instead of a run that asks (and fails) every audio question."""
    refusing = serve(reject_parts=("input_audio",))
    result = infer(refusing, root, tmp_path, "AMIC")
    assert result.code == 1
    assert refusing.rejected == 1 and refusing.count == probe_requests(refusing) == 2
    assert answers(tmp_path, "AMIC") == 0
    assert "stopped before asking any question: the audio does not reach model m" in result.stderr
    assert run_json(tmp_path)["media_probe"] == {"audio": "ignored"}


def test_a_rejected_key_stops_the_run_at_the_probe_with_the_setting_to_fix(
    serve: Serve, root: Path, tmp_path: Path
) -> None:
    """A failure no request gets past, met by the probe, is not an 'unverified' modality to warn about and run on."""
    from avibench.testing.fake_openai import Fault, FaultPlan

    server = serve(plan=FaultPlan(rate=1.0, random_faults=(Fault("401"),)))
    result = infer(server, root, tmp_path, "AMIC,VMIC")
    assert result.code == 1
    assert server.count == 2  # one probe question per modality, no question of the run
    stop = [line for line in result.stderr.splitlines() if line.startswith("stopped before asking")]
    assert len(stop) == 1 and "HTTP 401" in stop[0] and "check OPENAI_API_KEY" in stop[0]
    assert answers(tmp_path, "AMIC") == answers(tmp_path, "VMIC") == 0

    fixed = serve()  # nothing about the failed probe was kept as a verdict: the next run probes and goes on
    again = infer(fixed, root, tmp_path, "AMIC")
    assert again.code == 0, again.stderr
    assert probe_requests(fixed) == 2 and answers(tmp_path, "AMIC") == COUNTS["AMIC"]
