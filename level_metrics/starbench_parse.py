"""STAR-Bench answer extraction: the official rule-based multiple-choice parser and its strict variant. Pure.

The official parser returns ``<X>`` or ``Z`` in two passes:

1. Keyword pass: a keyword (answer, solution, choice, option, "correct option is", "answer is", 答案是, 选项是),
   optional colons, then a letter in brackets (rank 1) or a bare letter (rank 0). The last hit of the highest
   rank wins (hits are ordered by where their keyword starts).
2. Only without keyword hits, a standalone pass: bracketed letters ``(A) <A> [A] {A}`` (rank 2), the full text of
   an option delimited by non-letters, case-insensitive, when the response has more than two words (rank 1), and
   bare letters (rank 0). Again the last hit of the highest rank wins.

Anything else is ``Z``. The strict profile keeps these passes and ranks; its switches add or remove individual
rules (see :class:`StarBenchProfile`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from avibench.level_metrics.starbench_profile import REFERENCE, StarBenchProfile

LETTERS = string.ascii_uppercase
UNPARSED = "Z"
ERROR_PREFIX = "ERROR: "
OFFICIAL_KEYWORDS = (
    "answer",
    "<answer>",
    "solution",
    "choice",
    "option",
    "correct option is",
    "answer is",
    "答案是",
    "选项是",
)
COMMITMENT_KEYWORDS = ("choose", "chose", "pick", "select", "go with", "going with", "i'd say", "i would say")
OPEN, CLOSE = r"[\(\<\[\{]", r"[\)\]\>\}]"
ASCII_WORD = "A-Za-z0-9"
NEGATION_BEFORE = re.compile(
    r"(?:\bnot|n't|\bnever|\brather\s+than|\binstead\s+of|\bexcept(?:\s+for)?)\s*(?:the\s+)?"
    r"(?:(?:answer|option|choice)\s*)?[:：]?\s*$",
    re.IGNORECASE,
)
NEGATION_AFTER = re.compile(
    r"\s*[\)\]\>\}]?\s*(?:(?:is|was|seems|looks)\s+(?:not\b|wrong|incorrect|false)|isn't|wasn't)",
    re.IGNORECASE,
)
NEGATION_WINDOW = 60
ENGLISH_WORD_LETTERS = re.compile(r"[ai]\s+[A-Za-z]")


@dataclass(frozen=True)
class Choice:
    """What a response chose: ``letter`` as captured (the reference may capture a lower-case letter), ``None``
    when unparsed; ``rule`` names the rule that decided."""

    letter: str | None
    rule: str

    @property
    def token(self) -> str:
        """The official prediction string: ``<X>`` or ``Z``."""
        return f"<{self.letter}>" if self.letter else UNPARSED


@dataclass(frozen=True)
class _Hit:
    letter: str
    start: int
    end: int
    rank: int
    rule: str


def is_error_response(response: object) -> bool:
    """True for the string the official runner stores when a request raised: ``"ERROR: <exception>"``."""
    return isinstance(response, str) and response.startswith(ERROR_PREFIX)


def _bounded(letter_class: str, unicode_boundary: bool) -> str:
    if unicode_boundary:
        return rf"\b([{letter_class}])\b"
    return rf"(?<![{ASCII_WORD}])([{letter_class}])(?![{ASCII_WORD}])"


@lru_cache(maxsize=256)
def _patterns(
    n_options: int, profile: StarBenchProfile
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """Keyword, standalone and hedge patterns for ``n_options`` letters under ``profile``."""
    upper = LETTERS[:n_options]
    bracketed = upper if profile.lowercase_letter_quirk else upper + upper.lower()
    keywords = OFFICIAL_KEYWORDS + (COMMITMENT_KEYWORDS if profile.commitment_keywords else ())
    alternation = "|".join(re.escape(k) for k in keywords)
    bare = _bounded(upper, profile.unicode_word_boundary)
    keyword = re.compile(
        rf"(?:{alternation})\s*[:：]*\s*(?:{OPEN}\s*([{upper}])\s*{CLOSE}|{bare})",
        re.IGNORECASE,
    )
    standalone = re.compile(rf"{OPEN}\s*([{bracketed}])\s*{CLOSE}|{bare}")
    token = rf"(?:{OPEN}\s*([{bracketed}])\s*{CLOSE}|{_bounded(upper, False)})"
    hedge = re.compile(rf"{token}\s*(?:,\s*)?(?:or|/)\s*{token}")
    return keyword, standalone, hedge


def _keyword_hits(text: str, pattern: re.Pattern[str]) -> list[_Hit]:
    hits = []
    for m in pattern.finditer(text):
        if m.group(2):
            hits.append(_Hit(m.group(2), m.start(), m.end(), 0, "keyword-letter"))
        if m.group(1):
            hits.append(_Hit(m.group(1), m.start(), m.end(), 1, "keyword-bracket"))
    return hits


def _standalone_hits(
    text: str, options: Sequence[str], pattern: re.Pattern[str], min_words: int
) -> list[_Hit]:
    hits = []
    for m in pattern.finditer(text):
        if m.group(1):
            hits.append(_Hit(m.group(1), m.start(), m.end(), 2, "bracket"))
        if m.group(2):
            hits.append(_Hit(m.group(2), m.start(), m.end(), 0, "letter"))
    if len(text.split()) >= min_words:
        for letter, option in zip(LETTERS, options, strict=False):
            option_pattern = re.compile(rf"(?<![A-Za-z]){re.escape(option)}(?![A-Za-z])", re.IGNORECASE)
            hits.extend(
                _Hit(letter, m.start(), m.end(), 1, "option-text") for m in option_pattern.finditer(text)
            )
    return hits


def _negated(text: str, hit: _Hit) -> bool:
    before = text[max(0, hit.start - NEGATION_WINDOW) : hit.start]
    return bool(NEGATION_BEFORE.search(before) or NEGATION_AFTER.match(text, hit.end))


def _strict_letters(text: str, hits: list[_Hit]) -> list[_Hit]:
    """Upper-case the captured letters, dropping a bare ``a``/``i`` used as an English word."""
    kept = []
    for hit in hits:
        word_like = hit.rule == "keyword-letter" and ENGLISH_WORD_LETTERS.match(text, hit.end - 1)
        if hit.letter.islower() and word_like:
            continue
        kept.append(_Hit(hit.letter.upper(), hit.start, hit.end, hit.rank, hit.rule))
    return kept


def _hedge_end(text: str, pattern: re.Pattern[str]) -> int:
    """End of the last "X or Y" offering two different letters (-1 if none)."""
    end = -1
    for m in pattern.finditer(text):
        first, second = (m.group(1) or m.group(2)).upper(), (m.group(3) or m.group(4)).upper()
        if first != second:
            end = m.end()
    return end


def _winner(hits: list[_Hit]) -> _Hit:
    return sorted(hits, key=lambda h: (h.rank, h.start))[-1]


def parse_choice(
    response: str | None, options: Sequence[str], profile: StarBenchProfile = REFERENCE
) -> Choice:
    """The option letter ``response`` chose among ``options`` (letters A, B, ... in order).

    The reference profile reproduces the official parser bit for bit: ``Choice.token`` equals its return value.
    """
    text = response or ""
    if not options:
        return Choice(None, "none")
    keyword, standalone, hedge = _patterns(len(options), profile)

    def usable(hits: list[_Hit]) -> list[_Hit]:
        if not profile.lowercase_letter_quirk:
            hits = _strict_letters(text, hits)
        if profile.negation_aware:
            hits = [h for h in hits if not _negated(text, h)]
        return hits

    hits = usable(_keyword_hits(text, keyword))
    if not hits:
        hits = usable(_standalone_hits(text, options, standalone, profile.option_text_min_words))
    if not hits:
        return Choice(None, "none")
    best = _winner(hits)
    if profile.hedges_unparsed and best.start < _hedge_end(text, hedge):
        return Choice(None, "hedge")
    return Choice(best.letter, best.rule)
