"""How much of refine the rules do, and how often they are wrong, over a corpus of realistic raw answers.

Each line of ``bench/data/refine_corpus.jsonl`` holds a task, the question side the model saw (question text,
options as the scorer sees them, candidate count, image size for pixel boxes), a raw answer written the way
Gemini, GPT-4o or Qwen-Omni answer, the expected canonical refined string (or "undeterminable"), a style
(how the answer is written: "qwen_grounding", "multi_prose", "hedge", ...; "base" when absent) and a split:
"dev" answers were used while writing the rules, "holdout" answers were written afterwards and not tuned on.

Printed per split, task and style: the share of determinable answers the rules refine (targets: at least 95%
overall and 90% per task), the rule outputs that are wrong (target: zero; a rule output on an undeterminable
answer counts as wrong) and the hedges left unparsed (target: all).
Run: ``python bench/refine_coverage.py [--corpus PATH] [--show-misses]``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.definitions import constants_for
from avibench.refine.context import RefineContext, build_context
from avibench.refine.rules import apply_rules

CORPUS = Path(__file__).parent / "data" / "refine_corpus.jsonl"
UNDETERMINABLE = "undeterminable"
#: The style of the corpus's first answers, written before styles were recorded.
BASE_STYLE = "base"
#: Answers that hedge between candidates: undeterminable, and the rules must leave every one unparsed.
HEDGE = "hedge"


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
        prompt_text=prompt_text(row["task"]),
    )


def prompt_text(task: str) -> str:
    """The task's prompt as the model saw it (the corpus keeps only the question): rules set aside its echo."""
    value = constants_for(task).get(f"prompt_{task.lower()}")
    return value if isinstance(value, str) else ""


#: Largest difference between a refined and an expected box coordinate that still counts as the same box:
#: pixel and 0-1000 answers are divided out, and the expected values are written to 4 decimals.
BOX_TOLERANCE = 0.005


def _boxes_close(a: object, b: object) -> bool:
    """Two boxes within ``BOX_TOLERANCE``; an AVLG ``[]`` (the model's empty box, kept as written) and ``None``
    are both "no box", as the strict scorer reads them."""
    if a in (None, []) or b in (None, []):
        return a in (None, []) and b in (None, [])
    try:
        xs, ys = [float(v) for v in a], [float(v) for v in b]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        return False
    return len(xs) == len(ys) == 4 and all(abs(x - y) <= BOX_TOLERANCE for x, y in zip(xs, ys, strict=True))


def _instances(value: object) -> list[tuple[str, list[float]]] | None:
    """AVL instances as (class, box), sorted: the scorer matches by class, so instance numbers do not count."""
    if not isinstance(value, dict):
        return None
    out = []
    for key, box in value.items():
        parsed = ast.literal_eval(box) if isinstance(box, str) else box
        out.append((str(key).rsplit("_", 1)[0], parsed))
    return sorted(out, key=lambda kb: (kb[0], [float(v) for v in kb[1]] if kb[1] else []))


def same(family: str, got: str, expected: str, *, multi_answer: bool = False) -> bool:
    """The same answer as the scorer reads it: dicts regardless of key order, AVL instances regardless of
    their numbers, boxes within ``BOX_TOLERANCE``, multi-select options and retrieval indices regardless of
    order."""
    if family in ("mic", "avl", "avlg"):
        try:
            a, b = ast.literal_eval(got), ast.literal_eval(expected)
            if family == "avl":
                a, b = _instances(a), _instances(b)
                return (
                    a is not None
                    and b is not None
                    and len(a) == len(b)
                    and all(x[0] == y[0] and _boxes_close(x[1], y[1]) for x, y in zip(a, b, strict=True))
                )
            if family == "avlg":
                return a.keys() == b.keys() and all(_boxes_close(a[k], b[k]) for k in a)
            return a == b
        except (ValueError, SyntaxError, TypeError, AttributeError):
            return False
    if multi_answer:
        return sorted(got.strip("*").split(";")) == sorted(expected.strip("*").split(";"))
    if family == "retrieval":
        return _index_set(got) == _index_set(expected)
    return got == expected


