"""Rule refine for VAR / AVR: realistic answers -> '[0, 3]' (0-based, comma and space), or None."""

from __future__ import annotations

import pytest

from avibench.refine.context import RefineContext
from avibench.refine.rules_retrieval import parse_retrieval

FIVE = RefineContext(task="VAR", family="retrieval", n_candidates=5)
TEN = RefineContext(task="AVR", family="retrieval", n_candidates=10)

CASES = [
    (FIVE, "[0, 3]", "[0, 3]"),
    (FIVE, "[0,3]", "[0, 3]"),
    (FIVE, "[]", "[]"),
    (FIVE, "The matching clips are [0, 3].", "[0, 3]"),
    (FIVE, "Selected indices: [4]", "[4]"),
    (FIVE, "```json\n[1, 2]\n```", "[1, 2]"),
    (FIVE, "**[1, 2]**", "[1, 2]"),
    (FIVE, "answer=[2, 0]", "[2, 0]"),
    (FIVE, '["0", "3"]', "[0, 3]"),
    (FIVE, "[3, 3, 1]", "[3, 1]"),
    (FIVE, "The candidates are [0, 1, 2, 3, 4]; the answer is [2].", "[2]"),
    (FIVE, "The first and fourth clips match the image.", "[0, 3]"),
    (FIVE, "Clip 0 and clip 3 match.", "[0, 3]"),
    (FIVE, "Indices 1 and 4.", "[1, 4]"),
    (FIVE, "0, 3", "[0, 3]"),
    (FIVE, "Clip 2 and clip 5 match.", "[1, 4]"),
    (FIVE, "None of the audio clips match the image.", "[]"),
    (TEN, "The matching images are at index 2 and 7.", "[2, 7]"),
    # refused
    (TEN, "Image 2 and image 5 match.", None),
    (FIVE, "[0, 3] or maybe [1, 3]", None),
    (FIVE, "Maybe the second or the third clip.", None),
    (FIVE, "I cannot listen to audio files.", None),
    (FIVE, "[0.5, 1]", None),
    (FIVE, "[-1]", None),
    (FIVE, "[0, 3", None),
    (FIVE, "", None),
]


@pytest.mark.parametrize(("ctx", "raw", "expected"), CASES)
def test_parse_retrieval(ctx: RefineContext, raw: str, expected: str | None) -> None:
    assert parse_retrieval(raw, ctx) == expected


def test_canonical_form_survives_the_reference_tokeniser() -> None:
    import re

    cleaned = re.sub(r"[^\w\s]", "", parse_retrieval("[0,3]", FIVE) or "")
    assert [int(t) for t in cleaned.split(" ") if t.isdigit()] == [0, 3]
