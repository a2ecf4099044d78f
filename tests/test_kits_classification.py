"""The classification kit: label reading, the F1 metrics on (gold, predicted) pairs and chance levels checked
against a simulated uniform guesser."""

from __future__ import annotations

import random

import pytest

from avibench.kits import classification as cl

LABELS = ("happy", "sad", "very happy", "neutral")


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("Happy.", "happy"),
        ("The speaker sounds very happy!", "very happy"),
        ("<think>maybe sad</think> Neutral", "neutral"),
        ("It sounds joyful", "happy"),
        ("happy or sad", None),
        ("Maybe sad.", None),
        ("I cannot tell the emotion.", None),
        ("angry", None),
        ("", None),
        (None, None),
    ],
)
def test_read_label(reply: str | None, label: str | None) -> None:
    assert cl.read_label(reply, LABELS, synonyms={"joyful": "happy"}) == label


def test_whole_reply_mode_and_normalisation() -> None:
    assert cl.read_label(" Very_Happy ", LABELS, whole=True) == "very happy"
    assert cl.read_label("very happy indeed", LABELS, whole=True) is None
    assert cl.normalised("Sci-Fi, drama!") == "sci fi drama"


def test_metrics_on_pairs() -> None:
    pairs = [
        cl.label_pair("a", "a"),
        cl.label_pair("a", "b"),
        cl.label_pair("b", "b"),
        cl.label_pair("b", None),
    ]
    assert cl.label_accuracy(pairs) == 50.0 and cl.label_accuracy([]) is None
    # a: tp 1, fn 1, fp 0 -> 2/3; b: tp 1, fn 1, fp 1 -> 1/2
    assert cl.macro_f1(pairs) == pytest.approx(100 * (2 / 3 + 1 / 2) / 2)
    assert cl.weighted_f1(pairs) == pytest.approx(100 * (2 / 3 + 1 / 2) / 2)


def test_chance_levels_match_a_simulated_uniform_guesser() -> None:
    rng = random.Random(7)
    labels = ("a", "b", "c")
    golds = ["a"] * 3000 + ["b"] * 1500 + ["c"] * 500
    assert cl.chance_accuracy(labels) == pytest.approx(100 / 3)
    for average, metric in (("macro", cl.macro_f1), ("weighted", cl.weighted_f1)):
        simulated = sum(metric([(g, rng.choice(labels)) for g in golds]) for _ in range(20)) / 20
        assert cl.chance_f1(golds, labels, average) == pytest.approx(simulated, abs=0.5)
    assert cl.chance_f1([], labels) is None
