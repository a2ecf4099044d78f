"""Throughput of ``avibench infer`` against a local server with a fixed latency (not a test; prints figures).

The fake OpenAI-compatible server runs in its own process with 200 ms per request; ``avibench infer`` runs
in another with 64 requests in flight over ~3,000 samples of the full-size sample benchmark (200 per task).
With perfect scheduling the rate is concurrency / latency = 320 requests/s. Printed: the achieved rate and
its ratio to that ideal (target >= 0.9), client CPU time per request (target <= 2 ms), the client's peak RSS,
and the time of a no-op resume of the finished run, infer and then refine (rules), each target < 1 s with zero
requests. Run it with another build's interpreter too, on the same machine, to know the machine's share.

Run: python bench/infer_throughput.py [--per-task 200] [--concurrency 64] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path

from avibench.benchmarks.avibench.sample_data import generate
from avibench.store import read_records

RUNS_LOG = "runs.jsonl"  # the invocations log beside the task journals


def server_count(base: str) -> int:
    with urllib.request.urlopen(f"{base}/stats") as response:
        return int(json.load(response)["count"])


def start_server(latency: float, workdir: Path) -> tuple[subprocess.Popen, str]:
    port_file = workdir / "port"
    command = [sys.executable, "-m", "avibench.testing.fake_openai", "--latency", str(latency)]
    process = subprocess.Popen([*command, "--port-file", str(port_file)], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the fake server did not start")
        time.sleep(0.05)
    return process, f"http://127.0.0.1:{port_file.read_text()}"


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_infer(args: list[str], env: dict[str, str], command: str = "infer") -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one avibench process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "avibench.cli", command, *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss


def steady_rate(journals: list[Path]) -> float:
    """Records per second between the first and the last record written (process start-up excluded)."""
    times = sorted(datetime.fromisoformat(r["time"]).timestamp() for p in journals for r in read_records(p))
    return (
        (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else float("nan")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--media", default="data-uri")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="avibench-bench-") as tmp:
        workdir = Path(tmp)
        root = workdir / "levels"
        generate(root, seed=0, full_size=True)
        server, base = start_server(options.latency, workdir)
        try:
            env = dict(os.environ, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=f"{base}/v1")
            env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run with compiled modules
            args = ["--model", "bench", "--data-root", str(root), "--output-dir", str(workdir / "out")]
            args += ["--n-samples", str(options.per_task), "--concurrency", str(options.concurrency)]
            args += ["--media", options.media]
            server_cpu = process_cpu(server.pid)
            wall, cpu, rss = run_infer(args, env)
            requests = server_count(base)
            server_cpu = process_cpu(server.pid) - server_cpu
            infer_dir = workdir / "out" / "bench" / "avibench" / "infer"
            journals = sorted(p for p in infer_dir.glob("*.jsonl") if p.name != RUNS_LOG)
            records = sum(1 for p in journals for _ in read_records(p))
            rate = steady_rate(journals)
            ideal = options.concurrency / options.latency
            resume_wall, resume_cpu, _ = run_infer(args, env)
            resume_requests = server_count(base) - requests
            refine_args = ["--label", "bench", "--data-root", str(root), "--output-dir", str(workdir / "out")]
            refine_args += ["--mode", "rules"]
            run_infer(refine_args, env, "refine")
            refine_wall, _, _ = run_infer(refine_args, env, "refine")
        finally:
            server.terminate()
            server.wait()

    print(f"samples answered            {records} ({requests} requests)")
    print(f"wall time                   {wall:.2f} s (process start-up included)")
    print(
        f"requests/s (steady)         {rate:.1f}   ideal {ideal:.0f}   ratio {rate / ideal:.3f}  (target >= 0.9)"
    )
    print(f"requests/s (whole process)  {requests / wall:.1f}   ratio {requests / wall / ideal:.3f}")
    print(
        f"client CPU per request      {1000 * cpu / requests:.2f} ms (target <= 2 ms); "
        f"without start-up {1000 * (cpu - resume_cpu) / requests:.2f} ms"
    )
    print(
        f"server CPU per request      {1000 * server_cpu / requests:.2f} ms (the fake server shares this machine)"
    )
    print(
        f"machine                     {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    )
    print(f"client peak RSS             {rss / 1024:.0f} MiB")
    print(f"no-op resume (infer)        {resume_wall:.2f} s, {resume_requests} requests (target < 1 s, 0)")
    print(f"no-op refine (rules)        {refine_wall:.2f} s (target < 1 s)")


if __name__ == "__main__":
    main()
