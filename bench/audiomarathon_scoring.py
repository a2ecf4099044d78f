"""Time AudioMarathon scoring on the full-size sample (6,563 questions), in both profiles.

Generates the sample in a temporary folder, loads it, answers every question at random, then times scoring alone
(extraction, metrics and blocks for the ten tasks) and the same through the official result files (write, read back,
rescore). Target: scoring under 2 s beyond imports.

    python bench/audiomarathon_scoring.py
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from avibench.benchmarks.audiomarathon import layout, results, sample, scoring
from avibench.items import Response
from avibench.level_metrics.audiomarathon import TASKS


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        start = time.perf_counter()
        sample.generate(root, full_size=True)
        generated = time.perf_counter()
        items = {t: layout.load_task(root, t) for t in TASKS}
        loaded = time.perf_counter()
        rng = random.Random(0)
        responses = {
            t: [Response(i, "answered", raw=sample.random_answer(i, rng)) for i in its]
            for t, its in items.items()
        }
        print(
            f"sample: {sum(map(len, items.values()))} questions, generated in {generated - start:.2f} s, loaded in {loaded - generated:.2f} s"
        )
        for profile in ("reference", "strict"):
            t0 = time.perf_counter()
            block = scoring.score_benchmark(responses, profile)
            print(f"{profile:9s} scoring: {time.perf_counter() - t0:.3f} s  (average {block['average']:.1f})")
        t0 = time.perf_counter()
        out = Path(tmp) / "results"
        for task, rs in responses.items():
            results.write_results(out, task, rs)
        written = time.perf_counter()
        back = results.rescore_folder(out, items)
        block = scoring.score_benchmark(back, "reference")
        print(
            f"official files: written in {written - t0:.3f} s, read back and rescored in {time.perf_counter() - written:.3f} s (average {block['average']:.1f})"
        )


if __name__ == "__main__":
    main()
