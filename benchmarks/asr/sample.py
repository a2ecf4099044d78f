"""The synthetic ASR sample in the official layouts, with real media: FLAC for LibriSpeech, WAV for AISHELL-1,
FLEURS and WenetSpeech, MP3 for Common Voice. The clips are tone sequences (one tone per word or character),
not speech: the layout, the files and their decoding are real; the transcripts are the sample's own."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import soundfile as sf

from avibench.benchmarks.asr.layout import AISHELL_TRANSCRIPT, TASKS, layout_of, manifest_path

RATE = 16000
ENGLISH = (
    "HE HOPED THERE WOULD BE STEW FOR DINNER",
    "THE COLOUR OF THE SKY WAS GREY AT NINE O'CLOCK",
    "SHE PAID TWENTY DOLLARS FOR THREE BOOKS",
    "WE WALKED ALONG THE RIVER UNTIL THE SUN WENT DOWN",
)
CHINESE = (
    "甚至 出现 交易 几乎 停滞 的 情况",
    "今天 的 天气 很 好",
    "我们 共有 二十五 个 学生",
    "价格 上涨 了 百分之 五",
)
PER_TASK = 3


def _clip(words: int, seed: int) -> np.ndarray:
    """A tone per word, a short gap between them (mono float32 at 16 kHz)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(0.12 * RATE)) / RATE
    gap = np.zeros(int(0.04 * RATE), dtype=np.float32)
    pieces = []
    for freq in rng.uniform(180.0, 900.0, size=max(words, 1)):
        pieces += [(0.25 * np.sin(2 * np.pi * freq * t)).astype(np.float32), gap]
    return np.concatenate(pieces)


def _write_mp3(path: Path, pcm: np.ndarray) -> None:
    import av

    with av.open(str(path), "w", format="mp3") as container:
        stream = container.add_stream("mp3", rate=RATE, layout="mono")
        frame = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="flt", layout="mono")
        frame.sample_rate = RATE
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def write_clip(path: Path, text: str, seed: int) -> None:
    """A clip for ``text`` in the format its extension names (flac, wav or mp3)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = _clip(len(text.split()) if " " in text else len(text), seed)
    if path.suffix == ".mp3":
        _write_mp3(path, pcm)
    else:
        sf.write(path, pcm, RATE, subtype="PCM_16")


def _librispeech(out: Path, split: str, texts: list[str], seed: int) -> None:
    speaker, chapter = 1000 + seed % 100, 2000 + seed % 100
    folder = out / "LibriSpeech" / split / str(speaker) / str(chapter)
    lines = []
    for k, text in enumerate(texts):
        uid = f"{speaker}-{chapter}-{k:04d}"
        write_clip(folder / f"{uid}.flac", text, seed + k)
        lines.append(f"{uid} {text}")
    (folder / f"{speaker}-{chapter}.trans.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _aishell(out: Path, texts: list[str], seed: int) -> None:
    lines = []
    for k, text in enumerate(texts):
        uid = f"BAC009S0764W{k:04d}"
        write_clip(out / "data_aishell/wav/test/S0764" / f"{uid}.wav", text, seed + k)
        lines.append(f"{uid} {text}")
    lines.append("BAC009S0002W0122 而 对 楼市 成交 抑制 作用 最 大 的 限 购")  # a train clip: not in wav/test
    transcript = out / AISHELL_TRANSCRIPT
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _manifest(out: Path, task: str, texts: list[str], seed: int) -> None:
    language = layout_of(task).language
    suffix = ".mp3" if task.startswith("commonvoice") else ".wav"
    records = []
    for k, text in enumerate(texts):
        uid = f"{task}-{k:03d}"
        audio = f"{task}/{uid}{suffix}"
        write_clip(out / audio, text.replace(" ", "") if language == "zh" else text, seed + k)
        records.append({"id": uid, "audio": audio, "text": text, "language": language})
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    manifest_path(out, task).write_text("\n".join(lines) + "\n", encoding="utf-8")


def generate(out: Path, seed: int = 0) -> dict[str, int]:
    """Write every task's sample; returns the utterances per task."""
    out = Path(out)
    rng = random.Random(seed)
    counts = {}
    for n, task in enumerate(TASKS):
        layout = layout_of(task)
        pool = ENGLISH if layout.language == "en" else CHINESE
        texts = rng.sample(list(pool), PER_TASK)
        if layout.language == "zh" and layout.kind == "manifest":
            texts = [t.replace(" ", "") for t in texts]  # FLEURS, WenetSpeech, Common Voice are not segmented
        if layout.kind == "librispeech":
            _librispeech(out, layout.split, texts, seed + 10 * n)
        elif layout.kind == "aishell":
            _aishell(out, texts, seed + 10 * n)
        else:
            _manifest(out, task, texts, seed + 10 * n)
        counts[task] = len(texts)
    return counts
