"""The strict multiple-choice extractor on realistic replies, in the styles real models answer in."""

from __future__ import annotations

import pytest

from avibench.refine.choice import Choice, choose, read_choice, visible_text

SPEAKER = ["Man", "Woman", "Child", "Robot"]
LOUDER = ["The first", "The second"]
COUNT = ["2", "3", "4", "5"]
PLACE = ["Mountain Canyon", "Dense Forest", "Open Grassland", "City Streets"]
ORDER = ["From far to near", "From near to far", "No movement"]
YES_NO = ["Yes", "No"]
INTENSITY = ["Intense", "Not intense"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # terse answers
        ("Woman", 1),
        ("woman.", 1),
        ("B", 1),
        ("B.", 1),
        ("(B)", 1),
        ("(B) Woman", 1),
        ("B. Woman", 1),
        ("b) Woman", 1),
        ("Option B", 1),
        ("[C]", 2),
        # declared answers
        ("The answer is (B).", 1),
        ("The answer is B", 1),
        ("Answer: B", 1),
        ("Answer - Woman", 1),
        ("The correct answer is: Woman.", 1),
        ("The most likely option is D.", 3),
        ("I choose Woman.", 1),
        ("I'd go with the child.", 2),
        ("(B) is the correct answer.", 1),
        ("Woman is the right answer here.", 1),
        ("The answer to the question about the speaker is Man.", 0),
        ("答案是B", 1),
        # markdown (Gemini style)
        ("**Answer:** B", 1),
        ("**Answer**: (B) Woman", 1),
        ("## Final Answer\n\n**B**", 1),
        ("### Answer\nThe speaker is a **woman**.", 1),
        ("The speaker is **a woman**.\n\nThe pitch and timbre point to an adult female voice.", 1),
        # boxed and tagged answers (reasoning models)
        ("$\\boxed{B}$", 1),
        ("Thus the final answer is \\boxed{\\text{Woman}}.", 1),
        ("<answer>C</answer>", 2),
        ("<think>It could be a man or a woman, hard to say.</think>\nThe answer is Woman.", 1),
        ("Reasoning about pitch...</think>B", 1),
        # revisions: the last committed answer wins
        ("The answer is A. Wait, actually the answer is B.", 1),
        ("Answer: A\n\nOn second thought, listening again, the answer is (B) Woman.", 1),
        # negation
        ("Not A, it's B.", 1),
        ("The answer is not A, it's B.", 1),
        ("It isn't a man; it's a woman.", 1),
        ("The speaker is a woman rather than a man.", 1),
        ("A man is not speaking here. The voice belongs to a woman.", 1),
        # reasons that mention other options
        ("The speaker is a woman, because a man would sound deeper.", 1),
        ("Because a man would sound deeper, the speaker must be a woman.", 1),
        ("The answer is B since A would have a much lower pitch.", 1),
        (
            "The voice has a high pitch. A man typically has a lower voice. Therefore, the speaker is a woman.",
            1,
        ),
    ],
)
def test_speaker_replies(raw: str, expected: int) -> None:
    assert choose(raw, SPEAKER) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "It's either A or B.",
        "It could be a man or a woman.",
        "I cannot determine the speaker from this audio.",
        "I'm sorry, but I can't listen to audio files.",
        "I'm not sure.",
        "Not sure",
        "The speaker is a man or a woman.",
        "Maybe B.",
        "The answer might be B.",
        "The answer is either A or B.",
        "Both A and B are plausible.",
        "It is not B.",
        "The answer is A. Hmm, actually the answer is not A.",
        "Man? No, the pitch rules that out. It is a woman or a child.",  # a question is not a lead answer
        "(A) Woman",
        "A. Man\nB. Woman\nC. Child\nD. Robot",
        "The recording has a lot of background noise.",
        "",
        "   ",
        "<think>The answer is B.</think>",
        "<think>The answer is B, I am fairly sure",
    ],
)
def test_refuses_hedges_and_non_answers(raw: str) -> None:
    assert choose(raw, SPEAKER) is None


def test_none_for_non_text() -> None:
    assert choose(None, SPEAKER) is None
    assert choose(42, SPEAKER) is None
    assert choose("B", []) is None


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("\\boxed{B}", "tagged"),
        ("The answer is B.", "commitment"),
        ("The speaker is **a woman**.", "bold"),
        ("B.", "lead"),
        ("After listening carefully to the whole clip, the speaker is clearly a woman.", "ends"),
        (
            "The clip is short. It was recorded indoors, probably. The speaker is a woman. It ends abruptly.",
            "mention",
        ),
        ("Maybe B.", "hedge"),
        ("It's either A or B.", "conflict"),
        ("(A) Woman", "conflict"),
        ("I cannot answer this question.", "refusal"),
        ("The answer is A. Actually, the answer is not A.", "retracted"),
        ("", "empty"),
        ("The clip is very short.", "none"),
    ],
)
def test_rule_names_the_evidence(raw: str, rule: str) -> None:
    assert read_choice(raw, SPEAKER).rule == rule


def test_letters_not_shown_are_not_read() -> None:
    assert choose("B", SPEAKER, letters=()) is None
    assert choose("The answer is B.", SPEAKER, letters=()) is None
    assert choose("(A) Woman", SPEAKER, letters=()) == 1
    assert choose("Woman", SPEAKER, letters=()) == 1


def test_custom_letters() -> None:
    assert choose("The answer is 2.", ["Dog", "Cat", "Bird"], letters=("1", "2", "3")) == 1
    assert choose("(3)", ["Dog", "Cat", "Bird"], letters=("1", "2", "3")) == 2
    assert choose("D", ["Dog", "Cat"], letters=("A", "B")) is None


