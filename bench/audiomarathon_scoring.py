"""Time a user's first ``avibench eval`` of a full-size AudioMarathon run (6,567 questions), in a fresh process.

Generates the full-size sample, answers every question with the offline random baseline (``infer --model random``),
refines with the rules, then times the first eval of that run (eval.json, samples.jsonl and the reuse stamp removed
before each) as a user runs it: imports, reading the journals, both profiles' scores and official blocks, the
intervals and the per-question rows. ``--baseline-python`` (another build's interpreter) is timed alternately on the
same run. Prints the median wall and CPU seconds of each. Target: at most 3 s.

    python bench/audiomarathon_scoring.py [--runs 3] [--keep DIR] [--baseline-python PY]

Measured on a 2-CPU machine shared with other work (load 4.2), 5 alternating runs each: the build that imported
scikit-learn for the official blocks and scored each bootstrap resample with one dictionary walk took 5.16 s wall
(3.77 s CPU); computing the scripts' sklearn summaries with numpy, every resample from one matrix of pair counts and
loading HAD once per version of its folders took 2.82 s wall (1.98 s CPU), every number unchanged.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LABEL = "random"
TARGET_S = 3.0


def timed(python: str, args: list[str], env: dict[str, str], base: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one first eval."""
    run = base / "outputs" / LABEL / "audiomarathon"
    for name in ("eval.json", "eval.json.stamp.json", "samples.jsonl"):
        (run / name).unlink(missing_ok=True)
    start = time.perf_counter()
    process = subprocess.Popen(
        [python, "-m", "avibench.cli", *args], cwd=base, env=env, stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"eval exited {os.waitstatus_to_exitcode(status)}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="Timed evals per build.")
    parser.add_argument("--keep", type=Path, help="Build the data and the run here and keep them.")
    parser.add_argument("--baseline-python", help="Interpreter of another build, timed alternately.")
    args = parser.parse_args()
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    with tempfile.TemporaryDirectory(prefix="avibench-marathon-") as tmp:
        base = (args.keep or Path(tmp)).resolve()
        base.mkdir(parents=True, exist_ok=True)
        env["AVIBENCH_CACHE_DIR"] = str(base / "user-cache")
        root, cli = base / "data", [sys.executable, "-m", "avibench.cli"]
        common = [
            "--benchmark",
            "audiomarathon",
            "--data-root",
            str(root),
            "--output-dir",
            str(base / "outputs"),
        ]
        common += ["--label", LABEL]
        if not root.is_dir():
            subprocess.run([*cli, "sample-data", "--benchmark", "audiomarathon", "--full-size", "--out", str(root)],
                           cwd=base, env=env, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        if not (base / "outputs" / LABEL / "audiomarathon" / "refine").is_dir():
            for stage in (["infer", "--model", "random"], ["refine", "--mode", "rules"]):
                subprocess.run([*cli, stage[0], *common, *stage[1:]], cwd=base, env=env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        eval_args = ["eval", *common, "--allow-partial"]
        timed(sys.executable, eval_args, env, base)  # fills the user cache, as a user's earlier runs would
        builds = {"this build": sys.executable}
        if args.baseline_python:
            builds["baseline"] = args.baseline_python
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in builds}
        for _ in range(args.runs):
            for name, python in builds.items():
                times[name].append(timed(python, eval_args, env, base))
        print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
        for name, measured in times.items():
            wall = statistics.median(w for w, _ in measured)
            cpu = statistics.median(c for _, c in measured)
            over = "" if wall <= TARGET_S else "  (over the 3 s target)"
            print(
                f"{name:<11} first eval: median {wall:.2f} s wall, {cpu:.2f} s CPU over {args.runs} runs{over}"
            )


if __name__ == "__main__":
    main()
