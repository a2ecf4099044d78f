"""How long does a user's first ``avibench eval`` of each benchmark take on its full-size sample?

For each of the eight benchmarks: generate the full-size sample (``sample-data --full-size``), answer every question
with the offline random baseline (``infer --model random``), refine with the rules, then time the first eval of that
run (eval.json, samples.jsonl and the reuse stamp removed before each timed run), each in a fresh process as a user
runs it. The judged parts (AIR-Bench's Chat, VoiceBench's open and reference-based subsets) are judged by the
package's local fake OpenAI-compatible server, so their judge journals are written by the first eval and re-read by
the timed ones, as a user's second eval of the run re-reads them. Target: at most 3 s each.

``--baseline-python`` (the interpreter of another checkout's environment) times that build on the same runs,
alternating with this one. Every process runs from a folder outside both checkouts, so each imports its own
build. Prints per benchmark the median wall seconds, the median CPU seconds (user + system: on a machine shared
with other work, the steadier figure) and the peak RSS, with the machine's load.

Usage: ``python bench/eval_all_speed.py [--keep DIR] [--runs 3] [--baseline-python PY] [--benchmarks a,b]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCHMARKS = ("avibench", "mmar", "mmau", "starbench", "airbench", "audiomarathon", "omnibench", "voicebench")
LABEL = "random"
TARGET_S = 3.0


def judge_reply(body: Any) -> str:
    """A reply every judge of the package reads: two 1-10 scores for AIR-Bench's pairwise prompt, else a 1-5
    rating (VoiceBench's open evaluator; its reference-based one takes any reply)."""
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict))
    return "7 6" if "Assistant 1" in text else "4"


def measured(command: Sequence[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one process."""
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err, text=True
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 3):  # 3: an incomplete run, reported as such
            err.seek(0)
            raise RuntimeError(f"{' '.join(command)} exited {code}:\n{err.read()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def prepare(benchmark: str, base: Path, env: dict[str, str], judge_url: str) -> list[str]:
    """Generate the full-size sample and a refined random run (once per folder); the eval arguments."""
    root, out = base / f"{benchmark}-data", base / "outputs"
    common = ["--benchmark", benchmark, "--data-root", str(root), "--output-dir", str(out), "--label", LABEL]
    cli = [sys.executable, "-m", "avibench.cli"]
    if not root.is_dir():
        subprocess.run([*cli, "sample-data", "--benchmark", benchmark, "--full-size", "--out", str(root)], env=env,
                       cwd=base, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    if not (out / LABEL / benchmark / "refine").is_dir():
        subprocess.run([*cli, "infer", *common, "--model", "random"], env=env, cwd=base, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        subprocess.run([*cli, "refine", *common, "--mode", "rules"], env=env, cwd=base, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    judged = ["--judge-base-url", judge_url] if benchmark in ("airbench", "voicebench") else []
    fense = ["--fense", "off"] if benchmark == "avibench" else []
    return ["eval", *common, *judged, *fense, "--allow-partial"]


def first_eval(python: str, args: list[str], env: dict[str, str], base: Path) -> tuple[float, float, float]:
    run = base / "outputs" / LABEL / args[args.index("--benchmark") + 1]
    for name in ("eval.json", "eval.json.stamp.json", "samples.jsonl"):
        (run / name).unlink(missing_ok=True)
    return measured([python, "-m", "avibench.cli", *args], env, base)


@contextmanager
def workspace(keep: Path | None, prefix: str) -> Iterator[tuple[Path, dict[str, str], str]]:
    """The folder the data and runs are built in (``keep``, else a temporary one), the environment every timed
    process gets (a user cache in that folder, compiled modules as users run with) and the URL of a local judge
    that stays up meanwhile."""
    from avibench.testing.fake_openai import FakeOpenAIServer

    env = dict(os.environ, OPENAI_API_KEY="sk-local", JUDGE_API_KEY="sk-local", HF_HUB_OFFLINE="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        base = (keep or Path(tmp)).resolve()
        base.mkdir(parents=True, exist_ok=True)
        env["AVIBENCH_CACHE_DIR"] = str(base / "user-cache")
        server = FakeOpenAIServer(responder=judge_reply)
        with server.run_in_thread():
            yield base, env, server.base_url


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", type=Path, default=None, help="Build the data and runs here and keep them.")
    parser.add_argument(
        "--runs", type=int, default=3, help="Timed first evals of each benchmark (and build)."
    )
    parser.add_argument(
        "--baseline-python", help="Interpreter of another build, timed alternately on the same runs."
    )
    parser.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="Comma-separated benchmarks.")
    args = parser.parse_args()

    with workspace(args.keep, "avibench-eval-all-") as (base, env, judge_url):
        print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the start")
        header = f"{'benchmark':<14}{'wall s':>8}{'cpu s':>8}{'RSS MiB':>9}"
        if args.baseline_python:
            header += f"{'prev wall':>11}{'prev cpu':>10}{'prev RSS':>10}{'cpu ratio':>11}"
        print(header + "   load")
        for benchmark in args.benchmarks.split(","):
            eval_args = prepare(benchmark, base, env, judge_url)
            first_eval(sys.executable, eval_args, env, base)  # writes the judge journals and the user cache
            ours, previous = [], []
            for _ in range(args.runs):
                ours.append(first_eval(sys.executable, eval_args, env, base))
                if args.baseline_python:
                    previous.append(first_eval(args.baseline_python, eval_args, env, base))
            line = f"{benchmark:<14}" + "".join(
                f"{statistics.median(m[i] for m in ours):{w}.{d}f}" for i, w, d in ((0, 8, 2), (1, 8, 2), (2, 9, 0))
            )  # fmt: skip
            if previous:
                line += "".join(
                    f"{statistics.median(m[i] for m in previous):{w}.{d}f}"
                    for i, w, d in ((0, 11, 2), (1, 10, 2), (2, 10, 0))
                )
                ratio = statistics.median(o[1] / p[1] for o, p in zip(ours, previous, strict=True))
                line += f"{ratio:11.2f}"
            wall = statistics.median(m[0] for m in ours)
            print(f"{line}   {os.getloadavg()[0]:.1f}{'' if wall <= TARGET_S else '  (over the 3 s target)'}")


if __name__ == "__main__":
    main()
