"""The conversation sent for one item, with media read from disk and base64-encoded.

The user message holds the item's parts in the order its benchmark gives them (AVI-Bench's retrieval indices
depend on that order). Everything here is blocking file and codec work: callers run it in a
worker thread (``asyncio.to_thread``) and only for the requests in flight, so memory stays bounded. Media travel as
:class:`avibench.llm.Base64` blobs, which the request encoder splices into the body without a text copy: a
request holds its clip once, base64-encoded, and nothing else of that size.

Audio is sent as the file is, unless the request names an ``audio_format`` (wav, flac or mp3): then each clip is
decoded, resampled to mono at ``audio_sample_rate`` (16 kHz by default) and re-encoded, which makes long clips'
uploads several times smaller (flac is lossless; mp3 at 64 kbit/s keeps speech intelligible).
"""

from __future__ import annotations

import hashlib
import io
import json
import mimetypes
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import av
import numpy as np
from PIL import Image

from avibench.infer.backends.base import InferRequest, MediaStrategy
from avibench.infer.fingerprint import media_name
from avibench.infer.media_options import AUDIO_RATE
from avibench.items import Item, Part
from avibench.llm import Base64

T = TypeVar("T")
SYSTEM_PROMPT = "You are a helpful assistant."
JPEG_QUALITY = 90
"""What ``--audio-format`` converts clips to."""
_CODECS = {"wav": "pcm_s16le", "flac": "flac", "mp3": "libmp3lame"}
MP3_BIT_RATE = 64_000


class MediaError(Exception):
    """A media file that is missing or cannot be decoded; the sample fails, the run goes on."""


def _read(path: Path, read: Callable[[Path], T]) -> T:
    """``read(path)``, with a missing or unreadable file as a :class:`MediaError` that names it."""
    try:
        return read(path)
    except FileNotFoundError:
        raise MediaError(f"media file not found: {path}") from None
    except OSError as exc:
        raise MediaError(f"cannot read media file {path}: {exc.strerror}") from None


def data_uri(path: Path, default_mime: str) -> Base64:
    mime = mimetypes.guess_type(path.name)[0] or default_mime
    return _read(path, lambda p: Base64.of_file(p, prefix=f"data:{mime};base64,"))


def image_part(path: Path) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": data_uri(path, "image/jpeg")}}


def audio_format(path: Path) -> str:
    ext = path.suffix.lower().lstrip(".")
    return "wav" if ext in ("", "wav", "wave") else ext


def audio_part(data: bytes | Base64, fmt: str) -> dict[str, Any]:
    encoded = data if isinstance(data, Base64) else Base64.of(data)
    return {"type": "input_audio", "input_audio": {"data": encoded, "format": fmt}}


def _frame_count(container: av.container.InputContainer, stream: av.video.stream.VideoStream) -> int:
    if stream.frames:
        return int(stream.frames)
    count = sum(1 for packet in container.demux(stream) if packet.size)
    container.seek(0)
    return count


FrameCount = Callable[[int, float], int]
"""How many frames to take, from the video's frame count and its duration in seconds."""


