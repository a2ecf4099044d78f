"""The in-process transformers backend on tiny random checkpoints saved to disk and loaded as a user's would be."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from avibench.errors import AvibenchError
from avibench.infer.backends.base import BackendSettings, InferRequest
from avibench.infer.backends.local_batching import run_splitting_on_oom
from avibench.infer.backends.local_families import Family
from avibench.infer.backends.local_generate import Sampling, generate_batch
from avibench.infer.backends.local_inputs import build_prompt, frame_count, processor_inputs
from avibench.infer.backends.transformers_backend import TransformersBackend
from avibench.items import Item, Part
from avibench.kits.media import (
    frame_beeps,
    picture,
    render_frames,
    tone,
    write_image,
    write_mp4,
    write_wav,
)
from avibench.testing.tiny_models import build

pytestmark = pytest.mark.slow
REQUEST = InferRequest(model="tiny")


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("media")
    write_wav(root / "one_second.wav", tone(440, 1.0))
    write_wav(root / "two_and_half.wav", tone(880, 2.5))
    # left ear a loud tone, right ear silent; at 8 kHz so it must be resampled
    stereo = np.stack([0.8 * np.sin(2 * np.pi * 300 * np.arange(8000) / 8000), np.zeros(8000)], axis=1)
    sf.write(root / "stereo_8k.wav", stereo, 8000, subtype="PCM_16")
    write_image(root / "shape.png", picture((64, 48), [("circle", (5, 5, 20, 20), (200, 0, 0))]))
    frames = render_frames(20, lambda k: [("square", (k, 10, 16, 16), (0, 200, 0))])
    write_mp4(root / "clip.mp4", frames, frame_beeps(500, range(0, 20, 2), 20))  # 20 frames at 10 fps: 2 s
    return root


def backend_for(family: str, root: Path, batch_size: int = 4) -> TransformersBackend:
    return TransformersBackend(
        BackendSettings(model=str(build(family, root / family)), batch_size=batch_size)
    )


@pytest.fixture(scope="module")
def qwen2_audio(tmp_path_factory: pytest.TempPathFactory) -> TransformersBackend:
    return backend_for("qwen2-audio", tmp_path_factory.mktemp("ckpt"))


def audio_item(index: int, *clips: Path, max_tokens: int = 6) -> Item:
    parts = (Part.text(f"What do you hear in clip {index}?"), *(Part.audio(c) for c in clips))
    return Item("bench", "task", str(index), parts, max_tokens=max_tokens)


def test_audio_features_and_placeholders_match(qwen2_audio: TransformersBackend, media: Path) -> None:
    backend = qwen2_audio
    prompt = build_prompt(
        audio_item(0, media / "one_second.wav", media / "two_and_half.wav"),
        REQUEST,
        backend.processor,
        backend.family,
    )
    assert [len(clip) for clip in prompt.audio] == [16000, 40000]
    inputs = processor_inputs(backend.processor, backend.family, [prompt])
    # Whisper features: 100 frames a second inside a 30 s window; the encoder halves twice: 25 tokens a second
    assert inputs["input_features"].shape == (2, 128, 3000)
    assert inputs["feature_attention_mask"].sum(-1).tolist() == [100, 250]
    audio_id = backend.processor.audio_token_id
    assert int((inputs["input_ids"] == audio_id).sum()) == 25 + 62
    assert prompt.text.count("<|AUDIO|>") == 2


def test_channel_selection_and_resampling(qwen2_audio: TransformersBackend, media: Path) -> None:
    backend = qwen2_audio
    left = Item("b", "t", "l", (Part.audio(media / "stereo_8k.wav", channel=0),))
    right = Item("b", "t", "r", (Part.audio(media / "stereo_8k.wav", channel=1),))
    mixed = Item("b", "t", "m", (Part.audio(media / "stereo_8k.wav"),))
    clips = [
        build_prompt(i, REQUEST, backend.processor, backend.family).audio[0] for i in (left, right, mixed)
    ]
    assert [len(c) for c in clips] == [16000, 16000, 16000]  # 1 s at 8 kHz resampled to 16 kHz
    rms = [float(np.sqrt(np.mean(c[1000:-1000] ** 2))) for c in clips]
    assert rms[0] == pytest.approx(0.8 / np.sqrt(2), rel=0.05)
    assert rms[1] < 1e-3
    assert rms[2] == pytest.approx(rms[0] / 2, rel=0.1)  # the mono mix-down averages the two ears


def test_bad_channel_names_the_file(qwen2_audio: TransformersBackend, media: Path) -> None:
    item = Item("b", "t", "x", (Part.audio(media / "one_second.wav", channel=1),))
    with pytest.raises(Exception, match=r"one_second\.wav has 1 audio channel"):
        build_prompt(item, REQUEST, qwen2_audio.processor, qwen2_audio.family)


def test_audio_only_family_refuses_images(qwen2_audio: TransformersBackend, media: Path) -> None:
    item = Item("b", "t", "x", (Part.image(media / "shape.png"), Part.text("what?")))
    with pytest.raises(Exception, match="Qwen2-Audio takes no image input"):
        build_prompt(item, REQUEST, qwen2_audio.processor, qwen2_audio.family)


def test_batch_of_four_matches_four_single_runs(qwen2_audio: TransformersBackend, media: Path) -> None:
    backend = qwen2_audio
    clips = [media / "one_second.wav", media / "two_and_half.wav"]
    items = [audio_item(i, *clips[: 1 + i % 2], max_tokens=4 + i) for i in range(4)]
    prompts = [backend.prepare(item, REQUEST) for item in items]
    assert len({p.length for p in prompts}) > 1  # rows of different lengths: the batch is padded
    together = generate_batch(backend.model, backend.processor, backend.family, prompts, Sampling())
    alone = [
        generate_batch(backend.model, backend.processor, backend.family, [p], Sampling())[0] for p in prompts
    ]
    assert [a.text for a in together] == [a.text for a in alone]
    assert [a.timings["output_tokens"] for a in together] == [4, 5, 6, 7]  # each row stops at its own limit
    assert all(a.timings["batch_size"] == 4 for a in together)
    assert all(a.finish_reason == "length" for a in together)
    timings = together[0].timings
    assert timings["ttft_s"] > 0 and timings["decode_s"] > 0
    assert timings["input_tokens"] == prompts[0].length
    assert timings["audio_tokens"] == 25


def test_generation_runs_without_cudnn_attention(
    qwen2_audio: TransformersBackend, media: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cuDNN's attention plans a kernel per new shape, which made batched decode 18x slower on an H100."""
    model = qwen2_audio.model
    seen: list[tuple[bool, bool]] = []
    original = model.generate

    def generate(*args: object, **kwargs: object) -> object:
        seen.append((torch.backends.cuda.cudnn_sdp_enabled(), torch.backends.cuda.flash_sdp_enabled()))
        return original(*args, **kwargs)

    monkeypatch.setattr(model, "generate", generate)
    prompt = qwen2_audio.prepare(audio_item(0, media / "one_second.wav", max_tokens=2), REQUEST)
    generate_batch(model, qwen2_audio.processor, qwen2_audio.family, [prompt], Sampling())
    assert seen == [(False, True)]
    assert torch.backends.cuda.cudnn_sdp_enabled()  # the process's own setting is restored afterwards


