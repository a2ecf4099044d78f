"""Rules refuse answers that take themselves back, and read lists and listings as a whole.

Each case is a kind of error the fresh held-out parts found on their first run (the wording here is new): a
marked answer that the prose contradicts must stay unparsed, and a determinable answer of the same shape must
still resolve, so each refusal is tested beside its resolving twin.
"""

from __future__ import annotations

import json

import pytest

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import build_context
from avibench.refine.rules import apply_rules

COLOURS = ["blue", "green", "red", "puprle", "yellow", "no available option", "not sure"]
YES_NO = ["yes", "no", "not sure"]
OBJECTS = ["cube", "pyramid", "cone", "sphere", "no availabel option", "not sure"]


def _refine(
    task: str, raw: str, *, question: str = "", options: object = "", n: int | None = None
) -> str | None:
    ctx = build_context(AVIBENCH.task(task), question=question, options=options, n_candidates=n)
    return apply_rules(raw, ctx)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("**green**\n\nOn a closer look it is actually yellow.", None),
        ("**green**\n\nThe square in the corner is green.", "**green**"),
    ],
)
def test_a_self_correction_after_the_marked_answer(raw: str, expected: str | None) -> None:
    assert _refine("VSQA_I", raw, question="What colour is the square?", options=COLOURS) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("**Yes**\n\nThe drum is much quieter than the violin, so the drum is not louder.", None),
        ("**Yes**\n\nThe drum hits cover the violin, so the drum is louder.", "**yes**"),
    ],
)
def test_a_yes_whose_conclusion_is_negative(raw: str, expected: str | None) -> None:
    assert _refine("AVQA", raw, question="Is the drum louder than the violin?", options=YES_NO) == expected


def test_a_numbered_list_of_options_is_one_multi_select_answer() -> None:
    assert _refine("AVSQA", "1. pyramid\n2. sphere", question="Which objects sound?", options=OBJECTS) in (
        "**pyramid;sphere**",
        "**sphere;pyramid**",
    )


def test_an_option_denied_after_its_name_is_not_chosen() -> None:
    raw = "#sphere#\n\nThe noise clearly comes from the pyramid; the sphere never touches anything."
    assert _refine("AVSQA", raw, question="Which objects sound?", options=OBJECTS) is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("You can hear three dogs barking.\nanswer={'dog': 2}", None),
        ("You can hear a dog barking twice.\nanswer={'dog': 1}", {"dog": "1"}),
        ("Counts: guitar (1), drum (2)\nanswer={'guitar': 1, 'drum': 2}", {"guitar": "1", "drum": "2"}),
    ],
)
def test_a_count_dict_contradicted_by_its_prose(raw: str, expected: dict[str, str] | None) -> None:
    got = _refine("AMIC", raw)
    assert (json.loads(got) if got else None) == expected


def test_grounding_output_is_counted_by_label() -> None:
    raw = '[{"bbox_2d": [1, 2, 30, 40], "label": "cat"}, {"bbox_2d": [50, 2, 90, 40], "label": "cat"}]'
    assert json.loads(_refine("VMIC", raw) or "{}") == {"cat": "2"}


def test_unquoted_keys_are_read() -> None:
    assert json.loads(_refine("VMIC", "answer: {cat: 2, dog: 1}") or "{}") == {"cat": "2", "dog": "1"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("[1, 3]\n\nOnly the second clip has the engine sound.", None),
        ("[1]\n\nOnly the second clip has the engine sound.", "[1]"),
        (
            "Clip 0: rain - no.\nClip 1: engine - matches.\nClip 2: engine again - matches.\n\nAnswer: [1, 2]",
            "[1, 2]",
        ),
        ("Clip 0: rain.\nClip 1: birds.\nClip 2: engine.\nSo the engine is in Clip 2 and Clip 1.", "[2, 1]"),
        ("Matches:\n1. Index 4 - a car\n2. Index 0 - a truck", "[4, 0]"),
    ],
)
def test_retrieval_lists_and_listings(raw: str, expected: str | None) -> None:
    assert _refine("VAR", raw, n=5) == expected


def test_a_boxed_object_the_prose_says_is_silent() -> None:
    raw = "answer={'piano_1': '[0.1, 0.2, 0.5, 0.6]'}\n\nThe piano is not being played; a violin makes the sound."
    assert _refine("AVL", raw) is None


def test_frames_without_a_box_while_the_prose_says_every_frame() -> None:
    boxes = ", ".join(f"'frame_{k}': {'[0.1, 0.2, 0.5, 0.6]' if k < 5 else 'None'}" for k in range(10))
    assert _refine("AVLG", f"answer={{{boxes}}}") is not None
    assert (
        _refine("AVLG", f"answer={{{boxes}}}\n\nThe drummer is visible in every one of the frames.") is None
    )
