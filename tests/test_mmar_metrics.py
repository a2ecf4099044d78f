"""MMAR / MMAU scoring: the official token-set match pinned behaviour by behaviour, then both profiles, the
breakdowns, chance and the profiles' disagreements as the plug-in scores them (``Benchmark.score``, what eval
runs on the journals' responses)."""

from __future__ import annotations

from typing import Any

import pytest

from avibench.evaluate.document import Heading, Paragraph
from avibench.items import Item, Response
from avibench.level_metrics.mmar import MMAR_CATEGORIES, MMAR_MODALITIES, official_tokens, token_set_match
from avibench.plugin import get_benchmark

SPEAKER = ["Man", "Woman", "Child", "Robot"]


# The regression strings verified against the official scorer -----------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "prediction", "choices", "expected"),
    [
        ("Man", "B", SPEAKER, False),
        ("Man", "(A) Man", SPEAKER, True),
        ("Man", "The speaker is a man, not a woman", SPEAKER, False),
        ("From far to near", "From near to far", ["From far to near", "From near to far"], True),
        ("3", "There are 3 dogs", ["2", "3", "4", "5"], True),
        ("3", "3 dogs and 2 cats", ["2", "3", "4", "5"], False),
    ],
)
def test_official_regressions(answer: str, prediction: str, choices: list[str], expected: bool) -> None:
    assert token_set_match(answer, prediction, choices) is expected


def test_set_semantics_ignore_order_and_repetition() -> None:
    choices = ["Guitar, Piano", "Piano, Guitar", "Drums"]
    assert token_set_match("Guitar, Piano", "piano piano GUITAR", choices)
    assert token_set_match(
        "Guitar, Piano", "Piano, Guitar", choices
    )  # the distractor verbatim scores correct


def test_distractor_with_the_answer_token_set_adds_no_incorrect_token() -> None:
    # "near" and "far" are shared; "no movement" contributes its own tokens
    choices = ["From far to near", "From near to far", "No movement"]
    assert token_set_match("From far to near", "from near to far", choices)
    assert not token_set_match("From far to near", "from far to near, no movement", choices)


def test_letter_token_in_a_distractor_breaks_lettered_answers() -> None:
    choices = ["A car passes", "Rain falls"]
    assert not token_set_match("Rain falls", "(A) Rain falls", choices)  # "a" is a distractor token
    assert token_set_match("Rain falls", "(B) Rain falls", choices)
    assert not token_set_match("C major", "(B) C major", ["B flat major", "C major"])


def test_unicode_word_tokens() -> None:
    assert official_tokens("答案是 男声！Café") == {"答案是", "男声", "café"}
    assert token_set_match("男声", "男声", ["男声", "女声"])
    assert not token_set_match("男声", "答案是男声", ["男声", "女声"])  # one CJK run is one token


def test_empty_prediction_is_wrong() -> None:
    assert not token_set_match("Man", "", SPEAKER)
    assert not token_set_match("Man", "?!", SPEAKER)  # punctuation only: no token


def test_negation_works_only_by_accident() -> None:
    choices = ["Intense", "Not intense"]
    assert not token_set_match("Intense", "Not intense", choices)
    assert token_set_match("Not intense", "not intense at all", choices)
    assert token_set_match("Intense", "It is intense", choices)


def test_tokens_lowercase_and_word_characters() -> None:
    assert official_tokens("It's a Dog_2, OK?") == {"it", "s", "a", "dog_2", "ok"}


# Profiles ----------------------------------------------------------------------------------------------------------


def _row(
    prediction: str | None,
    chosen: int | None = None,
    answer: str = "Man",
    choices: tuple[str, ...] = tuple(SPEAKER),
    **groups: Any,
) -> dict[str, Any]:
    """One question: the raw answer (``None``: never answered) and the option refine chose (``None``: unread)."""
    return {
        "prediction": prediction,
        "chosen": chosen,
        "answer": answer,
        "choices": choices,
        "groups": groups,
    }


