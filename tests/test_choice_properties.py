"""Property tests for the strict multiple-choice extractor: total, in range, and exact on plain option texts."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avibench.refine.choice import STANDARD_LETTERS, choose, read_choice

PIECES = st.sampled_from(
    ["A", "B", "(C)", "D.", "answer", "The answer is", "Answer:", "not", "either", "or", "because", "**", "\\boxed{",
     "}", "<think>", "</think>", "<answer>", "</answer>", "option", "I choose", "is the correct answer", "\n", " ",
     ",", ".", "dog", "cat", "3", "three", "no", "yes", "男声", "é", "\x00", "\ufffd", "#", "_"]
)  # fmt: skip
REPLIES = st.one_of(st.lists(PIECES, max_size=40).map(" ".join), st.text(max_size=400))
OPTION_LISTS = st.lists(st.one_of(st.text(max_size=20), PIECES), max_size=7)
LETTERS = st.one_of(st.none(), st.just(()), st.lists(st.sampled_from(["A", "B", "1", "2", "x"]), max_size=4))

WORDS = ["dog", "cat", "piano", "guitar", "rain", "wind", "car", "train", "bird", "violin", "drum", "engine",
         "crowd", "bell", "water", "siren", "forest", "city", "beach", "kitchen", "3", "seven"]  # fmt: skip
REAL_OPTIONS = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3, unique=True).map(" ".join),
    min_size=2,
    max_size=6,
    unique_by=lambda o: tuple(o.split()),
)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(raw=REPLIES, options=OPTION_LISTS, letters=LETTERS)
def test_never_raises_and_stays_in_range(raw: str, options: list[str], letters: list[str] | None) -> None:
    result = read_choice(raw, options, letters)
    assert result.index is None or 0 <= result.index < len(options)
    assert isinstance(result.rule, str) and result.rule
    assert read_choice(raw, options, letters) == result  # deterministic


@SETTINGS
@given(options=REAL_OPTIONS, data=st.data())
def test_plain_option_text_is_chosen(options: list[str], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    text = options[index]
    style = data.draw(
        st.sampled_from(
            ["{t}", "{t}.", "{T}", "The answer is {t}.", "Answer: {t}", "**{t}**", "I choose {t}.", "\\boxed{{{t}}}",
             "<think>maybe not {t}</think>{t}", "The correct option is {t}, based on the recording."]
        )
    )  # fmt: skip
    reply = style.format(t=text, T=text.upper())
    assert choose(reply, options, letters=()) == index
    assert choose(reply, options) == index


@SETTINGS
@given(options=REAL_OPTIONS, data=st.data())
def test_letters_choose_by_position(options: list[str], data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    letter = STANDARD_LETTERS[index]
    style = data.draw(st.sampled_from(["{l}", "({l})", "{l}.", "The answer is {l}.", "Answer: ({l}) {t}"]))
    assert choose(style.format(l=letter, t=options[index]), options) == index


@SETTINGS
@given(options=REAL_OPTIONS, data=st.data())
def test_two_options_without_commitment_are_refused(options: list[str], data: st.DataObject) -> None:
    first, second = data.draw(st.permutations(range(len(options))))[:2]
    reply = f"It is either {options[first]} or {options[second]}."
    assert choose(reply, options) is None
