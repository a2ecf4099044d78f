"""How fast is the score stage on a full-size benchmark?

Generates the full-size sample benchmark (the paper's task sizes) and reference-format predictions (the ground
truth in each family's canonical refined form, with a share of wrong, garbled and missing answers), then times
``evaluate`` in a fresh process per mode, both profiles each time:

* ``off``: every task except AVC (targets: under 5 s on 2 cores);
* ``stand-in``: every task with the stand-in FENSE models, loading included (target: under 60 s).

Prints wall time and peak RSS per mode. Usage: ``python bench/eval_speed.py [--noise 0.2] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _box(box: list[float], wh: list[float]) -> list[float]:
    x, y, w, h = box
    return [round(x / wh[0], 4), round(y / wh[1], 4), round((x + w) / wh[0], 4), round((y + h) / wh[1], 4)]


def canonical(task: str, gt: Any) -> str:
    """The ground truth as the refine stage writes a correct answer of this task's family."""
    from avibench.benchmarks.avibench.tasks import AVIBENCH

    spec = AVIBENCH.task(task)
    if spec.metric == "mic":
        return json.dumps({k: str(v) for k, v in gt.items()})
    if spec.metric == "retrieval":
        return "[" + ", ".join(str(i) for i in gt) + "]"
    if spec.metric == "avl":
        return json.dumps({k: str(_box(v, gt["original_wh"])) for k, v in gt["bbox"].items()})
    if spec.metric == "avlg":
        return repr({k: None if v is None else _box(v, gt["original_wh"]) for k, v in gt["bbox"].items()})
    if spec.metric == "caption":
        return str(gt[0])
    if spec.family == "passthrough":
        return f"{str(gt).capitalize()}, that is my answer."
    return f"**{gt}**"


def noisy(task: str, gt: Any, rng: random.Random, noise: float) -> str | None:
    """A canonical answer, or with probability ``noise`` a missing, garbled or plausible-but-wrong one."""
    answer = canonical(task, gt)
    if rng.random() >= noise:
        return answer
    kind = rng.randrange(3)
    if kind == 0:
        return None
    if kind == 1:
        return answer[: max(1, len(answer) // 2)]
    return "**not sure**" if answer.startswith("**") else answer.replace("1", "2")


def write_predictions(root: Path, out: Path, noise: float, seed: int = 0) -> int:
    from avibench.benchmarks.avibench.dataset import (
        available_tasks,
        read_json_array,
        task_dir,
    )

    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for spec in available_tasks(root):
        entries = read_json_array(task_dir(root, spec) / "data.json")
        records = []
        for e in entries:
            predict = noisy(spec.name, e["output"]["question_answer"], rng, noise)
            records.append(
                None if predict is None else {"task": spec.name, "id": e["id"], "predict": predict}
            )
        total += len(records)
        (out / f"{spec.name}.json").write_text(json.dumps(records))
    return total


def child(root: Path, preds: Path, mode: str) -> None:
    """One timed evaluation in this process; prints a JSON line."""
    start = time.perf_counter()
    from avibench.benchmarks.avibench.fense import FenseConfig
    from avibench.benchmarks.avibench.scoring import evaluate
    from avibench.benchmarks.avibench.tasks import AVIBENCH

    specs = AVIBENCH.tasks if mode == "stand-in" else tuple(t for t in AVIBENCH.tasks if t.name != "AVC")
    imported = time.perf_counter()
    result = evaluate(
        data_root=root, specs=specs, source="predictions", source_dir=preds, fense=FenseConfig(mode=mode)
    )
    done = time.perf_counter()
    summary = result.document["summary"]
    print(
        json.dumps(
            {
                "mode": mode,
                "import_s": imported - start,
                "evaluate_s": done - imported,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "overall": summary["overall"],
                "avc": summary["tasks"]["AVC"],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument(
        "--keep", type=Path, default=None, help="Build the data and predictions here and keep them."
    )
    parser.add_argument("--child", nargs=3, metavar=("ROOT", "PREDS", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), args.child[2])
        return
    from avibench.benchmarks.avibench.sample_data import generate

    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        root, preds = base / "levels", base / "predictions"
        counts = generate(root, seed=0, full_size=True)
        n = write_predictions(root, preds, args.noise)
        print(
            f"full-size sample benchmark: {sum(counts.values())} entries in {len(counts)} folders; {n} predictions, noise {args.noise}"
        )
        print(f"cores: {os.cpu_count()}")
        for mode in ("off", "stand-in"):
            wall = time.perf_counter()
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(root), str(preds), mode],
                capture_output=True,
                text=True,
                check=True,
            )
            wall = time.perf_counter() - wall
            r = json.loads(out.stdout.strip().splitlines()[-1])
            label = "all tasks but AVC" if mode == "off" else "all tasks, stand-in FENSE"
            print(
                f"{label:28} evaluate {r['evaluate_s']:6.2f} s  (imports {r['import_s']:.2f} s, process {wall:.2f} s)"
                f"  peak RSS {r['peak_rss_mb']:.0f} MB  overall {r['overall']}  AVC {r['avc']}"
            )


if __name__ == "__main__":
    main()
