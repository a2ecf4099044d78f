"""VoiceBench answer parsing: multiple-choice letters, BBH verdicts and judge replies. Pure functions.

The phrase tables are protocol data shipped word for word under ``prompts/voicebench/`` (each file names its
source in the official repository): the MCQ templates (``mcq_templates.json``), the BBH rules
(``bbh_rules.json``). The reference parsers follow the official ``extract_answer`` methods; the strict ones differ
only where a :class:`~avibench.level_metrics.voicebench.VoiceBenchProfile` switch says so.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from avibench.definitions import prompt_resource

#: The two official BBH rules whose answer is the opposite of what their phrase says (strict reads them right).
_BBH_TYPOS: dict[tuple[str, str, str], int] = {
    ("hyperbaton", "equals", "b"): 1,
    ("sports", "regex", "the sentence (.+?) is not plausible"): 0,
}
_TURN_PREFIXES = ("<1>", "<2>", "<3>")
#: The tests a BBH rule applies to the normalised answer (``re.search`` for ``regex``).
_TESTS: dict[str, Callable[[str, str], bool]] = {
    "contains": lambda phrase, text: phrase in text,
    "equals": lambda phrase, text: text == phrase,
    "startswith": lambda phrase, text: text.startswith(phrase),
    "endswith": lambda phrase, text: text.endswith(phrase),
    "regex": lambda phrase, text: re.search(phrase, text) is not None,
}
_ENCLOSING = frozenset("()[]*\"'")
_RATING = re.compile(r"\[\[(\d+)\]\]")
MIN_SCORE, MAX_SCORE = 1.0, 5.0


@cache
def data(name: str) -> dict[str, Any]:
    """A data file under ``prompts/voicebench/`` (each names its source)."""
    return json.loads(prompt_resource("voicebench", name))


#: The BBH tasks the official dispatch reads an id for, in its order.
BBH_TASKS = tuple(data("bbh_rules.json")["dispatch"])


def strip_turn_prefix(text: str) -> str:
    """Drop a leading ``<1>``/``<2>``/``<3>`` turn marker, as every official parser does."""
    return text[3:].strip() if text.startswith(_TURN_PREFIXES) else text


def strip_markers(response: str) -> str:
    """The official IFEval clean-up: a leading turn marker, then a trailing ``<|user|>``."""
    response = strip_turn_prefix(response)
    return response[:-8].strip() if response.endswith("<|user|>") else response


@cache
def _strict_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each template and letter as a regex that only matches where the letter stands alone and the template
    starts at a word boundary (so ``is a,`` no longer matches inside ``this a,``); the letter is the ``choice``
    group."""
    table = data("mcq_templates.json")
    patterns = []
    for template in table["templates"]:
        for letter in table["letters"]:
            before, after = template.split("[CHOICE]")
            body = re.escape(before) + f"(?P<choice>{re.escape(letter)})" + re.escape(after)
            head = r"(?<![a-z0-9])" if before[:1].isalnum() else ""
            tail = r"(?![a-z0-9])" if not after or after[-1:].isalnum() else ""
            patterns.append((re.compile(head + body + tail), letter.upper()))
    return tuple(patterns)


def _not_article(match: re.Match[str], letter: str, original: str) -> bool:
    """Whether a strict match is an option letter: a bare lowercase ``a`` is the article, not option A, unless a
    bracket, quote or ``*`` encloses it (looked up in the original text, which lowercasing leaves the same length
    for ASCII)."""
    if letter != "A" or len(original) != len(match.string):
        return True
    position = match.start("choice")
    before = original[position - 1] if position else ""
    after = original[position + 1 : position + 2]
    return original[position] != "a" or before in _ENCLOSING or after in _ENCLOSING


