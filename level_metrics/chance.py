"""Per-task chance levels c_t (0–100): the expected score of an answerer that guesses uniformly at random. Pure.

The paper's table (Appendix G.2.2) is not public in text form; these levels are computed from the dataset's
own entries, so they follow its option lists and ground-truth distribution:

* Option tasks (full-match, AVSQA), analytically. A formal entry whose options are a list scores with
  probability ``1/len(options)`` when its ground truth is one of them (0 otherwise). Entries without an option
  list are taken to guess among the task's distinct ground-truth answers of such entries, at least two (for
  example the counts of a counting subtask; pre-questions whose options do not resolve are yes/no checks). An
  AVSQA answer of k ``;``-separated options is guessed with probability ``1/C(n, k)``. With double-confirm,
  the formal entry and its valid pre-question must both be right, so the two probabilities multiply. The
  chance level is the mean over formal entries.
* Structured answers (multi-instance counting, retrieval, localisation, grounding), by Monte Carlo with a fixed
  seed: random answers in the canonical refined format are scored with the task's own metric (reference
  profile), averaged over a few rounds; each task's ``*_chance`` says what its guesser draws.
* Captioning (FENSE) has no answer space to draw from: its chance level is 0.
"""

from __future__ import annotations

import functools
import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from avibench.level_metrics.avl import avl
from avibench.level_metrics.avlg import avlg
from avibench.level_metrics.common import PRE_PREFIX, is_invalid_pre
from avibench.level_metrics.multi_instance import multi_instance
from avibench.level_metrics.profile import REFERENCE
from avibench.level_metrics.retrieval import retrieval
from avibench.level_metrics.types import Item, TaskScore

#: The estimator's own version, which keys cached levels: raise it whenever a change here, or in a scorer the
#: Monte Carlo estimates run, changes any level (a test pins the sample dataset's levels to catch that).
ESTIMATOR_VERSION = 1
MONTE_CARLO_ROUNDS = 8
MIN_FREE_ANSWERS = 2


def _option_probability(item: Item, fallback: int, *, multi: bool) -> float:
    options = item.options
    if isinstance(options, list) and options:
        names = [str(o) for o in options]
        if multi:
            parts = [p.strip() for p in str(item.answer).lower().split(";")]
            lowered = [n.lower() for n in names]
            if not all(p in lowered for p in parts):
                return 0.0
            return 1.0 / math.comb(len(names), len(parts))
        return 1.0 / len(names) if str(item.answer) in names else 0.0
    return 1.0 / fallback if fallback else 0.0


def option_chance(items: Sequence[Item], *, multi: bool = False, **_: Any) -> float:
    """Expected full-match (or AVSQA, ``multi=True``: uniform over the option subsets of the answer's size)
    accuracy of a uniform guess, double-confirm included (0-100)."""
    formal = [i for i in items if not str(i.id).startswith(PRE_PREFIX)]
    pres = [i for i in items if str(i.id).startswith(PRE_PREFIX) and not is_invalid_pre(i)]
    formal_space, pre_space = (
        max(MIN_FREE_ANSWERS, len({str(i.answer) for i in group if not isinstance(i.options, list)}))
        for group in (formal, pres)
    )
    pre_by_formal = {str(i.id)[len(PRE_PREFIX) :]: i for i in pres}
    probabilities = []
    for item in formal:
        p = _option_probability(item, formal_space, multi=multi)
        pre = pre_by_formal.get(str(item.id))
        if pre is not None:
            p *= _option_probability(pre, pre_space, multi=False)
        probabilities.append(p)
    return 100.0 * sum(probabilities) / len(probabilities) if probabilities else 0.0


def _box(rng: random.Random) -> list[float]:
    x1, y1 = rng.uniform(0, 0.8), rng.uniform(0, 0.8)
    return [round(v, 3) for v in (x1, y1, rng.uniform(x1 + 0.05, 1), rng.uniform(y1 + 0.05, 1))]


