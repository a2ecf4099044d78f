"""Text helpers shared by the rule parsers: cleaning model chatter, number words, literal dicts and lists.

Every helper is total: it returns a value or ``None`` and never raises on odd input (binary garbage,
unbalanced brackets, megabytes of text), because a parser that raises would stop a whole refine run.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

#: Longest raw answer the rules look at; longer text is left to the LLM (or stays unparsed).
MAX_RULE_CHARS = 20_000

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?|```")
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_ENDOFTEXT = re.compile(r"<\|[a-z_]+\|>")
_ANSWER_PREFIX = re.compile(r"^\s*answer\s*=\s*", re.I)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")

NUMBER_WORDS: dict[str, int] = {
    "zero": 0,
    "no": 0,
    "none": 0,
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "lone": 1,
    "two": 2,
    "pair": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
}

#: Cardinal words for answers to "how many" (articles and "no" excluded: "a" is not an answer).
CARDINALS: dict[str, int] = {
    k: v for k, v in NUMBER_WORDS.items() if k not in {"a", "an", "no", "none", "single", "lone", "pair"}
}

ORDINALS: dict[str, int] = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
    "5th": 5,
    "6th": 6,
    "7th": 7,
    "8th": 8,
    "9th": 9,
    "10th": 10,
}

#: The words that negate a clause ("not", "never", "no", "isn't"), as a pattern the rule modules extend with
#: the words their own family denies with ("silent", "mismatches", "stationary").
NEGATION = r"\b(?:not|never|no)\b|n't\b"

HEDGE = re.compile(
    r"\b(either|or|maybe|perhaps|possibly|probably|might|could be|can't tell|cannot tell|unclear|"
    r"hard to (?:say|tell|determine)|not certain|uncertain)\b",
    re.I,
)
#: Hedges that doubt an answer outright; unlike a plain "or", they do not occur in a committed answer's prose.
DOUBT = re.compile(
    r"\b(maybe|perhaps|possibly|probably|might be|could be|could also be|might also be|may also be|"
    r"may (?:already|well) be|can't tell|"
    r"cannot tell|unclear|not (?:certain|sure) "
    r"(?:whether|if|which)|uncertain|hard to (?:say|tell|determine))\b",
    re.I,
)
REFUSAL = re.compile(
    r"\b(i (?:can ?not|can't|am unable to|'m unable to|am not able to|'m not able to|don't have|do not have)|"
    r"unable to (?:determine|answer|identify|access|process|view|hear|see)|cannot (?:determine|be determined|answer)|"
    r"i dont know|i don't know|i do not know|sorry|as an ai|no (?:audio|video|image|media) (?:was|is) provided)\b",
    re.I,
)


#: Punctuation that models trained on Chinese text write in place of ASCII ("answer＝{'dog'：1，'cat'：2}",
#: "【0，3】") and typographic quotes ("{‘dog’: 1}"), folded to the ASCII the parsers read. The fullwidth forms
#: U+FF01-U+FF5E are ASCII shifted by 0xFEE0.
_ASCII_PUNCTUATION = str.maketrans(
    {chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F) if not chr(code - 0xFEE0).isalnum()}
    | {"\u3000": " ", "、": ",", "。": ". ", "【": "[", "】": "]", "‘": "'", "’": "'", "“": '"', "”": '"'}
)

#: A reasoning block that never closes: the output was cut off before any answer.
_OPEN_THINK = re.compile(r"<think>(?!.*</think>).*", re.S | re.I)


def clean(raw: str) -> str:
    """Strip reasoning blocks (an unclosed one to the end: its answer never came), special tokens, code
    fences, control characters and surrounding blanks, and fold fullwidth punctuation to ASCII."""
    text = _THINK.sub(" ", _OPEN_THINK.sub(" ", raw.translate(_ASCII_PUNCTUATION)))
    text = _ENDOFTEXT.sub(" ", text)
    text = _FENCE.sub("\n", text)
    text = _CONTROL.sub(" ", text)
    return text.strip()


def strip_answer_prefix(text: str) -> str:
    return _ANSWER_PREFIX.sub("", text, count=1)


def usable(raw: Any) -> str | None:
    """The cleaned text if the rules should look at it at all (a string, not empty, not huge)."""
    if not isinstance(raw, str) or len(raw) > MAX_RULE_CHARS:
        return None
    text = clean(raw)
    return text or None


#: Fewest words a line needs before it counts as an echo of the prompt rather than a coincidence.
_ECHO_WORDS = 5


#: A label a model puts before the prompt it repeats ("Question: There may be ...").
_ECHO_LABEL = re.compile(r"^\W*(?:question|prompt|instructions?|task|user)\s*:\s*", re.I)


def without_echo(text: str, prompt: str) -> str:
    """The text without the lines that repeat the prompt ("There may be one or more sound-emitting objects in
    the provided audio."): small models echo their instructions, whose example counts are not answers."""
    if not prompt:
        return text
    said = " ".join(words(prompt))

    def echoed(piece: str) -> bool:
        piece = _ECHO_LABEL.sub("", piece)
        return len(words(piece)) >= _ECHO_WORDS and " ".join(words(piece)) in said

    kept = []
    for line in text.splitlines():
        if not echoed(line):
            kept.append(" ".join(p for p in re.split(r"(?<=[.!?])\s+", line) if not echoed(p)) or line)
    return "\n".join(kept)


def words(text: str) -> list[str]:
    """Lowercase word tokens (letters, digits, apostrophes and inner hyphens/underscores)."""
    return re.findall(r"[a-z0-9]+(?:['_-][a-z0-9]+)*", text.lower())


def to_int(value: Any) -> int | None:
    """An exact non-negative integer from an int, an integral float, a digit string or a number word."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and value >= 0:
            return int(value)
        return None
    if isinstance(value, str):
        s = value.strip().lower()
        if re.fullmatch(r"\d{1,6}(?:\.0+)?", s):
            return int(float(s))
        return CARDINALS.get(s)
    return None


def to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?(?:e-?\d+)?\s*", value, re.I):
        v = float(value)
        return v if math.isfinite(v) else None
    return None


def balanced_spans(text: str, opener: str, closer: str) -> list[tuple[int, int]]:
    """(start, end) of top-level bracketed substrings, in order, skipping unbalanced ones (quotes are not
    tracked)."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = -1
    for i, ch in enumerate(text):
        if ch == opener:
            if depth == 0:
                start = i
            depth += 1
        elif ch == closer and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    return spans


_PY_WORDS = {"null": "None", "true": "True", "false": "False"}


def parse_literal(text: str) -> Any:
    """A JSON or Python literal (single quotes, None, trailing commas); ``None`` when it is neither.

    ``NaN`` and ``Infinity`` are refused: they are not answers.
    """
    if len(text) > MAX_RULE_CHARS:
        return None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        pass
    candidate = re.sub(r"\b(null|true|false)\b", lambda m: _PY_WORDS[m.group(1)], text)
    quoted = _BARE_KEY.sub(r'\1"\2":', candidate)
    for attempt in (candidate, quoted, _BARE_VALUE.sub(r'\1"\2"\3', quoted)):
        try:
            return ast.literal_eval(attempt)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


#: A value written as a bare word ("{'cat': two}"), to be quoted (None, True and False stay as they are).
_BARE_VALUE = re.compile(r"(:\s*)(?!None\b|True\b|False\b)([A-Za-z][A-Za-z-]*)(\s*[,}])")
#: A dict key written without quotes ("{dog: 1, cat: 2}"), to be quoted.
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_][A-Za-z0-9_-]*(?: [A-Za-z][A-Za-z0-9_-]*)?)\s*:")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite constant {name}")