def test_concurrent_answers_are_batched_and_routed(qwen2_audio: TransformersBackend, media: Path) -> None:
    backend = qwen2_audio
    items = [audio_item(i, media / "one_second.wav", max_tokens=3 + i) for i in range(6)]

    async def ask() -> list:
        return await asyncio.gather(*(backend.answer(item, REQUEST) for item in items))

    answers = asyncio.run(ask())
    assert [a.timings["output_tokens"] for a in answers] == [3, 4, 5, 6, 7, 8]
    assert max(a.timings["batch_size"] for a in answers) > 1


def test_out_of_memory_splits_the_batch(
    qwen2_audio: TransformersBackend, media: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = qwen2_audio
    real = backend.model.generate
    sizes: list[int] = []

    def generate(**kwargs):
        sizes.append(kwargs["input_ids"].shape[0])
        if kwargs["input_ids"].shape[0] > 1:
            raise torch.OutOfMemoryError("simulated")
        return real(**kwargs)

    monkeypatch.setattr(backend.model, "generate", generate)
    prompts = [
        (backend.prepare(audio_item(i, media / "one_second.wav"), REQUEST), Sampling()) for i in range(4)
    ]
    results = run_splitting_on_oom(prompts, backend._run)
    assert sizes == [4, 2, 1, 1, 2, 1, 1]
    assert all(r.timings["batch_size"] == 1 for r in results)


def test_single_item_out_of_memory_fails_that_request(
    qwen2_audio: TransformersBackend, media: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def generate(**kwargs):
        raise torch.OutOfMemoryError("simulated")

    monkeypatch.setattr(qwen2_audio.model, "generate", generate)
    with pytest.raises(torch.OutOfMemoryError):
        asyncio.run(qwen2_audio.answer(audio_item(0, media / "one_second.wav"), REQUEST))


def test_unsupported_architecture_lists_supported(tmp_path: Path) -> None:
    from transformers import LlamaConfig

    LlamaConfig(
        hidden_size=16, num_attention_heads=2, num_hidden_layers=1, architectures=["LlamaForCausalLM"]
    ).save_pretrained(tmp_path)
    with pytest.raises(AvibenchError) as raised:
        TransformersBackend(BackendSettings(model=str(tmp_path)))
    message = str(raised.value)
    assert "'LlamaForCausalLM'" in message and "\n" not in message
    assert "Qwen2AudioForConditionalGeneration" in message
    assert "Qwen2_5OmniThinkerForConditionalGeneration" in message


def test_missing_package_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from avibench.infer.backends import local_families

    monkeypatch.setattr(local_families, "find_spec", lambda name: None)
    with pytest.raises(
        AvibenchError, match=r"Qwen2\.5-Omni needs torchvision: pip install 'avibench\[local\]'"
    ):
        local_families.family_for("Qwen2_5OmniForConditionalGeneration")


def test_frame_count_follows_the_model_rate_and_limits() -> None:
    native = Family("x", (), "AutoModel", video="native", video_fps=2.0, max_frames=6)

    class VideoProcessor:
        fps, min_frames, max_frames, temporal_patch_size = 2.0, 4, 768, 2

    class Processor:
        video_processor = VideoProcessor()

    assert frame_count(Processor(), native, total=20, duration=2.0) == 4  # 2 fps x 2 s, the minimum is 4
    assert frame_count(Processor(), native, total=100, duration=10.0) == 20
    assert frame_count(Processor(), native, total=25, duration=12.5) == 26  # 25, rounded up to pairs
    assert frame_count(object(), native, total=100, duration=10.0) == 6  # the family's own limit


@pytest.fixture(scope="module")
def omni(tmp_path_factory: pytest.TempPathFactory) -> TransformersBackend:
    return backend_for("qwen2.5-omni-thinker", tmp_path_factory.mktemp("ckpt"))


def placeholder_id(backend: TransformersBackend, kind: str) -> int:
    """The token id of the processor's ``kind`` placeholder, read through the tokenizer: the processor's own
    ``*_token_id`` attributes are not there in every transformers release."""
    processor = backend.processor
    return int(processor.tokenizer.convert_tokens_to_ids(getattr(processor, f"{kind}_token")))


def test_omni_video_with_its_soundtrack(omni: TransformersBackend, media: Path) -> None:
    item = Item(
        "b", "t", "v", (Part.video(media / "clip.mp4"), Part.image(media / "shape.png"), Part.text("?"))
    )
    prompt = build_prompt(item, REQUEST, omni.processor, omni.family)
    assert prompt.videos[0].shape[0] == 4  # 2 s at 2 fps (the processor's minimum is 4 as well)
    assert prompt.audio_video == [0] and len(prompt.audio[0]) == pytest.approx(32000, abs=1100)
    inputs = processor_inputs(omni.processor, omni.family, [prompt])
    merge = omni.processor.video_processor.merge_size**2
    assert int((inputs["input_ids"] == placeholder_id(omni, "video")).sum()) == int(
        inputs["video_grid_thw"].prod() // merge
    )
    assert int((inputs["input_ids"] == placeholder_id(omni, "image")).sum()) == int(
        inputs["image_grid_thw"].prod() // merge
    )
    assert int((inputs["input_ids"] == placeholder_id(omni, "audio")).sum()) == int(
        ((inputs["feature_attention_mask"].sum(-1) - 1) // 2 + 1 - 2) // 2 + 1
    )


def test_omni_drop_audio_with_video(omni: TransformersBackend, media: Path) -> None:
    parts = (Part.video(media / "clip.mp4"), Part.audio(media / "one_second.wav"), Part.text("?"))
    item = Item("b", "t", "v", parts)
    kept = build_prompt(item, REQUEST, omni.processor, omni.family)
    dropped = build_prompt(
        item, InferRequest(model="tiny", drop_audio_with_video=True), omni.processor, omni.family
    )
    assert kept.audio_video == [0, None] and dropped.audio_video == [0]


def test_omni_batch_matches_single_runs(omni: TransformersBackend, media: Path) -> None:
    items = [
        audio_item(0, media / "one_second.wav"),
        Item("b", "t", "1", (Part.image(media / "shape.png"), Part.text("colour?")), max_tokens=5),
        audio_item(2, media / "two_and_half.wav"),
        Item("b", "t", "3", (Part.text("hello"),), max_tokens=7),
    ]
    prompts = [omni.prepare(item, REQUEST) for item in items]
    together = generate_batch(omni.model, omni.processor, omni.family, prompts, Sampling())
    alone = [generate_batch(omni.model, omni.processor, omni.family, [p], Sampling())[0] for p in prompts]
    assert [a.text for a in together] == [a.text for a in alone]


@pytest.mark.parametrize("family", ["qwen2-audio", "qwen2.5-omni-thinker"])
def test_the_command_line_runs_a_local_checkpoint_and_resumes(
    family: str, sample_root: Path, tmp_path: Path
) -> None:
    """``avibench infer --backend transformers`` on the sample benchmark, through exactly the user's path: a
    checkpoint folder on disk, the journal, then a re-run that asks nothing."""
    from avibench.contracts import latest_by_key
    from avibench.testing.harness import invoke

    checkpoint = tmp_path / "ckpt"
    build(family, checkpoint)
    args = ["infer", "--backend", "transformers", "--model", str(checkpoint), "--device", "cpu", "--label", "tiny",
            "--data-root", str(sample_root), "--output-dir", str(tmp_path / "out"), "--tasks", "AMIC",
            "--n-samples", "3", "--max-tokens", "4", "--batch-size", "2"]  # fmt: skip
    first = invoke(args)
    assert first.code == 0, first.stderr
    journal = tmp_path / "out" / "tiny" / "avibench" / "infer" / "AMIC.jsonl"
    records = list(latest_by_key(journal).values())
    assert len(records) == 3 and all(r["backend"] == "transformers" and r["error"] is None for r in records)
    assert all(r["timings"]["ttft_s"] > 0 and r["timings"]["output_tokens"] <= 4 for r in records)
    before = journal.read_text()
    again = invoke(args)
    assert again.code == 0 and journal.read_text() == before  # nothing left to ask
