"""The multiple-choice kit: lettering, gold, the official rules by name, the strict reading, baselines,
accuracy per field and rotations. The official rules are tied to the two built-in scorers that spelled them out
first (AIR-Bench's first-or-second-to-last character, OmniBench's bracketed/spaced letter parser)."""

from __future__ import annotations

import random

import pytest

from avibench.items import Item, Response
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.airbench import REFERENCE as AIRBENCH_REFERENCE
from avibench.level_metrics.airbench import choose as airbench_choose

OPTIONS = ("a dog barking", "a cat", "rain", "a car horn")


def test_lettering() -> None:
    assert mc.lettered(OPTIONS[:2]) == "A. a dog barking\nB. a cat"
    assert mc.lettered(OPTIONS[:2], line="({letter}) {text}", sep=" ") == "(A) a dog barking (B) a cat"
    assert mc.letters_for(3) == ("A", "B", "C")
    with pytest.raises(ValueError):
        mc.letters_for(27)


def test_gold_by_text_letter_and_position() -> None:
    assert mc.gold_index(OPTIONS, "rain") == 2
    assert mc.gold_index(OPTIONS, "(C)", by="letter") == 2
    assert mc.gold_index(OPTIONS, "c.", by="letter") == 2
    assert mc.gold_index(OPTIONS, 2, by="position") == 2
    for answer, by in (("snow", "text"), ("E", "letter"), (4, "position"), (True, "position")):
        with pytest.raises(ValueError):
            mc.gold_index(OPTIONS, answer, by=by)


@pytest.mark.parametrize(
    "reply",
    [
        "B",
        "B.",
        "C) rain",
        "  A\nbecause",
        "The answer is (B).",
        "answer: D",
        "(A) a dog",
        "xyz",
        "",
        "D is it",
    ],
)
def test_first_character_then_second_to_last_is_airbench_rule(reply: str) -> None:
    index = mc.official_choice(reply, OPTIONS, ("first_character", "second_to_last"), letters="ABCD")
    assert index == airbench_choose(reply, OPTIONS, AIRBENCH_REFERENCE)


@pytest.mark.parametrize(
    ("reply", "rules", "index"),
    [
        ("I think (A) fits, but (C) is it", ("bracketed",), 2),
        ("The answer is B", ("answer_prefix",), 1),
        ("**Answer:** (D) car horn", ("answer_prefix",), 3),
        ("Correct option: C", ("answer_prefix",), 2),
        ("the answer is a cat", ("answer_prefix",), None),
        ("It is **B**.", ("bold",), 1),
        ("**A** or **B**", ("bold",), None),
        (" (C) ", ("lone_letter",), 2),
        ("A. dog, maybe B", ("first_letter",), 0),
        ("A. dog, maybe B", ("last_letter",), 1),
        ("I heard rain falling", ("option_text",), 2),
        ("a cat and rain", ("option_text",), None),
        ("nothing here", ("bracketed", "answer_prefix", "option_text"), None),
        ("a cat, answer B", ("option_text", "answer_prefix"), 1),
    ],
)
def test_named_rules(reply: str, rules: tuple[str, ...], index: int | None) -> None:
    assert mc.official_choice(reply, OPTIONS, rules) == index


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown rule 'first_word'"):
        mc.official_choice("A", OPTIONS, ("first_word",))


@pytest.mark.parametrize(
    ("reply", "index"),
    [
        ("B", 1),
        ("The answer is (C) rain.", 2),
        ("**D**", 3),
        ("It could be A or B.", None),
        ("I cannot tell from the audio.", None),
        ("A and B", None),
        ("a cat", 1),
        (None, None),
    ],
)
def test_strict_reading_leaves_hedges_refusals_and_two_letters_unparsed(
    reply: str | None, index: int | None
) -> None:
    assert mc.strict_choice(reply, OPTIONS) == index


def test_lowercase_letters_are_read_only_where_they_must_be_letters() -> None:
    assert mc.strict_choice("b", OPTIONS) is None
    assert mc.strict_choice("b", OPTIONS, lowercase_letters=True) == 1
    assert mc.strict_choice("the answer is c.", OPTIONS, lowercase_letters=True) == 2
    assert mc.strict_choice("OK", OPTIONS, letters=(), lowercase_letters=True) is None


