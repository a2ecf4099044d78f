"""Published OmniBench results as data: the image + audio setting of the official leaderboard, in percent.

Source: ``leaderboard_data.json`` of multimodal-art-projection/OmniBench (05d26a6), the ``image-audio`` block of
each model that has one (the other blocks replace a medium by its text annotation). These were scored by the
scripts of their time (before the current ``calculate_metrics.py``); each total is the count-weighted mean of its
audio types over :data:`AUDIO_TYPE_COUNTS`. Reka-core is left out: its breakdowns rest on fewer questions.
"""

from __future__ import annotations

from avibench.kits.published import PublishedRow, table

#: Questions per audio type in the release (1,142 in all), which the published percentages resolve to.
AUDIO_TYPE_COUNTS: dict[str, int] = {"speech": 771, "sound event": 265, "music": 106}
#: Overall and ``group:<audio type>`` accuracies of each model.
PUBLISHED: tuple[PublishedRow, ...] = table("omnibench")