def _classes(items: Sequence[Item]) -> list[str]:
    for item in items:
        if isinstance(item.options, list) and item.options:
            return [str(o) for o in item.options]
    names: set[str] = set()
    for item in items:
        gt = item.answer.get("bbox", item.answer) if isinstance(item.answer, dict) else {}
        names.update(str(k) for k in gt)
    return sorted(names) or ["object"]


def _semantic_type(key: str) -> str:
    head, _, tail = key.lower().rpartition("_")
    return head if head and tail.isdigit() else key.lower()


def _guess_mic(classes: list[str], _item: Item, rng: random.Random) -> str:
    chosen = rng.sample(classes, min(len(classes), rng.randint(1, 3)))
    return json.dumps({c: str(rng.randint(1, 5)) for c in chosen})


def _guess_retrieval(candidates: Mapping[int, int], item: Item, rng: random.Random) -> str:
    gt = item.answer if isinstance(item.answer, list) else []
    ints = [g for g in gt if isinstance(g, int)]
    k = candidates.get(item.index) or max([*ints, 1]) + 1
    picks = rng.sample(range(k), min(k, rng.randint(1, 3)))
    return "[" + ", ".join(str(p) for p in picks) + "]"


def _guess_avl(classes: list[str], _item: Item, rng: random.Random) -> str:
    kind = _semantic_type(rng.choice(classes))
    return repr({f"{kind}_1": _box(rng)})


def _guess_avlg(item: Item, rng: random.Random) -> str:
    gt = item.answer.get("bbox", item.answer) if isinstance(item.answer, dict) else {}
    frames = list(gt) or [f"frame_{k}" for k in range(10)]
    return repr({f: (None if rng.random() < 0.5 else _box(rng)) for f in frames})


def monte_carlo_chance(
    items: Sequence[Item],
    guess: Callable[[Item, random.Random], str],
    score: Callable[..., TaskScore],
    **kw: Any,
) -> float:
    """Mean headline (0–100) of :data:`MONTE_CARLO_ROUNDS` runs of ``score`` (reference profile, keywords
    ``kw``) on random answers from ``guess`` (seed 0)."""
    if not items:
        return 0.0
    rng = random.Random(0)
    total = 0.0
    for _ in range(MONTE_CARLO_ROUNDS):
        guessed = [replace(i, predict=guess(i, rng)) for i in items]
        total += float(score(guessed, profile=REFERENCE, **kw).headline)
    return 100.0 * total / MONTE_CARLO_ROUNDS


full_match_chance = option_chance
avsqa_chance = functools.partial(option_chance, multi=True)


def caption_chance(items: Sequence[Item], **_: Any) -> float:
    """Captioning has no answer space to guess from."""
    return 0.0


def mic_chance(items: Sequence[Item], *, task: str = "", **_: Any) -> float:
    """Multi-instance counting: 1-3 classes of the task's class list, with counts 1-5."""
    guess = functools.partial(_guess_mic, _classes(items))
    return monte_carlo_chance(items, guess, multi_instance, task=task or "AMIC")


def retrieval_chance(
    items: Sequence[Item], *, candidates: Mapping[int, int] | None = None, **_: Any
) -> float:
    """Retrieval: 1-3 distinct candidate indices; ``candidates`` gives each entry's number of candidate media
    by index (without it the guesser draws from the indices the ground truth implies)."""
    return monte_carlo_chance(items, functools.partial(_guess_retrieval, candidates or {}), retrieval)


def avl_chance(items: Sequence[Item], **_: Any) -> float:
    """Localisation: one random box of a random class."""
    return monte_carlo_chance(items, functools.partial(_guess_avl, _classes(items)), avl)


def avlg_chance(items: Sequence[Item], **_: Any) -> float:
    """Grounding over frames: each frame a random box or none, with equal odds."""
    return monte_carlo_chance(items, _guess_avlg, avlg)
