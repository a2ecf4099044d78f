"""The multiple-choice extractors of the option benchmarks, measured over one corpus of realistic raw answers.

Each line of ``bench/data/choice_corpus.jsonl`` holds the options as presented, whether letters were shown beside
them, a raw answer written the way Gemini, GPT-4o or Qwen-Omni answer (``model``), the option it commits to (or
"undeterminable"), a style (letter, option_text, answer_is, markdown, think, self_correction, hedge, refusal) and a
split: "dev" answers were written first, "holdout" answers after looking at the dev results once.

Every answer goes through each option benchmark plug-in's ``extract`` (the strict extractor refine uses), with an
item shaped as that benchmark presents it. Printed per benchmark, then per split, style and model: the share of
determinable answers extracted right (coverage), wrong outputs (target: zero; an output on an undeterminable
answer counts as wrong) and hedges or refusals left unparsed (target: all).
Run: ``python bench/refine_choice.py [--corpus PATH] [--show-misses]``.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from refine_coverage import UNDETERMINABLE, Tally, load

from avibench.benchmarks.airbench.plugin import AIRBench
from avibench.benchmarks.mmar.plugin import MMAR, MMAU
from avibench.benchmarks.starbench.plugin import STARBench
from avibench.items import Item
from avibench.plugin import Benchmark

CORPUS = Path(__file__).parent / "data" / "choice_corpus.jsonl"
#: Styles that must stay unparsed: answers that hedge between options or refuse.
UNPARSED_STYLES = ("hedge", "refusal")


def _mmar_template(row: dict[str, Any]) -> str:
    return "mmar-lettered" if row["letters"] else "mmar-official"


#: Each benchmark with how its items look: the task and template an answer of ``row`` was given under.
#: AIR-Bench Foundation and STAR-Bench always show letters.
BENCHMARKS: dict[str, tuple[Benchmark, str, Callable[[dict[str, Any]], str]]] = {
    "mmar": (MMAR(), "MMAR", _mmar_template),
    "mmau": (MMAU(), "test-mini", _mmar_template),
    "airbench": (AIRBench(), "foundation", lambda row: "air-official"),
    "starbench": (STARBench(), "temporal", lambda row: "starbench"),
}


def item(name: str, row: dict[str, Any]) -> Item:
    _benchmark, task, template = BENCHMARKS[name]
    return Item(
        name,
        task,
        "corpus",
        (),
        answer=row["expected"],
        options=tuple(row["options"]),
        template=template(row),
    )


def tallies(
    rows: list[dict[str, Any]],
) -> tuple[
    dict[str, dict[str, Tally]], list[tuple[str, dict[str, Any], str]], list[tuple[str, dict[str, Any]]]
]:
    """Tallies by benchmark then split/style/model; the wrong outputs; the misses."""
    by: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    wrong: list[tuple[str, dict[str, Any], str]] = []
    misses: list[tuple[str, dict[str, Any]]] = []
    for name, (benchmark, _task, _template) in BENCHMARKS.items():
        for row in rows:
            got = benchmark.extract(item(name, row), row["raw"])
            determinable = row["expected"] != UNDETERMINABLE
            right = got is not None and determinable and got == row["expected"]
            counted = {**row, "style": "hedge" if row["style"] in UNPARSED_STYLES else row["style"]}
            for key in (f"split {row['split']}", f"style {row['style']}", f"model {row['model']}", "all"):
                by[name][key].add(counted, got, right)
            if got is None and determinable:
                misses.append((name, row))
            elif got is not None and not right:
                wrong.append((name, row, got))
    return by, wrong, misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show-misses", action="store_true", help="List determinable answers left unparsed.")
    args = parser.parse_args(argv)
    rows = load(args.corpus)
    by, wrong, misses = tallies(rows)
    header = (
        f"{'':<28} {'answers':>7} {'determ.':>7} {'right':>8} {'share':>7} {'wrong':>5} hedges/refusals left"
    )
    for name in BENCHMARKS:
        print(f"\n== {name} ==\n{header}")
        for key in sorted(k for k in by[name] if k != "all"):
            print(by[name][key].line(key))
        print(by[name]["all"].line("all"))
    print(f"\ncorpus: {len(rows)} answers, {sum(r['expected'] != UNDETERMINABLE for r in rows)} determinable")
    for name, row, got in wrong:
        print(
            f"  WRONG {name} [{row['style']}, {row['model']}]: {row['raw']!r} -> {got!r} (expected {row['expected']!r})"
        )
    if args.show_misses:
        for name, row in misses:
            print(
                f"  left {name} [{row['style']}, {row['model']}]: {row['raw']!r} (expected {row['expected']!r})"
            )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