def test_baselines() -> None:
    rng = random.Random(0)
    guesses = {mc.random_reply(OPTIONS, rng) for _ in range(200)}
    assert guesses == {"A", "B", "C", "D"}
    assert mc.random_reply(OPTIONS, rng, form="text") in OPTIONS
    styles = ("({l}) {t}", "{l}", "It is maybe {t}")
    for seed in range(10):
        reply = mc.oracle_reply(
            2, OPTIONS, random.Random(seed), styles, lambda r: mc.strict_choice(r, OPTIONS) == 2
        )
        assert reply in ("(C) rain", "C")
    assert mc.oracle_reply(2, OPTIONS, rng, styles, lambda r: False) == "rain"


def test_accuracy_by_any_field_and_pooled() -> None:
    metas = [
        {"modality": "sound", "category": "Signal Layer", "sub-category": "x"},
        {"modality": "music", "category": ["Perception Layer", "Signal Layer"], "sub-category": "y"},
        {"modality": "sound", "category": "Perception Layer", "sub-category": None},
    ]
    scores = [1.0, 0.0, None]
    fixed = {"modality": ("speech", "sound", "music")}
    assert mc.accuracy_by(metas, scores, ["modality", "category"], fixed=fixed) == {
        "modality": {
            "speech": {"accuracy": 0.0, "n": 0},  # a fixed group with no question
            "sound": {"accuracy": 100.0, "n": 1},
            "music": {"accuracy": 0.0, "n": 1},
        },
        "category": {
            "Signal Layer": {"accuracy": 50.0, "n": 2},
            "Perception Layer": {"accuracy": 0.0, "n": 1},
        },
        "total": {"accuracy": 50.0, "n": 2},
    }
    assert mc.accuracy_by(metas, [None] * 3, ["modality"], total="all")["all"] == {"accuracy": None, "n": 0}
    cells = mc.accuracy_by(metas, scores, ["modality"], empty_group_zero=False)
    assert cells == {
        "modality": {"sound": {"accuracy": 100.0, "n": 1}, "music": {"accuracy": 0.0, "n": 1}},
        "total": {"accuracy": 50.0, "n": 2},
    }


def test_rotations_visit_every_position() -> None:
    runs = mc.rotations(OPTIONS, gold=1)
    assert [v for v, _, _ in runs] == ["r0", "r1", "r2", "r3"]
    assert sorted(g for _, _, g in runs) == [0, 1, 2, 3]
    for _, shown, gold in runs:
        assert shown[gold] == OPTIONS[1]
    assert mc.rotate(OPTIONS, 1) == ("a car horn", "a dog barking", "a cat", "rain")
    assert mc.rotate(OPTIONS, 4) == OPTIONS
    assert len(mc.rotations(OPTIONS, 0, runs=2)) == 2
    assert mc.rotation_of("r3") == 3 and mc.rotation_of("w1") is None


@pytest.mark.parametrize("reply", ["N/A", "n/a.", "NA", "**N/A**", "Not applicable"])
def test_strict_reading_takes_no_letter_from_a_reply_that_says_not_available(reply: str) -> None:
    options = ["piano", "violin", "drum", "flute"]
    assert mc.strict_choice(reply, options) is None
    assert mc.strict_choice("A", options) == 0  # a letter alone still reads
    assert mc.strict_choice("N/A", ["N/A", "piano"]) == 0  # unless an option says so


def test_strict_index_takes_refine_where_it_ran_and_the_extractor_otherwise() -> None:
    item = Item("b", "t", "q1", (), "dog", options=("cat", "dog"))
    extractor = lambda raw: None if raw is None else int(raw == "dog")  # noqa: E731
    assert mc.strict_index(Response(item, "answered", "dog"), extractor) == 1
    assert mc.strict_index(Response(item, "answered", "dog", "cat", "rule"), extractor) == 0
    assert mc.strict_index(Response(item, "answered", "dog", None, "unparsed"), extractor) is None
