"""How fast are MMAR's two scoring profiles on a full-size benchmark?

Generates the 1,000 MMAR questions of the full-size sample (records only, no audio is needed to score), answers
them in a mix of the oracle's phrasings, uniform guesses and hedges, then times the scoring of both profiles: the
strict extraction of every answer, the official token-set match, and the breakdowns. Prints the compute time (the
imports and the data generation are not counted) and the two totals.

Usage: ``python bench/mmar_scoring.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from avibench.benchmarks.mmar.sample import FULL_SIZE, FULL_UNIT, mmar_records
from avibench.items import Item, Response
from avibench.plugin import get_benchmark

PLUGIN = get_benchmark("mmar")

HEDGES = ("It could be {a} or {b}.", "I'm not sure.", "I cannot determine this from the audio.")


def _answer(item: Item, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return PLUGIN.oracle_answer(item, rng)
    if roll < 0.85:
        return PLUGIN.random_answer(item, rng)
    return rng.choice(HEDGES).format(a=item.options[0], b=item.options[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (the best is reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        records = [r for r, _ in mmar_records(FULL_SIZE, unit=FULL_UNIT)]
        (root / "MMAR-meta.jsonl").write_text("\n".join(json.dumps(r) for r in records))
        items = PLUGIN.load(root, PLUGIN.tasks()[0])
    rng = random.Random(0)
    responses = [Response(item, "answered", _answer(item, rng)) for item in items]
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        summary = PLUGIN.score({"MMAR": responses}, profile="reference", options={}).document["summary"]
        times.append(time.perf_counter() - start)

    results = {name: view["official"] for name, view in summary["by_profile"].items()}
    split = summary["profiles_differ_on"]
    print(f"questions          {len(responses)}")
    print(
        f"both profiles      {min(times) * 1000:.0f} ms (best of {args.repeat}; first run {times[0] * 1000:.0f} ms)"
    )
    for name, result in results.items():
        print(f"{name:<18} {result['total']['accuracy']:.2f}% over {result['total']['n']}")
    print(
        f"disagreements      {split['answers']} ({split['reference_only']} reference only, "
        f"{split['strict_only']} strict only)"
    )


if __name__ == "__main__":
    main()
