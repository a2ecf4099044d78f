"""How much of refine the rules do, and how often they are wrong, over a corpus of realistic raw answers.

Each line of ``bench/data/refine_corpus.jsonl`` holds a task, the question side the model saw (question text,
options as the scorer sees them, candidate count, image size for pixel boxes), a raw answer written the way
Gemini, GPT-4o or Qwen-Omni answer, the expected canonical refined string (or "undeterminable"), and a split:
"dev" answers were used while writing the rules, "holdout" answers were written afterwards and not tuned on.

Printed figures: the share of determinable answers the rules refine (target: at least 90%) and the share of
rule outputs that are wrong (target: zero), where a rule output on an undeterminable answer counts as wrong.
Run: ``python bench/refine_coverage.py [--corpus PATH] [--show-misses]``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from PIL import Image

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import RefineContext, build_context
from avibench.refine.rules import apply_rules

CORPUS = Path(__file__).parent / "data" / "refine_corpus.jsonl"
UNDETERMINABLE = "undeterminable"


def _image(size: list[int] | None, folder: Path) -> Path | None:
    if not size:
        return None
    path = folder / f"{size[0]}x{size[1]}.png"
    if not path.exists():
        Image.new("RGB", (int(size[0]), int(size[1]))).save(path)
    return path


def context(row: dict[str, Any], folder: Path) -> RefineContext:
    return build_context(
        AVIBENCH.task(row["task"]),
        question=row.get("question") or "",
        options=row.get("options", ""),
        subtask=row.get("subtask"),
        n_candidates=row.get("n_candidates"),
        image=_image(row.get("image_wh"), folder),
    )


def same(family: str, got: str, expected: str) -> bool:
    """Equal canonical answers; dict-shaped families compare parsed values (key order is not meaningful)."""
    if family in ("mic", "avl", "avlg"):
        try:
            return ast.literal_eval(got) == ast.literal_eval(expected)
        except (ValueError, SyntaxError):
            return False
    return got == expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--show-misses", action="store_true", help="List determinable answers the rules left."
    )
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    per_task: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    per_split: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong: list[tuple[dict[str, Any], str]] = []
    misses: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            ctx = context(row, Path(tmp))
            got = apply_rules(row["raw"], ctx)
            tallies = (per_task[row["task"]], per_split[row.get("split", "dev")])
            determinable = row["expected"] != UNDETERMINABLE
            right = got is not None and determinable and same(ctx.family, got, row["expected"])
            for stats in tallies:
                stats["answers"] += 1
                stats["determinable"] += determinable
                stats["ruled"] += got is not None
                stats["right"] += right
            if got is None and determinable:
                misses.append(row)
            elif got is not None and not right:
                wrong.append((row, got))
    print(f"{'task':<7} {'answers':>7} {'determ.':>7} {'by rules':>8} {'wrong':>5}")
    for task, s in per_task.items():
        print(
            f"{task:<7} {s['answers']:>7} {s['determinable']:>7} {s['right']:>8} {s['ruled'] - s['right']:>5}"
        )
    for split, s in per_split.items():
        share = 100 * s["right"] / max(s["determinable"], 1)
        print(
            f"{split}: {s['answers']} answers, {s['right']}/{s['determinable']} determinable by rules ({share:.1f}%), "
            f"{s['ruled'] - s['right']} wrong"
        )
    determinable = sum(s["determinable"] for s in per_task.values())
    right = sum(s["right"] for s in per_task.values())
    ruled = sum(s["ruled"] for s in per_task.values())
    print(f"\ncorpus: {len(rows)} answers, {determinable} determinable")
    print(
        f"refined by rules: {right}/{determinable} = {100 * right / max(determinable, 1):.1f}% of determinable"
    )
    print(f"wrong rule outputs: {len(wrong)}/{ruled} = {100 * len(wrong) / max(ruled, 1):.1f}%")
    for row, got in wrong:
        print(f"  WRONG {row['task']}: {row['raw']!r} -> {got!r} (expected {row['expected']!r})")
    if args.show_misses:
        for row in misses:
            print(f"  left {row['task']}: {row['raw']!r} (expected {row['expected']!r})")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
