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

from avibench.level_metrics.audiomarathon import TASKS

LEADERBOARD_SOURCE = "DabDans/AudioMarathon README leaderboard (snapshot c8f49f3, 2025-10-09)"

_ROWS = """
Qwen2.5-Omni-7B              open    26.3 85.1 98.1 78.4 100.0 72.2 72.3 53.4 21.4 98.0 70.5
Qwen2.5-Omni-3B              open    25.2 82.3 94.7 70.2 97.4 69.3 67.3 39.6 29.1 97.2 67.2
Audio-Flamingo-3             open    21.7 78.9 94.3 59.5 97.0 54.1 33.7 54.3 40.7 96.2 63.0
Voxtral-Mini-3B-2507         open    24.3 71.1 96.8 71.0 83.8 27.2 68.0 29.7 30.7 71.0 57.4
Gemma-3n-E4B-it              open    19.0 56.9 93.2 50.2 71.9 31.7 35.9 18.9 21.8 93.0 49.3
Phi-4-Multimodal             open    18.4 69.3 92.7 55.1 46.7 23.4 26.4 27.3 26.6 91.1 47.7
Gemma-3n-E2B-it              open    22.5 51.6 91.3 50.2 56.8 28.2 35.1 15.2 12.2 91.6 45.5
Aero-1-Audio                 open    17.9 56.6 43.7 55.0 83.9 39.9 33.7 32.0 17.8 47.5 42.8
Baichuan-Omni-1.5            open    12.4 11.2 86.5 45.7 52.0 25.8 49.2 18.9 10.2 81.5 39.3
Audio-Flamingo-2             open    26.8 39.8 1.0 27.1 66.8 29.7 45.9 13.1 20.3 85.1 35.6
Gemini-2.5-Flash             closed  28.1 83.6 96.8 69.2 79.3 40.8 33.1 31.9 34.3 99.3 59.6
Gemini-2.0-Flash             closed  30.9 71.8 96.4 68.1 88.5 54.1 32.1 20.1 39.2 93.1 59.4
Gemini-2.0-Flash-Lite        closed  23.7 65.6 97.4 60.9 86.9 43.4 34.5 17.3 19.0 82.1 53.1
Gemini-2.5-Flash-Lite        closed  30.3 64.0 96.5 68.0 64.8 36.8 33.9 14.6 19.6 77.9 50.6
GPT-4o-Audio-2024-12-17      closed  25.7 60.2 94.7 51.2 67.6 41.9 30.8 21.8 19.9 73.1 48.7
GPT-4o-Audio-2024-10-01      closed  25.8 61.4 94.4 50.7 59.5 40.8 32.5 22.5 17.2 69.2 47.4
Human                        human   45.1 88.1 - 96.2 100.0 100.0 100.0 90.8 71.4 97.0 87.6
"""


@dataclass(frozen=True)
class LeaderboardRow:
    model: str
    kind: str
    """``open``, ``closed`` or ``human``."""
    scores: dict[str, float | None]
    """Per task key; ``None`` where the table has no number."""
    average: float


def _parse(rows: str) -> tuple[LeaderboardRow, ...]:
    out = []
    for line in rows.strip().splitlines():
        model, kind, *cells = line.split()
        values = [None if c == "-" else float(c) for c in cells]
        out.append(LeaderboardRow(model, kind, dict(zip(TASKS, values[:-1], strict=True)), float(values[-1])))
    return tuple(out)


LEADERBOARD: tuple[LeaderboardRow, ...] = _parse(_ROWS)


def leaderboard() -> dict[str, dict[str, float | None]]:
    """``{model: {task: score, ..., "average": avg}}`` in published rank order."""
    return {row.model: {**row.scores, "average": row.average} for row in LEADERBOARD}


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
