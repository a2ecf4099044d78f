"""The refine LLM fallback over the refine corpus: accuracy, refusals and cost in tokens.

Every determinable answer of ``bench/data/refine_corpus.jsonl`` and every hedge goes to the refine model with
the same prompt ``avibench refine`` sends (``LLMRefiner`` through the shared OpenAI-compatible client), and
the reply goes through the same rule parsers, so a reply outside the task's answer space is unparsed. A
determinable answer is right when the parsed reply equals the expected canonical answer; a hedge is right
when the reply stays unparsed ("i dont know"). Replies are cached in a file only when ``--cache`` names one.
Run: ``python bench/refine_llm.py --base-url URL --model M [--api-key KEY] [--limit N]``; the key defaults to
``REFINE_API_KEY`` or ``OPENAI_API_KEY``. Prices (``--usd-per-mtok-in/out``) turn tokens into dollars.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from refine_coverage import CORPUS, HEDGE, UNDETERMINABLE, context, load, same

from avibench.llm import ChatError
from avibench.refine.cache import LLMCache
from avibench.refine.llm_fallback import LLMRefiner, LLMSettings, build_prompt
from avibench.refine.rules import apply_rules

OUTCOMES = ("right", "wrong", "refused", "failed")


@dataclass(frozen=True)
class Result:
    task: str
    hedge: bool
    outcome: str


def _outcome(row: dict[str, Any], refined: str | None, family: str) -> str:
    if row["expected"] == UNDETERMINABLE:
        return "right" if refined is None else "wrong"
    if refined is None:
        return "refused"
    return "right" if same(family, refined, row["expected"]) else "wrong"


async def _run(
    rows: list[dict[str, Any]], refiner: LLMRefiner, folder: Path, concurrency: int
) -> list[Result]:
    gate = asyncio.Semaphore(max(concurrency, 1))

    async def one(row: dict[str, Any]) -> Result:
        ctx = context(row, folder)
        hedge = row.get("style") == HEDGE
        async with gate:
            try:
                reply, _ = await refiner.ask(build_prompt(row["raw"], ctx))
            except ChatError:
                return Result(row["task"], hedge, "failed")
        return Result(row["task"], hedge, _outcome(row, apply_rules(reply, ctx), ctx.family))

    try:
        return list(await asyncio.gather(*(one(r) for r in rows)))
    finally:
        await refiner.aclose()


def _report(results: list[Result], refiner: LLMRefiner, prices: tuple[float, float]) -> None:
    by_task: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    for r in results:
        by_task[r.task][r.outcome] += 1
    print(f"{'task':<7} {'answers':>7} " + " ".join(f"{o:>7}" for o in OUTCOMES))
    for task, counts in sorted(by_task.items()):
        print(f"{task:<7} {sum(counts.values()):>7} " + " ".join(f"{counts[o]:>7}" for o in OUTCOMES))
    determinable = [r for r in results if not r.hedge]
    hedges = [r for r in results if r.hedge]
    right = sum(r.outcome == "right" for r in determinable)
    print(
        f"\naccuracy on determinable answers: {right}/{len(determinable)} = {100 * right / max(len(determinable), 1):.1f}%"
    )
    print(f"wrong outputs: {sum(r.outcome == 'wrong' for r in determinable)}")
    print(f"refused (unparsed reply): {sum(r.outcome == 'refused' for r in determinable)}")
    print(f"hedges left unparsed: {sum(r.outcome == 'right' for r in hedges)}/{len(hedges)}")
    print(f"failed requests: {sum(r.outcome == 'failed' for r in results)}")
    tokens_in, tokens_out = refiner.usage["prompt_tokens"], refiner.usage["completion_tokens"]
    dollars = (tokens_in * prices[0] + tokens_out * prices[1]) / 1e6
    print(
        f"cost: {refiner.requests} requests, {tokens_in} prompt + {tokens_out} completion tokens "
        f"({(tokens_in + tokens_out) / max(refiner.requests, 1):.0f} per request), ${dollars:.4f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible base URL")
    parser.add_argument("--model", required=True, help="refine model id")
    parser.add_argument(
        "--api-key", default=os.environ.get("REFINE_API_KEY") or os.environ.get("OPENAI_API_KEY") or "none"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--limit", type=int, default=None, help="first N answers only")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--cache", type=Path, default=None, help="reply cache file (default: none kept)")
    parser.add_argument("--usd-per-mtok-in", type=float, default=0.0)
    parser.add_argument("--usd-per-mtok-out", type=float, default=0.0)
    args = parser.parse_args(argv)
    rows = [r for r in load(args.corpus) if r["expected"] != UNDETERMINABLE or r.get("style") == HEDGE]
    rows = rows[: args.limit] if args.limit is not None else rows
    settings = LLMSettings(
        model=args.model, base_urls=(args.base_url,), api_key=args.api_key, concurrency=args.concurrency
    )
    with tempfile.TemporaryDirectory() as tmp:
        cache = LLMCache(args.cache or Path(tmp) / "cache.jsonl")
        refiner = LLMRefiner(settings, cache)
        try:
            results = asyncio.run(_run(rows, refiner, Path(tmp), args.concurrency))
        finally:
            cache.close()
    _report(results, refiner, (args.usd_per_mtok_in, args.usd_per_mtok_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