def sample_frame_images(path: Path, count: FrameCount) -> list[Image.Image]:
    """Frames spread evenly over the video (the middle of each of n equal spans), n given by ``count``."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            total = _frame_count(container, stream)
            if total <= 0:
                raise MediaError(f"video has no frames: {path}")
            duration = float(container.duration / av.time_base) if container.duration else 0.0
            n = max(1, count(total, duration))
            targets = [min(total - 1, int((i + 0.5) * total / n)) for i in range(n)]
            wanted = set(targets)
            picked: dict[int, Image.Image] = {}
            for index, frame in enumerate(container.decode(stream)):
                if index in wanted:
                    picked[index] = frame.to_image()
                    if len(picked) == len(wanted):
                        break
    except (av.FFmpegError, IndexError) as exc:
        raise MediaError(f"cannot decode video {path}: {exc}") from None
    if not picked:
        raise MediaError(f"no frame could be decoded from {path}")
    # a container that over-reports its frame count: targets past the end reuse the last frame decoded
    last = picked[max(picked)]
    return [picked.get(t, last) for t in targets]


def sample_frames(path: Path, n: int) -> list[bytes]:
    """``n`` frames spread evenly over the video, as JPEG bytes."""
    frames = []
    for image in sample_frame_images(path, lambda _total, _duration: n):
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
        frames.append(buffer.getvalue())
    return frames


def decode_audio(path: Path, rate: int = AUDIO_RATE, channel: int | None = None) -> np.ndarray | None:
    """The file's first audio stream as int16 samples at ``rate`` Hz, or None if it has no audio stream.

    ``channel=None`` mixes all channels down to mono; an index keeps that channel alone (0 = left, 1 = right).
    """
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                return None
            stream = container.streams.audio[0]
            channels = stream.codec_context.channels
            if channel is not None and not 0 <= channel < channels:
                raise MediaError(f"{path} has {channels} audio channel(s); channel {channel} does not exist")
            layout = "mono" if channel is None else stream.codec_context.layout.name
            resampler = av.AudioResampler(format="s16", layout=layout, rate=rate)
            chunks: list[np.ndarray] = []
            for frame in container.decode(stream):
                chunks.extend(f.to_ndarray().reshape(-1) for f in resampler.resample(frame))
            chunks.extend(f.to_ndarray().reshape(-1) for f in resampler.resample(None))
    except av.FFmpegError as exc:
        raise MediaError(f"cannot decode the audio of {path}: {exc}") from None
    pcm = np.concatenate(chunks).astype("<i2") if chunks else np.zeros(0, dtype="<i2")
    # packed s16 interleaves the channels: one column per channel
    return pcm if channel is None else pcm.reshape(-1, channels)[:, channel].copy()


def extract_audio_wav(path: Path, rate: int = AUDIO_RATE) -> bytes | None:
    """The video's soundtrack resampled to ``rate`` Hz mono 16-bit wav, or None if it has no audio stream."""
    pcm = decode_audio(path, rate)
    return None if pcm is None else pcm16_wav_bytes(pcm, rate)


