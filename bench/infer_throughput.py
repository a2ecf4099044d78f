"""Throughput of ``avibench infer`` against a local server with a fixed latency (not a test; prints figures).

The fake OpenAI-compatible server runs in its own process with 200 ms per request; ``avibench infer`` runs
in another with 64 requests in flight over ~3,000 samples of the full-size sample benchmark (200 per task).
With perfect scheduling the rate is concurrency / latency = 320 requests/s. Printed: the achieved rate and
its ratio to that ideal (target >= 0.9), client CPU time per request (target <= 3 ms), the client's peak RSS,
and the time of a no-op resume of the finished run, infer and then refine (rules), each target < 1 s with zero
requests. ``--previous REF`` measures the chat client of another commit too (its ``avibench/llm.py``, taken with
``git show`` and put in place of this build's for that run, everything else this build's), right after this
build's, and prints both side by side, so that both meet the machine's load of the same minute; ``--rounds N``
alternates their order N times and prints medians (the machine's load moves single runs a lot).

Run: python bench/infer_throughput.py [--per-task 200] [--concurrency 64] [--latency 0.2] [--previous REF]
     [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
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


# Runs the command line (argv: a file for the peak RSS, the chat client module to use in place of avibench.llm or
# "-" for this build's, then the command) and writes its own peak RSS (KiB) to that file as it exits.
MEASURED = """
import importlib.util, resource, runpy, sys
peak_file, client = sys.argv[1:3]
if client != "-":
    spec = importlib.util.spec_from_file_location("avibench.llm", client)
    sys.modules["avibench.llm"] = module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
sys.argv = ["avibench", *sys.argv[3:]]
try:
    runpy.run_module("avibench.cli", run_name="__main__")
finally:
    open(peak_file, "w").write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def run_infer(
    args: list[str], env: dict[str, str], command: str = "infer", *, client: Path | None = None
) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one avibench process (with the chat
    client module ``client`` in place of this build's, when given)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="avibench-peak-") as folder:
        peak = Path(folder) / "peak"
        subprocess.run(
            [sys.executable, "-c", MEASURED, str(peak), str(client or "-"), command, *args],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        rss = int(peak.read_text())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rss


def steady_rate(journals: list[Path]) -> float:
    """Records per second between the first and the last record written (process start-up excluded)."""
    times = sorted(datetime.fromisoformat(r["time"]).timestamp() for p in journals for r in read_records(p))
    return (
        (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else float("nan")
    )


#: The figures of one run, with how each is printed.
FIGURES = {
    "requests sent": "{:.0f}",
    "wall time, start-up included (s)": "{:.2f}",
    "requests/s (steady)": "{:.1f}",
    "  ratio to the ideal (>= 0.9)": "{:.3f}",
    "requests/s (whole process)": "{:.1f}",
    "client CPU per request (ms, <= 3)": "{:.2f}",
    "  without start-up (ms)": "{:.2f}",
    "server CPU per request (ms)": "{:.2f}",
    "client peak RSS (MiB)": "{:.0f}",
    "no-op resume, infer (s, < 1)": "{:.2f}",
    "  its requests (0)": "{:.0f}",
    "no-op refine, rules (s, < 1)": "{:.2f}",
}


def measure(options: argparse.Namespace, folder: Path, root: Path, client: Path | None) -> dict[str, float]:
    """One client's figures over a fresh run in ``folder`` (its own server and output folder)."""
    out = folder / "out"
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
    values = [
        requests,
        wall,
        rate,
        rate / ideal,
        requests / wall,
        1000 * cpu / requests,
        1000 * (cpu - resume_cpu) / requests,
        1000 * server_cpu / requests,
        rss / 1024,
        resume_wall,
        resume_requests,
        refine_wall,
    ]
    return dict(zip(FIGURES, values, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-task", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--media", default="data-uri")
    parser.add_argument("--previous", metavar="REF", help="also measure the chat client of this git commit")
    parser.add_argument(
        "--rounds", type=int, default=1, help="runs per client, in alternating order; medians are printed"
    )
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="avibench-bench-") as tmp:
        workdir = Path(tmp)
        root = workdir / "levels"
        generate(root, seed=0, full_size=True)
        clients: dict[str, Path | None] = {"this build": None}
        if options.previous:
            source = workdir / "previous_llm.py"
            shown = subprocess.run(
                ["git", "show", f"{options.previous}:avibench/llm.py"], check=True, capture_output=True
            )
            source.write_bytes(shown.stdout)
            clients[f"previous ({options.previous})"] = source
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in clients}
        for round_ in range(options.rounds):
            order = list(clients) if round_ % 2 == 0 else list(reversed(clients))
            for name in order:
                folder = workdir / f"{'previous' if clients[name] else 'this'}-{round_}"
                runs[name].append(measure(options, folder, root, clients[name]))

    names = list(clients)
    print(f"{'median of ' + str(options.rounds) + ' run(s)':36}" + "".join(f"{name:>24}" for name in names))
    for figure, form in FIGURES.items():
        cells = [form.format(statistics.median(run[figure] for run in runs[name])) for name in names]
        print(f"{figure:36}" + "".join(f"{cell:>24}" for cell in cells))
    if options.rounds > 1:
        for name in names:
            ratios = ", ".join(f"{run['  ratio to the ideal (>= 0.9)']:.3f}" for run in runs[name])
            cpus = ", ".join(f"{run['client CPU per request (ms, <= 3)']:.2f}" for run in runs[name])
            print(f"{name}: ratio per run {ratios}; CPU ms per request per run {cpus}")
    print(
        f"ideal: concurrency / latency = {options.concurrency / options.latency:.0f} requests/s; "
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    )


if __name__ == "__main__":
    main()
