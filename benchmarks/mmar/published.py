"""Published MMAR and MMAU results as data (accuracy in percent, as printed by their sources).

MMAR: the official README leaderboard (scored with the official token-set match; the prompt each lab used is not
stated, which is why reproductions land lower). Per-modality columns follow ``MMAR_MODALITIES``.
MMAU: the numbers the README and paper revisions quote; the leaderboard itself lives on the project page, and
since July 2025 it shows GPT-4o-"parsed" numbers only, so none of these is comparable with a token-set score unless
the source says which scorer and split it used.
"""

from __future__ import annotations

from dataclasses import dataclass

from avibench.level_metrics.mmar import MMAR_MODALITIES

MMAR_SOURCE = "https://github.com/ddlBoJack/MMAR (README leaderboard, 3bce090)"
#: Questions per modality in the official release: the weights of the leaderboard's total.
MMAR_MODALITY_COUNTS: dict[str, int] = {
    "sound": 165, "music": 206, "speech": 294, "mix-sound-music": 11, "mix-sound-speech": 218,
    "mix-music-speech": 82, "mix-sound-music-speech": 24,
}  # fmt: skip


@dataclass(frozen=True)
class Published:
    """One published result: the headline accuracy, its breakdown (may be empty) and where it comes from."""

    model: str
    total: float
    breakdown: dict[str, float]
    source: str
    note: str = ""
    verified: bool = True
    """False when only a third-party page quotes the number."""
    edition: str = ""
    """Which of several numbers published for one model this is (where a source lists the model twice), shown
    after its name so the rows can be told apart."""

    @property
    def name(self) -> str:
        return f"{self.model} ({self.edition})" if self.edition else self.model


def _mmar(model: str, total: float, *by_modality: float, note: str = "") -> Published:
    return Published(model, total, dict(zip(MMAR_MODALITIES, by_modality, strict=True)), MMAR_SOURCE, note)


# README column order: Sound, Music, Speech, Sound-Music, Sound-Speech, Music-Speech, Sound-Music-Speech.
MMAR_PUBLISHED: tuple[Published, ...] = (
    _mmar("Gemini 2.5 Pro", 74.7, 67.3, 56.8, 82.0, 100.0, 84.9, 80.5, 66.7),
    _mmar("Gemini 2.5 Flash", 68.4, 60.0, 53.4, 77.2, 63.6, 76.2, 69.5, 75.0),
    _mmar("Qwen3-Omni-30B-A3B-Thinking", 66.4, 57.6, 44.7, 78.2, 63.4, 75.2, 69.5, 79.1),
    _mmar("Gemini 2.0 Flash", 65.6, 61.2, 51.0, 72.1, 81.8, 72.5, 65.9, 70.8),
    _mmar("GPT-4o Audio", 63.5, 53.9, 51.0, 70.4, 63.6, 72.5, 62.2, 75.0),
    _mmar("Omni-R1", 63.4, 67.3, 51.5, 64.3, 45.5, 70.2, 64.6, 70.8),
    _mmar(
        "Qwen2.5-Omni-7B",
        56.7,
        58.8,
        40.8,
        59.9,
        54.5,
        61.9,
        67.1,
        58.3,
        note="listed as Qwen2.5-Omni 10.7B (parameters with the encoders)",
    ),
    _mmar("Qwen2-Audio-Instruct", 30.0, 33.3, 24.3, 32.3, 9.1, 31.2, 30.5, 25.0),
    _mmar(
        "Random guess",
        29.3,
        29.4,
        25.9,
        31.5,
        25.0,
        29.3,
        31.1,
        28.1,
        note="the mean of 1/len(choices), which the chance level reproduces from the data",
    ),
)

MMAU_README = "https://github.com/Sakshi113/MMAU (README)"
MMAU_PAPER = "MMAU paper abstract (arXiv 2410.19168)"
MMAU_PUBLISHED: tuple[Published, ...] = (
    Published("Gemini 1.5 Pro", 66.15, {}, MMAU_README, "README abstract; split and scorer not stated"),
    Published(
        "Qwen2-Audio-Instruct",
        55.4,
        {},
        MMAU_README,
        "README abstract; split and scorer not stated",
        edition="README",
    ),
    Published("Gemini Pro v1.5", 52.97, {}, MMAU_PAPER, "earlier abstract revision"),
    Published(
        "Qwen2-Audio-Instruct", 52.50, {}, MMAU_PAPER, "earlier abstract revision", edition="paper, earlier"
    ),
    Published("Gemini 2.0 Flash", 59.93, {}, MMAU_PAPER, "later abstract revision"),
    Published(
        "Qwen2.5-Omni-7B",
        65.6,
        {},
        "third-party page",
        "test-mini, commonly quoted; scorer not stated",
        False,
    ),
)

PUBLISHED: dict[str, tuple[Published, ...]] = {"mmar": MMAR_PUBLISHED, "mmau": MMAU_PUBLISHED}