def _scored(rows: list[dict[str, Any]], bench: str = "mmar") -> dict[str, Any]:
    """The eval document of the plug-in scoring these questions (reference primary)."""
    plugin = get_benchmark(bench)
    (task,) = plugin.tasks()
    responses = []
    for index, row in enumerate(rows):
        item = Item(
            benchmark=bench,
            task=task.name,
            item_id=str(index),
            parts=(),
            answer=row["answer"],
            index=index,
            options=row["choices"],
            template="mmar-official",
            meta=row["groups"],
        )
        chosen, choices = row["chosen"], row["choices"]
        refined = choices[chosen] if chosen is not None and chosen < len(choices) else None
        method = "rule" if refined is not None else "unparsed"
        answered = row["prediction"] is not None
        responses.append(
            Response(item, "answered", row["prediction"], refined, method)
            if answered
            else Response(item, "missing")
        )
    return plugin.score(
        {task.name: responses}, profile="reference", options={}, tasks=plugin.tasks()
    ).document


def _official(rows: list[dict[str, Any]], profile: str = "reference", bench: str = "mmar") -> dict[str, Any]:
    return _scored(rows, bench)["summary"]["by_profile"][profile]["official"]


def _total(rows: list[dict[str, Any]], profile: str) -> dict[str, Any]:
    return _official(rows, profile)["total"]


def test_reference_skips_missing_strict_counts_it_wrong() -> None:
    rows = [_row("Man", 0), _row(None)]
    assert _total(rows, "reference") == {"accuracy": 100.0, "n": 1}
    assert _total(rows, "strict") == {"accuracy": 50.0, "n": 2}


@pytest.mark.parametrize(
    ("row", "reference", "strict"),
    [
        (_row("B", chosen=0), 0.0, 100.0),  # a letter: the token-set match never reads it
        (_row("Man", chosen=None), 100.0, 0.0),  # unparsed is wrong in the strict profile
        (_row("Man", chosen=7), 100.0, 0.0),  # an index past the options is never right
        (
            _row("From near to far", 1, "From far to near", ("From far to near", "From near to far")),
            100.0,
            0.0,
        ),
    ],
)
def test_strict_scores_the_extracted_option(row: dict[str, Any], reference: float, strict: float) -> None:
    assert _total([row], "reference")["accuracy"] == reference
    assert _total([row], "strict")["accuracy"] == strict


def test_empty_string_prediction_is_scored_not_skipped() -> None:
    assert _total([_row(""), _row("Man")], "reference") == {"accuracy": 50.0, "n": 2}


# Aggregation -------------------------------------------------------------------------------------------------------


def _mmar(prediction: str | None, modality: str, category: str, sub: str | None, chosen: int | None = None):
    groups = {"modality": modality, "category": category}
    if sub is not None:
        groups["sub-category"] = sub
    return _row(prediction, chosen, **groups)


MMAR_ROWS = [
    _mmar("Man", "speech", "Signal Layer", "Speaker Analysis", 0),
    _mmar("Woman", "speech", "Signal Layer", "Speaker Analysis", 1),
    _mmar("(A) Man", "sound", "Cultural Layer", "Imagination", 0),
    _mmar("A", "sound", "Cultural Layer", None, 0),
    _mmar(None, "music", "Semantic Layer", "Imagination"),
]


def test_mmar_reference_shape_and_values() -> None:
    document = _scored(MMAR_ROWS)
    result = document["summary"]["by_profile"]["reference"]["official"]
    assert {k: document[k] for k in result} == result  # the primary profile's is the top level
    assert list(result) == ["modality", "category", "sub-category", "total"]
    assert list(result["modality"]) == list(MMAR_MODALITIES)
    assert list(result["category"]) == list(MMAR_CATEGORIES)
    assert result["modality"]["speech"] == {"accuracy": 50.0, "n": 2}
    assert result["modality"]["sound"] == {"accuracy": 50.0, "n": 2}
    assert result["modality"]["music"] == {"accuracy": 0.0, "n": 0}  # its only record had no prediction
    assert result["category"]["Cultural Layer"] == {"accuracy": 50.0, "n": 2}
    # sub-categories in first-seen order; a record without one is left out of this breakdown only
    assert result["sub-category"] == {
        "Speaker Analysis": {"accuracy": 50.0, "n": 2},
        "Imagination": {"accuracy": 100.0, "n": 1},
    }
    assert result["total"] == {"accuracy": 50.0, "n": 4}


