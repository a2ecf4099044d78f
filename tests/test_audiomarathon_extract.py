"""AudioMarathon answer extraction: each official rule on strings checked against the baseline scripts, and strict."""

from __future__ import annotations

import pytest

from avibench.refine.audiomarathon import official_extract, strict_extract

FOUR = ("x1", "x2", "x3", "x4")
AGES = ("Young Adult (18-30)", "Adult (31-45)", "Middle Aged (46-60)", "Senior (61-75)", "Elderly (76+)")
SCENES = ("airport - indoor hall", "metro station - underground", "street traffic - busy road", "urban park")
EMOTIONS = ("angry", "happy", "fearful", "monotone")


@pytest.mark.parametrize(
    ("task", "raw", "options", "expected"),
    [
        # RACE: the first A-D character anywhere, inside words too; no A-D at all gives the first word.
        ("SCR", "The answer is B", FOUR, "A"),
        ("SCR", "Definitely C", FOUR, "D"),
        ("SCR", "b", FOUR, "B"),
        ("SCR", "None of them", FOUR, "NONE"),
        ("SCR", "", FOUR, ""),
        # GTZAN: genre names fall through to the any-character rule.
        ("MC", "Rock", FOUR, "C"),
        ("MC", "Metal", FOUR, "A"),
        ("MC", "Blues", FOUR, "B"),
        ("MC", "Hip-hop", FOUR, ""),
        ("MC", "The answer is D", FOUR, "D"),  # endswith(" D")
        ("MC", "I pick (b) here", FOUR, "B"),  # "b)" anywhere
        ("MC", "system\nuser\nassistant\nC.", FOUR, "C"),  # the text after the last assistant turn
        # SLUE: a short reply starting with the letter, a letter word, then any A-D character.
        ("SER", "B: x", FOUR, "B"),
        ("SER", "Answer: C", FOUR, "C"),
        ("SER", "Option d", FOUR, "D"),
        ("SER", "maybe", FOUR, "A"),
        ("SER", "none", FOUR, ""),
        ("SER", "ERROR", FOUR, ""),
        # DESED: no short-reply rule.
        ("SED", "a dog barks", FOUR, "A"),
        ("SED", "Cat", FOUR, "C"),
        # TAU: letter forms, indicators, an option text, then keyword overlap above one.
        ("ASC", "c: street", SCENES, "C"),
        ("ASC", "It is choice b", SCENES, "B"),
        ("ASC", "Sounds like an urban park.", SCENES, "D"),
        ("ASC", "a metro station I guess", SCENES, "B"),  # "metro" and "station" both occur
        ("ASC", "the airport", SCENES, ""),  # one keyword only
        # HAD: " a " anywhere, then the label words and synonyms.
        ("SD", "a", ("real", "fake"), "real"),
        ("SD", "It is b", ("real", "fake"), "fake"),
        ("SD", "I say a because", ("real", "fake"), "real"),
        ("SD", "Synthesized speech", ("real", "fake"), "fake"),
        ("SD", "genuine recording", ("real", "fake"), "real"),
        ("SD", "real or fake", ("real", "fake"), ""),
        # VESUS: a synonym must occur in the reply and in the option text, so "happy" is never reached this way.
        ("ER", "(c) fearful", EMOTIONS, "C"),
        ("ER", "The speaker sounds scared", EMOTIONS, "C"),
        ("ER", "pure joy", EMOTIONS, ""),
        ("ER", "happy", EMOTIONS, ""),
        # VoxCeleb age: letter forms, a lone letter word, "answer x", one option text named.
        ("SAR", "c", AGES, "Middle Aged (46-60)"),
        ("SAR", "I think e", AGES, "Elderly (76+)"),
        ("SAR", "between a and b", AGES, "Adult (31-45)"),  # endswith(" b")
        ("SAR", "a or b?", AGES, ""),
        ("SAR", "senior (61-75) voice", AGES, "Senior (61-75)"),
        # VoxCeleb gender: "female" contains "male", the word test decides.
        ("SGR", "b", ("male", "female"), "female"),
        ("SGR", "A female voice", ("male", "female"), "female"),
        ("SGR", "male", ("male", "female"), "male"),
        ("SGR", "I hear a man", ("male", "female"), ""),
    ],
)
def test_official_rules(task: str, raw: str, options: tuple[str, ...], expected: str) -> None:
    assert official_extract(task, raw, options) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Spoken Content: Hello there.", "Hello there."),
        ("Sure. Transcription: one two", "one two"),
        ("content: a <transcribed text here> b", "a  b"),
        ("Table of content: one", "one"),  # any "content:" cuts the text before it
        ("x <sep> tail", "x"),
        ("   ", ""),
    ],
)
def test_official_asr_cleaning(raw: str, expected: str) -> None:
    assert official_extract("ASR", raw, ()) == expected


@pytest.mark.parametrize(
    ("task", "raw", "options", "expected"),
    [
        ("SCR", "The answer is B", FOUR, "B"),
        ("SCR", "Definitely C", FOUR, None),
        ("SCR", "(d) x4", FOUR, "D"),
        ("MC", "Rock", ("Metal", "Blues", "Rock", "Jazz"), "C"),
        ("MC", "Hip-hop", ("Metal", "Blues", "Rock", "Jazz"), None),
        ("MC", "Rock or Jazz", ("Metal", "Blues", "Rock", "Jazz"), None),
        ("SD", "the answer is a fake clip", ("real", "fake"), "B"),
        ("SD", "answer: a", ("real", "fake"), "A"),
        ("SD", "Synthesized speech", ("real", "fake"), "B"),
        ("SGR", "A female voice", ("male", "female"), "B"),
        ("SGR", "a man", ("male", "female"), "A"),
        ("ER", "pure joy", EMOTIONS, "B"),
        ("SAR", "between a and b", AGES, None),
        ("ASR", "Spoken Content: hello <transcribed text here>", (), "hello"),
        ("ASR", "", (), None),
        ("SER", None, FOUR, None),
    ],
)
def test_strict_extractor(task: str, raw: str | None, options: tuple[str, ...], expected: str | None) -> None:
    assert strict_extract(task, raw, options) == expected
