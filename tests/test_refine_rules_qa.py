"""Rule refine for QA families: realistic answers (Gemini, GPT-4o, Qwen-Omni styles) -> ``**answer**`` or None."""

from __future__ import annotations

import pytest

from avibench.refine.context import YES_NO_OPTIONS, RefineContext
from avibench.refine.rules_qa import parse_qa

YES_NO = RefineContext(task="AVQA", family="qa", options=YES_NO_OPTIONS, question="Is the man singing?")
SIDES = RefineContext(
    task="VSQA_I", family="qa", options=("center", "left", "right", "not sure"), question="Where?"
)
SPACE = RefineContext(
    task="VSQA_I",
    family="qa",
    options=("center", "top left", "top center", "top right", "bottom left", "bottom center", "bottom right",
             "no available option", "not sure"),
    question="Where is the red dot?",
)  # fmt: skip
SHAPES = RefineContext(
    task="VSQA_V",
    family="qa",
    options=("Triangular pyramid", "Cone", "Cube", "Sphere", "None", "not sure"),
    question="What shape is moving?",
)
CHANGE = RefineContext(
    task="VSQA_V",
    family="qa",
    options=("Bottom-left to top-right", "Bottom-right to top-left", "Top-left to bottom-right",
             "Top-right to bottom-left", "None", "not sure", "No movement"),
    question="How does the object move?",
)  # fmt: skip
AVSQA = RefineContext(
    task="AVSQA",
    family="qa",
    options=("cube", "pyramid", "cone", "sphere", "no availabel option", "not sure"),
    multi_answer=True,
    question="Which objects make a sound?",
)
BEATS = RefineContext(task="ASQA", family="qa", subtask="beats_counting", expects_number=True, options=())
COLORS = RefineContext(
    task="VSQA_I",
    family="qa",
    options=("blue", "green", "red", "puprle", "yellow", "no available option", "not sure"),
    question="What colour?",
)
FREE = RefineContext(task="AVSQA", family="qa", options=YES_NO_OPTIONS, question="Can you see anything?")

CASES = [
    # yes / no questions
    (YES_NO, "The answer is **yes**.", "**yes**"),
    (YES_NO, "Yes.", "**yes**"),
    (YES_NO, "No, the man in the video is not singing; he is only talking.", "**no**"),
    (YES_NO, "**Answer:** No", "**no**"),
    (YES_NO, "answer=yes", "**yes**"),
    (YES_NO, '```json\n{"answer": "no"}\n```', "**no**"),
    (YES_NO, "Based on the audio, the voice is clearly a man singing a melody. So, yes.", "**yes**"),
    (YES_NO, "<think>The voice has a melody.</think>Yes, he is singing.", "**yes**"),
    (YES_NO, "(B) no", "**no**"),
    (YES_NO, "Option A", "**yes**"),
    (YES_NO, "I'm not sure.", "**not sure**"),
    (YES_NO, "Yes<|endoftext|>", "**yes**"),
    (YES_NO, "yes or no", None),
    (YES_NO, "No, I cannot tell from the video whether he is singing.", None),
    (YES_NO, "No doubt about it: he is singing.", None),
    (YES_NO, "There is no microphone visible in the video, and the man is moving his lips.", None),
    (YES_NO, "I'm sorry, but I can't watch videos.", None),
    (YES_NO, "", None),
    (YES_NO, "**Yes** ... actually, on reflection, **No**.", None),
    # option questions
    (SIDES, "The object is on the left.", "**left**"),
    (SIDES, "It's not on the left, it's on the right.", "**right**"),
    (SIDES, "Either left or right, I cannot decide.", None),
    (SIDES, "**Right**", "**right**"),
    (SIDES, "The left one is brighter than the right one.", "**left**"),
    (SIDES, "I'm not sure, but I think it's the left one.", None),
    (SIDES, "Answer: C", "**right**"),
    (SIDES, "The sound is louder on this side because the left speaker is muted.", None),
    (SPACE, "The red dot is in the **top center** of the image.", "**top center**"),
    (SPACE, "The dot appears at the bottom right corner.", "**bottom right**"),
    (SHAPES, "The moving object is a **cube**.", "**Cube**"),
    (SHAPES, "Triangular pyramid", "**Triangular pyramid**"),
    (CHANGE, "The object moves from the bottom-left to the top-right.", "**Bottom-left to top-right**"),
    (CHANGE, "**Top-right to bottom-left**", "**Top-right to bottom-left**"),
    (COLORS, "The square is purple.", "**puprle**"),
    (COLORS, "It could be red or purple.", None),
    # AVSQA: several options, ';'-separated
    (AVSQA, "#cube;sphere#", "**cube;sphere**"),
    (AVSQA, "After watching and listening: #cone;sphere#", "**cone;sphere**"),
    (AVSQA, "**Cube; Sphere**", "**cube;sphere**"),
    (AVSQA, "The answer is #cube#.", "**cube**"),
    (AVSQA, "#No available option#", "**no availabel option**"),
    (AVSQA, "The sounding objects are the cube and the sphere.", "**cube;sphere**"),
    (AVSQA, "#cube or sphere#", None),
    (FREE, "#yes#", "**yes**"),
    # counting
    (BEATS, "I counted four beats.", "**4**"),
    (BEATS, "The answer is **4**.", "**4**"),
    (BEATS, "Answer: 7", "**7**"),
    (BEATS, "The drum is hit twice.", "**2**"),
    (BEATS, "There are 6 beats, since the drum is hit every 2 seconds over 12 seconds.", "**6**"),
    (BEATS, "There are 3 or 4 beats.", None),
    (BEATS, "There are 12 beats in 6 seconds.", None),
    (BEATS, "I cannot determine the number of beats.", None),
]


