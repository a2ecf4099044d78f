"""Published AIR-Bench results, as printed in the official README (``None`` where it prints "/").

Foundation values are accuracies in percent; Chat values are judge scores on the 1-10 scale.
"""

from __future__ import annotations

from avibench.level_metrics.airbench import FOUNDATION_TASKS

_FOUNDATION_MODELS = (
    "Qwen-Audio-Turbo",
    "Qwen-Audio",
    "PandaGPT",
    "SALMONN",
    "NExT-GPT",
    "BLSP",
    "SpeechGPT",
    "Whisper+GPT-4",
)
_S = None
# One row per task in leaderboard order (FOUNDATION_TASKS), one column per model in _FOUNDATION_MODELS.
_FOUNDATION_ROWS: tuple[tuple[float | None, ...], ...] = (
    (45.4, 56.1, 23.0, 25.3, 25.4, 25.0, 28.8, 35.0),
    (95.9, 92.8, 34.6, 28.1, 23.7, 30.8, 39.6, 96.8),
    (82.5, 67.2, 66.5, 35.5, 57.0, 33.2, 29.2, 21.9),
    (60.0, 43.2, 26.0, 29.9, 25.7, 27.4, 37.6, 59.5),
    (58.8, 36.0, 42.5, 48.7, 62.4, 51.2, 20.4, 41.1),
    (48.1, 71.2, 34.0, 51.7, 26.1, 37.2, 35.9, 69.8),
    (56.4, 77.8, 28.5, 36.7, 25.6, 46.6, 45.8, 87.7),
    (54.3, 35.3, 43.2, 34.3, 25.4, 28.1, 32.6, 30.0),
    (69.3, 48.3, 53.1, 50.0, 30.8, 50.0, 39.2, 40.5),
    (41.6, 23.9, 38.3, 24.0, 62.2, 34.6, 26.1, _S),
    (78.1, 84.9, 31.6, 45.3, 23.5, 29.8, 26.2, _S),
    (61.3, 67.5, 55.7, 34.1, 24.1, 25.2, 23.7, _S),
    (62.8, 64.6, 48.7, 28.4, 18.8, 36.1, 33.9, _S),
    (59.6, 59.1, 47.7, 41.3, 24.3, 22.8, 29.1, _S),
    (77.1, 71.2, 39.8, 45.3, 28.1, 26.1, 29.3, _S),
    (30.1, 28.6, 26.4, 26.4, 25.1, 23.5, 24.1, _S),
    (25.1, 25.4, 27.2, 22.8, 23.1, 24.9, 25.2, _S),
    (62.5, 48.2, 50.7, 54.6, 47.1, 31.0, 31.3, _S),
    (39.0, 36.1, 36.7, 32.2, 25.4, 28.3, 29.7, _S),
)
_FOUNDATION_AVERAGE = (57.8, 54.5, 40.2, 36.0, 31.5, 31.4, 30.0, _S)

FOUNDATION_BY_TASK: dict[str, dict[str, float | None]] = {
    model: {"average": _FOUNDATION_AVERAGE[m]}
    | {t.name: row[m] for t, row in zip(FOUNDATION_TASKS, _FOUNDATION_ROWS, strict=True)}
    for m, model in enumerate(_FOUNDATION_MODELS)
}
"""Per-task accuracy (%) and the leaderboard average, from the README's Foundation leaderboard."""

FOUNDATION_BY_CATEGORY: dict[str, dict[str, float | None]] = {
    model: dict(zip(("speech", "sound", "music", "average"), values, strict=True))
    for model, values in {
        "Qwen-Audio-Turbo": (63.4, 61.0, 48.9, 57.8),
        "SALMONN": (37.8, 33.0, 37.1, 36.0),
        "Qwen-Audio": (58.7, 60.2, 44.8, 54.5),
        "BLSP": (36.6, 31.4, 26.1, 31.4),
        "PandaGPT": (39.0, 43.6, 38.1, 40.2),
        "NExT-GPT": (33.6, 32.2, 28.9, 31.5),
        "SpeechGPT": (34.3, 27.5, 28.1, 30.0),
        "Macaw-LLM": (32.2, 30.1, 29.7, 30.7),
        "Whisper+GPT-4": (53.6, _S, _S, _S),
    }.items()
}
"""Per-category accuracy (%) from the README's earlier combined leaderboard (May 2024)."""

CHAT: dict[str, dict[str, float | None]] = {
    model: dict(zip(("speech", "sound", "music", "mixed", "average"), values, strict=True))
    for model, values in {
        "Qwen2-Audio": (7.18, 6.99, 6.79, 6.77, 6.93),
        "Qwen-Audio-Turbo": (7.04, 6.59, 5.98, 5.77, 6.34),
        "SALMONN": (6.16, 6.28, 5.95, 6.08, 6.11),
        "Qwen-Audio": (6.47, 6.95, 5.52, 5.38, 6.08),
        "Gemini-1.5-pro": (6.97, 5.49, 5.06, 5.27, 5.70),
        "BLSP": (6.17, 5.55, 5.08, 4.52, 5.33),
        "PandaGPT": (3.58, 5.46, 5.06, 2.93, 4.25),
        "NExT-GPT": (3.86, 4.76, 4.18, 2.92, 4.13),
        "SpeechGPT": (1.57, 0.95, 0.95, 1.14, 1.15),
        "Macaw-LLM": (0.97, 1.01, 0.91, 1.00, 1.01),
        "Whisper+GPT-4": (7.54, _S, _S, _S, _S),
    }.items()
}
"""Chat scores (judge scale 1-10) from the README's Chat leaderboard."""

CHAT_AVERAGE_MISMATCH = frozenset({"NExT-GPT", "Macaw-LLM"})
"""Rows whose printed average is not the mean of their four printed category scores (3.93 vs 4.13, 0.97 vs 1.01);
every other row agrees to within rounding."""
