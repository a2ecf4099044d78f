"""AudioMarathon answer extraction: each task's official rules, and one robust extractor. Pure.

The official extractors reproduce the Qwen2.5-Omni baseline scripts rule for rule, including their defects: the
"first A–D character anywhere" fallbacks (RACE turns "The answer is B" into A, GTZAN turns "Rock" into C), the
loose substring tests ("a)" anywhere) and the synonym tables. Each returns what its script stores as the prediction:
a letter, a label ("real", "male"), an option text (age groups) or a cleaned transcript; ``""`` when nothing matched.

The strict extractor reads a letter only where the reply states one (the whole reply, a leading "B." / "(B)", or
"answer/option/choice B"), then an option text or a synonym named as whole words, and gives ``None`` otherwise.
It never fishes single characters out of words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import resources

import yaml

LETTERS = "ABCDE"
ASSISTANT_TURN = "assistant\n"
WORDS = yaml.safe_load(
    resources.files("avibench.prompts").joinpath("audiomarathon/extraction.yaml").read_text("utf-8")
)
"""The scripts' marker, pattern and synonym lists and the strict extractor's synonyms (packaged data)."""

# ---- shared pieces of the official rules ------------------------------------------------------------------


def after_assistant_turn(text: str) -> str:
    """What the scripts that decode prompt and answer together keep: the text after the last ``assistant`` turn."""
    if ASSISTANT_TURN in text:
        return text[text.rfind(ASSISTANT_TURN) + len(ASSISTANT_TURN) :].strip()
    return text


def _word_letter(text: str, letters: str = "ABCD") -> str:
    """The first letter standing alone as a word (``\\b[ABCD]\\b``), or ``""``."""
    match = re.search(rf"\b([{letters}])\b", text)
    return match.group(1) if match else ""


def _any_letter(text: str, letters: str = "ABCD") -> str:
    """The first of the letters anywhere, inside words too (the scripts' last resort), or ``""``."""
    match = re.search(rf"[(\[]?([{letters}])[)\].]?", text)
    return match.group(1) if match else ""


def _letter_prefix(text: str, letter: str, marks: Sequence[str], *, suffix: bool) -> bool:
    """``text`` (already cased like ``letter``) is the letter, starts with it plus a mark, or ends in `` <letter>``."""
    return (
        text == letter
        or any(text.startswith(letter + m) for m in marks)
        or (suffix and text.endswith(" " + letter))
    )


# ---- the official extractor of each task --------------------------------------------------------------------


def extract_ser(raw: str) -> str:
    """SLUE NER: exact letter, a short reply starting with it, a letter word, then any A–D character."""
    if not raw:
        return ""
    text = raw.strip().upper()
    if text in ("A", "B", "C", "D"):
        return text
    for letter in "ABCD":
        if text.startswith(letter) and len(text) <= 3:
            return letter
    # The script's last rule ("option/choice X") can never fire: the any-character rule before it always matches.
    return _word_letter(text) or _any_letter(text)


def extract_scr(raw: str) -> str:
    """RACE: the first A–D character anywhere in the upper-cased reply; else its first word (never valid)."""
    if not raw:
        return ""
    text = raw.strip().upper()
    for char in text:
        if char in "ABCD":
            return char
    words = text.split()
    return words[0] if words else ""


def extract_asr(raw: str) -> str:
    """LibriSpeech: cut everything up to the first marker found (in marker order), drop template tokens."""
    text = after_assistant_turn(raw)
    if not text or text.strip() == "":
        return ""
    for marker in WORDS["official"]["asr_markers"]:
        if marker in text.lower():
            parts = re.split(re.escape(marker), text, flags=re.IGNORECASE)
            text = parts[1].strip()
            break
    text = re.sub(r"<transcribed text here>", "", text)
    text = re.sub(r"<sep>.*?($|<|$)", "", text)
    text = re.sub(r"(?i)^(spoken\s+(?:text|content)|content|transcript|transcription):\s*", "", text.strip())
    return text.strip()


def extract_sed(raw: str) -> str:
    """DESED: exact letter, a letter word, then any A–D character."""
    if not raw:
        return ""
    text = after_assistant_turn(raw).strip().upper()
    if text in ("A", "B", "C", "D"):
        return text
    return _word_letter(text) or _any_letter(text)


def extract_mc(raw: str) -> str:
    """GTZAN: letter forms, "option x"/"choice x"/"x)" anywhere, a letter word, then any A–D character."""
    if not raw:
        return ""
    text = after_assistant_turn(raw).strip().upper()
    for letter in "ABCD":
        if _letter_prefix(text, letter, (".", ")"), suffix=True):
            return letter
    lower = text.lower()
    for letter in "abcd":
        if f"option {letter}" in lower or f"choice {letter}" in lower or f"{letter})" in lower:
            return letter.upper()
    return _word_letter(text) or _any_letter(text)


def extract_asc(raw: str, choices: Sequence[str]) -> str:
    """TAU: letter forms, indicator substrings, an option text inside the reply, then keyword overlap above one."""
    text = after_assistant_turn(raw).strip().lower()
    if text in ("a", "b", "c", "d"):
        return text.upper()
    for letter in "abcd":
        if any(text.startswith(letter + mark) for mark in (".", ")", ":")):
            return letter.upper()
    for letter in "abcd":
        if any(ind in text for ind in (f"option {letter}", f"choice {letter}", f"{letter})")):
            return letter.upper()
    best, most = "", 0
    for i, choice in enumerate(choices):
        choice = choice.lower()
        if choice in text:
            return LETTERS[i]
        overlap = sum(1 for word in choice.split(" - ")[0].split() if word in text)
        if overlap > most:
            best, most = LETTERS[i], overlap
    return best if most > 1 else ""


def _two_way(text: str, first: str, second: str, *, loose: bool) -> str:
    """HAD / VoxCeleb gender: letter forms, then "option x" (and for HAD " a "), then one label named alone."""
    first, second = first.lower().strip(), second.lower().strip()
    for letter, label in (("a", first), ("b", second)):
        if _letter_prefix(text, letter, (".", ")"), suffix=loose):
            return label
    for letter, label in (("a", first), ("b", second)):
        marks = [f"option {letter}", f"choice {letter}", f"{letter})"] + ([f" {letter} "] if loose else [])
        if any(mark in text for mark in marks):
            return label
    if first in text and second not in text:
        return first
    if second in text and first not in text:
        return second
    return ""


def extract_labelled(task: str, text: str, choices: Sequence[str]) -> str:
    """HAD (``endswith(' a')`` and `` a `` anywhere) and VoxCeleb gender: the two-way rules, then, where the
    options are the script's own labels, the one label whose pattern alone matches."""
    words = WORDS["official"]["label_words"][task]
    first, second = tuple(choices[:2]) if len(choices) >= 2 else tuple(words)
    label = _two_way(text, first, second, loose=task == "SD")
    if label or (first.lower().strip(), second.lower().strip()) != tuple(words):
        return label
    matched = [name for name, pattern in words.items() if re.search(pattern, text)]
    return matched[0] if len(matched) == 1 else ""


def extract_er(raw: str, choices: Sequence[str]) -> str:
    """VESUS: letter forms, indicator substrings, then the synonym table matched against reply and option."""
    text = after_assistant_turn(raw).strip().lower()
    for letter in "abcd":
        if _letter_prefix(text, letter, (".", ")"), suffix=False):
            return letter.upper()
    for letter in "abcd":
        if any(
            mark in text for mark in (f"option {letter}", f"choice {letter}", f"{letter})", f"({letter})")
        ):
            return letter.upper()
    for i, choice in enumerate(choices[:4]):
        choice = choice.lower()
        for words in WORDS["official"]["emotion_synonyms"].values():
            if any(w in text for w in words) and any(w in choice for w in words):
                return LETTERS[i]
    return ""


def extract_sar(raw: str, choices: Sequence[str]) -> str:
    """VoxCeleb age: letter forms, a lone letter word, "option/choice/answer x", then one option text named."""
    text = raw.lower().strip()
    letters = "abcde"[: len(choices)]
    for i, letter in enumerate(letters):
        if _letter_prefix(text, letter, (".", ")"), suffix=True):
            return choices[i]
    alone = [letter for letter in letters if re.search(rf"\b{letter}\b", text)]
    if len(alone) == 1:
        return choices[letters.index(alone[0])]
    for i, letter in enumerate(letters):
        if any(f"{word} {letter}" in text for word in ("option", "choice", "answer")):
            return choices[i]
    named = [c for c in choices if c.lower() in text]
    return named[0] if len(named) == 1 else ""


OfficialExtractor = Callable[[str, Sequence[str]], str]

OFFICIAL_EXTRACTORS: dict[str, OfficialExtractor] = {
    "SER": lambda raw, _: extract_ser(raw),
    "SCR": lambda raw, _: extract_scr(raw),
    "ASR": lambda raw, _: extract_asr(raw),
    "SED": lambda raw, _: extract_sed(raw),
    "MC": lambda raw, _: extract_mc(raw),
    "ASC": extract_asc,
    "SD": lambda raw, choices: extract_labelled("SD", after_assistant_turn(raw).strip().lower(), choices),
    "ER": extract_er,
    "SAR": extract_sar,
    "SGR": lambda raw, choices: extract_labelled("SGR", raw.lower().strip(), choices),
}


def official_extract(task: str, raw: str, options: Sequence[str]) -> str:
    """The prediction ``task``'s script stores for the reply ``raw`` (``options`` are the item's option texts)."""
    return OFFICIAL_EXTRACTORS[task](raw, options)


# ---- the strict extractor -------------------------------------------------------------------------------------

TRANSCRIPT_LABEL = re.compile(
    r"^\s*(?:spoken\s+(?:content|text)|transcription|transcript|content)\s*:\s*", re.I
)
TEMPLATE_TOKEN = re.compile(r"<transcribed text here>", re.I)


def _named(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase.lower())}(?![\w-])", text) is not None