@pytest.mark.parametrize(("ctx", "raw", "expected"), CASES)
def test_parse_qa(ctx: RefineContext, raw: str, expected: str | None) -> None:
    assert parse_qa(raw, ctx) == expected


@pytest.mark.parametrize("raw", [None, 42, "x" * 100_000, "\x00\xff\ufffd" * 50, "**", "####", "((((", "NaN"])
def test_parse_qa_refuses_junk(raw: object) -> None:
    for ctx in (YES_NO, SIDES, AVSQA, BEATS):
        assert parse_qa(raw, ctx) is None


def test_counting_falls_back_to_options_for_a_pre_question() -> None:
    ctx = RefineContext(task="ASQA", family="qa", expects_number=True, options=YES_NO_OPTIONS)
    assert parse_qa("Yes, I can hear a drum.", ctx) == "**yes**"


COLOURS = RefineContext(
    task="AVSQA",
    family="qa",
    options=("red", "blue", "white", "black", "gray", "green", "no availabel option", "not sure"),
    multi_answer=True,
    question="Which objects make a sound?",
)
COUNT_Q = RefineContext(task="ASQA", family="qa", expects_number=True, question="How many beats do you hear?")
SECONDS_Q = RefineContext(task="ASQA", family="qa", expects_number=True, question="How long is the sound?")
MOVE_2D = RefineContext(
    task="VSQA_V",
    family="qa",
    options=("horizontal", "inclined", "vertical", "no movenment", "None", "not sure"),
    question="How does the object move?",
)
FIRST = RefineContext(
    task="AVQA", family="qa", options=("cello", "violin", "piano", "not sure"), question="Which plays first?"
)
LAST = RefineContext(
    task="AVQA", family="qa", options=("cello", "violin", "piano", "not sure"), question="Which plays last?"
)

NEW_STYLES = [
    (AVSQA, "Both the cone one and the pyramid one.", "**cone;pyramid**"),
    (AVSQA, "* **Sphere**\n* **Cube**", "**sphere;cube**"),
    (AVSQA, "cone, sphere, cube", "**cone;sphere;cube**"),
    (AVSQA, "The cone and the torus.", None),
    (AVSQA, "The cube and the sphere, but not the cone.", None),
    (AVSQA, "- **Cube**\n- **Cube and sphere**", None),
    (COLOURS, "The grey and the green ones are sounding.", "**gray;green**"),
    (COLOURS, "The red one and the purple one.", None),
    (COUNT_Q, "I hear 7 beats spread over about 5 seconds.", "**7**"),
    (COUNT_Q, "Roughly 2 beats per second, 9 beats overall.", "**9**"),
    (COUNT_Q, "There are 3 drums and 6 beats.", None),
    (SECONDS_Q, "It lasts 4 seconds and has 3 beats.", "**4**"),
    (MOVE_2D, "The circle travels from the bottom to the top.", "**vertical**"),
    (MOVE_2D, "The circle moves right, horizontally.", "**horizontal**"),
    (MOVE_2D, "It moves vertically from left to right.", None),
    (FIRST, "The cello begins, then the piano joins.", "**cello**"),
    (FIRST, "The piano enters after the violin.", "**violin**"),
    (LAST, "The cello begins, then the piano joins.", "**piano**"),
    (FIRST, "The cello and then the piano, after the violin.", None),
    # a marked answer that the prose contradicts
    (BEATS, "Four beats are audible.\n**Answer: 5**", None),
    (SIDES, "It sits on the left.\n\nAnswer: **right**", None),
    (SIDES, "It sits on the right.\n\nAnswer: **right**", "**right**"),
]


