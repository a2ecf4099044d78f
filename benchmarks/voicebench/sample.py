"""A small, deterministic VoiceBench in the exported layout, with real audio, and the offline baselines.

Each spoken instruction is a WAV made in code: one short tone per word of the prompt, its pitch taken from the
word, so equal prompts sound equal and different ones differ (no speech synthesis is available offline; the
model-facing content is the tone pattern, the answers are true of each row's metadata). Every subset and every
split of the official data is present with two rows each (four for single-split subsets). The prompts and the
IFEval rows are data (``prompts/voicebench/sample.json``).

The oracle answers the way models do and is read back by the official parsers (the letter in ``The answer is B.``,
``The answer is yes.``, a refusal), or, for IFEval, writes a response that follows the row's instruction.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
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
    prompt, instruction, kwargs = rows[n % len(rows)]
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


def _follow(instruction: str, kwargs: Mapping[str, Any]) -> str:
    """A response that follows one instruction (of the families the sample uses)."""
    a = {k: v for k, v in kwargs.items() if v}
    less = a.get("relation") == "less than"
    builders: dict[str, Callable[[], str]] = {
        "keywords:existence": lambda: " and ".join(a["keywords"]) + " are both here",
        "keywords:frequency": lambda: "fine" if less else " ".join([a["keyword"]] * int(a["frequency"])),
        "keywords:forbidden_words": lambda: "It is vast and calm at dawn",
        "keywords:letter_frequency": lambda: (
            "42" if a["let_relation"] == "less than" else a["letter"] * int(a["let_frequency"])
        ),
        "length_constraints:number_words": lambda: "ok" if less else " ".join(["word"] * int(a["num_words"])),
        "length_constraints:number_paragraphs": lambda: " *** ".join(["A part"] * int(a["num_paragraphs"])),
        "length_constraints:nth_paragraph_first_word": lambda: "\n\n".join(
            f"{a['first_word']} it ends" if i == int(a["nth_paragraph"]) else "A paragraph"
            for i in range(1, int(a["num_paragraphs"]) + 1)
        ),
        "detectable_content:number_placeholders": lambda: " ".join(
            f"[field {i}]" for i in range(int(a["num_placeholders"]))
        ),
        "detectable_content:postscript": lambda: f"Hello there\n{a['postscript_marker']} see you soon",
        "detectable_format:number_bullet_lists": lambda: "\n".join(["* fruit"] * int(a["num_bullets"])),
        "detectable_format:constrained_response": lambda: "My answer is yes.",
        "detectable_format:number_highlighted_sections": lambda: " ".join(
            f"*part {i}*" for i in range(int(a["num_highlights"]))
        ),
        "detectable_format:multiple_sections": lambda: "\n".join(
            f"{a['section_spliter']} {i}\ntext" for i in range(1, int(a["num_sections"]) + 1)
        ),
        "detectable_format:json_format": lambda: '{"answer": "yes"}',
        "detectable_format:title": lambda: "<<A short poem>>\nRoses bloom",
        "combination:two_responses": lambda: "First answer\n******\nSecond answer",
        "combination:repeat_prompt": lambda: f"{a['prompt_to_repeat']} Blue.",
        "startend:end_checker": lambda: f"Here it is. {a['end_phrase']}",
        "punctuation:no_comma": lambda: "A cat is soft and quiet",
        "startend:quotation": lambda: '"A quoted reply"',
    }
    builder = builders.get(instruction)
    return builder() if builder is not None else "I will do as asked."


def oracle_answer(item: Item, evaluator: str, rng: random.Random) -> str:
    row = item.source
    if evaluator in ("mcq", "bbh", "qa"):
        reference = str(row["reference"])
        return f"The answer is {reference.upper() if reference.startswith('(') else reference}."
    if evaluator == "ifeval":
        return "\n".join(
            _follow(i, k) for i, k in zip(row["instruction_id_list"], row["kwargs"], strict=True)
        )
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