def _index_set(text: str) -> set[int] | None:
    """Retrieval indices as a set: the rules keep the model's order (the strict R@k reads it as a ranking),
    while the corpus writes them ascending, so the bench grades which candidates, not their order."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return set(value) if isinstance(value, list) else None


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(rows: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], str | None, bool]]:
    """Each row with the rules' output and whether that output is right."""
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            ctx = context(row, Path(tmp))
            got = apply_rules(row["raw"], ctx)
            determinable = row["expected"] != UNDETERMINABLE
            right = (
                got is not None
                and determinable
                and same(ctx.family, got, row["expected"], multi_answer=ctx.multi_answer)
            )
            yield row, got, right


@dataclass
class Tally:
    answers: int = 0
    determinable: int = 0
    ruled: int = 0
    right: int = 0
    hedges: int = 0
    hedges_ruled: int = 0

    def add(self, row: dict[str, Any], got: str | None, right: bool) -> None:
        self.answers += 1
        self.determinable += row["expected"] != UNDETERMINABLE
        self.ruled += got is not None
        self.right += right
        hedge = row.get("style") == HEDGE
        self.hedges += hedge
        self.hedges_ruled += hedge and got is not None

    @property
    def wrong(self) -> int:
        return self.ruled - self.right

    @property
    def share(self) -> float:
        return 100 * self.right / max(self.determinable, 1)

    def line(self, name: str) -> str:
        return (
            f"{name:<28} {self.answers:>7} {self.determinable:>7} {self.right:>8} {self.share:>6.1f}% "
            f"{self.wrong:>5} {self.hedges - self.hedges_ruled:>3}/{self.hedges:<3}"
        )


def tallies(
    rows: list[dict[str, Any]],
) -> tuple[dict[str, dict[str, Tally]], list[tuple[dict[str, Any], str]], list[dict[str, Any]]]:
    """Tallies by split then task, style and overall ("all"); the wrong outputs; the misses."""
    by: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    wrong: list[tuple[dict[str, Any], str]] = []
    misses: list[dict[str, Any]] = []
    for row, got, right in evaluate(rows):
        style = row.get("style", BASE_STYLE)
        for split in (row.get("split", "dev"), "all"):
            model = [f"model {row['model']}"] if row.get("model") else []
            for key in (f"task {row['task']}", f"style {style}", *model, "all"):
                by[split][key].add(row, got, right)
        if got is None and row["expected"] != UNDETERMINABLE:
            misses.append(row)
        elif got is not None and not right:
            wrong.append((row, got))
    return by, wrong, misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--show-misses", action="store_true", help="List determinable answers the rules left."
    )
    args = parser.parse_args(argv)
    by, wrong, misses = tallies(load(args.corpus))
    header = f"{'':<28} {'answers':>7} {'determ.':>7} {'by rules':>8} {'share':>7} {'wrong':>5} hedges left"
    for split in sorted(by, key=lambda s: (s == "all", s)):
        print(f"\n== {split} ==\n{header}")
        for key in sorted(k for k in by[split] if k != "all"):
            print(by[split][key].line(key))
        print(by[split]["all"].line("all"))
    total = by["all"]["all"]
    print(f"\ncorpus: {total.answers} answers, {total.determinable} determinable")
    print(f"refined by rules: {total.right}/{total.determinable} = {total.share:.1f}% of determinable")
    print(f"wrong rule outputs: {len(wrong)}/{total.ruled} = {100 * len(wrong) / max(total.ruled, 1):.1f}%")
    print(f"hedges left unparsed: {total.hedges - total.hedges_ruled}/{total.hedges}")
    for row, got in wrong:
        print(
            f"  WRONG {row['task']} [{row.get('style', BASE_STYLE)}]: {row['raw']!r} -> {got!r} (expected {row['expected']!r})"
        )
    if args.show_misses:
        for row in misses:
            print(
                f"  left {row['task']} [{row.get('style', BASE_STYLE)}]: {row['raw']!r} (expected {row['expected']!r})"
            )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
