"""STAR-Bench through ``avibench infer`` against a local server with a fixed latency (not a test; prints figures).

The full-size STAR-Bench sample (about 2,400 items) is asked with every rotation of the selected datasets (default
``starbench_default``: pc, tr, sr, about 7,000 requests; ``--n-samples`` caps each dataset's runs). The fake
OpenAI-compatible server runs in its own process with 200 ms per request, ``avibench infer`` in another with 64
requests in flight: with perfect scheduling the rate is concurrency / latency = 320 requests/s. Printed: the achieved
rate and its ratio to that ideal (target >= 0.9), the time of a no-op resume of the finished run (target < 3 s, zero
requests), and the time to score the run in both profiles in-process, imports excluded (target < 2 s).

Run: python bench/starbench_infer.py [--tasks starbench_default] [--concurrency 64] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from infer_throughput import RUNS_LOG, run_infer, server_count, start_server, steady_rate

from avibench.contracts import RunPaths
from avibench.plugin import EvalRequest, get_benchmark
from avibench.store import read_records


def score_seconds(root: Path, out: Path, tasks: str) -> tuple[float, float]:
    """Seconds to load, read the journals and score both profiles in-process (imports done), and the headline."""
    bench = get_benchmark("starbench")
    request = EvalRequest(root, bench.select(tasks), "reference", RunPaths(out, "bench", "starbench"))
    start = time.perf_counter()
    scored = bench.evaluate(request)
    return time.perf_counter() - start, scored.document["summary"]["headline"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="starbench_default")
    parser.add_argument("--n-samples", type=int, default=None, help="Cap each dataset's runs.")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="avibench-star-") as tmp:
        workdir = Path(tmp)
        root, out = workdir / "data", workdir / "out"
        start = time.perf_counter()
        counts = get_benchmark("starbench").generate_sample(root, full_size=True)
        generated = time.perf_counter() - start
        server, base = start_server(options.latency, workdir)
        try:
            env = dict(os.environ, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=f"{base}/v1")
            args = ["--benchmark", "starbench", "--model", "bench", "--data-root", str(root)]
            args += [
                "--output-dir",
                str(out),
                "--tasks",
                options.tasks,
                "--concurrency",
                str(options.concurrency),
            ]
            if options.n_samples:
                args += ["--n-samples", str(options.n_samples)]
            wall, cpu, rss = run_infer(args, env)
            requests = server_count(base)
            journals = sorted(
                p for p in (out / "bench" / "starbench" / "infer").glob("*.jsonl") if p.name != RUNS_LOG
            )
            records = sum(1 for p in journals for _ in read_records(p))
            rate = steady_rate(journals)
            resume_wall, _, _ = run_infer(args, env)
            resume_requests = server_count(base) - requests
        finally:
            server.terminate()
            server.wait()
        scoring, headline = score_seconds(root, out, options.tasks)

    ideal = options.concurrency / options.latency
    print(
        f"sample                      {sum(counts.values())} runs in 8 datasets, written in {generated:.1f} s"
    )
    print(f"runs answered               {records} ({requests} requests, tasks {options.tasks})")
    print(f"wall time                   {wall:.2f} s (process start-up included)")
    print(
        f"requests/s (steady)         {rate:.1f}   ideal {ideal:.0f}   ratio {rate / ideal:.3f}  (target >= 0.9)"
    )
    print(f"requests/s (whole process)  {requests / wall:.1f}   ratio {requests / wall / ideal:.3f}")
    print(f"client CPU per request      {1000 * cpu / requests:.2f} ms; peak RSS {rss / 1024:.0f} MiB")
    print(f"no-op resume                {resume_wall:.2f} s, {resume_requests} requests (target < 3 s, 0)")
    print(f"scoring, both profiles      {scoring:.2f} s in-process, imports excluded (target < 2 s)")
    print(f"headline (Final MA AA)      {headline:.2f} (the server's answer parses to nothing)")
    print(
        f"machine                     {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
