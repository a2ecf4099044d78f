"""The STAR-Bench answer parser: every official behaviour (reference) and each strict fix."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avibench.level_metrics.starbench_parse import LETTERS, is_error_response, parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE, STRICT, get_profile

FOUR = ["a cat", "a bird", "a fish", "a cow"]
CLIPS = ["clip 1 -> clip 2 -> clip 3", "clip 2 -> clip 1 -> clip 3", "clip 3 -> clip 1 -> clip 2"]
DIRECTIONS = ["left to right", "right to left"]
SIDES = ["left", "right"]
EMOTIONS = ["happy", "sad", "angry", "neutral"]
SOUNDS = ["a bird singing", "a baby crying", "a door slamming", "an alarm clock"]

# (response, options, reference token, strict token)
CASES = [
    # the regression strings verified against the official parser
    ("The answer is a dog.", FOUR, "<a>", "Z"),
    # an English article opening a sentence is no letter in strict
    ("A baby is crying in the recording.", SOUNDS, "<A>", "Z"),
    ("A dog barks in the distance.", FOUR, "<A>", "Z"),
    ("Answer: B", FOUR, "<B>", "<B>"),
    ("I think (A) is wrong; the answer is (C).", FOUR, "<C>", "<C>"),
    ("答案是C", FOUR, "Z", "<C>"),
    ("Option A: clip 1 -> clip 2. I choose B.", CLIPS, "<A>", "<B>"),
    # lower-case letters: captured by the keyword pass, never equal to the gold; unseen by the standalone pass
    ("answer is (b)", FOUR, "<b>", "<B>"),
    ("(c)", FOUR, "Z", "<C>"),
    # CJK without a word boundary, in both passes
    ("选C", FOUR, "Z", "<C>"),
    ("选择B", FOUR, "Z", "<B>"),
    ("选项是B", FOUR, "Z", "<B>"),
    ("我选D。", FOUR, "Z", "<D>"),
    ("选项A是错的", FOUR, "Z", "Z"),
    ("答案是 C", FOUR, "<C>", "<C>"),
    ("答案是(C)", FOUR, "<C>", "<C>"),
    # keyword pass first: any keyword hit beats every standalone hit
    ("(A) looks right, but my answer: B", FOUR, "<B>", "<B>"),
    # keyword ranks: bracketed before bare, whatever the position; strict takes the revised (last) commitment
    ("Answer (C). On reflection the answer is B", FOUR, "<C>", "<B>"),
    # same rank: the last position wins
    ("Answer: A. No wait, the answer is D", FOUR, "<D>", "<D>"),
    # standalone ranks: bracket (2) > option text (1) > bare letter (0)
    ("A dog barks, so (B).", FOUR, "<B>", "<B>"),
    ("B seems plausible but it is left", SIDES, "<A>", "<A>"),
    ("(B) is my pick, it is left", SIDES, "<B>", "<B>"),
    # option text only for responses of more than two words
    ("right", SIDES, "Z", "<B>"),
    ("It is right", SIDES, "<B>", "Z"),  # strict: "is right" may as well mean "is correct"
    ("It is on the right", SIDES, "<B>", "<B>"),
    ("LEFT TO RIGHT, obviously", DIRECTIONS, "<A>", "<A>"),
    # negation: the official takes the last mention, strict skips negated ones
    ("right to left, not left to right", DIRECTIONS, "<A>", "<B>"),
    ("The answer is not (A).", FOUR, "<A>", "Z"),
    ("(A) is incorrect, (B) is the one", FOUR, "<B>", "<B>"),
    ("It is (B), (A) is wrong", FOUR, "<A>", "<B>"),
    # hedges: the official resolves them by rank and position, strict never guesses
    ("The answer is A or B.", FOUR, "<A>", "Z"),
    ("The speaker might be sad or neutral.", EMOTIONS, "<D>", "Z"),
    ("Possibly B, possibly C.", FOUR, "<C>", "Z"),
    ("It is hard to say whether the speaker is male or female.", ["male", "female"], "<B>", "Z"),
    ("Maybe yes, maybe no; the clips are too short.", ["yes", "no"], "<B>", "Z"),
    ("This might be jazz, or possibly classical.", ["jazz", "classical", "rock", "hip hop"], "<B>", "Z"),
    ("I can't tell from the audio.", FOUR, "Z", "Z"),
    ("Either (A)/(C), hard to say", FOUR, "<C>", "Z"),
    ("It could be A or B, but the answer is (B)", FOUR, "<B>", "<B>"),
    # letters beyond the options are not choices
    ("Answer: C", SIDES, "Z", "Z"),
    # official error strings parse like answers
    ("ERROR: request timed out", FOUR, "Z", "Z"),
    ("", FOUR, "Z", "Z"),
]


@pytest.mark.parametrize(("response", "options", "reference", "strict"), CASES)
def test_parser_behaviours(response: str, options: list[str], reference: str, strict: str) -> None:
    assert parse_choice(response, options, REFERENCE).token == reference
    assert parse_choice(response, options, STRICT).token == strict


def test_rules_are_named() -> None:
    assert parse_choice("Answer: (B)", FOUR).rule == "keyword-bracket"
    assert parse_choice("Answer: B", FOUR).rule == "keyword-letter"
    assert parse_choice("I say (B)", FOUR).rule == "bracket"
    assert parse_choice("it goes left to right", DIRECTIONS).rule == "option-text"
    assert parse_choice("B", FOUR).rule == "letter"
    assert parse_choice("no idea", FOUR).rule == "none"
    assert parse_choice("A or B", FOUR, STRICT).rule == "conflict"
    assert parse_choice("It might be (A).", FOUR, STRICT).rule == "hedge"


def test_no_options_and_none_response() -> None:
    assert parse_choice("Answer: A", []).token == "Z"
    assert parse_choice(None, FOUR).token == "Z"


def test_error_strings() -> None:
    assert is_error_response("ERROR: 429 Too Many Requests")
    assert not is_error_response("Error analysis: the answer is A")
    assert not is_error_response(None)


def test_profiles_by_name() -> None:
    assert get_profile("strict") is STRICT
    assert get_profile(REFERENCE) is REFERENCE
    with pytest.raises(KeyError, match="known profiles"):
        get_profile("lenient")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ABCDabcd()<>[]{} :答案是选option", max_size=30), st.integers(2, 5))
def test_parsed_letters_are_options(text: str, n: int) -> None:
    options = [f"option text {k}" for k in range(n)]
    ref = parse_choice(text, options, REFERENCE).letter
    strict = parse_choice(text, options, STRICT).letter
    assert ref is None or ref.upper() in LETTERS[:n]
    assert strict is None or strict in LETTERS[:n]
