"""A tiny AVI-Bench dataset in the official layout with real media files, for tests that need a few samples.

Media are generated (PyAV mp4 with an audio track, wav, png), so the files decode like real ones.
``markers`` put a string into chosen samples' question text, which the fake server can match to inject
faults for those samples only.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import numpy as np
from PIL import Image

from avibench.infer.media import pcm16_wav_bytes

TASK_STAGE = {
    "AMIC": "perception",
    "VMIC": "perception",
    "AVM": "perception",
    "VAR": "understand",
    "ASQA": "sensation",
}


def wav_bytes(seconds: float = 0.25, rate: int = 16000, freq: float = 440.0) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    return pcm16_wav_bytes((0.3 * 32767 * np.sin(2 * np.pi * freq * t)).astype("<i2"), rate)


def png_bytes(color: tuple[int, int, int] = (200, 30, 30), size: tuple[int, int] = (32, 24)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def write_mp4(
    path: Path, *, frames: int = 12, fps: int = 12, audio_rate: int = 44100, with_audio: bool = True
) -> None:
    """A small mp4 (mpeg4 video whose colour changes per frame, and a stereo AAC sine track)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as container:
        video = container.add_stream("mpeg4", rate=fps)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = container.add_stream("aac", rate=audio_rate, layout="stereo") if with_audio else None
        for i in range(frames):
            shade = int(255 * i / max(1, frames - 1))
            image = np.full((48, 64, 3), (shade, 255 - shade, 90), dtype=np.uint8)
            for packet in video.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in video.encode():
            container.mux(packet)
        if audio is not None:
            samples = int(audio_rate * frames / fps)
            t = np.arange(samples) / audio_rate
            tone = (0.2 * np.sin(2 * np.pi * 330 * t)).astype(np.float32)
            chunk = 1024
            for start in range(0, samples, chunk):
                block = np.stack([tone[start : start + chunk]] * 2)
                frame = av.AudioFrame.from_ndarray(
                    np.ascontiguousarray(block), format="fltp", layout="stereo"
                )
                frame.sample_rate = audio_rate
                frame.pts = start
                frame.time_base = Fraction(1, audio_rate)
                for packet in audio.encode(frame):
                    container.mux(packet)
            for packet in audio.encode():
                container.mux(packet)


def _entry(task: str, index: int, question: dict[str, Any], answer: Any, **media: Any) -> dict[str, Any]:
    return {
        "id": f"{index:05d}",
        "task": task,
        "subtask": None,
        "input": {"question": question, "video": None, "audio_list": None, "image_list": None, **media},
        "output": {"question_answer": answer},
    }


def _question(text: str, marker: str | None, **fields: Any) -> dict[str, Any]:
    return {**fields, "text": f"{text} {marker}" if marker else text}


def build_task(
    root: Path, task: str, count: int, markers: Mapping[int, str] | None = None
) -> list[dict[str, Any]]:
    """Write ``count`` entries of one task (with their media) and return the entries."""
    markers = markers or {}
    folder = root / TASK_STAGE[task] / task
    entries = []
    for i in range(count):
        marker = markers.get(i)
        if task == "AMIC":
            rel = f"./input/wavs/{i:05d}.wav"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(wav_bytes(freq=300 + 20 * i))
            q = _question("How many?", marker, prompt="prompt_amic", options="amic_cls_list")
            entries.append(_entry(task, i, q, {"dog": str(1 + i % 3), "man": "1"}, audio_list=[rel]))
        elif task == "VMIC":
            rel = f"./input/images/{i:05d}.png"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(png_bytes((10 * i % 255, 80, 160)))
            q = _question("Count them.", marker, prompt="prompt_vmic", options="vmic_cls_list")
            entries.append(_entry(task, i, q, {"tree": str(2 + i % 4)}, image_list=[rel]))
        elif task == "AVM":
            video, wav = f"./input/videos/{i:05d}.mp4", f"./input/wavs/{i:05d}.wav"
            write_mp4(folder / video)
            (folder / wav).parent.mkdir(parents=True, exist_ok=True)
            (folder / wav).write_bytes(wav_bytes(freq=500))
            q = _question(
                "Do the audio and the video match?", marker, prompt="prompt_avm", options="avm_options_list"
            )
            entries.append(_entry(task, i, q, "yes" if i % 2 else "no", video=video, audio_list=[wav]))
        elif task == "VAR":
            image = f"./input/images/{i:05d}.png"
            (folder / image).parent.mkdir(parents=True, exist_ok=True)
            (folder / image).write_bytes(png_bytes((40, 40, 10 * i % 255)))
            wavs = [f"./input/wavs/{i:05d}_{k:02d}.wav" for k in range(3)]
            (folder / "input/wavs").mkdir(parents=True, exist_ok=True)
            for k, rel in enumerate(wavs):
                (folder / rel).write_bytes(wav_bytes(freq=200 + 100 * k))
            q = _question("Which wavs match the image?", marker, prompt="prompt_var")
            entries.append(_entry(task, i, q, [i % 3], image_list=[image], audio_list=wavs))
        elif task == "ASQA":
            rel = f"./input/wavs/{i:05d}.wav"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(wav_bytes(freq=700))
            q = _question("Is the sound clear?", marker, options="options_yes_no")
            entries.append(_entry(task, i, q, "yes", audio_list=[rel]))
        else:
            raise ValueError(f"tiny dataset has no builder for task {task}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.json").write_text(json.dumps(entries, indent=2), encoding="utf-8")
    return entries


def build_dataset(
    root: Path, counts: Mapping[str, int], markers: Mapping[str, Mapping[int, str]] | None = None
) -> Path:
    """Write several tasks under ``root`` and return ``root``."""
    for task, count in counts.items():
        build_task(root, task, count, (markers or {}).get(task))
    return root
