"""The strict ASR reading: chatter cut by rules, refusals unread, the LLM fallback only where rules cannot tell."""

from __future__ import annotations

import pytest

from avibench.plugin import get_benchmark
from avibench.refine.asr import is_refusal, transcript


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("he hoped there would be stew", "he hoped there would be stew"),
        ('Sure! The transcription is: "I\'m going home."', "I'm going home."),
        ("Here is the transcript: hello world", "hello world"),
        ('"hello world"', "hello world"),
        ('The speaker says: "good morning". Let me know if you need anything else.', "good morning"),
        ("好的，以下是转录内容：“这是一个测试。”", "这是一个测试。"),
        ("识别结果：「今天天气很好」", "今天天气很好"),
        ("", ""),
        ("It was a silent night", "It was a silent night"),  # speech, not a refusal
        ("I'm sorry I was late", "I'm sorry I was late"),
        ("我没有说话", "我没有说话"),
        ("音频内容是：今天的天气很好", "今天的天气很好"),
        ("I can't help it if the sun is silent", "I can't help it if the sun is silent"),
        ("我听不清楚你说的话", "我听不清楚你说的话"),
    ],
)
def test_rules_read_the_transcript(reply: str, expected: str) -> None:
    assert transcript(reply) == expected
    assert not is_refusal(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "I'm sorry, I cannot hear any speech in this audio.",
        "No speech was detected in the audio.",
        "I am unable to transcribe this clip.",
        "抱歉，我无法识别这段音频。",
        "音频中没有任何语音。",
        "Sorry, I can't help with that.",
        "As an AI language model, I don't have the ability to listen to audio.",
        "The audio is silent.",
        "The recording contains no speech.",
        "对不起，我听不清楚。",
        "抱歉，无法处理这段音频。",
    ],
)
def test_refusals_are_unread_and_get_no_fallback(reply: str) -> None:
    assert is_refusal(reply) and transcript(reply) is None
    bench = get_benchmark("asr")
    assert bench.refine_prompt(None, reply) is None  # type: ignore[arg-type]


def test_chatter_the_rules_cannot_cut_goes_to_the_fallback() -> None:
    reply = "The transcription of the audio follows I went home"
    assert transcript(reply) is None and not is_refusal(reply)
    prompt = get_benchmark("asr").refine_prompt(None, reply)  # type: ignore[arg-type]
    assert prompt is not None and reply in prompt and "${response}" not in prompt
    bench = get_benchmark("asr")
    assert bench.extract(None, "No speech was detected.") is None  # type: ignore[arg-type]  # its no-transcript
