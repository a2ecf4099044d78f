"""Rule refine for AMIC / VMIC: realistic answers -> '{"class": "count"}' on the class list, or None."""

from __future__ import annotations

import json

import pytest

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import RefineContext, class_list
from avibench.refine.rules_mic import parse_mic

AMIC = RefineContext(task="AMIC", family="mic", classes=class_list(AVIBENCH.task("AMIC")))
VMIC = RefineContext(task="VMIC", family="mic", classes=class_list(AVIBENCH.task("VMIC")))

CASES = [
    (AMIC, "answer={'dog': 2, 'man': 1}", {"dog": "2", "man": "1"}),
    (AMIC, "answer={'dog': 2, 'cat': 3, 'male': 1}", {"dog": "2", "cat": "3", "male": "1"}),
    (AMIC, '```json\n{"dogs": "2", "Man": 1}\n```', {"dog": "2", "man": "1"}),
    (
        AMIC,
        "Based on the audio, I can hear dog (2), man (1): answer={'dog': 2, 'man': 1}",
        {"dog": "2", "man": "1"},
    ),
    (AMIC, "I hear two dogs barking and a man talking.", {"dog": "2", "man": "1"}),
    (AMIC, "A woman's voice and a hair dryer.", {"woman": "1", "hair-dryer": "1"}),
    (AMIC, "{'black dog': 'two'}", {"dog": "2"}),
    (AMIC, "{'vacuum cleaner': 1, 'men': 2}", {"vacuum-cleaner": "1", "man": "2"}),
    (AMIC, "dog: 2\ncat: 1", {"dog": "2", "cat": "1"}),
    (AMIC, "- **Guitar**: 1\n- **Drum**: 2", {"guitar": "1", "drum": "2"}),
    (AMIC, "{'answer': {'piano': 1}}", {"piano": "1"}),
    (AMIC, "{'dog': 2, 'cat': 0}", {"dog": "2"}),
    (AMIC, "{'siren': 1}", {"siren": "1"}),
    (VMIC, "answer={'tree': 5, 'flower': 5}", {"tree": "5", "flower": "5"}),
    (VMIC, "In the image I can see three apples and one banana.", {"apple": "3", "banana": "1"}),
    (VMIC, "{'people': 3}", {"person": "3"}),  # a class, or the model's word in the singular
    (VMIC, "{'sunglasses': 1, 'glasses': 2}", {"sunglasses": "1", "glasses": "2"}),
    # a definite singular counts one; a place named in passing ("on the table") commits to no count
    (AMIC, "A man playing the guitar.", {"man": "1", "guitar": "1"}),
    # refused: vague, hedged, contradictory, unparseable
    (AMIC, "I hear dogs barking.", None),
    (AMIC, "There are several birds chirping.", None),
    (AMIC, "{'dog': 'many'}", None),
    (AMIC, "{'dog': 2.5}", None),
    (AMIC, "{'dog': NaN}", None),
    (AMIC, "{'dog': Infinity}", None),
    (AMIC, "{'dog': -1}", None),
    (AMIC, "A woman is singing while the drums play.", None),
    (VMIC, "There are 4 bottles on the table.", None),
    (AMIC, "Maybe a dog or a wolf.", None),
    (AMIC, "Sorry, I cannot hear the audio.", None),
    (AMIC, "answer={'dog': 2} ... correction: answer={'dog': 3}", None),
    (AMIC, "answer={'dog': 2, 'man': 1", None),
    (AMIC, "", None),
]


@pytest.mark.parametrize(("ctx", "raw", "expected"), CASES)
def test_parse_mic(ctx: RefineContext, raw: str, expected: dict[str, str] | None) -> None:
    result = parse_mic(raw, ctx)
    if expected is None:
        assert result is None
    else:
        assert result is not None and json.loads(result) == expected


def test_canonical_form_is_what_the_scorer_parses() -> None:
    result = parse_mic("answer={'dog': 2, 'man': 1}", AMIC)
    assert result == '{"dog": "2", "man": "1"}'
    assert json.loads(result.replace("'", '"')) == {"dog": "2", "man": "1"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Guitar × 1, Drum × 2", {"guitar": "1", "drum": "2"}),
        ("- 3 × bird\n- 1 × car", {"bird": "3", "car": "1"}),
        ("Sounds: piano ×1; violin ×2", {"piano": "1", "violin": "2"}),
        ("| Class | # |\n|---|---|\n| Dogs | 2 |\n| total | 2 |", {"dog": "2"}),
        ("| Source | How many |\n|---|---|\n| cat | a few |", None),
        ("| Source | Notes |\n|---|---|\n| cat | 2 |", None),
        ("Guitar × 1, Drum", None),
    ],
)
def test_parse_mic_times_lists_and_tables(raw: str, expected: dict[str, str] | None) -> None:
    result = parse_mic(raw, AMIC)
    assert (None if result is None else json.loads(result)) == expected
