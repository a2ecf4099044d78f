"""How fast is AIR-Bench scoring at full size?

Builds 19k generated Foundation questions (760 per subset, in memory: no audio) with a mix of answers (a bare
letter, "The answer is X.", the option's text, a wrong letter, garbage, no answer) and about 2k Chat items judged in
both orders, then times the Foundation scoring (per-subset counts, block, leaderboard summary) and the Chat
aggregation in both profiles. Target: under 2 s beyond imports. Usage: ``python bench/airbench_scoring.py``.
"""

from __future__ import annotations

import random
import time

from avibench.benchmarks.airbench.sample import chat_entries, foundation_entries
from avibench.level_metrics.airbench import (
    LETTERS,
    PROFILES,
    FoundationRecord,
    foundation_block,
    gold_index,
    score_foundation,
    summarize,
    task_accuracy,
)
from avibench.level_metrics.airbench_chat import ORDERS, ChatJudgement, chat_block, score_chat

PER_SUBSET = 760


def _answer(rng: random.Random, options: tuple[str, ...], answer: str) -> str | None:
    letter = LETTERS[gold_index(options, answer)]
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


def foundation_records(rng: random.Random) -> list[FoundationRecord]:
    records = []
    for e in foundation_entries(PER_SUBSET, seed=0):
        options = tuple(e[f] for f in ("choice_a", "choice_b", "choice_c", "choice_d") if f in e)
        response = _answer(rng, options, e["answer_gt"])
        records.append(FoundationRecord(e["task_name"], e["dataset_name"], options, e["answer_gt"], response))
    return records


def chat_judgements(rng: random.Random) -> list[ChatJudgement]:
    judgements = []
    for e in chat_entries(200, seed=0):
        for order in ORDERS:
            reply = "n/a" if rng.random() < 0.02 else f"{rng.randint(1, 10)} {rng.randint(1, 10)}"
            judgements.append(ChatJudgement(str(e["uniq_id"]), e["task_name"], order, reply))
    return judgements


def main() -> None:
    rng = random.Random(0)
    records = foundation_records(rng)
    judgements = chat_judgements(rng)
    print(f"{len(records)} Foundation answers, {len(judgements)} Chat judgements")
    total = 0.0
    for profile in PROFILES.values():
        start = time.perf_counter()
        scores = score_foundation(records, profile)
        block = foundation_block(scores, profile)
        summary = summarize(task_accuracy(scores))
        chat = chat_block(score_chat(judgements, profile), profile)
        elapsed = time.perf_counter() - start
        total += elapsed
        print(
            f"{profile.name:9s} {elapsed:.3f} s  foundation average {summary['average']:.4f}"
            f"  fail_num {block['fail_num']}  total_sum {block['total_sum']}  chat average {chat['average']:.3f}"
        )
    print(f"both profiles: {total:.3f} s")


if __name__ == "__main__":
    main()
