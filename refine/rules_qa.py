"""Rule refine for question answering (ASQA, VSQA_I, VSQA_V, AVSQA, AVQA): the chosen option or number as ``**x**``.

The parser looks for the answer where models put it, most explicit first: ``#x#`` (the AVSQA convention), bold
text, "the answer is x" / "Answer: x", then the first and last sentences, then the whole text. At each level
every candidate must agree; disagreement (a hedge, a contradiction) returns ``None`` so that the answer goes
to the LLM instead of being guessed. An option negated in the text ("not the left one", "rather than x")
does not count as chosen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from avibench.refine.context import RefineContext
from avibench.refine.text import (
    CARDINALS,
    HEDGE,
    REFUSAL,
    answer_phrases,
    bold_spans,
    hash_spans,
    sentences,
    strip_answer_prefix,
    usable,
    words,
)

#: Spelling slips in the official option vocabularies, and what models write instead.
_TYPOS = {"availabel": "available", "puprle": "purple", "movenment": "movement"}
_NEGATORS = re.compile(
    r"(?:\bnot|\bisnt|\barent|\bwasnt|\bwerent|\bdoesnt|\bdont|\bdidnt|\bnever|\bneither|\bnor|\bexcluding|\bexcept|"
    r"\brather than|\binstead of|\bthan|\bno longer)\s+(?:\w+\s+){0,3}$"
)
_MULTI_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_LETTERS = (
    re.compile(r"^\s*(?:option|choice)\s*[(\[]?([a-j])\b[)\]]?", re.I),
    re.compile(r"^\s*[(\[]([A-J])[)\]]"),
    re.compile(r"^\s*([A-J])\s*(?:[.):]|$)"),
)
_YES_NO = ("yes", "no")
_ARTICLES = frozenset({"the", "a", "an"})
_MAX_FREE_WORDS = 4


def norm(text: str) -> str:
    """Lowercase, clause punctuation to ``|``, other punctuation to spaces, typos fixed, articles dropped."""
    text = text.lower().replace("'", "")
    text = re.sub(r"[,;:!?()\u2014\u2013]+|\.(?:\s|$)|\s-\s", " | ", text)
    text = re.sub(r"[^a-z0-9|]+", " ", text)
    return " ".join(_TYPOS.get(w, w) for w in text.split() if w not in _ARTICLES)


@dataclass(frozen=True)
class _Mention:
    option: str
    start: int
    end: int


def _mentions(span: str, options: Sequence[str]) -> list[_Mention]:
    """Non-overlapping option mentions in the span (longest option first), negated ones dropped, in text order."""
    text = norm(span)
    keys = sorted(
        {norm(o): o for o in reversed(options) if norm(o).strip(" |")}.items(), key=lambda kv: -len(kv[0])
    )
    taken: list[_Mention] = []
    for key, option in keys:
        for m in re.finditer(rf"\b{re.escape(key)}\b", text):
            if any(m.start() < t.end and t.start < m.end() for t in taken):
                continue
            taken.append(_Mention(option, m.start(), m.end()))
    kept = [t for t in taken if not _NEGATORS.search(text[: t.start])]
    return sorted(kept, key=lambda t: t.start)


def _letter(span: str, options: Sequence[str]) -> str | None:
    """The option named by a letter ("B", "(B) no", "Option B"), when the span starts with one."""
    for pattern in _LETTERS:
        m = pattern.match(span)
        if m:
            break
    else:
        return None
    index = ord(m.group(1).upper()) - ord("A")
    return options[index] if index < len(options) else None


_FILLER = frozenset(
    {"so", "therefore", "thus", "hence", "overall", "in", "conclusion", "summary", "short", "then", "well"}
)


def _lead_word(span: str) -> str | None:
    """The first word of a span after discourse fillers ("So, yes." -> "yes")."""
    return next((w for w in words(span) if w not in _FILLER), None)


def _distinct(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _option_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    """The option(s) a span chooses; ``None`` when it chooses none or hedges between several."""
    options = ctx.options
    found = _distinct([m.option for m in _mentions(span, options)])
    letter = _letter(span, options)
    if letter is not None:
        if found and found != [letter]:
            return None
        return letter
    if set(_YES_NO) <= {o.lower() for o in options}:
        first = _lead_word(span)
        lead = next((o for o in options if o.lower() == first), None)
        if lead is not None:
            if REFUSAL.search(span) or re.match(r"\W*no (?:doubt|problem|wonder)\b", span, re.I):
                return None  # "No, I cannot tell", "No doubt, ...": not an answer
            return None if len(found) > 1 and HEDGE.search(span) else lead
        if not explicit:
            return found[0] if found == [o for o in options if o.lower() == "not sure"][:1] else None
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    if ctx.multi_answer and explicit and not HEDGE.search(span):
        return ";".join(found)
    return None


def _numbers(span: str) -> list[int]:
    values = []
    for w in words(span):
        if w.isdigit() and len(w) <= 6:
            values.append(int(w))
        elif w in CARDINALS:
            values.append(CARDINALS[w])
        elif w in _MULTI_WORDS:
            values.append(_MULTI_WORDS[w])
    return values


def _number_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    values = _distinct([str(v) for v in _numbers(span)])
    return values[0] if len(values) == 1 else None


def _yes_no_question(question: str) -> bool:
    first = words(question)[:1]
    return bool(first) and first[0] in {
        "is", "are", "was", "were", "can", "could", "do", "does", "did", "will", "would", "has", "have", "should",
    }  # fmt: skip


def _free_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    """Without options: yes/no for a yes/no question, else a short answer as written."""
    tokens = words(span)
    if not tokens:
        return None
    lead = _lead_word(span)
    if _yes_no_question(ctx.question) and lead in _YES_NO:
        return lead
    if len(tokens) > _MAX_FREE_WORDS or HEDGE.search(span) or REFUSAL.search(span):
        return None
    answer = " ".join(re.sub(r"[*#`]+", " ", span).split()).strip(" .,:;!?\"'()[]{}")
    return answer if re.fullmatch(r"[\w' -]+", answer) else None


def _levels(text: str) -> list[tuple[list[str], bool]]:
    """Candidate spans, most explicit first; ``True`` marks a level where the model named its answer.

    The non-explicit ends are the first sentence, the last one and a concluding last clause ("..., so yes.").
    """
    spans = sentences(text)
    last_clause = re.split(r"[,;:]\s+", spans[-1])[-1] if spans else ""
    last_clause = last_clause if re.match(r"(?:so|therefore|thus|hence)\b", last_clause, re.I) else ""
    ends = _distinct([x for x in (spans[0], spans[-1], last_clause) if x]) if spans else []
    return [
        (hash_spans(text), True),
        (bold_spans(text), True),
        (answer_phrases(text), True),
        (ends, False),
        ([text], False),
    ]


_REASON = re.compile(r"\b(?:because|since|due to|given that|whereas|owing to)\b", re.I)


def _head(span: str) -> str:
    """The span before its explanation ("The second is clearer because the first is noisy" -> "The second is
    clearer"): an option named only in the reasons is not the answer."""
    return _REASON.split(span, maxsplit=1)[0]


def _solve(text: str, ctx: RefineContext, pick: Callable[..., str | None]) -> str | None:
    for spans, explicit in _levels(text):
        heads = spans if explicit else [_head(s) for s in spans]
        answers = _distinct([a for a in (pick(s, ctx, explicit=explicit) for s in heads) if a])
        if len(answers) > 1:
            return None
        if answers:
            return answers[0]
    return None


def parse_qa(raw: object, ctx: RefineContext) -> str | None:
    """The canonical ``**answer**`` for a QA sample, or ``None`` when the rules cannot tell."""
    text = usable(raw)
    if text is None:
        return None
    text = strip_answer_prefix(text)
    answer = _solve(text, ctx, _number_answer) if ctx.expects_number else None
    if answer is None and ctx.options:
        answer = _solve(text, ctx, _option_answer)
    elif answer is None and not ctx.expects_number:
        answer = _solve(text, ctx, _free_answer)
    return f"**{answer}**" if answer else None
