"""MMSU's synthetic sample in the hub's layout: Parquet shards whose rows carry real wav bytes their answers are
true of (tones to count, a pitch step up or down, a loudness ramp, one tone longer than the others)."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import numpy as np

from avibench.kits import media

TASKS = {  # task_name: (category, sub-category, sub-sub-category, linguistics_sub_discipline)
    "tone_count": ("perception", "phonology", "linguistics", "phonetics"),
    "pitch_direction": ("perception", "phonology", "linguistics", "prosody"),
    "loudness_change": ("perception", "paralinguistics", "paralinguistics", None),
    "longest_tone": ("reasoning", "phonology", "linguistics", "prosody"),
}
ORDINALS = ("the first", "the second", "the third", "the fourth")
SMALL, FULL, SHARDS = 24, 5000, (2, 5)


def _question(task: str, rng: random.Random) -> tuple[str, list[str | None], str, np.ndarray]:
    """(question, choices A-D, answer, signal)."""
    if task == "tone_count":
        n = rng.randint(1, 4)
        signal = media.timeline(n * 0.3, [(k * 0.3, media.tone(440, 0.15)) for k in range(n)])
        counts = [str(c) for c in rng.sample(range(1, 5), 4)]
        return "How many tones does the clip hold?", counts, str(n), signal
    if task == "pitch_direction":
        up = rng.random() < 0.5
        first, second = (330, 660) if up else (660, 330)
        signal = np.concatenate([media.tone(first, 0.3), media.silence(0.1), media.tone(second, 0.3)])
        return (
            "Is the second tone higher or lower than the first?",
            ["higher", "lower", None, None],
            "higher" if up else "lower",
            signal,
        )
    if task == "loudness_change":
        change = rng.choice(["it gets louder", "it gets quieter", "it stays the same"])
        ramp = {"it gets louder": (0.1, 0.8), "it gets quieter": (0.8, 0.1)}.get(change, (0.5, 0.5))
        signal = media.tone(500, 1.0, 1.0) * np.linspace(*ramp, media.seconds_to_samples(1.0))
        return (
            "How does the loudness change?",
            ["it gets louder", "it gets quieter", "it stays the same", None],
            change,
            signal,
        )
    longest = rng.randrange(4)
    tones = [media.tone(520, 0.5 if k == longest else 0.15) for k in range(4)]
    signal = np.concatenate([part for t in tones for part in (t, media.silence(0.15))])
    return "Which tone lasts longest?", list(ORDINALS), ORDINALS[longest], signal


def rows(size: int, seed: int) -> list[dict[str, Any]]:
    import soundfile as sf  # here, not at import: the plug-in loads this module to be listed

    rng, out = random.Random(seed), []
    for k in range(size):
        task = list(TASKS)[k % len(TASKS)]
        question, choices, answer, signal = _question(task, rng)
        wav = io.BytesIO()
        sf.write(wav, np.clip(signal, -1, 1), media.SR, subtype="PCM_16", format="WAV")
        category, sub, subsub, discipline = TASKS[task]
        out.append(
            {
                "id": f"{task}_{k:04d}",
                "task_name": task,
                "audio": {"bytes": wav.getvalue(), "path": f"{task}_{k:04d}.wav"},
                "question": question,
                **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"), choices, strict=True)),
                "answer_gt": answer,
                "category": category,
                "sub-category": sub,
                "sub-sub-category": subsub,
                "linguistics_sub_discipline": discipline,
            }
        )
    return out


def generate(root: Path, *, seed: int = 0, full_size: bool = False) -> int:
    """Write ``data/train-0000k-of-0000n.parquet`` under ``root``; returns the number of questions."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = rows(FULL if full_size else SMALL, seed)
    n = SHARDS[full_size]
    (root / "data").mkdir(parents=True, exist_ok=True)
    for s in range(n):
        part = data[s::n]
        pq.write_table(pa.Table.from_pylist(part), root / "data" / f"train-{s:05d}-of-{n:05d}.parquet")
    return len(data)
