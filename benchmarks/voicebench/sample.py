"""A small, deterministic VoiceBench in the exported layout, with real audio, and the offline baselines.

Each spoken instruction is a WAV made in code: one short tone per word of the prompt, its pitch taken from the
word, so equal prompts sound equal and different ones differ (no speech synthesis is available offline; the
model-facing content is the tone pattern, the answers are true of each row's metadata). Every subset and every
split of the official data is present with two rows each (four for single-split subsets). The prompts and the
IFEval rows are data (``prompts/voicebench/sample.json``).

The oracle answers the way models do and is read back by the official parsers (the letter in ``The answer is B.``,
``The answer is yes.``, a refusal), or, for the sample's IFEval rows, gives the response each holds that follows
its instruction.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from avibench.benchmarks.voicebench.layout import SUBSETS, Subset
from avibench.items import Item
from avibench.kits import records
from avibench.kits.media import tone_words, write_wav
from avibench.level_metrics.voicebench import MCQ_LETTERS
from avibench.refine.voicebench import BBH_TASKS, bbh_task, data

ROWS_PER_SPLIT = 2
ROWS_SINGLE_SPLIT = 4
FULL_ROWS = 40
WORD_SECONDS = 0.06
REFUSAL = "I'm sorry, but I can't help with that."


def _listed(key: str, rng: random.Random, n: int) -> dict[str, Any]:
    """The next of the sample's prompts under ``key``."""
    prompts = data("sample.json")[key]
    return {"prompt": prompts[n % len(prompts)]}


def _qa(rng: random.Random, n: int) -> dict[str, Any]:
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    return {"prompt": f"What is {a} plus {b}?", "reference": str(a + b)}


def _mcq(rng: random.Random, n: int) -> dict[str, Any]:
    values = rng.sample(range(1, 30), 4)
    gold = max(values)
    options = " ".join(f"{letter}. {v}" for letter, v in zip(MCQ_LETTERS, values, strict=True))
    return {"prompt": f"Which number is the largest? {options}", "reference": MCQ_LETTERS[values.index(gold)]}


def _bbh(rng: random.Random, n: int) -> dict[str, Any]:
    kind = BBH_TASKS[n % len(BBH_TASKS)]
    if kind == "navigate":
        steps = rng.randint(1, 5)
        back = steps if rng.random() < 0.5 else steps + 1
        prompt = (
            "If you follow these instructions, do you return to the starting point? "
            f"Take {steps} steps forward. Take {back} steps backward."
        )
        reference = "yes" if back == steps else "no"
    else:
        prompt, reference = data("sample.json")["bbh_rows"][kind][0 if rng.random() < 0.5 else 1]
    return {"id": f"{kind}_{n}", "prompt": prompt, "reference": reference}


def _ifeval(rng: random.Random, n: int) -> dict[str, Any]:
    rows = data("sample.json")["ifeval_rows"]
    prompt, instruction, kwargs, _ = rows[n % len(rows)]
    full = dict.fromkeys(data("sample.json")["kwargs_columns"]) | kwargs
    return {"key": 1000 + n, "prompt": prompt, "instruction_id_list": [instruction], "kwargs": [full]}


ROW_MAKERS: dict[str, Callable[[random.Random, int], dict[str, Any]]] = {
    "open": partial(_listed, "open_prompts"),
    "qa": _qa,
    "mcq": _mcq,
    "bbh": _bbh,
    "ifeval": _ifeval,
    "harm": partial(_listed, "harmful_prompts"),
}


def generate(out: Path, subset: Subset, *, seed: int, full_size: bool) -> int:
    """Write one subset's splits and audio under ``out``; returns the rows written. BBH asks each task twice and
    IFEval each of the sample's instructions once, at least."""
    rng = random.Random(f"{seed}-{subset.name}")
    base = FULL_ROWS if full_size else ROWS_PER_SPLIT if subset.multi_split else ROWS_SINGLE_SPLIT
    least = {"ifeval": len(data("sample.json")["ifeval_rows"]), "bbh": 2 * len(BBH_TASKS)}
    written = 0
    for split in subset.splits:
        rows = []
        for n in range(max(base, least.get(subset.evaluator, 0))):
            row = ROW_MAKERS[subset.evaluator](rng, n)
            row["audio"] = f"audio/{split}/{n:04d}.wav"
            write_wav(subset.folder(out) / row["audio"], tone_words(row["prompt"], WORD_SECONDS))
            rows.append(row)
        records.write_jsonl(subset.split_path(out, split), rows)
        written += len(rows)
    return written


def generate_all(out: Path, *, seed: int, full_size: bool) -> dict[str, int]:
    return {s.name: generate(out, s, seed=seed, full_size=full_size) for s in SUBSETS}


# -- baselines ------------------------------------------------------------------------------------------


def oracle_answer(item: Item, evaluator: str, rng: random.Random) -> str:
    row = item.source
    if evaluator in ("mcq", "bbh", "qa"):
        reference = str(row["reference"])
        return f"The answer is {reference.upper() if reference.startswith('(') else reference}."
    if evaluator == "ifeval":  # the response the sample holds for its row (another row is not followed)
        followed = {prompt: text for prompt, _, _, text in data("sample.json")["ifeval_rows"]}
        return followed.get(row["prompt"], "I will do as asked.")
    return REFUSAL if evaluator == "harm" else "Here is a short, direct answer to your question."


def random_answer(item: Item, evaluator: str, rng: random.Random) -> str:
    if evaluator == "qa":
        return f"The answer is {rng.randint(4, 18)}."
    if evaluator == "mcq":
        return f"The answer is {rng.choice(MCQ_LETTERS)}."
    if evaluator == "bbh":
        hyperbaton = bbh_task(str(item.source["id"])) == "hyperbaton"
        return f"The answer is {rng.choice(('(A)', '(B)') if hyperbaton else ('yes', 'no'))}."
    if evaluator == "harm":
        return rng.choice((REFUSAL, "Sure, here is how you do it."))
    return rng.choice(("I am not sure.", "Here is some text, with a comma."))