@pytest.mark.parametrize(("ctx", "raw", "expected"), NEW_STYLES)
def test_parse_qa_new_styles(ctx: RefineContext, raw: str, expected: str | None) -> None:
    assert parse_qa(raw, ctx) == expected


def test_times_listed_with_a_unit_are_not_counts_and_answer_lines_do_not_hide_prose() -> None:
    assert parse_qa("Beats occur at 1, 3 and 5 seconds.", COUNT_Q) is None
    clarity = RefineContext(
        task="ASQA", family="qa", options=("first", "last", "same", "not sure"), question="?"
    )
    assert parse_qa("The last clip is much louder.\n\n**Answer:** first", clarity) is None
    assert parse_qa("The last clip is much louder.\n\n**Answer:** last", clarity) == "**last**"


ORDER = RefineContext(
    task="AVQA",
    family="qa",
    options=("piano", "violin", "drum", "not sure"),
    question="Which instrument starts playing first?",
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The **piano** begins first, followed by the violin.", "**piano**"),
        (
            "The violin plays first, then the piano.\n\n**piano**",
            None,
        ),  # the marked answer contradicts the prose
        ("**piano**", "**piano**"),
    ],
)
def test_a_word_marked_inside_its_sentence_is_read_with_that_sentence(raw: str, expected: str | None) -> None:
    assert parse_qa(raw, ORDER) == expected


MOVE_3D = RefineContext(
    task="VSQA_V",
    family="qa",
    options=("Rotation", "Shrinking", "Translation", "Enlarging", "None", "not sure"),
    question="What kind of movement does the object make?",
)
MOVE_2D = RefineContext(
    task="VSQA_V",
    family="qa",
    options=("horizontal", "inclined", "vertical", "no movenment", "None", "not sure"),
    question="How does the object move?",
)
CLARITY = RefineContext(
    task="ASQA", family="qa", options=("first", "last", "same", "not sure"), question="Which clip is clearer?"
)
INSTRUMENTS = RefineContext(
    task="AVQA",
    family="qa",
    options=(
        "violin",
        "piano",
        "acoustic_guitar",
        "electric_bass",
        "drum",
        "not sure",
        "no available option",
    ),
    question="Which instrument is the loudest?",
)
IMAGE_QUALITY = RefineContext(
    task="VSQA_I",
    family="qa",
    options=("blurred", "normal", "clear", "not sure"),
    question="How is the image?",
)
EASY = RefineContext(
    task="VSQA_I",
    family="qa",
    options=("the right one", "the left one", "the middle one", "the bottom one", "the top one"),
    question="Which square is the brightest?",
)

ALIASES = [
    (MOVE_3D, "The cube is rotating around its vertical axis.", "**Rotation**"),
    (MOVE_3D, "It keeps spinning in place.", "**Rotation**"),
    (MOVE_3D, "The sphere gets smaller over time.", "**Shrinking**"),
    (MOVE_3D, "The object grows larger as the video plays.", "**Enlarging**"),
    (MOVE_3D, "The object is not rotating; it gets bigger.", "**Enlarging**"),
    (MOVE_3D, "It rotates while getting smaller.", None),
    (MOVE_2D, "The object does not move at all.", "**no movenment**"),
    (MOVE_2D, "The triangle stays still for the whole clip.", "**no movenment**"),
    (CHANGE, "The object is stationary.", "**No movement**"),
    (CLARITY, "The second clip is clearer because the first has hiss.", "**last**"),
    (CLARITY, "The first has hiss; the second clip is clearer.", None),
    (CLARITY, "Clip 2 sounds clearer.", "**last**"),
    (CLARITY, "The former is clearer than the latter.", "**first**"),
    (CLARITY, "Both are equally clear.", "**same**"),
    (INSTRUMENTS, "The drums are the loudest.", "**drum**"),
    (INSTRUMENTS, "The guitar is the loudest.", "**acoustic_guitar**"),
    (INSTRUMENTS, "The electric guitar is the loudest.", None),
    (INSTRUMENTS, "The bass guitar is the loudest.", "**electric_bass**"),
    (IMAGE_QUALITY, "The picture is quite blurry.", "**blurred**"),
    (SHAPES, "It is a ball.", "**Sphere**"),
    (SHAPES, "A tetrahedron is moving.", "**Triangular pyramid**"),
    (EASY, "The middle one.", "**the middle one**"),
    (SIDES, "It is in the centre.", "**center**"),
]


@pytest.mark.parametrize(("ctx", "raw", "expected"), ALIASES)
def test_option_paraphrases(ctx: RefineContext, raw: str, expected: str | None) -> None:
    assert parse_qa(raw, ctx) == expected
