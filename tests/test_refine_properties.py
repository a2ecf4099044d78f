"""Property tests: no input makes a rule parser raise, and a canonical answer refines to itself."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import YES_NO_OPTIONS, RefineContext, class_list
from avibench.refine.rules import apply_rules

CONTEXTS = [
    RefineContext(task="AVQA", family="qa", options=YES_NO_OPTIONS, question="Is it?"),
    RefineContext(
        task="AVSQA", family="qa", options=("cube", "sphere", "cone", "not sure"), multi_answer=True
    ),
    RefineContext(task="ASQA", family="qa", expects_number=True),
    RefineContext(task="VSQA_I", family="qa", question="What?"),
    RefineContext(task="AMIC", family="mic", classes=class_list(AVIBENCH.task("AMIC"))),
    RefineContext(task="VAR", family="retrieval", n_candidates=5),
    RefineContext(task="AVL", family="avl", classes=class_list(AVIBENCH.task("AVL"))),
    RefineContext(task="AVLG", family="avlg"),
]

TOKENS = st.sampled_from(
    ["{", "}", "[", "]", "(", ")", "'", '"', ":", ",", ";", "#", "**", "```json\n", "```", "answer=", "frame_",
     "dog", "dogs", "_1", "0.1", "0.5", "1000", "1e309", "-3", "NaN", "Infinity", "None", "null", "yes", "no",
     "not sure", "cube", "two", "first", "clip", "index", " ", "\n", "\x00", "\ufffd", "é"]
)  # fmt: skip
STRUCTURED = st.lists(TOKENS, max_size=40).map("".join)
ANY_TEXT = st.text(max_size=300)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=st.one_of(STRUCTURED, ANY_TEXT), which=st.integers(0, len(CONTEXTS) - 1))
def test_parsers_never_raise_and_are_idempotent(raw: str, which: int) -> None:
    ctx = CONTEXTS[which]
    result = apply_rules(raw, ctx)
    assert result is None or (isinstance(result, str) and result)
    if result is not None:
        assert apply_rules(result, ctx) == result


@settings(max_examples=30, deadline=None)
@given(which=st.integers(0, len(CONTEXTS) - 1), junk=st.binary(max_size=200))
def test_binary_garbage_is_refused_or_handled(which: int, junk: bytes) -> None:
    result = apply_rules(junk.decode("latin-1"), CONTEXTS[which])
    assert result is None or isinstance(result, str)


def test_huge_and_deeply_nested_inputs() -> None:
    for ctx in CONTEXTS:
        assert apply_rules("[" * 5000 + "]" * 5000, ctx) is None or ctx.family == "qa"
        assert apply_rules("{'dog': 1}" + " " * 100_000, ctx) is None