def test_letter_that_is_also_an_option_text_is_ambiguous() -> None:
    notes = ["A", "C", "E", "G"]
    assert choose("The note is C.", notes) is None  # letter C = "E", text C = "C"
    assert choose("The note is C.", notes, letters=()) == 1


def test_article_a_is_not_a_letter() -> None:
    assert choose("A dog is barking.", ["Dog", "Cat"]) == 0
    assert choose("A", ["Dog", "Cat"]) == 0
    assert choose("A.", ["Dog", "Cat"]) == 0


@pytest.mark.parametrize(
    ("raw", "options", "expected"),
    [
        ("The first tone is louder than the second.", LOUDER, 0),
        ("The second one is louder.", LOUDER, 1),
        ("There are three beeps.", COUNT, 1),
        ("I count 4 distinct tones.", COUNT, 2),
        ("There are 3 beeps and not 2.", COUNT, 1),
        ("There are 3 dogs and 2 cats.", COUNT, None),
        ("The music likely originates from an open grassland.", PLACE, 2),
        ("Open grassland, since throat singing carries over long distances.", PLACE, 2),
        ("The answer is: the grassland, open and wide.", PLACE, 2),
        ("The answer is: the grassland, which is open and wide.", PLACE, None),
        ("From near to far", ORDER, 1),
        ("The sound moves from far to near.", ORDER, 0),
        ("Yes, there is no dog in the recording.", YES_NO, 0),
        ("No, the sound is not present.", YES_NO, 1),
        ("There is no doubt about it.", YES_NO, None),
        ("The sound is not intense.", INTENSITY, 1),
        ("Intense.", INTENSITY, 0),
    ],
)
def test_option_texts(raw: str, options: list[str], expected: int | None) -> None:
    assert choose(raw, options) == expected


def test_exact_text_beats_token_overlap() -> None:
    options = ["Guitar, Piano", "Piano, Guitar", "Drums"]
    assert choose("Piano, Guitar", options) == 1
    assert choose("piano guitar", options) == 1
    # the same words in another order: no option text appears, and the token rule cannot tell them apart
    assert choose("The answer is guitar and piano.", options) is None
    assert choose("The answer is guitar and piano.", ["Guitar, Piano", "Drums, Bass"]) == 0


def test_duplicate_option_texts_cannot_be_named_by_text() -> None:
    options = ["Dog", "dog", "Cat"]
    assert choose("Dog", options) is None
    assert choose("(B)", options) == 1


def test_unicode_options() -> None:
    options = ["男声", "女声"]
    assert choose("答案是女声", options) == 1
    assert choose("女声", options) == 1
    assert choose("Café", ["Café", "Bar"]) == 0


def test_visible_text_drops_reasoning_and_special_tokens() -> None:
    assert visible_text("<think>x</think> B<|im_end|>") == "B"
    assert visible_text("<thinking>a</thinking><reasoning>b</reasoning>Answer: C") == "Answer: C"
    assert visible_text(None) == ""


# Longer replies in the styles of real model families -----------------------------------------------------------

GEMINI = """**Analysis of the audio:**

*   **Pitch:** The fundamental frequency sits around 210 Hz, typical of an adult female voice.
*   **Timbre:** Clear, with no robotic artefacts.

**Conclusion:** The speaker is a woman.

**Answer: (B) Woman**"""

GPT4O = (
    "Based on the audio clip, the voice has a relatively high pitch and a smooth timbre, which is characteristic "
    "of an adult woman rather than a man or a child. Therefore, the correct answer is (B) Woman."
)

QWEN_OMNI = (
    "The audio features a person speaking in a calm and steady tone. The voice is relatively high-pitched and "
    "has the characteristics of an adult female. There is no indication of a robotic or synthetic quality, and "
    "the speech is too mature to be that of a child. So, the speaker is a woman."
)

QWEN_THINKING = """<think>
Let me listen. The pitch is high... could be a child? No, the articulation is mature. A robot? No artefacts.
So between man and woman: the pitch is around 220 Hz, so a woman.
</think>

The speaker is most likely a **woman**."""

REVISING = """First impression: the answer is A, a man, given the resonance.

Wait — re-listening, the resonance is actually the room, and the pitch is high.

Final answer: B"""

LISTING = """Let's evaluate each option:
A. Man - the pitch is too high for a typical adult male.
B. Woman - consistent with the pitch and timbre.
C. Child - the articulation is too mature.
D. Robot - no synthetic artefacts.

The best choice is B."""

HEDGING = """The voice is fairly high-pitched, which suggests a woman, but it could also be a young man or a child.
Without more context it is hard to say. It might be A or B."""

REFUSING = (
    "I'm sorry, but I can't listen to audio. If you can describe the voice, I can help you pick between "
    "Man, Woman, Child and Robot."
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (GEMINI, 1),
        (GPT4O, 1),
        (QWEN_OMNI, 1),
        (QWEN_THINKING, 1),
        (REVISING, 1),
        (LISTING, 1),
        (HEDGING, None),
        (REFUSING, None),
    ],
)
def test_model_styles(raw: str, expected: int | None) -> None:
    assert choose(raw, SPEAKER) == expected


def test_model_styles_without_letters() -> None:
    assert choose(GPT4O, SPEAKER, letters=()) == 1
    assert choose(QWEN_OMNI, SPEAKER, letters=()) == 1
    # the final "B" names nothing without letters, and it ends the search for an earlier answer
    assert read_choice(REVISING, SPEAKER, letters=()) == Choice(None, "none")


def test_option_repeated_verbatim_is_one_option() -> None:
    options = ["four", "nine", "fourteen", "fourteen"]  # as in some MMAU test-mini items
    assert choose("There are fourteen.", options) == 2
    assert choose("(D)", options) == 3
