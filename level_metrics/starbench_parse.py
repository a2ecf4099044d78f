"""STAR-Bench answer extraction: the official rule-based multiple-choice parser, or the shared strict extractor.

The official parser returns ``<X>`` or ``Z`` in two passes:

1. Keyword pass: a keyword (answer, solution, choice, option, "correct option is", "answer is", 答案是, 选项是),
   optional colons, then a letter in brackets (rank 1) or a bare letter (rank 0). The last hit of the highest
   rank wins (hits are ordered by where their keyword starts).
2. Only without keyword hits, a standalone pass: bracketed letters ``(A) <A> [A] {A}`` (rank 2), the full text of
   an option delimited by non-letters, case-insensitive, when the response has more than two words (rank 1), and
   bare letters (rank 0). Again the last hit of the highest rank wins.

Anything else is ``Z``. The strict profile reads the response with the extractor every option benchmark shares
(:func:`avibench.refine.choice.read_choice`), which refuses hedges and refusals and never guesses.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from avibench import definitions
from avibench.level_metrics.starbench_profile import REFERENCE, StarBenchProfile
from avibench.refine.choice import read_choice

LETTERS = string.ascii_uppercase
UNPARSED = "Z"
ERROR_PREFIX = "ERROR: "
#: the keyword pass's keywords, word for word (``prompts/starbench/protocol.yaml``)
OFFICIAL_KEYWORDS: tuple[str, ...] = tuple(
    definitions.template_catalogue("starbench", "protocol.yaml")["answer_keywords"]
)
OPEN, CLOSE = r"[\(\<\[\{]", r"[\)\]\>\}]"
#: The official parser matches option texts only in responses of at least this many words.
OPTION_TEXT_MIN_WORDS = 3


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
    rank: int
    rule: str


def is_error_response(response: object) -> bool:
    """True for the string the official runner stores when a request raised: ``"ERROR: <exception>"``."""
    return isinstance(response, str) and response.startswith(ERROR_PREFIX)


@lru_cache(maxsize=64)
def _patterns(n_options: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The official keyword and standalone patterns for ``n_options`` letters.

    The keyword pattern is case-insensitive for the letters too (so "answer is (b)" captures ``b``), and a bare
    letter needs a Unicode word boundary (so "答案是C" finds nothing: CJK characters are word characters).
    """
    upper = LETTERS[:n_options]
    alternation = "|".join(re.escape(k) for k in OFFICIAL_KEYWORDS)
    bare = rf"\b([{upper}])\b"
    keyword = re.compile(
        rf"(?:{alternation})\s*[:：]*\s*(?:{OPEN}\s*([{upper}])\s*{CLOSE}|{bare})",
        re.IGNORECASE,
    )
    standalone = re.compile(rf"{OPEN}\s*([{upper}])\s*{CLOSE}|{bare}")
    return keyword, standalone


def _hits(text: str, pattern: re.Pattern[str], groups: dict[int, tuple[int, str]]) -> list[_Hit]:
    """Every match of ``pattern``, as the hit of the group that matched: ``groups`` maps it to its rank and rule."""
    return [
        _Hit(m.group(g), m.start(), rank, rule)
        for m in pattern.finditer(text)
        for g, (rank, rule) in groups.items()
        if m.group(g)
    ]


def _standalone_hits(text: str, options: Sequence[str], pattern: re.Pattern[str]) -> list[_Hit]:
    hits = _hits(text, pattern, {1: (2, "bracket"), 2: (0, "letter")})
    if len(text.split()) >= OPTION_TEXT_MIN_WORDS:
        for letter, option in zip(LETTERS, options, strict=False):
            option_pattern = re.compile(rf"(?<![A-Za-z]){re.escape(option)}(?![A-Za-z])", re.IGNORECASE)
            hits.extend(_Hit(letter, m.start(), 1, "option-text") for m in option_pattern.finditer(text))
    return hits


def _official_choice(text: str, options: Sequence[str]) -> Choice:
    keyword, standalone = _patterns(len(options))
    keyword_hits = _hits(text, keyword, {2: (0, "keyword-letter"), 1: (1, "keyword-bracket")})
    hits = keyword_hits or _standalone_hits(text, options, standalone)
    if not hits:
        return Choice(None, "none")
    best = sorted(hits, key=lambda h: (h.rank, h.start))[-1]
    return Choice(best.letter, best.rule)


def _strict_choice(text: str, options: Sequence[str]) -> Choice:
    chosen = read_choice(text, options, LETTERS[: len(options)])
    return Choice(None if chosen.index is None else LETTERS[chosen.index], chosen.rule)


def parse_choice(
    response: str | None, options: Sequence[str], profile: StarBenchProfile = REFERENCE
) -> Choice:
    """The option letter ``response`` chose among ``options`` (letters A, B, ... in order).

    The reference profile reproduces the official parser bit for bit: ``Choice.token`` equals its return value.
    """
    if not options:
        return Choice(None, "none")
    parse = _official_choice if profile.official_parser else _strict_choice
    return parse(response or "", options)
