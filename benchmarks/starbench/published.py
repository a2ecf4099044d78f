"""Published STAR-Bench numbers: the paper's results table, which is for data version v0.5.

The table reports "MA (%)" without saying whether it is AA or ACR, so these numbers are shown beside, never
compared as equal to, either of ours. The official v1.0 data revised the spatial questions; its leaderboard was
announced but not published, so v0.5 and v1.0 numbers are not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass

DATA_VERSION = "v0.5"
SOURCE = "STAR-Bench paper, main results table (assets/results.png in the official repository)"


@dataclass(frozen=True)
class PublishedScore:
    """One row of the published table, in percent; parts the table does not list are ``None``."""

    model: str
    ma: float
    perception: float | None = None
    temporal: float | None = None
    spatial: float | None = None
    data_version: str = DATA_VERSION


PUBLISHED: tuple[PublishedScore, ...] = (
    PublishedScore("Human", 79.11),
    PublishedScore("Gemini 2.5 Pro", 49.59, perception=46.64, temporal=58.52, spatial=43.62),
    PublishedScore("Gemini 2.5 Flash", 32.92),
    PublishedScore("MiDashengLM-7B", 31.28),
    PublishedScore("GPT-4o Audio", 30.97),
    PublishedScore("Xiaomi-MiMo-Audio", 30.27),
    PublishedScore("Qwen2.5-Omni-7B", 28.37),
    PublishedScore("Random", 24.85),
)


def published(model: str) -> PublishedScore | None:
    """The published row of ``model`` (case-insensitive), ``None`` when the table has no such row."""
    return next((p for p in PUBLISHED if p.model.lower() == model.lower()), None)
