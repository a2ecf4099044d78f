"""OmniBench's eval document on a fixed answer corpus, pinned by value.

The numbers were produced by the plug-in's earlier hand-built scorer; the declared port must reproduce them: the
official top level, the headline and chance of both profiles, the per-question scores, the coverage counts and the
unparsed answers and disagreements of both profiles.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pinned_responses import digest, seeded_response

from avibench.items import Item, Response
from avibench.plugin import Benchmark, get_benchmark

#: replies the two profiles read differently: letters, a hedge, bold, lowercase, a refusal, nothing to read
REPLIES = ("A", "(B)", "C or D", "**D**", "b", "I cannot tell.", "The answer is {answer}.", "{answer}")


def _response(plugin: Benchmark, item: Item, rng: random.Random) -> Response:
    return seeded_response(
        plugin, item, rng, lambda item, _roll: rng.choice(REPLIES).format(answer=item.answer)
    )


COUNTS = ("questions", "answered", "failed", "missing", "unparsed", "scored")
TOP = ["Accuracy", "Invalid Rate", "n_correct_response", "n_invalid_response", "n_wrong_response"]
COUNTED = {"questions": 24, "answered": 20, "failed": 3, "missing": 1, "unparsed": 2, "scored": 24}
SHARED = (
    37.5,
    45.8333,
    {"OmniBench": 25.0},
    "50bea6034fb250f9",
    COUNTED,
    {"reference": 6, "strict": 2},
    (0, 2),
)
#: primary profile -> (top-level keys, digest of the top level, reference headline, strict headline, chance,
#: digest of per_sample, coverage counts, unparsed by profile, (reference only, strict only) correct)
PINNED = {
    "reference": ([*TOP, "stats_by_audio_type", "total"], "2bcb1ccc971c277a", *SHARED),
    "strict": ([*TOP, "stats_by_audio_type", "stats_by_task_type", "total"], "078610540f5221ef", *SHARED),
}


@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_eval_document_is_pinned(profile: str, tmp_path: Path) -> None:
    plugin = get_benchmark("omnibench")
    plugin.generate_sample(tmp_path, seed=3)
    task = plugin.tasks()[0]
    rng = random.Random(11)
    responses = {task.name: [_response(plugin, item, rng) for item in plugin.load(tmp_path, task)]}
    scored = plugin.score(responses, profile=profile, options={})
    document = scored.document
    top = {k: v for k, v in document.items() if k not in ("summary", "coverage", "meta")}
    summary = document["summary"]
    differ = summary["profiles_differ_on"]
    got = (
        sorted(top),
        digest(top),
        summary["by_profile"]["reference"]["headline"],
        summary["by_profile"]["strict"]["headline"],
        summary["chance"],
        digest(scored.per_sample),
        {k: document["coverage"][task.name][k] for k in COUNTS},
        summary["unparsed"],
        (differ["reference_only"], differ["strict_only"]),
    )
    assert got == PINNED[profile]
