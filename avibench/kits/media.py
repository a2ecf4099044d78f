"""Sample media kit: synthetic sound, tone "words", flat-coloured shapes and short clips, in official formats.

Every benchmark's ``generate_sample`` and the media probe make their files here. Everything is generated from
numbers, so a ground truth can be made true by construction and checked by decoding the file again. Every writer
is byte-deterministic: the same input gives the same bytes (the mp4 and mp3 muxers run in bit-exact mode so no
version string or timestamp varies between runs).

* sound: :func:`tone`, :func:`noise`, :func:`click`, :func:`silence`, :func:`timeline` (mix events into a
  buffer), :func:`frame_beeps`, :func:`tone_words` (one tone per word: a stand-in for speech whose words a test
  can tell apart), :func:`voiced_words` (voiced bursts with a falling pitch: speech-like at any sample rate),
  :func:`gliding_voice` (a buzz whose pitch glides);
* audio files: :func:`write_wav` (16 kHz 16-bit PCM) and :func:`write_audio` (wav, flac or mp3 at any rate
  and PCM width, by the file's suffix);
* pictures: :func:`picture` of ``(kind, box, colour)`` shapes, :func:`write_image` (png or jpg);
* clips: :func:`render_frames` and :func:`write_mp4` (H.264 with an AAC soundtrack).

Each plug-in imports its sample module, and with it this kit, to be listed; so the file writers import their
libraries (PyAV, soundfile, Pillow: about a tenth of a second) when they first write, not when an eval starts.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL import Image, ImageDraw

SR = 16_000
FPS = 10
VIDEO_WH = (128, 96)
BACKGROUND = (24, 24, 24)
Box = tuple[int, int, int, int]  # x, y, w, h in pixels
RGB = tuple[int, int, int]
Shape = tuple[str, Box, RGB]  # kind, box, colour

FADE_S = 0.005
AAC_FRAME = 1024


# ---- sound ---------------------------------------------------------------------------------------------------


def seconds_to_samples(seconds: float) -> int:
    return round(seconds * SR)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(seconds_to_samples(seconds), dtype=np.float64)


def _faded(signal: np.ndarray) -> np.ndarray:
    """Short raised-cosine ramps at both ends, so events start and stop without clicks."""
    n = min(seconds_to_samples(FADE_S), len(signal) // 2)
    if n:
        ramp = 0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, n))
        signal = signal.copy()
        signal[:n] *= ramp
        signal[-n:] *= ramp[::-1]
    return signal


def tone(freq: float, seconds: float, amp: float = 0.5) -> np.ndarray:
    """A pure sine tone at ``freq`` Hz with peak amplitude ``amp``."""
    t = np.arange(seconds_to_samples(seconds)) / SR
    return _faded(amp * np.sin(2 * np.pi * freq * t))


def noise(rng: np.random.Generator, seconds: float, amp: float = 0.3) -> np.ndarray:
    """White noise with RMS ``amp / 2``, clipped to ``amp``."""
    return _faded(np.clip(rng.standard_normal(seconds_to_samples(seconds)) * amp / 2, -amp, amp))


def click(amp: float = 0.8) -> np.ndarray:
    """A 30 ms percussive click: a 2 kHz burst with a fast exponential decay."""
    t = np.arange(seconds_to_samples(0.03)) / SR
    return amp * np.sin(2 * np.pi * 2000 * t) * np.exp(-t / 0.006)


def timeline(seconds: float, events: Iterable[tuple[float, np.ndarray]]) -> np.ndarray:
    """Mix ``(start_seconds, signal)`` events into a silent buffer of the given length."""
    out = silence(seconds)
    for start, signal in events:
        i = seconds_to_samples(start)
        part = signal[: max(0, len(out) - i)]
        out[i : i + len(part)] += part
    return out


def frame_beeps(freq: float, frames: Iterable[int], n_frames: int, amp: float = 0.5) -> np.ndarray:
    """Audio for an ``n_frames`` clip with one beep of ``freq`` Hz filling each listed frame's time slot."""
    slot = 1 / FPS
    return timeline(n_frames * slot, ((k * slot, tone(freq, slot, amp)) for k in frames))


