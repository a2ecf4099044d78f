"""Multiple-choice kit: option lettering, official letter rules as named switches, the strict reading, gold
answers, baselines, accuracy per metadata field and rotations. Pure: no file or network access.

* lettering: :func:`letters_for`, :func:`lettered` (``"A. cat\\nB. dog"`` in any line format);
* gold: :func:`gold_index` by the option's text, its letter or its position;
* official rules: :func:`official_choice` tries the named :data:`RULES` in the order a benchmark's scorer does
  (``first_character``, ``second_to_last``, ``bracketed``, ``answer_prefix``, ``bold``, ``lone_letter``,
  ``first_letter``, ``last_letter``, ``option_text``) and returns the first index one of them reads;
* strict reading: :func:`strict_choice` is :func:`avibench.refine.choice.choose` (hedges, refusals and answers
  naming two options stay unparsed), optionally reading lowercase letters where they can only be letters;
* baselines: :func:`random_reply` and :func:`oracle_reply`;
* the strict profile's reading of a response: :func:`strict_index` (refine's answer where refine ran);
* scoring: :func:`accuracy_by` (accuracy per any metadata field, and pooled, in the ``{"accuracy", "n"}`` cells
  official scorers print);
* rotations: :func:`rotate` and :func:`rotations` (a question asked once per option order, each a variant),
  :func:`rotation_of` (the run a variant belongs to).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from avibench.refine.choice import STANDARD_LETTERS, choose

if TYPE_CHECKING:
    from avibench.items import Response

LETTERS: tuple[str, ...] = STANDARD_LETTERS
"""``A`` to ``Z``, in the order benchmarks show them."""


def letters_for(options: Sequence[Any] | int, letters: Sequence[str] = LETTERS) -> tuple[str, ...]:
    """The letters shown beside ``options`` (or beside that many options)."""
    n = options if isinstance(options, int) else len(options)
    if n > len(letters):
        raise ValueError(f"{n} options but only {len(letters)} letters")
    return tuple(letters[:n])


def lettered(
    options: Sequence[Any],
    *,
    line: str = "{letter}. {text}",
    sep: str = "\n",
    letters: Sequence[str] = LETTERS,
) -> str:
    """The options as shown to the model: ``line`` per option (``{letter}``, ``{text}``, ``{number}`` from 1),
    joined with ``sep``."""
    shown = letters_for(options, letters)
    return sep.join(line.format(letter=shown[k], text=text, number=k + 1) for k, text in enumerate(options))


# ---- gold --------------------------------------------------------------------------------------------------

GoldBy = Literal["text", "letter", "position"]
_LETTER_FORM = re.compile(r"^\s*[(\[]?\s*([A-Za-z])\s*[)\].:]?\s*$")


def gold_index(
    options: Sequence[Any], answer: Any, *, by: GoldBy = "text", letters: Sequence[str] = LETTERS
) -> int:
    """The index of the gold option: ``text``, the first option equal to ``answer``; ``letter``, the option of
    the letter ``answer`` names (``"B"``, ``"(B)"``, ``"B."``); ``position``, ``answer`` as a 0-based index.
    Raises ValueError when ``answer`` names no option."""
    if by == "text":
        for k, option in enumerate(options):
            if option == answer:
                return k
        raise ValueError(f"answer {answer!r} is not one of the options {list(options)!r}")
    if by == "letter":
        found = _LETTER_FORM.match(str(answer))
        shown = letters_for(options, letters)
        if found and found.group(1).upper() in shown:
            return shown.index(found.group(1).upper())
        raise ValueError(f"answer {answer!r} is not the letter of one of {len(options)} options")
    if isinstance(answer, bool) or not str(answer).strip().isdigit() or int(answer) >= len(options):
        raise ValueError(f"answer {answer!r} is not the position of one of {len(options)} options")
    return int(answer)


# ---- official rules ----------------------------------------------------------------------------------------

Rule = Callable[[str, Sequence[str], Sequence[str]], int | None]
"""``(reply, options, letters) -> index``, or ``None`` when the rule reads nothing."""


def _index(letter: str | None, letters: Sequence[str]) -> int | None:
    return None if letter is None or letter not in letters else list(letters).index(letter)


def _first_character(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The first character of the reply, stripped and with newlines removed (AIR-Bench)."""
    p = reply.strip().replace("\n", "")
    return _index(p[0], letters) if p else None