def mcq_choice(response: str, *, word_boundaries: bool) -> str | None:
    """The option letter (``A``-``D``) an answer chooses, or ``None`` when no template reads it.

    The reference (``word_boundaries=False``) looks for each template with each letter as a plain substring,
    templates in the official order; the strict reading needs the letter to stand alone (see
    :func:`_strict_patterns`). Both then accept a bare letter or a letter followed by ``. , : )``.
    """
    table = data("mcq_templates.json")
    text = strip_turn_prefix(response.lower())
    if word_boundaries:
        original = strip_turn_prefix(response)
        for pattern, letter in _strict_patterns():
            if any(_not_article(m, letter, original) for m in pattern.finditer(text)):
                return letter
    else:
        for template in table["templates"]:
            for letter in table["letters"]:
                if template.replace("[CHOICE]", letter) in text:
                    return letter.upper()
    for letter in table["letters"]:
        if text == letter or any(text.startswith(letter + p) for p in table["prefix_punctuation"]):
            return letter.upper()
    for phrase, letter in table["last_resort"]:
        if phrase in text:
            return letter
    return None


def bbh_task(item_id: str) -> str | None:
    """The BBH task an official id belongs to (the official dispatch order), or ``None``."""
    return next((task for task in BBH_TASKS if task in item_id), None)


def bbh_normalize(response: str) -> str:
    """The official normalisation: lowercase, turn markers dropped, punctuation to spaces, spaces collapsed."""
    text = response.lower()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    text = strip_turn_prefix(text).replace("<|turn_end|>", "")
    for mark in (":", "**", '"', "-", ",", ".", "："):
        text = text.replace(mark, " ")
    return " ".join(text.split())


def _apply(ruleset: str, text: str, fix_typos: bool) -> int | str | None:
    spec = data("bbh_rules.json")["tasks"][ruleset]
    for test, phrase, answer in spec["rules"]:
        if _TESTS[test](phrase, text):
            return _BBH_TYPOS.get((ruleset, test, phrase), answer) if fix_typos else answer
    return spec["otherwise"]


def bbh_answer(response: str, item_id: str, *, fix_typos: bool) -> int | None:
    """The BBH verdict (1 = yes / option B, 0 = no / option A) the official rules read, or ``None`` where they
    fall through to their random guess. Raises ``ValueError`` for an id of no known task (the official raises)."""
    task = bbh_task(item_id)
    if task is None:
        raise ValueError(f"BBH id {item_id!r} names none of {', '.join(BBH_TASKS)}")
    ruleset = data("bbh_rules.json")["dispatch"][task]
    text = bbh_normalize(response)
    if data("bbh_rules.json")["tasks"][ruleset]["yes_no_first"]:
        first = _apply("yn", text, fix_typos)
        if first is not None:
            return int(first)
    verdict = _apply(ruleset, text, fix_typos)
    return None if verdict in (None, "random") else int(verdict)


def open_score(reply: str, *, bounded: bool) -> float | None:
    """A 1-5 judge reply as the official parser reads it: ``float(reply)``, else the first ``[[n]]``; ``None``
    when neither reads (the official evaluator aborts). ``bounded`` also refuses a number outside 1-5 (and NaN or
    infinity, which ``float`` accepts)."""
    try:
        value = float(reply)
    except ValueError:
        match = _RATING.search(reply)
        if match is None:
            return None
        value = float(match.group(1))
    if bounded and not (math.isfinite(value) and MIN_SCORE <= value <= MAX_SCORE):
        return None
    return value


def qa_verdict(reply: str, *, yes_no_only: bool) -> str | None:
    """A reference-based judge reply as one vote: the reply lowercased (the official vote counts raw strings, so
    ``yes.`` is neither yes nor no). ``yes_no_only`` reads ``yes``/``no`` with trailing punctuation dropped and
    refuses anything else (``None``)."""
    vote = reply.strip().lower()
    if not yes_no_only:
        return vote
    vote = vote.rstrip(".!")
    return vote if vote in ("yes", "no") else None


def majority(votes: Sequence[str]) -> tuple[bool, bool]:
    """``(is_yes, tied)``: the most common vote is ``yes``; ``tied`` when several votes share the top count.

    The official ``max(set(votes), key=votes.count)`` picks among tied votes in set order, which changes with
    Python's string hash seed; here the tie goes to the vote seen first, and ties are counted."""
    counts = Counter(votes)
    top = max(counts.values())
    winners = [v for v in counts if counts[v] == top]
    return winners[0] == "yes", len(winners) > 1
