"""The subtitle lines VLMEvalKit's ``WorldSense_*_subs`` settings put in the prompt.

For each frame the setting samples (``8frame``/``32frame``: N frames at ``len/(N+1)`` steps; ``1fps``/``0.5fps``:
one every ``fps/rate`` frames over the video), the text of the first cue of ``subtitles/<id>.srt`` that starts
before and ends after that frame's time (``pysubs2.make_time(fps=..., frames=...)``: rounded milliseconds), its
line breaks as spaces; empty ones are skipped and the rest joined one a line. These are the frames VLMEvalKit
sends as images (its path for models that take no video; for a video model it takes one frame a second
instead). VLMEvalKit reads the frame count and
rate with decord; here they are the mp4's own (PyAV). Cue text is taken as written (pysubs2 would also turn SRT
``<i>``/``<b>`` tags into ASS override codes, which WorldSense's plain subtitles do not have). No subtitle file:
no lines, as VLMEvalKit's setting then sends the template with nothing in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: The frame settings of VLMEvalKit's subtitle configs: ("nframe", N) or ("fps", rate).
SETTINGS: dict[str, tuple[str, float]] = {
    "8frame": ("nframe", 8),
    "32frame": ("nframe", 32),
    "1fps": ("fps", 1.0),
    "0.5fps": ("fps", 0.5),
}
_TIME = re.compile(r"(\d+):(\d+):(\d+)[,.](\d+)")


@dataclass(frozen=True)
class Cue:
    start: int
    end: int
    text: str


def _ms(stamp: str) -> int:
    h, m, s, frac = _TIME.match(stamp.strip()).groups()  # type: ignore[union-attr]
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(frac.ljust(3, "0")[:3])


def read_srt(path: Path) -> list[Cue]:
    """The cues of an SRT file (times in milliseconds; a cue's lines joined by spaces, the whole stripped, as
    pysubs2 keeps them and VLMEvalKit turns its line breaks into spaces)."""
    cues = []
    for block in re.split(r"\n\s*\n", Path(path).read_text(encoding="utf-8-sig").replace("\r\n", "\n")):
        lines = [line for line in block.strip().split("\n") if line.strip()]
        timing = next((k for k, line in enumerate(lines) if "-->" in line), None)
        if timing is None:
            continue
        start, _, end = lines[timing].partition("-->")
        if _TIME.match(start.strip()) and _TIME.match(end.strip()):
            cues.append(Cue(_ms(start), _ms(end), " ".join(lines[timing + 1 :]).strip()))
    return cues


@cache
def video_timing(path: Path) -> tuple[int, float]:
    """The video's frame count and average frame rate."""
    import av  # here, not at import: only the subtitle settings read a video

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = stream.frames or sum(1 for packet in container.demux(stream) if packet.size)
        return int(frames), float(stream.average_rate or stream.guessed_rate or 0)


def frame_indices(frames: int, fps: float, setting: str) -> list[int]:
    """The frames a setting samples, as VLMEvalKit's ``save_video_frames`` picks them."""
    kind, value = SETTINGS[setting]
    if kind == "nframe":
        step = frames / (value + 1)
        return [int(i * step) for i in range(1, int(value) + 1)]
    required = int(frames / fps * value)
    step = fps / value
    return [int(i * step) for i in range(required)]


def subtitle_lines(srt: Path, video: Path, setting: str) -> str:
    """The subtitle text the setting's prompt holds ("" without a subtitle file)."""
    if not srt.is_file():
        return ""
    cues = read_srt(srt)
    frames, fps = video_timing(video)
    lines = []
    for index in frame_indices(frames, fps, setting):
        now = round(index * (1000 / fps))
        text = next((c.text for c in cues if c.start < now < c.end), "")
        if text.strip():
            lines.append(text)
    return "\n".join(lines)
