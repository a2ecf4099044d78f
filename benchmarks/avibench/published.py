"""Published AVI-Bench results as data, on the 0–100 scale.

Two paper tables are merged per model: the stage table (Table 3) and the L1–L4 taxonomy table (Table 5).
A model missing from one table has ``None`` there. Rows marked ``summary`` come from public summaries of the
paper rather than its README or leaderboard file; ``approximate`` marks numbers the
summaries only give roughly. The five models of the official leaderboard file also carry the facts that file
records about them (provider, release date and its source), so the file can be rebuilt from here.
"""

from __future__ import annotations

from dataclasses import dataclass

BENCHMARK_VERSION = "paper-2606.07643"
PAPER_URL = "https://arxiv.org/abs/2606.07643"
STAGE_KEYS = ("perception", "understanding", "reasoning", "sensation")
TAXONOMY_KEYS = ("l1_task", "l2_modality", "l3_stage", "l4_domain")


@dataclass(frozen=True)
class Release:
    """What the official leaderboard file records about a model beyond its scores."""

    entry_id: str
    provider: str
    release_date: str
    release_url: str


@dataclass(frozen=True)
class PublishedResult:
    model: str
    params: str | None
    stages: dict[str, float] | None
    overall: float | None
    taxonomy: dict[str, float] | None
    summary: bool = False
    approximate: bool = False
    release: Release | None = None


def _stages(perception: float, understanding: float, reasoning: float, sensation: float) -> dict[str, float]:
    return dict(zip(STAGE_KEYS, (perception, understanding, reasoning, sensation), strict=True))


def _taxonomy(l1: float, l2: float, l3: float, l4: float) -> dict[str, float]:
    return dict(zip(TAXONOMY_KEYS, (l1, l2, l3, l4), strict=True))


def _release(slug: str, provider: str, date: str, url: str) -> Release:
    return Release(f"{slug}-paper-2606-07643", provider, date, url)


PUBLISHED: tuple[PublishedResult, ...] = (
    PublishedResult(
        "Gemini-2.5-Pro",
        None,
        _stages(54.58, 68.97, 69.06, 36.22),
        57.21,
        _taxonomy(64.20, 62.80, 57.08, 32.97),
        release=_release(
            "gemini-2-5-pro",
            "Google",
            "2025-03-25",
            "https://blog.google/innovation-and-ai/models-and-research/google-deepmind/"
            "gemini-model-thinking-updates-march-2025/",
        ),
    ),
    PublishedResult(
        "Gemini-2.5-Flash",
        None,
        _stages(45.97, 43.79, 63.70, 30.63),
        46.02,
        _taxonomy(51.15, 48.58, 40.47, 27.72),
        release=_release(
            "gemini-2-5-flash",
            "Google",
            "2025-04-17",
            "https://blog.google/products-and-platforms/products/gemini/gemini-2-5-flash-preview/",
        ),
    ),
    PublishedResult(
        "Gemini-2.0-Flash",
        None,
        _stages(44.27, 42.11, 64.03, 29.48),
        44.97,
        _taxonomy(50.14, 49.21, 39.79, 27.12),
        release=_release(
            "gemini-2-0-flash",
            "Google",
            "2024-12-11",
            "https://blog.google/innovation-and-ai/models-and-research/google-deepmind/"
            "google-gemini-ai-update-december-2024/",
        ),
    ),
    PublishedResult(
        "Qwen2.5-Omni",
        "7B",
        _stages(42.81, 39.68, 58.26, 24.59),
        41.33,
        _taxonomy(46.92, 45.93, 37.61, 25.89),
        release=_release("qwen2-5-omni", "Qwen", "2025-03-26", "https://github.com/QwenLM/Qwen2.5-Omni"),
    ),
    PublishedResult(
        "GPT-4o",
        None,
        _stages(40.45, 48.60, 56.87, 16.81),
        40.68,
        _taxonomy(48.64, 47.19, 41.93, 0.55),
        release=_release("gpt-4o", "OpenAI", "2024-05-13", "https://openai.com/index/hello-gpt-4o/"),
    ),
    PublishedResult("Qwen-Omni-Turbo", "7B", None, None, _taxonomy(46.50, 45.15, 37.70, 26.13)),
    PublishedResult("Baichuan-Omni", "7B", None, None, _taxonomy(37.35, 35.80, 30.18, 24.10)),
    PublishedResult(
        "Gemini-1.5-Pro",
        None,
        _stages(41.69, 35.33, 61.19, 23.30),
        40.38,
        _taxonomy(46.07, 42.84, 32.67, 23.28),
        summary=True,
    ),
    PublishedResult(
        "Human-Omni",
        "7B",
        _stages(28.70, 18.14, 49.94, 16.82),
        28.40,
        _taxonomy(32.26, 29.79, 19.62, 16.96),
        summary=True,
    ),
    PublishedResult(
        "Video-LLaMA2",
        "7B",
        _stages(32.45, 16.32, 39.95, 20.34),
        27.27,
        _taxonomy(29.57, 24.99, 18.71, 16.99),
        summary=True,
    ),
    PublishedResult("NExTGPT", "7B", _stages(7.52, 16.93, 14.86, 10.69), 12.50, None, summary=True),
    PublishedResult(
        "Human (subset)", None, _stages(92.1, 90.0, 97.2, 89.6), 92.6, None, summary=True, approximate=True
    ),
)

#: The models of the official leaderboard file, in that file's order.
LEADERBOARD_MODELS: tuple[str, ...] = (
    "Gemini-2.5-Pro",
    "Gemini-2.5-Flash",
    "Gemini-2.0-Flash",
    "Qwen2.5-Omni",
    "GPT-4o",
)


def published(model: str) -> PublishedResult:
    """The published row of ``model``; raises KeyError naming the known models."""
    for row in PUBLISHED:
        if row.model == model:
            return row
    raise KeyError(f"no published result for {model!r}; known: {', '.join(r.model for r in PUBLISHED)}")