def dict_spans(text: str) -> list[tuple[int, int, dict[Any, Any]]]:
    """Every top-level ``{...}`` that parses as a JSON/Python dict, with its position, in order."""
    found = []
    for start, end in balanced_spans(text, "{", "}"):
        value = parse_literal(text[start:end])
        if isinstance(value, dict):
            found.append((start, end, value))
    return found


def outside_dicts(text: str) -> str:
    """The text with its top-level dicts cut out: the prose around a structured answer."""
    spans = dict_spans(text)
    starts, ends = [0, *(end for _, end, _ in spans)], [*(start for start, _, _ in spans), len(text)]
    return "\n".join(text[a:b] for a, b in zip(starts, ends, strict=True))


def find_lists(text: str) -> list[list[Any]]:
    """Every top-level ``[...]`` in the text that parses as a list, in order."""
    found = []
    for start, end in balanced_spans(text, "[", "]"):
        value = parse_literal(text[start:end])
        if isinstance(value, list):
            found.append(value)
    return found


def bold_spans(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"\*\*(.+?)\*\*", text, re.S) if m.group(1).strip()]


def hash_spans(text: str) -> list[str]:
    """Answers enclosed in ``#...#`` (the AVSQA answer convention); markdown headings are not spans."""
    return [
        m.group(1).strip() for m in re.finditer(r"(?<!#)#([^#\n]{1,200})#(?!#)", text) if m.group(1).strip()
    ]


_ANSWER_PHRASE = re.compile(
    r"(?:final answer|the answer|answer|my answer|correct (?:answer|option)|selected option|i choose|i select|"
    r"i would choose|i'd choose|i would select|i'd say|i would say|i (?:will|'ll) (?:choose|select|pick|go with))"
    r"\s*(?:is|would be|:|=|-|:\s*is)?\s*[:\-]?\s*(.+?)(?:\n|(?<=[a-z0-9*#\)\]'\"])\.(?:\s|$)|$)",
    re.I,
)


_LIST_ITEM = re.compile(r"^(?:[-*•]|\d+[.)])\s")
_LIST_OPENS = re.compile(r"\n\s*(?:[-*•]|\d+[.)])")


def answer_phrases(text: str) -> list[str]:
    """Text following "the answer is", "Answer:", "answer=" and similar phrases, up to the end of the sentence;
    not the first item of a list that opens on the next line ("Answer:\n- Blue\n- Grey" is the whole list)."""
    return [
        m.group(1).strip()
        for m in _ANSWER_PHRASE.finditer(text)
        if m.group(1).strip()
        and not _LIST_ITEM.match(m.group(1).strip())
        and not _LIST_OPENS.search(text[m.start() : m.start(1)])
    ]


def sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+|\n+", text)
    return [p.strip() for p in parts if p.strip()]


_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?$")


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Markdown pipe tables in the text: each one a list of rows of stripped cells, header first, the
    ``|---|`` separator dropped, bold markers removed. A table needs a header, a separator and one row."""
    tables: list[list[list[str]]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("|") and stripped.count("|") >= 2:
            block.append(stripped)
            continue
        if len(block) >= 3 and _TABLE_SEPARATOR.match(block[1].replace(" ", "")):
            rows = [block[0], *block[2:]]
            tables.append([[c.strip().strip("*").strip() for c in r.strip("|").split("|")] for r in rows])
        block = []
    return tables
