"""Property tests: whatever the text, a rule answer lies in the task's answer space (or there is none).

Texts are built from the pieces real answers are made of (option words, non-options of the same kind,
numbers with and without units, boxes in every convention, tables, bullets, hedges), so the new readings
(prose multi-select, directions, orders, boxes in prose and tables) are exercised, not only random noise.
"""

from __future__ import annotations

import ast
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.definitions import constants_for
from avibench.refine.context import RefineContext, class_list
from avibench.refine.rules import apply_rules

OBJECTS = ("cube", "pyramid", "cone", "sphere", "no availabel option", "not sure")
MOVES = ("Bottom-left to top-right", "Bottom-right to top-left", "Top-left to bottom-right",
         "Top-right to bottom-left", "None", "not sure", "No movement")  # fmt: skip
CLASSES = tuple(constants_for("AVQA")["avqa_cls_list"])
QA = [
    RefineContext(
        task="AVSQA", family="qa", options=OBJECTS, multi_answer=True, question="Which objects sound?"
    ),
    RefineContext(task="VSQA_V", family="qa", options=MOVES, question="How does it move?"),
    RefineContext(
        task="VSQA_V",
        family="qa",
        options=("horizontal", "inclined", "vertical", "no movenment", "None", "not sure"),
    ),
    RefineContext(task="AVQA", family="qa", options=CLASSES, question="Which instrument plays first?"),
    RefineContext(
        task="ASQA", family="qa", expects_number=True, question="How many times does the drum beat?"
    ),
    RefineContext(task="ASQA", family="qa", expects_number=True, question="How many seconds does it last?"),
]
MIC = RefineContext(task="AMIC", family="mic", classes=class_list(AVIBENCH.task("AMIC")))
AVL = RefineContext(task="AVL", family="avl", classes=class_list(AVIBENCH.task("AVL")))
AVLG = RefineContext(task="AVLG", family="avlg")

WORDS = st.sampled_from(
    ["cube", "sphere", "cylinder", "red", "the", "and", "or", "both", "one", "not", "silent", "**", "#", ";", ",",
     "\n- ", "\n| ", " | ", "|---|", "moves", "from", "left", "right", "top", "bottom", "to", "up", "down",
     "diagonally", "piano", "violin", "first", "followed by", "then", "after", "before", "3", "four", "seconds",
     "every", "beats", "times", "dog", "×", "x", "2", ":", "=", "[0.1, 0.2, 0.5, 0.6]", "[0.5, 0.2, 0.1, 0.6]",
     "[64, 48, 320, 240]", "(10, 20)", "{", "}", '"bbox_2d"', '"label"', '"x_min"', "frame_0", "all frames",
     "[x, y, width, height]", "pixels", "maybe", "answer:", "None", "Frame", "Count", "."]
)  # fmt: skip
TEXTS = st.lists(WORDS, max_size=30).map(" ".join)
BOX = re.compile(r"^\[(-?\d+(?:\.\d+)?(?:e-?\d+)?, ){3}-?\d+(?:\.\d+)?(?:e-?\d+)?\]$")


def _in_qa_space(answer: str, ctx: RefineContext) -> bool:
    inner = answer[2:-2]
    if not (answer.startswith("**") and answer.endswith("**") and inner):
        return False
    if ctx.expects_number:
        return inner.isdigit()
    parts = inner.split(";") if ctx.multi_answer else [inner]
    return len(set(parts)) == len(parts) and all(p in ctx.options for p in parts)


def _valid_box(values: list[float]) -> bool:
    x1, y1, x2, y2 = values
    return all(-0.05 <= v <= 1.5 for v in values) and x1 <= x2 and y1 <= y2


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, which=st.integers(0, len(QA) - 1))
def test_qa_answers_are_options_or_numbers(text: str, which: int) -> None:
    ctx = QA[which]
    answer = apply_rules(text, ctx)
    assert answer is None or _in_qa_space(answer, ctx)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_mic_answers_are_positive_whole_counts(text: str) -> None:
    answer = apply_rules(text, MIC)
    if answer is not None:
        counts = json.loads(answer)
        assert isinstance(counts, dict)
        assert all(isinstance(k, str) and k for k in counts)
        assert all(isinstance(v, str) and v.isdigit() and int(v) > 0 for v in counts.values())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_avl_answers_are_named_normalised_boxes(text: str) -> None:
    answer = apply_rules(text, AVL)
    if answer is not None:
        for key, value in json.loads(answer).items():
            assert re.fullmatch(r".+_\d+", key)
            assert BOX.match(value) and _valid_box(ast.literal_eval(value))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS)
def test_avlg_answers_cover_ten_frames_with_boxes_or_none(text: str) -> None:
    answer = apply_rules(text, AVLG)
    if answer is not None:
        frames = ast.literal_eval(answer)
        assert list(frames) == [f"frame_{k}" for k in range(10)]
        assert all(v is None or v == [] or _valid_box(v) for v in frames.values())