def pcm16_wav_bytes(pcm: np.ndarray, rate: int) -> bytes:
    """A mono 16-bit wav file, in memory, from little-endian int16 samples."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.astype("<i2").tobytes())
    return buffer.getvalue()


def video_parts(path: Path, media: MediaStrategy) -> list[dict[str, Any]]:
    if media.kind == "data-uri":
        return [{"type": "image_url", "image_url": {"url": data_uri(path, "video/mp4")}}]
    if media.kind == "video-url":
        return [{"type": "video_url", "video_url": {"url": data_uri(path, "video/mp4")}}]
    if not path.is_file():
        raise MediaError(f"media file not found: {path}")
    parts = [
        {"type": "image_url", "image_url": {"url": Base64.of(jpeg, prefix="data:image/jpeg;base64,")}}
        for jpeg in sample_frames(path, media.frames)
    ]
    track = extract_audio_wav(path)
    if track is not None:
        parts.append(audio_part(track, "wav"))
    return parts


def transcode(path: Path, fmt: str, rate: int, channel: int | None = None) -> bytes:
    """The file's first audio stream as a mono ``fmt`` file (wav, flac or mp3) at ``rate`` Hz, in memory.

    Frames are resampled and encoded as they are decoded, so only the encoded result is ever held whole.
    ``channel=None`` mixes all channels down; an index keeps that channel alone (0 = left, 1 = right)."""
    buffer = io.BytesIO()
    try:
        with av.open(str(path)) as source, av.open(buffer, "w", format=fmt) as sink:
            if not source.streams.audio:
                raise MediaError(f"{path} has no audio stream")
            stream = source.streams.audio[0]
            channels = stream.codec_context.channels
            if channel is not None and not 0 <= channel < channels:
                raise MediaError(f"{path} has {channels} audio channel(s); channel {channel} does not exist")
            layout = "mono" if channel is None else stream.codec_context.layout.name
            resampler = av.AudioResampler(format="s16", layout=layout, rate=rate)
            target = sink.add_stream(_CODECS[fmt], rate=rate, layout="mono")
            if fmt == "mp3":
                target.bit_rate = MP3_BIT_RATE

            def encode(frames: list[av.AudioFrame] | None) -> None:
                for frame in frames or ():
                    pcm = frame.to_ndarray().reshape(-1)
                    if channel is not None:  # packed s16 interleaves the channels
                        pcm = np.ascontiguousarray(pcm.reshape(-1, channels)[:, channel])
                    mono = av.AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
                    mono.rate = rate
                    for packet in target.encode(mono):
                        sink.mux(packet)
                if frames is None:
                    for packet in target.encode(None):
                        sink.mux(packet)

            for frame in source.decode(stream):
                encode(resampler.resample(frame))
            encode(resampler.resample(None))
            encode(None)
    except av.FFmpegError as exc:
        raise MediaError(f"cannot decode the audio of {path}: {exc}") from None
    return buffer.getvalue()


def audio_content(part: Part, request: InferRequest) -> dict[str, Any]:
    """One audio part: the file as it is, or re-encoded when a format is asked for or one channel is sent alone
    (as wav unless a format is asked for)."""
    if request.audio_format is None and part.channel is None:
        return audio_part(_read(part.path, Base64.of_file), audio_format(part.path))
    if not part.path.is_file():
        raise MediaError(f"media file not found: {part.path}")
    fmt = request.audio_format or "wav"
    return audio_part(transcode(part.path, fmt, request.audio_sample_rate or AUDIO_RATE, part.channel), fmt)


def sent_parts(item: Item, request: InferRequest) -> tuple[Part, ...]:
    """The item's parts as sent: audio parts beside a video are dropped when the request says so."""
    has_video = any(p.kind == "video" for p in item.parts)
    if has_video and request.drop_audio_with_video:
        return tuple(p for p in item.parts if p.kind != "audio")
    return item.parts


def user_content(item: Item, request: InferRequest) -> list[dict[str, Any]]:
    """The item's parts in order (each benchmark orders them: AVI-Bench puts images, audios, video, then text)."""
    content: list[dict[str, Any]] = []
    for part in sent_parts(item, request):
        if part.kind == "text":
            content.append({"type": "text", "text": part.value})
        elif part.kind == "image":
            content.append(image_part(part.path))
        elif part.kind == "audio":
            content.append(audio_content(part, request))
        else:
            content.extend(video_parts(part.path, request.media))
    return content


def system_prompt(item: Item, request: InferRequest) -> str:
    return request.system_prompt or item.system or SYSTEM_PROMPT


def build_messages(item: Item, request: InferRequest) -> list[dict[str, Any]]:
    """The chat messages for one item (reads and encodes its media: run it off the event loop)."""
    return [
        {"role": "system", "content": system_prompt(item, request)},
        {"role": "user", "content": user_content(item, request)},
    ]


def prompt_hash(item: Item, request: InferRequest) -> str:
    """A short hash of what the model is shown: system prompt, text, media files in order, media handling."""
    media = [
        media_name(p.path) + (f"#ch{p.channel}" if p.channel is not None else "")
        for p in item.parts
        if p.kind != "text"
    ]
    payload: list[Any] = [
        system_prompt(item, request),
        item.text,
        media,
        str(request.media),
        request.drop_audio_with_video,
    ]
    if (
        request.audio_format is not None
    ):  # converted audio is other bytes; runs that send files keep their hash
        payload.append([request.audio_format, request.audio_sample_rate or AUDIO_RATE])
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]