def tone_words(
    text: str, word_seconds: float, amp: float = 0.4, pitches: tuple[float, int] = (200.0, 600)
) -> np.ndarray:
    """One tone per word of ``text``, its pitch from the word (``low`` + CRC-32 of the lowercased word modulo
    ``span`` Hz, with ``pitches = (low, span)``), each ``word_seconds`` long and followed by half as long a gap."""
    low, span = pitches
    events = []
    for n, word in enumerate(text.split()):
        pitch = low + zlib.crc32(word.lower().encode()) % span
        events.append((n * word_seconds * 1.5, tone(pitch, word_seconds, amp)))
    return timeline(len(events) * word_seconds * 1.5 + 0.05, events)


def voiced_words(words: Sequence[str], rate: int, seconds: float) -> np.ndarray:
    """A spoken-like signal ``seconds`` long at ``rate`` Hz: one voiced burst per word (longer words last longer),
    each with a falling pitch set by the rate and the word's position, and pauses between them."""
    out = np.zeros(int(rate * seconds))
    at = 0.3
    for k, word in enumerate(words):
        length = 0.12 + 0.06 * len(word)
        n = int(rate * length)
        t = np.arange(n) / rate
        pitch = rate * (0.08 + 0.02 * (k % 5)) * (1 - 0.25 * t / length)
        burst = np.sin(2 * np.pi * np.cumsum(pitch) / rate) * np.sin(np.pi * t / length)
        i = int(rate * at)
        out[i : i + n] += 0.5 * burst[: max(0, len(out) - i)]
        at += length + 0.15
    return out


def write_wav(path: Path, signal: np.ndarray) -> None:
    """16 kHz 16-bit PCM wav: mono from a 1-D signal, one channel per column from a 2-D ``(samples, channels)`` one."""
    import soundfile as sf

    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, np.clip(signal, -1.0, 1.0), SR, subtype="PCM_16", format="WAV")


#: Audio formats by file suffix: soundfile's container name (mp3 is encoded by PyAV instead).
AUDIO_FORMATS: dict[str, str] = {".wav": "WAV", ".flac": "FLAC", ".mp3": "MP3"}


def write_audio(
    path: Path, signal: np.ndarray, rate: int = SR, *, subtype: str | None = "PCM_16", clip: bool = True
) -> None:
    """``signal`` (1-D mono, or ``(samples, channels)``) at ``rate`` Hz in the format of ``path``'s suffix.

    wav and flac take ``subtype`` (``PCM_16``, ``PCM_U8``, ``PCM_24``; ``None``: the format's default); mp3 is MPEG layer III through PyAV's LAME encoder (bit-exact, so the bytes repeat). ``clip`` limits
    the signal to [-1, 1] first, as every writer here does.
    """
    suffix = path.suffix.lower()
    if suffix not in AUDIO_FORMATS:
        raise ValueError(f"{path}: no audio format for suffix {suffix!r} (one of {', '.join(AUDIO_FORMATS)})")
    path.parent.mkdir(parents=True, exist_ok=True)
    data = np.clip(signal, -1.0, 1.0) if clip else signal
    if suffix == ".mp3":
        _write_mp3(path, np.asarray(data, dtype=np.float64), rate)
    else:
        import soundfile as sf

        sf.write(path, data, rate, subtype=subtype, format=AUDIO_FORMATS[suffix])


