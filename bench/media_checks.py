"""What the media checks before a run cost: the inside-the-root check, the first decode of every file, a resume.

Generates a benchmark's sample (``--full-size`` for the official counts with tiny media), loads every task, and
times :func:`avibench.media_paths.outside` over every media part, then :func:`check_decodes` twice with one cache:
the first run decodes every file (per file figure printed), the second (a resume) should decode none.
Usage: ``python bench/media_checks.py [--benchmark avibench] [--full-size]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from avibench.infer.media_verdicts import DecodeCache, check_decodes
from avibench.media_paths import dataset_file, media_refs, outside
from avibench.plugin import get_benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmark", default="avibench")
    parser.add_argument("--full-size", action="store_true")
    args = parser.parse_args()
    bench = get_benchmark(args.benchmark)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "data"
        bench.generate_sample(root, seed=0, full_size=args.full_size)
        refs = [
            ref
            for task in bench.available(root)
            for ref in media_refs(bench.load(root, task), dataset_file(bench, root, task))
        ]
        start = time.perf_counter()
        away = outside(refs, root)
        inside_s = time.perf_counter() - start
        print(f"{len(refs)} media parts; inside-the-root check {inside_s * 1e3:.1f} ms ({len(away)} outside)")
        cache_path = Path(tmp) / "media_checked.json"
        for run in ("first run", "resume"):
            cache = DecodeCache(cache_path)
            start = time.perf_counter()
            check_decodes(refs, cache)
            took = time.perf_counter() - start
            per_file = f", {took / cache.checked * 1e3:.2f} ms a file" if cache.checked else ""
            print(f"{run}: decoded {cache.checked} file(s) in {took:.2f} s{per_file}")


if __name__ == "__main__":
    main()
