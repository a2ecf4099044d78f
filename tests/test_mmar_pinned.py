"""MMAR's and MMAU's eval documents on a fixed answer corpus, pinned by value.

The numbers were produced by the plug-ins' earlier hand-built scorer; the declared port must reproduce them: the
official top-level keys and their values, the headline and chance of both profiles, and the per-question scores.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pinned_responses import digest, seeded_response

from avibench.items import Item, Response
from avibench.plugin import Benchmark, get_benchmark

HEDGES = ("It could be {a} or {b}.", "I'm not sure.", "(B)")


def _response(plugin: Benchmark, item: Item, rng: random.Random) -> Response:
    def reply(item: Item, roll: float) -> str:
        if roll < 0.5:
            return plugin.oracle_answer(item, rng)
        if roll < 0.85:
            return plugin.random_answer(item, rng)
        return rng.choice(HEDGES).format(a=item.options[0], b=item.options[-1])

    return seeded_response(plugin, item, rng, reply)


COUNTS = ("questions", "answered", "failed", "missing", "unparsed")
MMAR_KEYS = ["category", "modality", "sub-category", "total"]
MMAU_KEYS = ["category", "difficulty", "sub-category", "task", "total"]
#: ``unparsed`` counts every answer the strict profile cannot read: the one refine marked unparsed and one that
#: refine has not seen and the extractor cannot read at scoring time (the hand-built scorer counted only the first)
COUNTED = {"questions": 30, "answered": 26, "failed": 3, "missing": 1, "unparsed": 2}
#: bench -> primary profile -> (top-level keys, digest of the top level, reference headline, strict headline,
#: chance, digest of per_sample, coverage counts)
PINNED = {
    "mmar": {
        "reference": (
            MMAR_KEYS,
            "f441c789ac58f096",
            65.3846,
            56.6667,
            {"MMAR": 38.9444},
            "d8437c8eeb8c84c2",
            COUNTED,
        ),
        "strict": (
            MMAR_KEYS,
            "1cc70998b0ee1d96",
            65.3846,
            56.6667,
            {"MMAR": 38.9444},
            "d8437c8eeb8c84c2",
            COUNTED,
        ),
    },
    "mmau": {
        "reference": (
            MMAU_KEYS,
            "3a15c0bb956166cc",
            73.0769,
            63.3333,
            {"test-mini": 39.7222},
            "698a3226caf3d46a",
            COUNTED,
        ),
        "strict": (
            MMAU_KEYS,
            "fc1adda463bf9d6e",
            73.0769,
            63.3333,
            {"test-mini": 39.7222},
            "698a3226caf3d46a",
            COUNTED,
        ),
    },
}


@pytest.mark.parametrize("bench", ["mmar", "mmau"])
def test_eval_document_is_pinned(bench: str, tmp_path: Path) -> None:
    plugin = get_benchmark(bench)
    plugin.generate_sample(tmp_path, seed=3)
    task = plugin.tasks()[0]
    rng = random.Random(7)
    responses = {task.name: [_response(plugin, item, rng) for item in plugin.load(tmp_path, task)]}
    got = {}
    for profile in ("reference", "strict"):
        scored = plugin.score(responses, profile=profile, options={})
        document = scored.document
        top = {k: v for k, v in document.items() if k not in ("summary", "coverage", "meta")}
        summary = document["summary"]
        got[profile] = (
            sorted(top),
            digest(top),
            summary["by_profile"]["reference"]["headline"],
            summary["by_profile"]["strict"]["headline"],
            summary["chance"],
            digest(scored.per_sample),
            {k: document["coverage"][task.name][k] for k in COUNTS},
        )
    assert got == PINNED[bench]
