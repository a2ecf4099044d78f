"""STAR-Bench's eval documents on fixed answer corpora, pinned by value.

The numbers were produced by the plug-in's earlier hand-built scorer; the declared port must reproduce them: the
official top level (one ``performance.json`` block per dataset and ``Final MA``), the AA and ACR of every dataset
and the headlines of both profiles, the chance levels, the per-run scores and the coverage counts. Three corpora:
seeded answers of every style on every dataset (with failed and missing runs, so ids are incomplete), a run that
asked only each item's first variant (rotations off), and an official work directory with error rows and a
missing row (``eval --predictions``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pinned_responses import digest, seeded_response

from avibench.benchmarks.starbench.predictions import official_row, results_path
from avibench.items import Item, Response, first_variants
from avibench.kits import records
from avibench.plugin import Benchmark, get_benchmark

ALIASES = ("pc", "pc_sp", "pc_nsp", "tr", "tr_cap", "tr_uncut", "sr", "sr_ch")
#: replies the profiles read differently: a lower-case letter after a keyword, the article "a", a CJK keyword, a
#: hedge, a refusal, a letter named after another option, an error string holding a letter, nothing at all
ADVERSARIAL = (
    "",
    "I cannot tell.",
    "answer is (b)",
    "The answer is a dog.",
    "答案是C",
    "答案是 (A)",
    "It might be A or B.",
    "Option A: {answer}. On reflection I choose B.",
    "ERROR: the request timed out (A)",
    "<B>",
    "{answer}",
    "I am quite sure it is {answer}.",
    "Not {answer}.",
)
COUNTS = (
    "questions",
    "answered",
    "failed",
    "missing",
    "unparsed",
    "scored",
    "incomplete_ids",
    "runs",
    "status",
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("starbench-pinned")
    get_benchmark("starbench").generate_sample(path, seed=5)
    return path


def _reply(item: Item, roll: float, rng: random.Random) -> str:
    if roll < 0.45:
        return get_benchmark("starbench").oracle_answer(item, rng)
    if roll < 0.7:
        return get_benchmark("starbench").random_answer(item, rng)
    return rng.choice(ADVERSARIAL).format(answer=rng.choice(item.options))


def _seeded(plugin: Benchmark, root: Path, aliases: Sequence[str], seed: int) -> dict[str, list[Response]]:
    rng = random.Random(seed)
    return {
        alias: [
            seeded_response(plugin, item, rng, lambda item, roll: _reply(item, roll, rng))
            for item in plugin.load(root, plugin.task(alias))
        ]
        for alias in aliases
    }


def _first_only(plugin: Benchmark, root: Path) -> dict[str, list[Response]]:
    """Every first variant of sr and pc answered (failures included), the other runs never asked."""
    rng = random.Random(13)
    out = {}
    for alias in ("pc", "sr"):
        items = plugin.load(root, plugin.task(alias))
        first = {i.key for i in first_variants(items)}
        out[alias] = [
            Response(i, "failed")
            if i.key in first and rng.random() < 0.1
            else Response(i, "answered", raw=_reply(i, rng.random(), rng))
            if i.key in first
            else Response(i, "missing")
            for i in items
        ]
    return out


def _work_dir(plugin: Benchmark, root: Path, tmp_path: Path) -> dict[str, list[Response]]:
    """An official work directory of tr and sr: error rows (one holding the gold letter) and one row missing."""
    rng = random.Random(17)
    for alias in ("tr", "sr"):
        rows = []
        for n, item in enumerate(plugin.load(root, plugin.task(alias))):
            gold = "ABCD"[item.options.index(item.answer)]
            text = f"ERROR: [{gold}] timed out" if n % 7 == 0 else _reply(item, rng.random(), rng)
            rows.append(official_row(item, text))
        del rows[5]
        records.write_jsonl(results_path(tmp_path, alias), rows)
    return plugin.read_predictions(tmp_path, root, plugin.select("tr+sr"))


def _pinned(plugin: Benchmark, responses: Mapping[str, list[Response]], profile: str) -> dict[str, Any]:
    scored = plugin.score(responses, profile=profile, options={})
    document = scored.document
    top = {k: v for k, v in document.items() if k not in ("summary", "coverage", "meta")}
    summary = document["summary"]
    by_profile = {name: summary["by_profile"][name] for name in ("reference", "strict")}
    return {
        "keys": sorted(top),
        "top": digest(top),
        "headlines": {name: (p["headline"], p["headline_acr"]) for name, p in by_profile.items()},
        "tasks": digest({name: (p["tasks"], p["acr"]) for name, p in by_profile.items()}),
        "chance": digest(summary["chance"]),
        "per_sample": digest(scored.per_sample),
        "coverage": {a: tuple(c[k] for k in COUNTS) for a, c in document["coverage"].items()},
        "rotations": document["meta"]["rotations"],
    }


def _corpus(name: str, plugin: Benchmark, root: Path, tmp_path: Path) -> dict[str, list[Response]]:
    if name == "seeded":
        return _seeded(plugin, root, ALIASES, 7)
    if name == "first":
        return _first_only(plugin, root)
    return _work_dir(plugin, root, tmp_path)


#: (AA, ACR) of Final MA per profile, unrounded as the official summary row keeps them
SEEDED = {"reference": (41.33749999999999, 8.60125), "strict": (36.6220238095238, 5.267857142857143)}
FIRST = {"reference": (52.38, 52.38), "strict": (60.714285714285715, 60.714285714285715)}
WORKDIR = {"reference": (68.145, 21.11), "strict": (50.23809523809524, 16.666666666666664)}
#: corpus/primary profile -> what the document holds: the official top level (its keys and a digest), both
#: profiles' headlines (Final MA's AA and ACR), a digest of both profiles' per-dataset AA and ACR, of the chance
#: levels and of the per-run scores, and per dataset the coverage counts (as ``COUNTS`` names them).
#: ``answered``, ``failed`` and ``unparsed`` are the core's counts since the port: a journal reply that is the
#: official error string is answered (the hand-built scorer counted it failed; both score it the same), and
#: ``unparsed`` counts the answered runs the strict parser reads nothing from, whichever profile is primary (the
#: hand-built scorer counted the primary profile's unparsed runs, in the reference failed requests included)
PINNED: dict[str, dict[str, Any]] = {
    "seeded/reference": {
        "keys": ["Final MA", *sorted(ALIASES)],
        "top": "e455027835c728cb",
        "headlines": SEEDED,
        "tasks": "0c8a046a4ac2b6d5",
        "chance": "0d3c5fef11169f5e",
        "per_sample": "0694f88413d0e26a",
        "coverage": {
            "pc": (36, 31, 2, 3, 4, 31, 2, "all", "partial"),
            "pc_sp": (10, 6, 2, 2, 0, 7, 1, "all", "partial"),
            "pc_nsp": (26, 23, 0, 3, 2, 18, 3, "all", "partial"),
            "tr": (30, 20, 5, 5, 4, 15, 5, "all", "partial"),
            "tr_cap": (30, 21, 4, 5, 6, 18, 4, "all", "partial"),
            "tr_uncut": (30, 23, 6, 1, 4, 27, 1, "all", "partial"),
            "sr": (18, 13, 4, 1, 1, 15, 1, "all", "partial"),
            "sr_ch": (18, 13, 1, 4, 4, 6, 4, "all", "partial"),
        },
        "rotations": "on",
    },
    "seeded/strict": {
        "keys": ["Final MA", *sorted(ALIASES)],
        "top": "15863870b96e2657",
        "headlines": SEEDED,
        "tasks": "0c8a046a4ac2b6d5",
        "chance": "0d3c5fef11169f5e",
        "per_sample": "0694f88413d0e26a",
        "coverage": {
            "pc": (36, 31, 2, 3, 4, 36, 2, "all", "partial"),
            "pc_sp": (10, 6, 2, 2, 0, 10, 1, "all", "partial"),
            "pc_nsp": (26, 23, 0, 3, 2, 26, 3, "all", "partial"),
            "tr": (30, 20, 5, 5, 4, 30, 5, "all", "partial"),
            "tr_cap": (30, 21, 4, 5, 6, 30, 4, "all", "partial"),
            "tr_uncut": (30, 23, 6, 1, 4, 30, 1, "all", "partial"),
            "sr": (18, 13, 4, 1, 1, 14, 1, "all", "partial"),
            "sr_ch": (18, 13, 1, 4, 4, 14, 4, "all", "partial"),
        },
        "rotations": "on",
    },
    "first/reference": {
        "keys": ["Final MA", "pc", "sr"],
        "top": "0dc41ced2de30223",
        "headlines": FIRST,
        "tasks": "dc28c2962bbca038",
        "chance": "878380713cf9047d",
        "per_sample": "16232672efba4deb",
        "coverage": {
            "pc": (14, 13, 1, 0, 0, 14, 0, "first", "partial"),
            "sr": (6, 6, 0, 0, 1, 6, 0, "first", "scored"),
        },
        "rotations": "off",
    },
    "first/strict": {
        "keys": ["Final MA", "pc", "sr"],
        "top": "dd86364dbf1dab5f",
        "headlines": FIRST,
        "tasks": "dc28c2962bbca038",
        "chance": "878380713cf9047d",
        "per_sample": "16232672efba4deb",
        "coverage": {
            "pc": (14, 13, 1, 0, 0, 14, 0, "first", "partial"),
            "sr": (6, 6, 0, 0, 1, 6, 0, "first", "scored"),
        },
        "rotations": "off",
    },
    "workdir/reference": {
        "keys": ["Final MA", "sr", "tr"],
        "top": "e9946f4169533c79",
        "headlines": WORKDIR,
        "tasks": "ea3f4eb2086b3337",
        "chance": "421cfa4422ecd792",
        "per_sample": "7084b6c886d7870a",
        "coverage": {
            "tr": (30, 23, 6, 1, 4, 27, 1, "all", "partial"),
            "sr": (18, 14, 3, 1, 1, 15, 1, "all", "partial"),
        },
        "rotations": "on",
    },
    "workdir/strict": {
        "keys": ["Final MA", "sr", "tr"],
        "top": "6b6932425f7f67c0",
        "headlines": WORKDIR,
        "tasks": "ea3f4eb2086b3337",
        "chance": "421cfa4422ecd792",
        "per_sample": "7084b6c886d7870a",
        "coverage": {
            "tr": (30, 23, 6, 1, 4, 30, 1, "all", "partial"),
            "sr": (18, 14, 3, 1, 1, 14, 1, "all", "partial"),
        },
        "rotations": "on",
    },
}


@pytest.mark.parametrize("profile", ["reference", "strict"])
@pytest.mark.parametrize("corpus", ["seeded", "first", "workdir"])
def test_eval_document_is_pinned(corpus: str, profile: str, root: Path, tmp_path: Path) -> None:
    plugin = get_benchmark("starbench")
    got = _pinned(plugin, _corpus(corpus, plugin, root, tmp_path), profile)
    assert got == PINNED[f"{corpus}/{profile}"]
