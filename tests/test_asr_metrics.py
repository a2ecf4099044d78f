"""The ASR error counts on any text: never a crash, never a negative count, a transcript against itself 0, and the
corpus metric and its resampling agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from avibench.level_metrics.asr import error_rate, tokens, utterance_errors

TEXT = st.text(
    alphabet=st.sampled_from(list("0123456789./%-$£:年月日元个点百 abcXYZ，。！？“”<|>")) | st.characters(),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(reference=TEXT, hypothesis=TEXT, language=st.sampled_from(["en", "zh", "fr"]))
def test_any_text_is_counted(reference: str, hypothesis: str, language: str) -> None:
    errors, words = utterance_errors(reference, hypothesis, language)
    assert errors >= 0 and words == len(tokens(reference, language))
    assert utterance_errors(reference, reference, language) == (0, words)
    assert utterance_errors(reference, "", language) == (words, words)


def test_the_resampled_rate_is_the_rate_of_each_draw() -> None:
    values = [(3, 10), (0, 7), (12, 5), (1, 1)]
    draws = np.array([[0, 1, 2, 3], [2, 2, 2, 0], [1, 1, 3, 3]])
    assert error_rate(values) == pytest.approx(100 * 16 / 23)
    resampled = error_rate.resample([(v,) for v in values], draws)
    assert resampled == pytest.approx([error_rate([values[i] for i in row]) for row in draws])
    assert resampled[1] == pytest.approx(100 * 39 / 25)  # above 100: insertions pile up
    assert error_rate([]) is None and error_rate([(2, 0)]) is None
