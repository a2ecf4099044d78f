"""AIR-Bench's eval documents on a fixed answer corpus and fixed judge replies, pinned by value.

The numbers were produced by the plug-in's earlier hand-built scorer; the declared port must reproduce them: the
official top-level blocks (``foundation`` and ``chat``), the task scores and headline of both profiles, the chance
levels, the per-question scores, the coverage counts and the judge's bookkeeping. Two sources are pinned: a run's
journals (answers of every status, half refined) and the official result files (``eval --predictions``). The
judge is the local fake server; its reply is drawn from the request text, so it is the same on every run, and it
includes replies that only one profile's parser reads, replies neither reads and one request that fails.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from pinned_responses import digest, seeded_response

from avibench.benchmarks.airbench import sample
from avibench.benchmarks.airbench.layout import SECTIONS
from avibench.benchmarks.airbench.predictions import result_row
from avibench.contracts import RunPaths
from avibench.items import Item, Response
from avibench.plugin import Benchmark, EvalRequest, get_benchmark
from avibench.store import append_records
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan

#: Foundation answers the official letter rule and the strict extractor read differently (or not at all).
FOUNDATION_ODD = (
    "   ",
    "None",
    " None\n",
    "I cannot answer that.",
    "It could be A or B.",
    "the answer is B",
    "The answer is (C).",
    "Dog barking",
    "Answer: C",
    "b",
    "Based on the audio, the answer is D.",
    "E",
    "A, no wait, B",
)
#: Chat answers that are blank, refusals or hedges (each is judged as it is).
CHAT_ODD = (
    "   ",
    "\n",
    "I don't know.",
    "Sorry, I can't help with that.",
    "None",
    "Maybe music, maybe speech?",
)
#: Judge replies: read by both parsers, by the reference parser only (sign, leading zero, tab, zero), by neither.
JUDGE_REPLIES = (
    "8 3",
    "5 8",
    "7 7",
    "9 2",
    "3 6",
    "+7 3",
    "07 5",
    "6\t 4",
    "0 4",
    "11 3",
    "Assistant 2 is better.",
    "",
    "8  3",
)
KEY = "sk-judge-pin-5d2e"


def _reply_text(item: Item, rng: random.Random, roll: float) -> str:
    if roll < 0.45:
        return sample.oracle_answer(item, rng)
    if roll < 0.7:
        return sample.random_answer(item, rng)
    return rng.choice(FOUNDATION_ODD if item.task == "foundation" else CHAT_ODD)


def _responses(plugin: Benchmark, root: Path, seed: int) -> dict[str, list[Response]]:
    rng = random.Random(seed)
    return {
        task.name: [
            seeded_response(plugin, item, rng, lambda item, roll: _reply_text(item, rng, roll))
            for item in plugin.load(root, task)
        ]
        for task in plugin.tasks()
    }


def _write_journals(paths: RunPaths, responses: dict[str, list[Response]]) -> None:
    """The responses as infer and refine journals: a failed one as an error, a missing one as no record."""
    for task, answers in responses.items():
        infer, refine = [], []
        for r in answers:
            if r.status == "failed":
                infer.append({"key": r.item.key, "predict": None, "error": "HTTP 500"})
            elif r.status == "answered":
                infer.append({"key": r.item.key, "predict": r.raw, "error": None, "params": {}})
                if task == "chat" and r.method is not None:
                    refine.append(
                        {"key": r.item.key, "raw": r.raw, "method": "passthrough", "predict": r.raw}
                    )
                elif r.method is not None:
                    method = "rule" if r.refined is not None else "unparsed"
                    refine.append({"key": r.item.key, "raw": r.raw, "method": method, "predict": r.refined})
        append_records(paths.infer_journal(task), infer)
        append_records(paths.refine_journal(task), refine)


def _write_results(out: Path, responses: dict[str, list[Response]]) -> Path:
    """The official result files: an answered question with its raw answer, a failed one with a null response,
    a missing one left out."""
    out.mkdir(parents=True, exist_ok=True)
    for task, section in SECTIONS.items():
        rows = [result_row(r.item, r.raw) for r in responses[task] if r.status != "missing"]
        (out / section.result_file).write_text(
            "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
        )
    return out


def _judge(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    return JUDGE_REPLIES[int(hashlib.sha256(content.encode()).hexdigest(), 16) % len(JUDGE_REPLIES)]


COUNTS = ("questions", "answered", "failed", "missing", "unparsed", "scored", "status")


def _pinned(document: dict[str, Any], scored_per_sample: Any) -> tuple[Any, ...]:
    top = {k: v for k, v in document.items() if k not in ("summary", "coverage", "meta")}
    summary = document["summary"]
    by_profile = summary["by_profile"]
    judge = {k: v for k, v in document["meta"].get("judge", {}).items() if k != "template_sha256"}
    return (
        sorted(top),
        digest(top),
        {p: (by_profile[p]["tasks"], by_profile[p]["headline"]) for p in ("reference", "strict")},
        summary.get("chance") or {},
        digest(scored_per_sample),
        {t: {k: c.get(k) for k in COUNTS} for t, c in document["coverage"].items()},
        digest(judge),
    )


def _evaluate(plugin: Benchmark, root: Path, paths: RunPaths, profile: str, **extra: Any) -> tuple[Any, ...]:
    server = FakeOpenAIServer(responder=_judge, plan=FaultPlan(by_request={5: Fault("echo-auth")}))
    with server.run_in_thread():
        options = {"judge_base_url": server.base_url, "judge_concurrency": 1}
        request = EvalRequest(root, plugin.tasks(), profile, paths, options=options, **extra)
        scored = plugin.evaluate(request)
    return (*_pinned(scored.document, scored.per_sample), len(scored.errors))


BOTH = {"foundation": 50, "chat": 20}
#: primary profile -> (top-level keys, digest of the top level, tasks and headline per profile, chance, digest of
#: per_sample, coverage counts, digest of meta.judge, errors); the journals and the official result files give the
#: same. Since the declarative port the core counts coverage: ``unparsed`` is the answers the strict profile
#: cannot read whatever the primary profile (Foundation: 15, where the reference-primary document counted its
#: own 12 unread), and ``scored`` the questions the primary profile scored (Chat: 14 and 8, where the earlier
#: document counted every judged answer, plus the unanswered ones in the strict profile: 16 and 20). Chat's
#: ``unparsed`` stays the judge's count: the answers whose judgements the primary profile cannot all read.
PINNED: dict[str, tuple[Any, ...]] = {
    "reference": (
        ["chat", "foundation"],
        "a9c4326d306d866b",
        {
            "reference": ({"chat": 50.583333333333336, "foundation": 55.55555555555555}, 53.06944444444444),
            "strict": ({"chat": 27.8125, "foundation": 28.009259259259263}, 27.910879629629633),
        },
        {},
        "f92d602261131e15",
        {
            "chat": {
                "answered": 16,
                "failed": 3,
                "missing": 1,
                "questions": 20,
                "scored": 14,
                "status": "partial",
                "unparsed": 6,
            },
            "foundation": {
                "answered": 37,
                "failed": 6,
                "missing": 7,
                "questions": 50,
                "scored": 25,
                "status": "partial",
                "unparsed": 15,
            },
        },
        "1ef7eccedcb234be",
        1,
    ),
    "strict": (
        ["chat", "foundation"],
        "da40856eebaa6d0f",
        {
            "reference": ({"chat": 50.583333333333336, "foundation": 55.55555555555555}, 53.06944444444444),
            "strict": ({"chat": 27.8125, "foundation": 28.009259259259263}, 27.910879629629633),
        },
        {},
        "f92d602261131e15",
        {
            "chat": {
                "answered": 16,
                "failed": 3,
                "missing": 1,
                "questions": 20,
                "scored": 8,
                "status": "partial",
                "unparsed": 12,
            },
            "foundation": {
                "answered": 37,
                "failed": 6,
                "missing": 7,
                "questions": 50,
                "scored": 50,
                "status": "partial",
                "unparsed": 15,
            },
        },
        "1ef7eccedcb234be",
        1,
    ),
}


@pytest.mark.parametrize("source", ["journals", "predictions"])
@pytest.mark.parametrize("profile", ["reference", "strict"])
def test_eval_document_is_pinned(
    source: str, profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    plugin = get_benchmark("airbench")
    root = tmp_path / "data"
    plugin.generate_sample(root, seed=3)
    responses = _responses(plugin, root, seed=11)
    assert {t: len(v) for t, v in responses.items()} == BOTH
    paths = RunPaths(tmp_path / "out", "m", "airbench")
    if source == "journals":
        _write_journals(paths, responses)
        got = _evaluate(plugin, root, paths, profile)
    else:
        results = _write_results(tmp_path / "results", responses)
        got = _evaluate(plugin, root, paths, profile, predictions=results)
    assert got == PINNED[profile]


def test_each_profiles_metric_recomputes_its_task_scores_from_the_stored_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What samples.jsonl keeps per question is enough for the bootstrap and compare: each profile's metric over
    the values of the questions it scored gives the task score of the document."""
    monkeypatch.setenv("JUDGE_API_KEY", KEY)
    plugin = get_benchmark("airbench")
    root = tmp_path / "data"
    plugin.generate_sample(root, seed=3)
    paths = RunPaths(tmp_path / "out", "m", "airbench")
    _write_journals(paths, _responses(plugin, root, seed=11))
    server = FakeOpenAIServer(responder=_judge)
    with server.run_in_thread():
        options = {"judge_base_url": server.base_url}
        scored = plugin.evaluate(EvalRequest(root, plugin.tasks(), "reference", paths, options=options))
    values = json.loads(json.dumps(scored.values))  # as samples.jsonl stores them
    for profile, view in scored.document["summary"]["by_profile"].items():
        for task, score in view["tasks"].items():
            kept = [
                values[task][key][profile]
                for key, scores in scored.per_sample[task].items()
                if scores[profile] is not None
            ]
            metric = plugin.metric_of(task, profile)
            assert metric is not None and metric(kept) == score
