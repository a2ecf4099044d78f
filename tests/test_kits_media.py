"""The sample media kit: tones, tone words, pictures and clips, byte-deterministic, in every official format."""

from __future__ import annotations

import hashlib
from pathlib import Path

import av
import numpy as np
import pytest
import soundfile as sf
from PIL import Image

from avibench.kits import media


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("suffix", "rate"), [(".wav", 16_000), (".flac", 22_050), (".mp3", 16_000)])
def test_audio_formats_decode_to_the_tone_and_repeat_byte_for_byte(
    tmp_path: Path, suffix: str, rate: int
) -> None:
    signal = media.tone(440.0, 0.5)
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    media.write_audio(first, signal, rate)
    media.write_audio(second, signal, rate)
    assert _digest(first) == _digest(second)
    with av.open(str(first)) as container:
        decoded = np.concatenate([f.to_ndarray().reshape(-1) for f in container.decode(audio=0)])
        assert container.streams.audio[0].sample_rate == rate
    spectrum = np.abs(np.fft.rfft(decoded[: rate // 4]))
    assert abs(np.argmax(spectrum) * rate / (rate // 4) - 440.0 * rate / media.SR) < 8


def test_pcm_width_and_unknown_suffix(tmp_path: Path) -> None:
    media.write_audio(tmp_path / "u8.wav", media.tone(300.0, 0.1), 8000, subtype="PCM_U8")
    assert sf.info(tmp_path / "u8.wav").subtype == "PCM_U8"
    with pytest.raises(ValueError, match=r"no audio format for suffix '\.aiff'"):
        media.write_audio(tmp_path / "x.aiff", media.tone(300.0, 0.1))


def test_tone_words_equal_for_equal_words_and_differ_otherwise() -> None:
    same = media.tone_words("Name a colour", 0.06)
    assert np.array_equal(same, media.tone_words("name A colour", 0.06))
    assert not np.array_equal(same, media.tone_words("Name a shape", 0.06))
    assert len(same) == media.seconds_to_samples(3 * 0.06 * 1.5 + 0.05)


def test_voiced_words_fill_their_length_with_one_burst_per_word() -> None:
    signal = media.voiced_words(["a", "longer"], 8000, 2.0)
    assert len(signal) == 16000 and np.abs(signal).max() <= 0.5
    voiced = np.abs(signal) > 1e-3
    starts = np.flatnonzero(voiced[1:] & ~voiced[:-1])
    assert starts[0] < int(0.31 * 8000) and voiced[int(0.75 * 8000)] and not voiced[int(1.5 * 8000)]


def test_pictures_and_clips(tmp_path: Path) -> None:
    img = media.picture((64, 48), [("square", (8, 8, 16, 16), (200, 0, 0))])
    media.write_image(tmp_path / "p.png", img)
    media.write_image(tmp_path / "p.jpg", img)
    assert Image.open(tmp_path / "p.png").getpixel((16, 16)) == (200, 0, 0)
    assert Image.open(tmp_path / "p.jpg").format == "JPEG"
    frames = media.render_frames(5, lambda k: [("circle", (k * 4, 10, 20, 20), (0, 200, 0))], (64, 48))
    clip = tmp_path / "c.mp4"
    media.write_mp4(clip, frames, media.tone(500.0, 0.5))
    again = tmp_path / "d.mp4"
    media.write_mp4(again, frames, media.tone(500.0, 0.5))
    assert _digest(clip) == _digest(again)
    with av.open(str(clip)) as container:
        assert {s.type for s in container.streams} == {"video", "audio"}
        assert container.streams.video[0].frames == 5