def _second_to_last(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The second-to-last character of the reply, stripped and with newlines removed ("... (B)." ends "B)")."""
    p = reply.strip().replace("\n", "")
    return _index(p[-2], letters) if len(p) > 1 else None


def _latest_of(reply: str, letters: Sequence[str], form: str) -> int | None:
    """The letter whose last ``form`` (``{l}`` = the letter) comes last in the reply."""
    best, at = None, -1
    for k, letter in enumerate(letters):
        where = reply.rfind(form.format(l=letter))
        if where > at:
            best, at = k, where
    return best


def _bracketed(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """``(B)`` anywhere; several: the one written last."""
    return _latest_of(reply, letters, "({l})")


_PREFIX = re.compile(
    r"\b(?:the\s+)?(?:correct\s+|final\s+|best\s+)?(?:answer|option|choice)[\s*_`]*(?:is|:|：)?[\s*_`]*[(\[]?\s*"
    r"(?-i:([A-Z]))\b(?![a-z'])",
    re.I,
)


def _answer_prefix(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """``Answer: B``, ``The answer is (B)``, ``**Answer:** B``, ``correct option: B`` (a capital letter: "the
    answer is a cat" names no letter); several: the last."""
    found = [m.group(1) for m in _PREFIX.finditer(reply) if m.group(1) in letters]
    return _index(found[-1], letters) if found else None


_BOLD = re.compile(r"\*\*\s*[(\[]?\s*([A-Z])\s*[)\].:]?\s*\*\*")


def _bold(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """``**B**`` (or ``**(B)**``, ``**B.**``); several different letters: none."""
    found = {m.group(1) for m in _BOLD.finditer(reply) if m.group(1) in letters}
    return _index(found.pop(), letters) if len(found) == 1 else None


def _lone_letter(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The whole reply is one letter, with optional brackets and a full stop (``B``, ``(B)``, ``B.``)."""
    found = _LETTER_FORM.match(reply)
    return _index(found.group(1), letters) if found else None


_WORD_LETTER = re.compile(r"(?<![A-Za-z'])([A-Z])(?![A-Za-z'])")


def _first_letter(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The first capital letter standing alone (``\\b[A-D]\\b``)."""
    for m in _WORD_LETTER.finditer(reply):
        if m.group(1) in letters:
            return _index(m.group(1), letters)
    return None


def _last_letter(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The last capital letter standing alone."""
    found = [m.group(1) for m in _WORD_LETTER.finditer(reply) if m.group(1) in letters]
    return _index(found[-1], letters) if found else None


def _option_text(reply: str, options: Sequence[str], letters: Sequence[str]) -> int | None:
    """The one option whose text (lowercased) occurs in the reply; none when several or none do."""
    lowered = reply.lower()
    named = [k for k, option in enumerate(options) if str(option).strip() and str(option).lower() in lowered]
    return named[0] if len(named) == 1 else None


RULES: dict[str, Rule] = {
    "first_character": _first_character,
    "second_to_last": _second_to_last,
    "bracketed": _bracketed,
    "answer_prefix": _answer_prefix,
    "bold": _bold,
    "lone_letter": _lone_letter,
    "first_letter": _first_letter,
    "last_letter": _last_letter,
    "option_text": _option_text,
}
"""The official extraction rules by name (each rule's docstring says what it reads)."""


def official_choice(
    reply: str | None, options: Sequence[str], rules: Sequence[str], letters: Sequence[str] | None = None
) -> int | None:
    """The option index the first of ``rules`` that reads anything reads from ``reply``; ``None`` when none
    does. ``letters`` are those the scorer accepts (default: one per option); a letter past the options (an
    official rule that accepts ``A``-``D`` on a three-option question) gives an index past them."""
    if reply is None:
        return None
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ValueError(f"unknown rule {unknown[0]!r} (one of {', '.join(RULES)})")
    shown = letters_for(options) if letters is None else tuple(letters)
    for rule in rules:
        index = RULES[rule](reply, options, shown)
        if index is not None:
            return index
    return None


# ---- strict reading ----------------------------------------------------------------------------------------

_MARKS = r"[\s*_`]*"


def _lowercase_letter_forms(letters: Sequence[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    lower = "".join(letter.lower() for letter in letters)
    lone = re.compile(rf"^{_MARKS}[(\[]?{_MARKS}([{lower}]){_MARKS}[)\].:]?{_MARKS}$")
    declared = re.compile(
        rf"\b(?:answer|option|choice)(?:\s+is|\s*:)?{_MARKS}[(\[]?{_MARKS}([{lower}])"
        rf"(?=[)\].:]|{_MARKS}[)\].:,;!]?{_MARKS}$)",
        re.I,
    )
    return lone, declared


def capitalised(text: str, letters: Sequence[str]) -> str:
    """``text`` with a lowercase answer letter capitalised, where it can only be a letter: the whole reply
    (``b``, ``**c**``, ``(d)``) or right after "answer", "option" or "choice" and ending the reply or followed by
    ``)``, ``]``, ``.`` or ``:`` ("the answer is b.", "Answer: c) ...")."""
    lone, declared = _lowercase_letter_forms(letters)
    found = lone.match(text)
    if found:
        return text[: found.start(1)] + found.group(1).upper() + text[found.end(1) :]
    return declared.sub(lambda m: m.group(0)[:-1] + m.group(1).upper(), text)


#: A reply that says it has no answer: "N/A", "NA", "n/a", "not applicable" (punctuation around it allowed).
_NOT_AVAILABLE = re.compile(r"\W*(?:n\s*/\s*a|na|not applicable)\W*", re.IGNORECASE)


def strict_choice(
    reply: str | None,
    options: Sequence[str],
    letters: Sequence[str] | None = None,
    *,
    lowercase_letters: bool = False,
) -> int | None:
    """The index of the option the reply commits to, or ``None`` (no reply, a hedge, a refusal, two options).

    ``letters``: those shown beside the options (``None``: ``A``, ``B``, ... one per option; empty: none were
    shown, so letters are not read). ``lowercase_letters`` also reads a lowercase letter where it can only be
    one (:func:`capitalised`)."""
    if reply is None or (
        _NOT_AVAILABLE.fullmatch(reply) and not any(_NOT_AVAILABLE.fullmatch(o) for o in options)
    ):
        return None  # "N/A" says no answer; its "A" is no letter
    shown = letters_for(options) if letters is None else tuple(letters)
    chosen = choose(reply, options, shown)
    if chosen is None and lowercase_letters and shown:
        fixed = capitalised(reply, shown)
        if fixed != reply:
            chosen = choose(fixed, options, shown)
    return chosen


# ---- baselines ---------------------------------------------------------------------------------------------


def random_reply(
    options: Sequence[str], rng: random.Random, *, form: Literal["letter", "text"] = "letter"
) -> str:
    """A uniform guess: one option's letter (``form="letter"``) or its text."""
    if form == "letter":
        return rng.choice(letters_for(options))
    return rng.choice(list(options))


def oracle_reply(
    gold: int,
    options: Sequence[str],
    rng: random.Random,
    styles: Sequence[str],
    accept: Callable[[str], bool],
    *,
    fallback: str | None = None,
    text: str | None = None,
    letters: Sequence[str] = LETTERS,
) -> str:
    """The gold answer phrased as models phrase answers: ``styles`` (``{t}`` the answer's text, by default the
    gold option's, ``{l}`` its letter) tried in an order drawn from ``rng``, the first that ``accept`` scores
    right (every profile's reading, typically); else ``fallback`` (default: the answer's text)."""
    order = list(styles)
    rng.shuffle(order)
    answer = str(options[gold]) if text is None else text
    letter = letters[gold] if gold < len(letters) else ""
    for style in order:
        reply = style.format(t=answer, l=letter)
        if accept(reply):
            return reply
    return answer if fallback is None else fallback


# ---- accuracy per metadata field ---------------------------------------------------------------------------


def _group_values(value: Any) -> list[str]:
    """The groups a question falls in for one field: a list counts in each listed group, ``None`` in none."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v is not None]
    return [str(value)]


def _cell(total: float, n: int, empty_zero: bool) -> dict[str, Any]:
    if n == 0:
        return {"accuracy": 0.0 if empty_zero else None, "n": 0}
    return {"accuracy": 100.0 * total / n, "n": n}


def accuracy_by(
    metas: Sequence[Mapping[str, Any]],
    scores: Sequence[float | bool | None],
    fields: Iterable[str],
    *,
    fixed: Mapping[str, Sequence[str]] | None = None,
    empty_group_zero: bool = True,
    total: str | None = "total",
) -> dict[str, Any]:
    """Accuracy (percent) per group of each metadata field, and pooled under ``total``: ``metas[i]`` maps fields
    to question i's values (a list value counts in each group it lists) and ``scores[i]`` is its score in [0, 1],
    or ``None`` to leave it out. ``fixed[field]`` lists groups reported even when empty, first and in order
    (``empty_group_zero``: an empty group scores 0, as official scorers that divide by ``max(n, 1)`` print)."""
    result: dict[str, Any] = {}
    for name in fields:
        sums: dict[str, list[float]] = {key: [0.0, 0] for key in (fixed or {}).get(name, ())}
        for values, score in zip(metas, scores, strict=True):
            if score is None:
                continue
            for group in _group_values(values.get(name)):
                cell = sums.setdefault(group, [0.0, 0])
                cell[0] += float(score)
                cell[1] += 1
        result[name] = {k: _cell(s, int(n), empty_group_zero) for k, (s, n) in sums.items()}
    if total is not None:
        kept = [float(s) for s in scores if s is not None]
        result[total] = _cell(sum(kept), len(kept), empty_group_zero) if kept else {"accuracy": None, "n": 0}
    return result


# ---- rotations ---------------------------------------------------------------------------------------------


def rotate(options: Sequence[Any], shift: int) -> tuple[Any, ...]:
    """The options with the last ``shift`` moved to the front (a shift of 0, or of their number, keeps them)."""
    items = tuple(options)
    shift %= len(items) or 1
    return items[-shift:] + items[:-shift] if shift else items


def rotations(
    options: Sequence[Any], gold: int, runs: int | None = None
) -> list[tuple[str, tuple[Any, ...], int]]:
    """``(variant, options, gold index)`` per run: run ``r`` (variant ``"r<r>"``) shows :func:`rotate` by ``r``,
    so over one run per option (``runs`` ``None``) every option visits every position."""
    n = len(options)
    return [(f"r{r}", rotate(options, r), (gold + r) % n) for r in range(n if runs is None else runs)]


def rotation_of(variant: str) -> int | None:
    """The run of a rotation variant (``"r2"`` -> 2), or ``None`` for another variant."""
    found = re.fullmatch(r"r(\d+)", variant)
    return int(found.group(1)) if found else None


# ---- the strict profile's reading of a response --------------------------------------------------------------


def strict_index(response: Response, choose_index: Callable[[str | None], int | None]) -> int | None:
    """The option index the strict profile reads from a response: refine's answer where refine ran (``None`` when
    it is no option: unparsed), else ``choose_index(raw reply)``, the extractor at scoring time."""
    options = response.item.options
    if response.method is not None:
        return options.index(response.refined) if response.refined in options else None
    return choose_index(response.raw)
