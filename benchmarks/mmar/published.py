"""Published MMAR and MMAU results as data (accuracy in percent, as printed by their sources).

MMAR: the official README leaderboard (scored with the official token-set match; the prompt each lab used is not
stated, which is why reproductions land lower). Per-modality columns follow ``MMAR_MODALITIES``.
MMAU: the numbers the README and paper revisions quote; the leaderboard itself lives on the project page, and
since July 2025 it shows GPT-4o-"parsed" numbers only, so none of these is comparable with a token-set score unless
the source says which scorer and split it used.
"""

from __future__ import annotations

from avibench.kits.published import PublishedRow, table

MMAR_SOURCE = "https://github.com/ddlBoJack/MMAR (README leaderboard, 3bce090)"
#: Questions per modality in the official release: the weights of the leaderboard's total.
MMAR_MODALITY_COUNTS: dict[str, int] = {
    "sound": 165, "music": 206, "speech": 294, "mix-sound-music": 11, "mix-sound-speech": 218,
    "mix-music-speech": 82, "mix-sound-music-speech": 24,
}  # fmt: skip


#: MMAR: the README columns Sound, Music, Speech, Sound-Music, Sound-Speech, Music-Speech, Sound-Music-Speech as
#: ``group:<modality>``; MMAU: test-mini totals, ``kind`` ``unverified`` where only a third-party page quotes one.
PUBLISHED: dict[str, tuple[PublishedRow, ...]] = {name: table(name) for name in ("mmar", "mmau")}
MMAR_PUBLISHED, MMAU_PUBLISHED = PUBLISHED["mmar"], PUBLISHED["mmau"]
