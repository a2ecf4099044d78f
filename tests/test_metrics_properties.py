"""Property tests: no prediction string, however odd, makes a scorer raise, in either profile."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avibench.benchmarks.avibench.fense import fense_summary
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.level_metrics import (
    REFERENCE,
    STRICT,
    Item,
    TaskScore,
    pool_vsqa,
)

NESTED = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)

PREDICTIONS = st.one_of(
    st.none(),
    st.text(),
    st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
    NESTED.map(repr),
    NESTED.map(str),
    st.integers(0, 60).map(lambda n: "[" * n + "0.1, 0.2, 0.3, 0.4" + "]" * n),
    st.integers(0, 400).map(lambda n: "{" + "'dog_1': " * n),
    st.sampled_from(["²", "①", "1" * 5000, "-" * 300, "nan", "inf", "[0,3]", "{'frame_0': []}", "x" * 20000]),
    st.lists(st.integers(-5, 2000), max_size=12).map(str),
)

ANSWERS = {
    "full_match": st.sampled_from(["yes", "no", "3", "²", None, 4, "Cube"]),
    "avsqa": st.sampled_from(["cube", "cube;sphere", None]),
    "mic": st.sampled_from([{"dog": "2"}, {}, {"dog": "two"}, {"Dog": 1, "man": "12"}, None]),
    "avl": st.sampled_from(
        [
            {"bbox": {"dog_1": [10, 20, 30, 40]}, "original_wh": [100, 100]},
            {"bbox": {}, "original_wh": [100, 100]},
            {"dog_1": [10, 20, 30, 40]},
            {"bbox": {"dog_1": None}, "original_wh": [100, 100]},
            "oops",
        ]
    ),
    "avlg": st.sampled_from(
        [
            {"bbox": {"frame_0": [10, 20, 30, 40], "frame_1": None}, "original_wh": [100, 100]},
            {"frame_0": [10, 20, 30, 40]},
            {"bbox": {}, "original_wh": [1, 1]},
            {"bbox": {"frame_0": "x"}, "original_wh": ["a", "b"]},
        ]
    ),
    "retrieval": st.sampled_from([[0, 3], [], [1], "[1]", None]),
    "caption": st.sampled_from([["a dog barks"], [], "a cat", None, ["", "x"]]),
}
OPTIONS = st.sampled_from(["", ["yes", "no"], "get_from_3d-task3", ["a", 3], 7, None])
IDS = st.sampled_from(["0", "1", "pre_0", "pre_1", "a#b", "pre_"])


def _fense(candidates: list[str], refs: list[list[str]]) -> dict:
    return fense_summary([(0.5, 1.0)] * len(candidates))


def _items(draw, metric: str) -> list[Item]:
    rows = draw(st.lists(st.tuples(IDS, ANSWERS[metric], PREDICTIONS, OPTIONS), max_size=6))
    task = {"mic": "AMIC", "avl": "AVL", "avlg": "AVLG", "retrieval": "VAR", "caption": "AVC"}.get(
        metric, "ASQA"
    )
    return [
        Item(index=i, id=eid, answer=answer, predict=pred, options=opts, question_text="q", task=task)
        for i, (eid, answer, pred, opts) in enumerate(rows)
    ]


def _check(score: TaskScore, items: list[Item]) -> None:
    assert math.isfinite(score.headline) and -1e-9 <= score.headline <= 1 + 1e-9
    assert len(score.per_sample) == len(items)
    assert score.scored <= len(items)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data(), metric=st.sampled_from(sorted(ANSWERS)))
def test_scorers_never_raise(data, metric: str) -> None:
    items = _items(data.draw, metric)
    extra: dict = {"fense_fn": _fense} if metric == "caption" else {}
    if metric == "mic":
        extra["task"] = data.draw(st.sampled_from(["AMIC", "VMIC"]))
    if metric in ("avl", "avlg"):
        extra["image_sizes"] = {i: (64, 48) for i in range(len(items))}
    for profile in (REFERENCE, STRICT):
        _check(metric_kind(metric).score(items, profile=profile, **extra), items)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_vsqa_pooling_never_raises(data) -> None:
    half_i = _items(data.draw, "full_match")
    half_v = _items(data.draw, "full_match")
    pooled = pool_vsqa(half_i, half_v)
    assert len(pooled) == len(half_i) + len(half_v)
    for profile in (REFERENCE, STRICT):
        _check(metric_kind("full_match").score(pooled, profile=profile), pooled)
