"""A small, deterministic Daily-Omni in the published layout, with real videos, and the offline baselines.

Each video shows three solid colours in turn (one second each) and beeps one to four times while one of them is
on screen, in an H.264 mp4 with an AAC soundtrack, as the release ships them. Its questions are true of it by
construction and need the picture, the sound or both: which colour comes first or after another (event sequence),
the colour on screen while the beeps sound (audio-visual alignment), how many beeps are heard (context), and how
many colours are shown before the beeps start (reasoning). One question of the first video appears twice, as in the release. The default sample has 8 videos and 24 questions;
``full_size`` writes the release's 1,197 questions over 399 videos.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

from avibench.benchmarks.dailyomni.layout import DATASET, LETTERS, OFFICIAL_COUNT, video_path
from avibench.items import Item
from avibench.kits import multiple_choice as mc
from avibench.kits.media import NAMED_COLOURS as COLOURS
from avibench.kits.media import colour_beep_clip, write_mp4

WORDS = ("one", "two", "three", "four")
CATEGORIES = ("Education", "Sports", "Music", "Entertainment")
SEGMENT_S = 1.0
SMALL_VIDEOS = 8
QUESTIONS_PER_VIDEO = 3


def _options(right: str, wrong: list[str]) -> tuple[list[str], str]:
    """Four lettered choices with ``right`` among them, and its letter."""
    texts = sorted([right, *wrong[:3]])
    return [f"{letter}. {text}" for letter, text in zip(LETTERS, texts, strict=True)], LETTERS[
        texts.index(right)
    ]


def _questions(video_id: str, order: list[str], beeps: int, at: int, n: int) -> list[dict[str, object]]:
    others = [c for c in COLOURS if c not in order[:1]]
    after = order[1]
    asked = [
        ("Event Sequence", "Which colour fills the screen first?", order[0], others),
        ("AV Event Alignment", "What colour is the screen while the beeps sound?", order[at],
         [c for c in COLOURS if c != order[at]]),
        ("Context understanding", "How many beeps are heard in the video?", WORDS[beeps - 1],
         [w for w in WORDS if w != WORDS[beeps - 1]]),
        ("Event Sequence", f"Which colour comes right after {order[0]}?", after,
         [c for c in COLOURS if c != after]),
        ("Reasoning", "How many colours are shown before the beeps start?", WORDS[at - 1] if at else "none",
         [w for w in ("none", *WORDS[:3]) if w != (WORDS[at - 1] if at else "none")]),
    ]  # fmt: skip
    out = []
    for k in range(QUESTIONS_PER_VIDEO):
        qa_type, question, right, wrong = asked[(n + k) % len(asked)]
        choices, answer = _options(right, wrong)
        out.append({
            "Question": question, "Choice": choices, "Answer": answer, "video_id": video_id, "Type": qa_type,
            "content_parent_category": "Synthetic", "content_fine_category": "Colours and beeps",
            "video_category": CATEGORIES[n % len(CATEGORIES)], "video_duration": "30s" if n % 2 == 0 else "60s",
        })  # fmt: skip
    return out


def _write_video(path: Path, order: list[str], beeps: int, at: int) -> None:
    write_mp4(path, *colour_beep_clip(order, SEGMENT_S, beeps, at))


def generate(out: Path, *, seed: int = 0, full_size: bool = False) -> int:
    """Write qa.json and the videos under ``out``; returns the number of questions."""
    rng = random.Random(seed)
    out = Path(out)
    videos = OFFICIAL_COUNT // QUESTIONS_PER_VIDEO if full_size else SMALL_VIDEOS
    questions: list[dict[str, object]] = []
    for n in range(videos):
        video_id = f"syn{n:04d}_{rng.randrange(16**4):04x}"
        order = rng.sample(list(COLOURS), 3)
        beeps, at = rng.randint(1, 4), rng.randrange(3)
        _write_video(video_path(out, video_id), order, beeps, at)
        questions += _questions(video_id, order, beeps, at, n)
    questions.insert(1, dict(questions[0]))  # the release asks one question twice for one video
    questions.pop()
    out.mkdir(parents=True, exist_ok=True)
    (out / DATASET).write_text(json.dumps(questions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return len(questions)


def option_texts(item: Item) -> tuple[str, ...]:
    """The choices without their "A. " labels (what the strict reading matches option text against)."""
    return tuple(re.sub(r"^\s*[A-D]\s*[.)]\s*", "", choice) for choice in item.options)


def random_answer(item: Item, rng: random.Random) -> str:
    """A uniform guess: one of the letters, alone."""
    return mc.random_reply(item.options, rng)


ORACLE_STYLES: tuple[str, ...] = ("{l}", "{l}. {t}", "{l}: {t}", "{l}.")


def oracle_answer(item: Item, rng: random.Random, accept: Callable[[str], bool]) -> str:
    """The gold letter phrased as models answer a "letter only" instruction, in a style drawn from ``rng`` that
    ``accept`` (every reading) scores right; the bare letter at worst."""
    gold = LETTERS.index(str(item.answer))
    return mc.oracle_reply(gold, option_texts(item), rng, ORACLE_STYLES, accept, fallback=LETTERS[gold])
