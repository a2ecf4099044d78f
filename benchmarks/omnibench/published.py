"""Published OmniBench results as data: the image + audio setting of the official leaderboard, in percent.

Source: ``leaderboard_data.json`` of multimodal-art-projection/OmniBench (05d26a6), the ``image-audio`` block of
each model that has one (the other blocks replace a medium by its text annotation). These were scored by the
scripts of their time (before the current ``calculate_metrics.py``); each total is the count-weighted mean of its
audio types over :data:`AUDIO_TYPE_COUNTS`. Reka-core is left out: its breakdowns rest on fewer questions.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = (
    "https://github.com/multimodal-art-projection/OmniBench (leaderboard_data.json, 05d26a6, image-audio)"
)
#: Questions per audio type in the release (1,142 in all), which the published percentages resolve to.
AUDIO_TYPE_COUNTS: dict[str, int] = {"speech": 771, "sound event": 265, "music": 106}


@dataclass(frozen=True)
class Published:
    """One leaderboard row: the overall accuracy and the accuracy per audio type, in percent."""

    model: str
    overall: float
    by_audio_type: dict[str, float]


def _row(model: str, overall: float, speech: float, sound_event: float, music: float) -> Published:
    return Published(model, overall, {"speech": speech, "sound event": sound_event, "music": music})


PUBLISHED: tuple[Published, ...] = (
    _row("Gemini-1.5-Pro", 42.91, 42.67, 42.26, 46.23),
    _row("UnifiedIO2-xlarge (3.2B)", 38.0, 39.56, 36.98, 29.25),
    _row("video-SALMONN (13B)", 35.64, 34.11, 31.7, 56.6),
    _row("UnifiedIO2-xxlarge (6.8B)", 33.98, 34.24, 36.98, 24.53),
    _row("VITA (8x7B)", 33.10, 31.52, 32.45, 46.23),
    _row("UnifiedIO2-large (1.1B)", 27.06, 25.94, 29.06, 30.19),
    _row("AnyGPT (7B)", 18.04, 17.77, 20.75, 13.21),
)