def _write_mp3(path: Path, signal: np.ndarray, rate: int) -> None:
    import av

    planar = signal[None, :] if signal.ndim == 1 else signal.T
    layout = "mono" if planar.shape[0] == 1 else "stereo"
    with av.open(str(path), "w", format="mp3", options={"fflags": "+bitexact"}) as container:
        stream = container.add_stream("libmp3lame", rate=rate, layout=layout)
        stream.codec_context.flags |= av.codec.context.Flags.bitexact
        samples = np.ascontiguousarray(planar.astype(np.float32))
        for start in range(0, samples.shape[1], 1152):
            chunk = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(samples[:, start : start + 1152]), format="fltp", layout=layout
            )
            chunk.sample_rate, chunk.pts = rate, start
            container.mux(stream.encode(chunk))
        container.mux(stream.encode())


# ---- pictures ------------------------------------------------------------------------------------------------

SHAPES_2D = ("circle", "square", "triangle", "diamond")
SOLIDS = ("sphere", "cube", "cuboid", "cylinder", "cone", "pyramid")


def _hexagon(x: int, y: int, w: int, h: int) -> list[tuple[int, int]]:
    """Silhouette of a box seen from the front, top and right: a front face with an offset back face."""
    d = max(2, min(w, h) // 3)
    r, b = x + w - 1, y + h - 1
    return [(x, y + d), (x + d, y), (r, y), (r, b - d), (r - d, b), (x, b)]


def draw_shape(draw: ImageDraw.ImageDraw, kind: str, box: Box, colour: RGB) -> None:
    """Draw a flat-filled shape whose pixels span exactly ``box`` (x, y, w, h).

    2D kinds are circle, square, triangle and diamond; the solids (sphere, cube, cuboid, cylinder, cone,
    pyramid) are drawn as their silhouettes, distinct enough that a test can tell them apart.
    """
    x, y, w, h = box
    r, b = x + w - 1, y + h - 1
    cx = x + (w - 1) / 2
    e = max(2, h // 4)  # height of an end ellipse (cylinder, cone)
    if kind in ("circle", "sphere"):
        draw.ellipse([x, y, r, b], fill=colour)
    elif kind == "square":
        draw.rectangle([x, y, r, b], fill=colour)
    elif kind == "triangle":
        draw.polygon([(cx, y), (r, b), (x, b)], fill=colour)
    elif kind == "diamond":
        cy = y + (h - 1) / 2
        draw.polygon([(cx, y), (r, cy), (cx, b), (x, cy)], fill=colour)
    elif kind in ("cube", "cuboid"):
        draw.polygon(_hexagon(x, y, w, h), fill=colour)
    elif kind == "cylinder":
        draw.rectangle([x, y + e // 2, r, b - e // 2], fill=colour)
        draw.ellipse([x, y, r, y + e], fill=colour)
        draw.ellipse([x, b - e, r, b], fill=colour)
    elif kind == "cone":
        draw.polygon([(cx, y), (r, b - e // 2), (x, b - e // 2)], fill=colour)
        draw.ellipse([x, b - e, r, b], fill=colour)
    elif kind == "pyramid":
        draw.polygon([(x + w * 0.55, y), (r, b - h // 5), (x + w * 0.4, b), (x, b - h // 4)], fill=colour)
    else:
        raise ValueError(f"unknown shape kind {kind!r}")


def grid_cells(cols: int, rows: int, size: int, wh: tuple[int, int] = VIDEO_WH) -> list[Box]:
    """Boxes of side ``size`` centred in the cells of a cols x rows grid (never touching each other)."""
    cw, ch = wh[0] // cols, wh[1] // rows
    return [
        (c * cw + (cw - size) // 2, r * ch + (ch - size) // 2, size, size)
        for r in range(rows)
        for c in range(cols)
    ]


def lerp(a: tuple[float, float], b: tuple[float, float], t: float) -> tuple[int, int]:
    """The pixel position a fraction ``t`` of the way from point ``a`` to point ``b``."""
    return round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t)


def canvas(wh: tuple[int, int] = VIDEO_WH, background: RGB = BACKGROUND) -> Image.Image:
    from PIL import Image

    return Image.new("RGB", wh, background)


def picture(wh: tuple[int, int], shapes: Iterable[Shape], background: RGB = BACKGROUND) -> Image.Image:
    """A canvas with the given ``(kind, box, colour)`` shapes drawn in order."""
    from PIL import ImageDraw

    img = canvas(wh, background)
    draw = ImageDraw.Draw(img)
    for kind, box, colour in shapes:
        draw_shape(draw, kind, box, colour)
    return img


def write_image(path: Path, img: Image.Image) -> None:
    """png (lossless) or jpg (quality 95, no chroma subsampling, so flat colours stay close to their values)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".jpg", ".jpeg"):
        img.save(path, format="JPEG", quality=95, subsampling=0)
    else:
        img.save(path, format="PNG")


# ---- clips ---------------------------------------------------------------------------------------------------


def render_frames(
    n_frames: int, shapes_at: Callable[[int], Sequence[Shape]], wh: tuple[int, int] = VIDEO_WH
) -> list[np.ndarray]:
    """``n_frames`` RGB frames; ``shapes_at(k)`` lists the shapes visible in frame k."""
    return [np.asarray(picture(wh, shapes_at(k))) for k in range(n_frames)]


#: Plain screen colours a question can name, far apart in RGB so a decoded frame is told apart.
NAMED_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 40),
    "green": (40, 200, 60),
    "blue": (50, 90, 230),
    "yellow": (230, 210, 40),
}


def colour_beep_clip(
    colours: Sequence[str], seconds_each: float, beeps: int, beep_segment: int
) -> tuple[list[np.ndarray], np.ndarray]:
    """A clip of plain-coloured segments (names of :data:`NAMED_COLOURS`), ``seconds_each`` long each, and its
    soundtrack: ``beeps`` short 880 Hz beeps spread over segment ``beep_segment`` (questions ask what is seen,
    what is heard, and when)."""
    width, height = VIDEO_WH
    frames = [
        np.full((height, width, 3), NAMED_COLOURS[name], dtype=np.uint8)
        for name in colours
        for _ in range(round(seconds_each * FPS))
    ]
    beep, step = tone(880.0, 0.12), seconds_each / beeps
    audio = timeline(
        seconds_each * len(colours),
        [(beep_segment * seconds_each + (k + 0.25) * step, beep) for k in range(beeps)],
    )
    return frames, audio


def write_mp4(path: Path, frames: Sequence[np.ndarray], audio: np.ndarray) -> None:
    """H.264 (yuv420p, near-lossless) video at :data:`FPS` with a mono AAC track of ``audio`` at :data:`SR`."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    height, width = frames[0].shape[:2]
    with av.open(str(path), "w", format="mp4", options={"fflags": "+bitexact"}) as container:
        video = container.add_stream("libx264", rate=FPS, options={"crf": "12", "preset": "veryfast"})
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.codec_context.thread_count = 1
        sound = container.add_stream("aac", rate=SR, layout="mono")
        for frame in frames:
            container.mux(
                video.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24"))
            )
        container.mux(video.encode())
        samples = np.clip(audio, -1.0, 1.0).astype(np.float32)
        for start in range(0, len(samples), AAC_FRAME):
            chunk = av.AudioFrame.from_ndarray(
                samples[None, start : start + AAC_FRAME], format="fltp", layout="mono"
            )
            chunk.sample_rate, chunk.pts = SR, start
            container.mux(sound.encode(chunk))
        container.mux(sound.encode())


def gliding_voice(seconds: float, base_hz: float, swing_hz: float, glide_hz: float) -> np.ndarray:
    """A voiced buzz ``seconds`` long at :data:`SR`: seven harmonics (the k-th at 1/k) of a pitch that glides
    ``swing_hz`` either side of ``base_hz``, ``glide_hz`` times a second; speech-like once cut into syllables or
    shaped by an envelope (multiply it by one)."""
    t = np.arange(int(seconds * SR)) / SR
    phase = 2 * np.pi * np.cumsum(base_hz + swing_hz * np.sin(2 * np.pi * glide_hz * t)) / SR
    return sum(np.sin(k * phase) / k for k in range(1, 8))
