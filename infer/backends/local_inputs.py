"""From an item to what a transformers processor takes: the chat text and the decoded media, in order.

The chat text is rendered by the model's own chat template with one typed placeholder per medium; the
processor then expands each placeholder to as many tokens as the medium's features need. Media are decoded
here with the same helpers the remote backends use: audio resampled to the processor's rate (one channel
when the item asks for it), video frames sampled at the model's rate within its frame limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from avibench.infer.backends.base import InferRequest
from avibench.infer.backends.local_families import Family
from avibench.infer.media import SYSTEM_PROMPT, MediaError, decode_audio, sample_frame_images
from avibench.items import Item, Part

DEFAULT_MAX_NEW_TOKENS = 1024
_PCM_SCALE = 32768.0


@dataclass
class Prompt:
    """One item ready for the processor.

    ``audio`` holds every audio slot in the order the model meets them: clips of their own and, for families
    that interleave a video with its soundtrack, that soundtrack at the video's place; ``audio_video[i]`` is
    the index (within this prompt) of the video slot i came from, or None for a clip of its own.
    """

    text: str
    max_new_tokens: int
    audio: list[np.ndarray] = field(default_factory=list)
    audio_video: list[int | None] = field(default_factory=list)
    images: list[Image.Image] = field(default_factory=list)
    videos: list[np.ndarray] = field(default_factory=list)
    length: int = 0
    """Input tokens once the processor expanded the placeholders (set after a single-item processor run)."""

    @property
    def audio_in_video(self) -> bool:
        return any(index is not None for index in self.audio_video)


def audio_rate(processor: Any) -> int:
    """The sampling rate the processor's audio feature extractor expects."""
    for name in ("feature_extractor", "audio_processor"):
        rate = getattr(getattr(processor, name, None), "sampling_rate", None)
        if rate:
            return int(rate)
    return 16000


def frame_count(processor: Any, family: Family, total: int, duration: float) -> int:
    """Frames to sample: the model's rate over the clip, within its limits, a multiple of its temporal patch."""
    video_processor = getattr(processor, "video_processor", None)
    fps = getattr(video_processor, "fps", None) or family.video_fps
    low = getattr(video_processor, "min_frames", None) or 1
    high = min(getattr(video_processor, "max_frames", None) or family.max_frames, total)
    step = (getattr(video_processor, "temporal_patch_size", None) or 1) if family.video == "native" else 1
    wanted = round(duration * fps) if duration > 0 else total
    n = max(low, min(high, wanted), 1)
    return max(step, math.ceil(n / step) * step)


class _Builder:
    """Walks an item's parts once, filling the chat content and the media lists side by side."""

    def __init__(self, processor: Any, family: Family):
        self.processor = processor
        self.family = family
        self.rate = audio_rate(processor)
        self.content: list[dict[str, Any]] = []
        self.prompt = Prompt(text="", max_new_tokens=0)

    def _refuse(self, part: Part, medium: str) -> MediaError:
        return MediaError(f"{self.family.name} takes no {medium} input ({part.value})")

    def _audio(self, part: Part, pcm: np.ndarray | None, video: int | None = None) -> None:
        if pcm is None:
            raise MediaError(f"no audio stream in {part.value}")
        self.prompt.audio.append(pcm.astype(np.float32) / _PCM_SCALE)
        self.prompt.audio_video.append(video)
        if video is None:
            self.content.append({"type": "audio"})

    def _frames(self, part: Part) -> list[Image.Image]:
        count = lambda total, duration: frame_count(self.processor, self.family, total, duration)  # noqa: E731
        return [image.convert("RGB") for image in sample_frame_images(part.path, count)]

    def add(self, part: Part) -> None:
        if part.kind == "text":
            self.content.append({"type": "text", "text": part.value})
        elif part.kind == "audio":
            if not self.family.audio:
                raise self._refuse(part, "audio")
            self._audio(part, decode_audio(part.path, self.rate, part.channel))
        elif part.kind == "image":
            if not self.family.image:
                raise self._refuse(part, "image")
            if not part.path.is_file():
                raise MediaError(f"media file not found: {part.path}")
            with Image.open(part.path) as image:
                self.prompt.images.append(image.convert("RGB"))
            self.content.append({"type": "image"})
        elif self.family.video == "native":
            self.prompt.videos.append(np.stack([np.asarray(frame) for frame in self._frames(part)]))
            self.content.append({"type": "video"})
            if self.family.audio_in_video:
                track = decode_audio(part.path, self.rate)
                if track is not None and track.size:
                    self._audio(part, track, video=len(self.prompt.videos) - 1)
        elif self.family.video == "frames":
            for frame in self._frames(part):
                self.prompt.images.append(frame)
                self.content.append({"type": "image"})
            track = decode_audio(part.path, self.rate) if self.family.audio else None
            if track is not None and track.size:
                self._audio(part, track)
        else:
            raise self._refuse(part, "video")

    def user_content(self) -> list[dict[str, Any]] | str:
        """Typed parts, or one string with the audio token inline for templates that want it so."""
        if not self.family.audio_inline:
            return self.content
        token = self.processor.audio_token
        return "".join(token if entry["type"] == "audio" else entry.get("text", "") for entry in self.content)


def kept_parts(item: Item, request: InferRequest) -> tuple[Part, ...]:
    """The item's parts, without its audio clips when it has a video and the request drops them."""
    has_video = any(part.kind == "video" for part in item.parts)
    if has_video and request.drop_audio_with_video:
        return tuple(part for part in item.parts if part.kind != "audio")
    return item.parts


def build_prompt(item: Item, request: InferRequest, processor: Any, family: Family) -> Prompt:
    """The chat text and decoded media of one item (blocking codec work: run it off the event loop)."""
    builder = _Builder(processor, family)
    for part in kept_parts(item, request):
        builder.add(part)
    messages = [
        {"role": "system", "content": item.system if item.system is not None else SYSTEM_PROMPT},
        {"role": "user", "content": builder.user_content()},
    ]
    prompt = builder.prompt
    prompt.text = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt.max_new_tokens = request.max_tokens or item.max_tokens or DEFAULT_MAX_NEW_TOKENS
    return prompt


def processor_inputs(processor: Any, family: Family, prompts: list[Prompt]) -> Any:
    """One processor call for a batch of prompts: padded token ids and the features of all their media."""
    # padding is asked of the text alone: feature extractors keep their own (fixed-window) padding
    kwargs: dict[str, Any] = {
        "text": [p.text for p in prompts],
        "text_kwargs": {"padding": True},
        "return_tensors": "pt",
    }
    audio = [clip for p in prompts for clip in p.audio]
    images = [image for p in prompts for image in p.images]
    videos = [video for p in prompts for video in p.videos]
    if audio:
        kwargs["audio"] = audio
        kwargs["sampling_rate"] = audio_rate(processor)
    if images:
        kwargs["images"] = images
    if videos:
        kwargs["videos"] = videos
        kwargs["videos_kwargs"] = {"do_sample_frames": False, "fps": family.video_fps}
    if any(p.audio_in_video for p in prompts):
        kwargs["load_audio_from_video"] = True
        kwargs["audio_from_video_indices"] = _global_video_indices(prompts)
    return processor(**kwargs)


def _global_video_indices(prompts: list[Prompt]) -> list[int | None]:
    """Each audio slot's video index within the whole batch (the prompts' own indices shifted)."""
    indices: list[int | None] = []
    offset = 0
    for prompt in prompts:
        indices.extend(None if i is None else offset + i for i in prompt.audio_video)
        offset += len(prompt.videos)
    return indices
