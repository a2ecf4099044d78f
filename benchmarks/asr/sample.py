"""The synthetic ASR sample in the official layouts, with real media: FLAC for LibriSpeech, WAV for AISHELL-1,
FLEURS and WenetSpeech, MP3 for Common Voice. The clips are tone sequences, not speech: one tone per
word (per character in Chinese) whose pitch is a function of the word, so a clip encodes its transcript; the
layout, the files and their decoding are real."""

from __future__ import annotations

import random
from pathlib import Path

from avibench.benchmarks.asr.layout import AISHELL_TRANSCRIPT, TASKS, layout_of, manifest_path
from avibench.kits import media, records

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
WORD_SECONDS = 0.12


def write_clip(path: Path, text: str) -> None:
    """A clip for ``text``: a tone per word (per character in Chinese), in the format of ``path``'s suffix."""
    words = text if " " in text else " ".join(text)
    media.write_audio(path, media.tone_words(words, WORD_SECONDS))


def _librispeech(out: Path, split: str, texts: list[str], seed: int) -> None:
    speaker, chapter = 1000 + seed % 100, 2000 + seed % 100
    folder = out / "LibriSpeech" / split / str(speaker) / str(chapter)
    lines = []
    for k, text in enumerate(texts):
        uid = f"{speaker}-{chapter}-{k:04d}"
        write_clip(folder / f"{uid}.flac", text)
        lines.append(f"{uid} {text}")
    (folder / f"{speaker}-{chapter}.trans.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _aishell(out: Path, texts: list[str]) -> None:
    lines = []
    for k, text in enumerate(texts):
        uid = f"BAC009S0764W{k:04d}"
        write_clip(out / "data_aishell/wav/test/S0764" / f"{uid}.wav", text.replace(" ", ""))
        lines.append(f"{uid} {text}")
    lines.append("BAC009S0002W0122 而 对 楼市 成交 抑制 作用 最 大 的 限 购")  # a train clip: not in wav/test
    transcript = out / AISHELL_TRANSCRIPT
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _manifest(out: Path, task: str, texts: list[str]) -> None:
    language = layout_of(task).language
    suffix = ".mp3" if task.startswith("commonvoice") else ".wav"
    rows = []
    for k, text in enumerate(texts):
        uid = f"{task}-{k:03d}"
        audio = f"{task}/{uid}{suffix}"
        write_clip(out / audio, text)
        rows.append({"id": uid, "audio": audio, "text": text, "language": language})
    records.write_jsonl(manifest_path(out, task), rows)


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
            _aishell(out, texts)
        else:
            _manifest(out, task, texts)
        counts[task] = len(texts)
    return counts