def test_mmar_strict_values() -> None:
    result = _official(MMAR_ROWS, "strict")
    assert result["modality"]["sound"] == {"accuracy": 100.0, "n": 2}
    assert result["modality"]["music"] == {"accuracy": 0.0, "n": 1}
    assert result["modality"]["mix-sound-music"] == {"accuracy": None, "n": 0}
    assert result["total"] == {"accuracy": 60.0, "n": 5}


def test_accuracy_is_unrounded_percent() -> None:
    rows = [_mmar("Man", "speech", "Signal Layer", "x"), *[_mmar("Woman", "speech", "Signal Layer", "x")] * 2]
    assert _total(rows, "reference")["accuracy"] == 100 / 3


def test_unknown_fixed_key_value_is_reported_after_the_fixed_keys() -> None:
    result = _official([_mmar("Man", "silence", "Signal Layer", "x")])
    assert list(result["modality"])[-1] == "silence"
    assert result["modality"]["silence"] == {"accuracy": 100.0, "n": 1}


def test_no_scored_record_gives_no_total() -> None:
    assert _total([_mmar(None, "speech", "Signal Layer", "x")], "reference") == {"accuracy": None, "n": 0}


def _mmau(prediction: str, task: str, difficulty: str, category: object) -> dict[str, Any]:
    return _row(
        prediction, 0, task=task, difficulty=difficulty, **{"sub-category": "Event", "category": category}
    )


def test_mmau_breakdowns_and_list_categories() -> None:
    rows = [
        _mmau("Man", "sound", "easy", "Reasoning"),
        _mmau("Woman", "music", "hard", ["Reasoning"]),
        _mmau("Man", "speech", "medium", "Information Extraction"),
        _mmau("Man", "sound", "easy", ["A", "B"]),  # a list value counts in each group it lists
    ]
    result = _official(rows, bench="mmau")
    assert list(result) == ["task", "difficulty", "sub-category", "category", "total"]
    assert list(result["task"]) == ["sound", "music", "speech"]
    assert list(result["difficulty"]) == ["easy", "hard", "medium"]
    assert result["category"] == {
        "Reasoning": {"accuracy": 50.0, "n": 2},
        "Information Extraction": {"accuracy": 100.0, "n": 1},
        "A": {"accuracy": 100.0, "n": 1},
        "B": {"accuracy": 100.0, "n": 1},
    }
    assert result["total"]["accuracy"] == pytest.approx(300 / 4)


# Chance and disagreements ------------------------------------------------------------------------------------------


def test_chance_level() -> None:
    rows = [_mmar(None, "speech", "Signal Layer", "x"), _row(None, None, "a", ("a", "b"), modality="sound")]
    assert _scored(rows)["summary"]["chance"] == {"MMAR": 37.5}


def test_profile_disagreements() -> None:
    rows = [
        _row("Man", 0),  # both right
        _row("B", 0),  # strict only: a letter answer
        _row("The speaker is a man, not a woman", 0),  # strict only: names a distractor
        _row(
            "From near to far", 1, "From far to near", ("From far to near", "From near to far")
        ),  # reference only
        _row(None),  # not an answer: not counted
        _row("Woman", 1),  # both wrong
    ]
    differ = _scored(rows)["summary"]["profiles_differ_on"]
    assert differ == {"answers": 3, "reference_only": 1, "strict_only": 2}
    blocks = get_benchmark("mmar").report_blocks(_scored(rows), None)
    assert [b.text for b in blocks if isinstance(b, Heading)][:2] == [
        "Accuracy (%) by modality",
        "Accuracy (%) by category",
    ]
    (note,) = [b for b in blocks if isinstance(b, Paragraph)]
    assert note.text.startswith(
        "The two profiles score 3 answers differently: 1 are right only by the official"
    )
    assert ", 2 only by the strict extractor" in note.text
