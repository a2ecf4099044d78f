"""AudioMarathon's published numbers: the README leaderboard and the paper's inference-time table.

Leaderboard scores are F1 × 100 per task (ASR: 100 − WER) and ``average`` is their unweighted mean, all as printed
(one decimal). The human row has no ASR score; its average (87.6) is the mean of the other nine tasks.

The timing table (per task: total, prefill and decode seconds per sample, Phi-4-Multimodal and Qwen2.5-Omni) comes from
the paper source, where it is commented out. Its prefill is one ``generate`` call limited to one new token; its decode
column is a *second, full* ``generate`` call that runs the prefill again. The RACE, LibriSpeech, SLUE, VESUS and
VoxCeleb scripts report ``total = prefill + decode``, so those totals count the prefill twice: their decode column
alone is the cost of one answer. The DESED, GTZAN, HAD and TAU scripts time that second call as the total itself,
so there the total is right and decode is total − prefill.
"""

from __future__ import annotations

from dataclasses import dataclass

from avibench.kits.published import PublishedRow, table

#: The leaderboard rows in published rank order: ``kind`` open, closed or human, ``task:<task>`` and the average as
#: ``headline``.
LEADERBOARD: tuple[PublishedRow, ...] = table("audiomarathon")


@dataclass(frozen=True)
class TimingRow:
    dataset: str
    task: str
    model: str
    total_s: float
    prefill_s: float
    decode_s: float

    @property
    def prefill_counted_twice(self) -> bool:
        """True where the script's total adds a decode time that already contains a second prefill."""
        return self.task not in SINGLE_CALL_TOTAL

    @property
    def one_answer_s(self) -> float:
        """Seconds for one answer with a single prefill: the decode call alone where prefill was counted twice."""
        return self.decode_s if self.prefill_counted_twice else self.total_s


SINGLE_CALL_TOTAL = ("SED", "MC", "SD", "ASC")
"""Tasks whose script times the full answer call as the total (DESED, GTZAN, HAD, TAU)."""

_TIMINGS = """
DESED            SED  Phi-4-Multimodal  1.298 0.550 0.748
DESED            SED  Qwen2.5-Omni      0.694 0.645 0.049
GTZAN            MC   Phi-4-Multimodal  1.896 0.929 0.968
GTZAN            MC   Qwen2.5-Omni      1.108 0.555 0.553
HAD              SD   Phi-4-Multimodal  1.517 0.698 0.819
HAD              SD   Qwen2.5-Omni      0.622 0.576 0.047
RACE             SCR  Phi-4-Multimodal  1.047 0.452 0.595
RACE             SCR  Qwen2.5-Omni      0.745 0.349 0.396
SLUE             SER  Phi-4-Multimodal  1.207 0.662 0.546
SLUE             SER  Qwen2.5-Omni      1.525 0.738 0.787
TAU              ASC  Phi-4-Multimodal  0.921 0.460 0.461
TAU              ASC  Qwen2.5-Omni      0.488 0.438 0.050
VESUS            ER   Phi-4-Multimodal  1.041 0.239 0.802
VESUS            ER   Qwen2.5-Omni      0.669 0.241 0.428
VoxAge           SAR  Phi-4-Multimodal  1.411 0.404 1.007
VoxAge           SAR  Qwen2.5-Omni      0.930 0.441 0.489
VoxGender        SGR  Phi-4-Multimodal  0.840 0.409 0.431
VoxGender        SGR  Qwen2.5-Omni      0.932 0.443 0.489
LibriSpeech-long ASR  Phi-4-Multimodal  48.811 0.456 48.355
LibriSpeech-long ASR  Qwen2.5-Omni      39.020 0.508 38.512
"""

TIMINGS: tuple[TimingRow, ...] = tuple(
    TimingRow(d, t, m, float(a), float(b), float(c))
    for d, t, m, a, b, c in (line.split() for line in _TIMINGS.strip().splitlines())
)
TIMING_SOURCE = (
    "DabDans/AudioMarathon assets/main_results.tex, commented-out inference-time table (seconds per sample)"
)
