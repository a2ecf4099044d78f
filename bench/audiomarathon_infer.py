"""Memory and upload size of ``avibench infer`` on 300 s clips (not a test; prints figures).

The full-size AudioMarathon sample is generated and every MC and ER clip replaced by one 300 s, 16 kHz, 16-bit mono
wav (9.6 MB; hard links), 305 questions in all. The local server runs in its own process. Printed:

* the peak RSS of one ``avibench infer`` process at concurrency 32 over those 305 requests, clips sent as they are
  (target below 600 MB); with one base64 copy of a clip per request in flight, 32 requests hold about 410 MB;
* per ``--audio-format`` (as is, wav, flac, mp3): the bytes each request uploads, the client's CPU seconds per
  request and its peak RSS, over ``--format-requests`` requests at concurrency 8.

The clip is a tone with low noise: flac's ratio depends on the content (speech typically compresses to 50-60 %).
``--previous REF`` measures the peak with another commit's chat client too (its ``avibench/llm.py`` in place of
this build's, as ``infer_throughput.py --previous`` does); ``--no-formats`` skips the per-format table.

Run: python bench/audiomarathon_infer.py [--concurrency 32] [--format-requests 16] [--previous REF] [--no-formats]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile as sf

from avibench.benchmarks.audiomarathon import sample
from avibench.contracts import latest_by_key

SECONDS, RATE = 300.0, 16000
MEASURED = (
    "import importlib.util, resource, sys\n"
    "if sys.argv[1] != '-':\n"
    "    spec = importlib.util.spec_from_file_location('avibench.llm', sys.argv[1])\n"
    "    sys.modules['avibench.llm'] = module = importlib.util.module_from_spec(spec)\n"
    "    spec.loader.exec_module(module)\n"
    "del sys.argv[1]\n"
    "from avibench.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    print('MEASURED', usage.ru_maxrss, usage.ru_utime + usage.ru_stime, file=sys.stderr)\n"
)
"""Runs the command line (with the chat client module named by its first argument in place of this build's, unless
it is ``-``) and reports its own peak RSS (KiB) and CPU seconds."""


def long_clip(path: Path) -> None:
    t = np.arange(int(SECONDS * RATE)) / RATE
    noise = np.random.default_rng(0).normal(0, 0.002, t.size)
    sf.write(path, 0.3 * np.sin(2 * np.pi * 220 * t) + noise, RATE, subtype="PCM_16")


def make_data(root: Path) -> int:
    sample.generate(root, full_size=True)
    clip = root.parent / "long.wav"
    long_clip(clip)
    wavs = [*(root / "MC").rglob("*.wav"), *(root / "ER").rglob("*.wav")]
    for wav in wavs:
        wav.unlink()
        os.link(clip, wav)
    return len(wavs)


def start_server(workdir: Path) -> tuple[subprocess.Popen, str]:
    port_file = workdir / "port"
    command = [sys.executable, "-m", "avibench.testing.fake_openai", "--port-file", str(port_file)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the local server did not start")
        time.sleep(0.05)
    return process, f"http://127.0.0.1:{port_file.read_text()}/v1"


def run_infer(args: list[str], client: Path | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one infer process (with another chat client module)."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, str(client or "-"), "infer", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    line = next((x for x in done.stderr.splitlines() if x.startswith("MEASURED")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"infer failed ({done.returncode}): {done.stderr[-2000:]}")
    _, rss_kib, cpu = line.split()
    return wall, float(cpu), int(rss_kib) / 1024


def uploads(out: Path, label: str) -> list[int]:
    sizes = []
    for task in ("MC", "ER"):
        journal = out / label / "audiomarathon" / "infer" / f"{task}.jsonl"
        if journal.is_file():
            sizes += [r["request_bytes"] for r in latest_by_key(journal).values() if "request_bytes" in r]
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--format-requests", type=int, default=16)
    parser.add_argument(
        "--previous", metavar="REF", help="also measure the peak with this commit's chat client"
    )
    parser.add_argument("--no-formats", action="store_true", help="skip the per-format table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        clips = make_data(work / "data")
        server, base_url = start_server(work)
        try:
            common = ["--benchmark", "audiomarathon", "--data-root", str(work / "data"), "--model", "m"]
            common += ["--output-dir", str(work / "out"), "--base-url", base_url, "--tasks", "MC,ER"]
            clients: dict[str, Path | None] = {"this build": None}
            if args.previous:
                source = work / "previous_llm.py"
                shown = ["git", "show", f"{args.previous}:avibench/llm.py"]
                source.write_bytes(subprocess.run(shown, check=True, capture_output=True).stdout)
                clients[f"previous ({args.previous})"] = source
            for name, client in clients.items():
                label = "peak-previous" if client else "peak"
                peak = [*common, "--label", label, "--concurrency", str(args.concurrency)]
                wall, cpu, rss = run_infer(peak, client)
                sizes = uploads(work / "out", label)
                print(
                    f"{name}: {clips} requests of {SECONDS:.0f} s clips at concurrency {args.concurrency}: "
                    f"peak RSS {rss:.0f} MB (target < 600), {wall:.1f} s wall, "
                    f"{1000 * cpu / clips:.0f} ms CPU/request, {np.mean(sizes) / 1e6:.2f} MB/request"
                )
            if args.no_formats:
                return
            per_task = str(args.format_requests // 2)
            print(
                f"{'format':8s} {'MB/request':>10s} {'vs as is':>9s} {'CPU s/request':>14s} {'peak RSS MB':>12s}"
            )
            baseline = None
            for fmt in (None, "wav", "flac", "mp3"):
                label = fmt or "as-is"
                extra = ["--label", label, "--concurrency", "8", "--n-samples", per_task]
                _, cpu, rss = run_infer([*common, *extra, *(["--audio-format", fmt] if fmt else [])])
                size = float(np.mean(uploads(work / "out", label)))
                baseline = baseline or size
                print(
                    f"{label:8s} {size / 1e6:10.2f} {size / baseline:9.2f} "
                    f"{cpu / args.format_requests:14.2f} {rss:12.0f}"
                )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
