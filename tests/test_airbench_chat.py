"""AIR-Bench Chat: judge messages, judge reply parsing and the two-order aggregation, on hand-computed cases."""

from __future__ import annotations

import pytest

from avibench.benchmarks.airbench import published
from avibench.items import Item, Part
from avibench.level_metrics.airbench import REFERENCE, STRICT
from avibench.level_metrics.airbench_chat import ChatJudgement, chat_block, score_chat
from avibench.refine.airbench_judge import judge_messages, parse_judge_reply


@pytest.mark.parametrize(
    ("reply", "scores"),
    [
        ("8 7", (8, 7)),
        (" 8 7\n", (8, 7)),
        ("10 9", (10, 9)),
        ("0 10", (0, 10)),
        ("11 7", None),
        ("8 12", None),
        ("8  7", None),
        ("8\t7", None),
        ("8\n7", None),  # newlines are removed: "87" is one number
        ("8, 7", None),
        ("8 7 6", None),
        ("Assistant 1: 8", None),
        ("", None),
        ("+7 8", None),
        ("-3 5", None),
        ("7.5 8", None),
        ("1_0 5", None),
        ("\uff18 \uff17", None),  # full-width digits
    ],
)
def test_parse_judge_reply(reply: str, scores: tuple[int, int] | None) -> None:
    assert parse_judge_reply(reply) == scores


ITEM = Item(
    benchmark="airbench",
    task="chat",
    item_id="7",
    parts=(Part.audio("Chat/x.wav"), Part.text("What is the dog doing?")),
    answer="The dog is barking at a car.",
    meta={"task_name": "sound_QA", "meta_info": "A dog barks twice while a car passes."},
)


@pytest.mark.parametrize("order", ["reference_first", "model_first"])
def test_judge_messages_place_the_answers_by_order(order: str) -> None:
    (message,) = judge_messages(ITEM, "It is sleeping.", order)
    content = message["content"]
    assert message["role"] == "user"
    assert "A dog barks twice while a car passes." in content
    assert "What is the dog doing?" in content
    reference_at, model_at = content.index("The dog is barking at a car."), content.index("It is sleeping.")
    assert (reference_at < model_at) == (order == "reference_first")


def test_judge_messages_reject_unknown_order() -> None:
    with pytest.raises(ValueError, match="unknown judge order"):
        judge_messages(ITEM, "x", "both")


def _j(item: str, task: str, order: str, scores: tuple[int, int] | None) -> ChatJudgement:
    return ChatJudgement(item, task, order, scores)


FIXTURE = [
    _j("i1", "speech_QA", "reference_first", (3, 8)),
    _j("i1", "speech_QA", "model_first", (7, 4)),
    _j("i2", "speech_QA", "reference_first", (6, 6)),
    _j("i2", "speech_QA", "model_first", None),
    _j("i3", "speech_dialogue_QA", "reference_first", (9, 5)),
    _j("i3", "speech_dialogue_QA", "model_first", (4, 8)),
    _j("s1", "sound_generation_QA", "reference_first", (5, 7)),
    _j("s1", "sound_generation_QA", "model_first", (7, 5)),
    _j("m1", "music_QA", "reference_first", (5, 6)),
    _j("m1", "music_QA", "model_first", (6, 5)),
    _j("a1", "speech_and_sound_QA", "reference_first", (5, 8)),
    _j("a1", "speech_and_sound_QA", "model_first", (8, 5)),
    _j("b1", "speech_and_music_QA", "reference_first", (5, 4)),
    _j("b1", "speech_and_music_QA", "model_first", (4, 5)),
]
MISSING = ["speech_QA"]


def test_reference_chat_block() -> None:
    block = chat_block(score_chat(FIXTURE, REFERENCE, MISSING), REFERENCE)
    speech = block["categories"]["speech"]
    assert speech == {
        "score": pytest.approx((19 / 3 + 5.5) / 2),
        "reference_score": pytest.approx(6.0),
        "win_rate": pytest.approx((1 / 3 + 1 / 2) / 2),
        "n": 3,
        "judge_failures": 1,
    }
    assert block["categories"]["sound"] == {
        "score": 7.0,
        "reference_score": 5.0,
        "win_rate": 1.0,
        "n": 1,
        "judge_failures": 0,
    }
    assert block["mixed"] == pytest.approx(6.0)
    assert block["average"] == pytest.approx(((19 / 3 + 5.5) / 2 + 7 + 6 + 6) / 4)


def test_strict_chat_block() -> None:
    block = chat_block(score_chat(FIXTURE, STRICT, MISSING), STRICT)
    assert block["categories"]["speech"] == {
        "score": pytest.approx(4.0),
        "reference_score": pytest.approx(6.0),
        "win_rate": pytest.approx(1 / 3),
        "n": 4,
        "judge_failures": 1,
        "missing": 1,
    }
    assert block["average"] == pytest.approx(5.75)


def test_empty_category_gives_no_average() -> None:
    block = chat_block(score_chat(FIXTURE[:6], REFERENCE))
    assert block["categories"]["music"]["score"] is None
    assert block["mixed"] is None and block["average"] is None


def test_unknown_task_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="not an AIR-Bench Chat task"):
        score_chat([_j("x", "speech_qa", "reference_first", (1, 2))])


def test_published_chat_average_is_mean_of_four() -> None:
    for model, row in published.CHAT.items():
        if row["average"] is not None:
            mean = (row["speech"] + row["sound"] + row["music"] + row["mixed"]) / 4
            agrees = mean == pytest.approx(row["average"], abs=0.011)
            assert agrees == (model not in published.CHAT_AVERAGE_MISMATCH), model
    assert published.CHAT["Qwen2-Audio"]["average"] == 6.93
