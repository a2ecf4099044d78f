"""How fast is AIR-Bench scoring at full size?

Builds 19k generated Foundation questions (760 per subset, in memory: no audio) with a mix of answers (a bare
letter, "The answer is X.", the option's text, a wrong letter, garbage, no answer) and about 2k Chat items judged in
both orders, then times the Foundation scoring (per-subset counts, block, leaderboard summary) and the Chat
aggregation in both profiles. The Foundation part is scored by the plug-in, as eval scores the journals' responses:
both profiles, their official blocks, chance and bootstrap intervals in one call. Target: the Chat aggregation
under 2 s beyond imports; the Foundation figure is the whole eval scoring of 19k answers. Usage:
``python bench/airbench_scoring.py``.
"""

from __future__ import annotations

import random
import time

from avibench.benchmarks.airbench.sample import chat_entries, foundation_entries
from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.airbench import LETTERS, PROFILES
from avibench.level_metrics.airbench_chat import ORDERS, chat_block
from avibench.plugin import get_benchmark

PER_SUBSET = 760


def _answer(rng: random.Random, options: tuple[str, ...], answer: str) -> str | None:
    letter = LETTERS[mc.gold_index(options, answer)]
    return rng.choice(
        (
            letter,
            f"The answer is {letter}.",
            f"It sounds like {answer}.",
            "A",
            "I am not sure about this one",
            None,
        )
    )


def foundation_responses(rng: random.Random) -> list[Response]:
    responses = []
    for index, e in enumerate(foundation_entries(PER_SUBSET, seed=0)):
        options = tuple(e[f] for f in ("choice_a", "choice_b", "choice_c", "choice_d") if f in e)
        meta = {"subset": f"{e['task_name']}_{e['dataset_name']}"}
        item = Item(
            "airbench", "foundation", str(index), (), e["answer_gt"], index=index, options=options, meta=meta
        )
        response = _answer(rng, options, e["answer_gt"])
        responses.append(
            Response(item, "missing") if response is None else Response(item, "answered", response)
        )
    return responses


def chat_values(rng: random.Random) -> list[dict]:
    """Each Chat item's value as eval scores it: its task name and judge replies by order."""
    values = []
    for e in chat_entries(200, seed=0):
        replies = {}
        for order in ORDERS:
            replies[order] = "n/a" if rng.random() < 0.02 else f"{rng.randint(1, 10)} {rng.randint(1, 10)}"
        values.append({"task_name": e["task_name"], "replies": replies})
    return values


def main() -> None:
    rng = random.Random(0)
    responses = foundation_responses(rng)
    values = chat_values(rng)
    print(f"{len(responses)} Foundation answers, {len(ORDERS) * len(values)} Chat judgements")
    plugin = get_benchmark("airbench")
    foundation = tuple(t for t in plugin.tasks() if t.name == "foundation")
    start = time.perf_counter()
    document = plugin.score(
        {"foundation": responses}, profile="reference", options={}, tasks=foundation
    ).document
    elapsed = time.perf_counter() - start
    for name, view in document["summary"]["by_profile"].items():
        block = view["official"]["foundation"]
        print(
            f"{name:9s} foundation average {view['tasks']['foundation']:.4f}"
            f"  fail_num {block['fail_num']}  total_sum {block['total_sum']}"
        )
    print(f"Foundation, both profiles (the plug-in's scoring): {elapsed:.3f} s")
    total = elapsed
    for profile in PROFILES.values():
        start = time.perf_counter()
        chat = chat_block(values, profile)
        elapsed = time.perf_counter() - start
        total += elapsed
        print(f"{profile.name:9s} {elapsed:.3f} s  chat average {chat['average']:.3f}")
    print(f"total: {total:.3f} s")


if __name__ == "__main__":
    main()
