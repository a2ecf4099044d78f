"""Chance levels: analytic expectations for option tasks, seeded Monte Carlo for structured answers."""

from __future__ import annotations

import math

import pytest

from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.level_metrics.chance import option_chance
from avibench.level_metrics.types import Item

YES_NO = ["yes", "no", "not sure"]


def _item(index: int, eid: str, answer: object, options: object = "", text: object = "q") -> Item:
    return Item(
        index=index, id=eid, answer=answer, predict=None, options=options, question_text=text, task="T"
    )


def test_option_tasks_analytic() -> None:
    items = [
        _item(0, "0", "yes", YES_NO),
        _item(1, "1", "maybe", YES_NO),
    ]  # GT outside the options: never right
    assert option_chance(items) == pytest.approx(100 * (1 / 3 + 0) / 2)


def test_double_confirm_multiplies_and_skips_invalid_pre() -> None:
    items = [
        _item(0, "0", "yes", YES_NO),
        _item(1, "pre_0", "yes", YES_NO),
        _item(2, "1", "no", YES_NO),
        _item(3, "pre_1", None, YES_NO),  # invalid pre slot: ignored
    ]
    assert option_chance(items) == pytest.approx(100 * (1 / 9 + 1 / 3) / 2)


def test_free_answers_guess_among_distinct_ground_truths() -> None:
    items = [_item(i, str(i), str(n)) for i, n in enumerate([1, 2, 3, 3])]
    assert option_chance(items) == pytest.approx(100 / 3)
    assert option_chance([_item(0, "0", "4")]) == pytest.approx(50.0)  # at least two answers


def test_avsqa_multi_answer() -> None:
    options = ["cube", "pyramid", "cone", "sphere", "no availabel option", "not sure"]
    items = [_item(0, "0", "cone;sphere", options), _item(1, "1", "cube", options)]
    assert metric_kind("avsqa").chance(items) == pytest.approx(100 * (1 / math.comb(6, 2) + 1 / 6) / 2)


def test_caption_has_no_chance_level() -> None:
    assert metric_kind("caption").chance([_item(0, "0", ["a dog barks"])]) == 0.0


def test_monte_carlo_is_seeded_and_bounded() -> None:
    mic = [_item(i, str(i), {"dog": "2", "cat": "1"}, ["dog", "cat", "bird", "car"]) for i in range(20)]
    first = metric_kind("mic").chance(mic, task="AMIC")
    assert first == metric_kind("mic").chance(mic, task="AMIC")
    assert 0 < first < 100
    retrieval = [_item(i, str(i), [i % 4]) for i in range(20)]
    assert 0 < metric_kind("retrieval").chance(retrieval, candidates={i: 4 for i in range(20)}) < 100
    box = {"bbox": {"frame_0": [10, 10, 20, 20], "frame_1": None}, "original_wh": [100, 100]}
    avlg = [_item(i, str(i), box) for i in range(20)]
    assert 0 < metric_kind("avlg").chance(avlg) < 100
    with pytest.raises(KeyError, match="unknown metric"):
        metric_kind("bleu").chance(mic)
