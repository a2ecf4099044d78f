"""How big and how fast is the per-sample viewer at full size, and how long do the confidence intervals take?

Generates the full-size sample benchmark (5,864 questions), builds one samples.jsonl line per question with
answers of every outcome, writes the viewer page, and opens it in headless chromium (Debian's ``chromium``) a few
times, reading the time from navigation start to the first rendered page of rows (target: under 2 s). Then
times the bootstrap of every task, stage, Overall and L1-L4 with 1,000 resamples (target: under 3 s).

Usage: ``python bench/viewer_speed.py [--opens 5]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def rows_for(data: Path) -> list[dict]:
    from avibench.evaluate.samples import sample_row
    from avibench.plugin import get_benchmark

    bench = get_benchmark("avibench")
    rng = random.Random(0)
    rows = []
    for task in bench.tasks():
        for item in bench.load(data, task):
            roll = rng.random()
            failed = roll < 0.03
            infer = {
                "predict": None if failed else f"answer {item.key}",
                "error": "HTTP 500" if failed else None,
            }
            infer["latency_s"] = round(rng.random(), 3)
            refine = {
                "raw": infer["predict"],
                "predict": "x",
                "method": "unparsed" if roll < 0.08 else "rule",
            }
            score = None if failed or item.variant else float(rng.random() < 0.4)
            scores = {} if score is None else {"reference": score, "strict": score}
            rows.append(sample_row(bench, item, data, infer, refine, scores, "reference"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=5)
    args = parser.parse_args()
    from avibench.evaluate.uncertainty import run_intervals
    from avibench.evaluate.viewer import media_base_for, viewer_html
    from avibench.plugin import get_benchmark
    from avibench.testing.cdp import Browser, find_browser

    bench = get_benchmark("avibench")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        bench.generate_sample(data, seed=0, full_size=True)
        rows = rows_for(data)
        page = Path(tmp) / "out" / "viewer.html"
        page.parent.mkdir()
        start = time.perf_counter()
        html = viewer_html("bench", rows, tasks=[t.name for t in bench.tasks()], profile="reference",
                           media_base=media_base_for(page, data))  # fmt: skip
        page.write_text(html, encoding="utf-8")
        print(f"samples: {len(rows)}; viewer page: {page.stat().st_size / 1e6:.2f} MB, "
              f"written in {time.perf_counter() - start:.2f} s")  # fmt: skip

        tasks = {}
        for row in rows:
            score = row["scores"].get("reference")
            if score is not None:
                tasks.setdefault(row["reported_task"], []).append(score)
        headlines = {t: 100 * sum(v) / len(v) for t, v in tasks.items()}
        timings = []
        for _ in range(3):
            start = time.perf_counter()
            run_intervals(bench, rows, {"tasks": headlines}, "reference", resamples=1000)
            timings.append(time.perf_counter() - start)
        print(f"bootstrap, 1,000 resamples, 14 tasks + 9 summary numbers: median {statistics.median(timings):.2f} s "
              f"(runs: {', '.join(f'{t:.2f}' for t in timings)})")  # fmt: skip

        executable = find_browser()
        if executable is None:
            sys.exit("no chromium: install it (apt-get install -y chromium) to time the viewer")
        browser = Browser(executable)
        try:
            ready = []
            for _ in range(args.opens):
                browser.open("about:blank")
                browser.open(page.resolve().as_uri())
                browser.wait_for("document.body.dataset.ready === '1'")
                ready.append(float(browser.eval("document.body.dataset.readyMs")))
            script = float(browser.eval("document.body.dataset.renderMs"))
        finally:
            browser.close()
        print(f"viewer first render (navigation start to first page of rows): median {statistics.median(ready):.0f} ms "
              f"over {args.opens} opens (min {min(ready):.0f}, max {max(ready):.0f}); script part of the last: "
              f"{script:.0f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