def _stated_letter(text: str, letters: str) -> str | None:
    """A letter the reply states: alone, leading with a mark, or after "answer/option/choice"."""
    bare = text.strip().strip(".*`'\" ")
    if len(bare) == 1 and bare.upper() in letters:
        return bare.upper()
    lead = re.match(rf"^\s*[(\[]?([{letters}])(?:[)\].:]|\s*$)", text, re.I)
    if lead:
        return lead.group(1).upper()
    for cue in re.finditer(
        rf"\b(?:answer|option|choice)(?:\s+is)?\s*[:\-]?\s*[(\[]?([{letters}])\b", text, re.I
    ):
        # a lower-case "a" followed by a word is the article ("the answer is a fake clip"), not a letter
        if cue.group(1).isupper() or not re.match(r"\s+\w", text[cue.end() :]):
            return cue.group(1).upper()
    return None


def _named_option(text: str, options: Sequence[str]) -> int | None:
    """The one option whose text, or one of its synonyms, the reply names as whole words (``None`` if not one)."""
    lowered = text.lower()
    hits = {i for i, o in enumerate(options) if o.strip() and _named(lowered, o.strip())}
    if len(hits) != 1:
        hits |= {
            i
            for i, o in enumerate(options)
            for word in WORDS["strict"]["synonyms"].get(o.strip().lower(), ())
            if _named(lowered, word)
        }
    return hits.pop() if len(hits) == 1 else None


def strict_extract(task: str, raw: str | None, options: Sequence[str]) -> str | None:
    """The answer the reply gives: the option letter (the transcript for ASR), or ``None`` when it gives none."""
    if raw is None or not raw.strip():
        return None
    if task == "ASR":
        text = TEMPLATE_TOKEN.sub("", TRANSCRIPT_LABEL.sub("", raw)).strip()
        return text or None
    letters = LETTERS[: len(options)]
    letter = _stated_letter(raw, letters)
    if letter is not None:
        return letter
    index = _named_option(raw, options)
    return None if index is None else letters[index]
