"""How long does ``avibench run`` take on runs that are finished and unchanged?

Builds (or reuses, with ``--keep``) the eight benchmarks' full-size samples and refined random runs as
``bench/eval_all_speed.py`` does, runs ``avibench run --model random`` over all eight once (it scores and builds
what the eval-only preparation left out: the pages and the card), then times further runs, each in a fresh process
as a user starts it. Such a run asks nothing, replays each eval and leaves the pages as they are. Target: at most
2 s in all. ``--baseline-python`` then times another build's interpreter on the same runs (after all of this
build's: a run of another build's code scores every eval again, so the two cannot alternate).

Usage: ``python bench/noop_run.py [--keep DIR] [--runs 5] [--baseline-python PY]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from eval_all_speed import BENCHMARKS, LABEL, measured, prepare, workspace

TARGET_S = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", type=Path, default=None, help="Build the data and runs here and keep them.")
    parser.add_argument("--runs", type=int, default=5, help="Timed no-op runs (of each build).")
    parser.add_argument("--baseline-python", help="Interpreter of another build, timed after this one.")
    args = parser.parse_args()

    with workspace(args.keep, "avibench-noop-") as (base, env, judge_url):
        for benchmark in BENCHMARKS:
            prepare(benchmark, base, env, judge_url)
        roots = [arg for b in BENCHMARKS for arg in ("--data-root", f"{b}={base / f'{b}-data'}")]
        run = ["run", "--model", "random", "--label", LABEL, "--output-dir", str(base / "outputs")]
        run += ["--benchmarks", ",".join(BENCHMARKS), *roots, "--allow-partial"]
        run += ["--judge-base-url", judge_url]
        builds = {"this build": sys.executable}
        if args.baseline_python:
            builds["previous build"] = args.baseline_python
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in builds}
        print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        for name, python in builds.items():
            measured([python, "-m", "avibench.cli", *run], env, base)  # scores and builds what is missing
            times[name] = [
                measured([python, "-m", "avibench.cli", *run], env, base) for _ in range(args.runs)
            ]
        for name, runs in times.items():
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            over = "" if wall <= TARGET_S else f"  (over the {TARGET_S:.0f} s target)"
            low, high = min(r[0] for r in runs), max(r[0] for r in runs)
            print(f"{name:<15} wall {wall:.2f} s ({low:.2f}-{high:.2f}), cpu {cpu:.2f} s{over}")


if __name__ == "__main__":
    main()
