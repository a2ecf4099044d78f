"""Throughput of ``avibench infer`` against a local server with a fixed latency (not a test; prints figures).

The fake OpenAI-compatible server runs in its own process with 200 ms per request; ``avibench infer`` runs
in another with 64 requests in flight over ~3,000 samples of the full-size sample benchmark (200 per task).
With perfect scheduling the rate is concurrency / latency = 320 requests/s. Printed: the achieved rate and
its ratio to that ideal (target >= 0.9), client CPU time per request (target <= 3 ms), the client's peak RSS,
and the time of a no-op resume of the finished run, infer and then refine (rules), each target < 1 s with zero
requests. ``--previous REF`` measures the chat client of another commit too (its ``avibench/llm.py``, taken with
``git show`` and put in place of this build's for that run, everything else this build's), right after this
build's, and prints both side by side, so that both meet the machine's load of the same minute.

Run: python bench/infer_throughput.py [--per-task 200] [--concurrency 64] [--latency 0.2] [--previous REF]
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


# Runs the command line with another chat client module in place of avibench.llm (argv: its file, then the command).
WITH_CLIENT = """
import importlib.util, runpy, sys
spec = importlib.util.spec_from_file_location("avibench.llm", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["avibench.llm"] = module
spec.loader.exec_module(module)
sys.argv = ["avibench", *sys.argv[2:]]
runpy.run_module("avibench.cli", run_name="__main__")
"""


def run_infer(
    args: list[str], env: dict[str, str], command: str = "infer", *, client: Path | None = None
) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one avibench process (with the chat
    client module ``client`` in place of this build's, when given)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    entry = ["-c", WITH_CLIENT, str(client)] if client else ["-m", "avibench.cli"]
    subprocess.run(
        [sys.executable, *entry, command, *args],
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


def measure(options: argparse.Namespace, workdir: Path, client: Path | None) -> dict[str, str]:
    """One client's figures over a fresh run (its own server and output folder), as printed."""
    root = workdir / "levels"
    out = workdir / ("out-previous" if client else "out")
    folder = workdir / ("previous" if client else "this")
    folder.mkdir()
    server, base = start_server(options.latency, folder)
    try:
        env = dict(os.environ, OPENAI_API_KEY="sk-bench", OPENAI_BASE_URL=f"{base}/v1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run with compiled modules
        args = ["--model", "bench", "--data-root", str(root), "--output-dir", str(out)]
        args += ["--n-samples", str(options.per_task), "--concurrency", str(options.concurrency)]
        args += ["--media", options.media]
        server_cpu = process_cpu(server.pid)
        wall, cpu, rss = run_infer(args, env, client=client)
        requests = server_count(base)
        server_cpu = process_cpu(server.pid) - server_cpu
        infer_dir = out / "bench" / "avibench" / "infer"
        journals = sorted(p for p in infer_dir.glob("*.jsonl") if p.name != RUNS_LOG)
        records = sum(1 for p in journals for _ in read_records(p))
        rate = steady_rate(journals)
        ideal = options.concurrency / options.latency
        resume_wall, resume_cpu, _ = run_infer(args, env, client=client)
        resume_requests = server_count(base) - requests
        refine_args = ["--label", "bench", "--data-root", str(root), "--output-dir", str(out)]
        refine_args += ["--mode", "rules"]
        run_infer(refine_args, env, "refine", client=client)
        refine_wall, _, _ = run_infer(refine_args, env, "refine", client=client)
    finally:
        server.terminate()
        server.wait()
    return {
        "samples answered": f"{records} ({requests} requests)",
        "wall time (start-up included)": f"{wall:.2f} s",
        "requests/s (steady)": f"{rate:.1f} = {rate / ideal:.3f} of {ideal:.0f}",
        "requests/s (whole process)": f"{requests / wall:.1f} = {requests / wall / ideal:.3f}",
        "client CPU per request": f"{1000 * cpu / requests:.2f} ms",
        "  without start-up": f"{1000 * (cpu - resume_cpu) / requests:.2f} ms",
        "server CPU per request": f"{1000 * server_cpu / requests:.2f} ms",
        "client peak RSS": f"{rss / 1024:.0f} MiB",
        "no-op resume (infer)": f"{resume_wall:.2f} s, {resume_requests} requests",
        "no-op refine (rules)": f"{refine_wall:.2f} s",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--media", default="data-uri")
    parser.add_argument("--previous", metavar="REF", help="also measure the chat client of this git commit")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="avibench-bench-") as tmp:
        workdir = Path(tmp)
        generate(workdir / "levels", seed=0, full_size=True)
        columns = {"this build": measure(options, workdir, None)}
        if options.previous:
            source = workdir / "previous_llm.py"
            shown = subprocess.run(
                ["git", "show", f"{options.previous}:avibench/llm.py"], check=True, capture_output=True
            )
            source.write_bytes(shown.stdout)
            columns[f"previous ({options.previous})"] = measure(options, workdir, source)

    names = list(columns)
    print(f"{'':32}" + "".join(f"{name:>28}" for name in names))
    for row in columns[names[0]]:
        print(f"{row:32}" + "".join(f"{columns[name][row]:>28}" for name in names))
    print(
        "targets: steady rate >= 0.9 of ideal, client CPU <= 3 ms per request, no-op resume and refine < 1 s; "
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
