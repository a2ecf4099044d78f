"""AIR-Bench Chat: judge messages, judge reply parsing and the two-order aggregation, on hand-computed cases."""

from __future__ import annotations

import pytest

from avibench.benchmarks.airbench.judging import judge_messages
from avibench.items import Item, Part
from avibench.kits.published import published_table
from avibench.level_metrics.airbench import REFERENCE, STRICT
from avibench.level_metrics.airbench_chat import chat_block, parse_judge_reply


@pytest.mark.parametrize(
    ("reply", "reference", "strict"),
    [
        ("8 7", (8, 7), (8, 7)),
        (" 8 7\n", (8, 7), (8, 7)),
        ("10 9", (10, 9), (10, 9)),
        ("0 10", (0, 10), None),  # the strict parser holds the judge to the 1-10 scale it was asked for
        (
            "11 7",
            None,
            None,
        ),  # above 10: a failure in both (the official exit(1) is caught by its bare except)
        ("8 12", None, None),
        ("8  7", None, None),
        ("8\t7", None, None),
        ("8\n7", None, None),  # newlines are removed: "87" is one token
        ("8 \n7", (8, 7), (8, 7)),
        ("8\r\n 7", (8, 7), None),  # only "\n" is removed: "8\r" is a token, and int() reads it
        ("8\t 7", (8, 7), None),  # int("8\t") is 8
        ("8, 7", None, None),
        ("8 7 6", None, None),
        ("Assistant 1: 8", None, None),
        ("", None, None),
        ("   ", None, None),
        ("+7 8", (7, 8), None),
        ("-3 5", (-3, 5), None),
        ("7 -12", (7, -12), None),
        ("7.5 8", None, None),
        ("1_0 5", (10, 5), None),
        ("1__0 5", None, None),
        ("_1 5", None, None),
        ("007 08", (7, 8), (7, 8)),
        ("\uff18 \uff17", (8, 7), None),  # full-width digits
        ("\u0667 \u0968", (7, 2), None),  # Arabic-Indic and Devanagari digits
        ("\u00b2 3", None, None),  # a superscript is a digit to str.isdigit() but not to int()
        ("7\u00a0 8", (7, 8), None),  # int() strips the no-break space
        ("0x7 8", None, None),
        ("\u2167 8", None, None),  # Roman numeral eight
    ],
)
def test_parse_judge_reply(
    reply: str, reference: tuple[int, int] | None, strict: tuple[int, int] | None
) -> None:
    assert parse_judge_reply(reply, REFERENCE) == reference
    assert parse_judge_reply(reply, STRICT) == strict


def test_reference_parser_agrees_with_python_int_on_every_two_token_reply() -> None:
    """The reference parser is the official reading: each token as int() reads it, then at most 10."""
    tokens = [
        "7",
        "+7",
        "-7",
        "07",
        "1_0",
        "7\t",
        "\u0667",
        "\uff17",
        "seven",
        "7.0",
        "",
        "11",
        "10",
        "\u00b2",
    ]
    for first in tokens:
        for second in tokens:
            try:
                expected = (int(first), int(second))
                if max(expected) > 10:
                    expected = None
            except ValueError:
                expected = None
            assert parse_judge_reply(f"{first} {second}", REFERENCE) == expected, (first, second)


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


def _j(item: str, task: str, order: str, scores: tuple[int, int] | None) -> tuple[str, str, str, str]:
    """A judgement whose reply gives ``scores``, or (``None``) a reply without scores."""
    reply = "Both answers are fine." if scores is None else f"{scores[0]} {scores[1]}"
    return item, task, order, reply


def _values(judgements: list[tuple[str, str, str, str]], missing: list[str] = ()) -> list[dict]:
    """The Chat values of the judged items (replies by order) and of the unanswered ones (``missing`` task names)."""
    by_item: dict[str, dict] = {}
    for item, task, order, reply in judgements:
        by_item.setdefault(item, {"task_name": task, "replies": {}})["replies"][order] = reply
    return [*by_item.values(), *({"task_name": task, "replies": None} for task in missing)]


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
    block = chat_block(_values(FIXTURE, MISSING), REFERENCE)
    speech = block["categories"]["speech"]
    assert speech == {
        "score": pytest.approx((19 / 3 + 5.5) / 2),
        "reference_score": pytest.approx(6.0),
        "win_rate": pytest.approx((1 / 3 + 1 / 2) / 2),
        "n": 3,
        "judge_failures": 1,
        "orders": {
            "reference_first": {
                "n": 3,
                "score": pytest.approx(19 / 3),
                "reference_score": pytest.approx(6.0),
                "win_rate": pytest.approx(1 / 3),
            },
            "model_first": {"n": 2, "score": 5.5, "reference_score": 6.0, "win_rate": 0.5},
        },
    }
    assert block["categories"]["sound"] == {
        "score": 7.0,
        "reference_score": 5.0,
        "win_rate": 1.0,
        "n": 1,
        "judge_failures": 0,
        "orders": {
            "reference_first": {"n": 1, "score": 7.0, "reference_score": 5.0, "win_rate": 1.0},
            "model_first": {"n": 1, "score": 7.0, "reference_score": 5.0, "win_rate": 1.0},
        },
    }
    assert block["mixed"] == pytest.approx(6.0)
    assert block["average"] == pytest.approx(((19 / 3 + 5.5) / 2 + 7 + 6 + 6) / 4)


def test_strict_chat_block() -> None:
    block = chat_block(_values(FIXTURE, MISSING), STRICT)
    speech = block["categories"]["speech"]
    assert {k: v for k, v in speech.items() if k != "orders"} == {
        "score": pytest.approx(4.0),
        "reference_score": pytest.approx(6.0),
        "win_rate": pytest.approx(1 / 3),
        "n": 4,
        "judge_failures": 1,
        "missing": 1,
    }
    assert block["average"] == pytest.approx(5.75)


def test_empty_category_gives_no_average() -> None:
    block = chat_block(_values(FIXTURE[:6]))
    assert block["categories"]["music"]["score"] is None
    assert block["mixed"] is None and block["average"] is None


def test_unknown_task_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="not an AIR-Bench Chat task"):
        chat_block(_values([_j("x", "speech_qa", "reference_first", (1, 2))]))


def test_published_chat_average_is_mean_of_four() -> None:
    chat = published_table("airbench", "chat")
    for row in chat.rows:
        if row["average"] is not None:
            mean = (row["speech"] + row["sound"] + row["music"] + row["mixed"]) / 4
            agrees = mean == pytest.approx(row["average"], abs=0.011)
            assert agrees == (row["model"] not in chat.facts["average_mismatch"]), row["model"]
    assert chat.row("Qwen2-Audio")["average"] == 6.93
