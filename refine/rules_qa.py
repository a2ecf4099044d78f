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
from functools import cache

from avibench.refine import text as tx
from avibench.refine import vocab
from avibench.refine.context import RefineContext
from avibench.refine.motion import contradicts_direction, direction_answer, order_answer, other_end

#: What reads an answer of one kind (an option, a number, a free answer) from a span.
Pick = Callable[..., str | None]
_TYPOS = vocab.VOCABULARY["option_typos"]
_NEGATORS = re.compile(vocab.any_of("negators") + r"\s+(?:\w+\s+){0,3}$")
#: What follows an option to deny it ("the cone never moves", "the tuba is barely audible").
_DENIED_AFTER = re.compile(r"\s+(?:\w+\s+)?" + vocab.any_of("denied_after"))
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
    negated: bool = False


@cache
def _own_pattern(key: str) -> re.Pattern[str]:
    """An option's own wording; a noun option (a shape, an instrument) also in the plural ("the drums"), and
    a plural one in the singular ("conga" for "congas")."""
    *head, last = key.split()
    one = vocab.singular(last)
    if one != last and one in vocab.PLURAL_NOUNS:
        key = " ".join([*head, one])
    plural = "(?:s|es)?" if key.split()[-1] in vocab.PLURAL_NOUNS else ""
    return re.compile(rf"\b{re.escape(key)}{plural}\b")


def _mentions(span: str, options: Sequence[str], *, negated: bool = False) -> list[_Mention]:
    """Non-overlapping option mentions in the span (the longest match first), in text order, with their positions
    in ``norm(span)``; negated ones are dropped unless ``negated`` asks for them (flagged)."""
    text = norm(span)
    keys = sorted(
        {norm(o): o for o in reversed(options) if norm(o).strip(" |")}.items(), key=lambda kv: -len(kv[0])
    )
    by_key = dict(keys)
    patterns = [(option, _own_pattern(key)) for key, option in keys]
    patterns += [(by_key[key], pattern) for key, pattern in vocab.aliases_for(tuple(by_key))]
    found = sorted(
        ((option, m) for option, pattern in patterns for m in pattern.finditer(text)),
        key=lambda om: om[1].start() - om[1].end(),
    )  # longest first: "conga drums" is the congas, not congas and a drum
    taken: list[_Mention] = []
    for option, m in found:
        if any(m.start() < t.end and t.start < m.end() for t in taken):
            continue
        before = text[: m.start()]
        denied = bool(
            _NEGATORS.search(before) or before.endswith("off ") or _DENIED_AFTER.match(text[m.end() :])
        )
        taken.append(_Mention(option, m.start(), m.end(), denied))
    kept = [t for t in taken if negated or not t.negated]
    return sorted(kept, key=lambda t: t.start)


def _letter(span: str, options: Sequence[str]) -> str | None:
    """The option named by a letter ("B", "(B) no", "Option B"), when the span starts with one."""
    if (m := next((hit for pattern in _LETTERS if (hit := pattern.match(span))), None)) is None:
        return None
    index = ord(m.group(1).upper()) - ord("A")
    return options[index] if index < len(options) else None


_FILLER = frozenset(vocab.VOCABULARY["discourse_fillers"])


def _lead_word(span: str) -> str | None:
    """The first word of a span after discourse fillers ("So, yes." -> "yes")."""
    return next((w for w in tx.words(span) if w not in _FILLER), None)


def _distinct(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _option_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    """The option(s) a span chooses; ``None`` when it chooses none or hedges between several."""
    options = ctx.options
    mentions = _mentions(span, options)
    found = _distinct([m.option for m in mentions])
    if (letter := _letter(span, options)) is not None:
        return None if found and found != [letter] else letter
    if set(_YES_NO) <= {o.lower() for o in options}:
        first = _lead_word(span)
        if (lead := next((o for o in options if o.lower() == first), None)) is not None:
            if tx.REFUSAL.search(span) or re.match(r"\W*no (?:doubt|problem|wonder)\b", span, re.I):
                return None  # "No, I cannot tell", "No doubt, ...": not an answer
            if _against_always(lead.lower(), span, ctx.question):
                return None
            return None if len(found) > 1 and tx.HEDGE.search(span) else lead
        if not explicit:
            return found[0] if found == [o for o in options if o.lower() == "not sure"][:1] else None
    if not found:
        return None if tx.HEDGE.search(span) else direction_answer(span, options)
    if len(found) > 1 and not ctx.multi_answer:
        found = _unasked(found, span, ctx)
    if len(found) == 1 and _is_reference(found[0], ctx):
        return None  # "the instrument right of the bagpipe": the bagpipe itself is not the answer
    if len(found) == 1:
        if norm(found[0]) not in _META_OPTIONS and (tx.DOUBT.search(span) or _EITHER.search(span)):
            return None  # "either rotating or moving sideways, I cannot tell"
        start = next(m.start for m in mentions if m.option == found[0])
        if contradicts_direction(span, found[0]) or other_end(norm(span), start, ctx.question):
            return None
        return found[0]
    if ctx.multi_answer:
        return ";".join(found) if explicit and not tx.HEDGE.search(span) else None
    return order_answer(norm(span), [(m.option, m.start, m.end) for m in mentions], ctx.question)


_ALWAYS_Q = re.compile(r"\b(?:always|all the time|the whole time|throughout|continuously|the entire)\b", re.I)
_CONTINUOUS = re.compile(vocab.any_of("continuous_play"), re.I)
_BROKEN = re.compile(vocab.any_of("broken_play"), re.I)


def _against_always(lead: str, span: str, question: str) -> bool:
    """A yes/no to "is X always playing?" whose own words say the opposite ("No, it plays throughout", "Yes,
    though it pauses in the middle")."""
    if not _ALWAYS_Q.search(question):
        return False
    rest = re.sub(r"^\W*\w+", "", span, count=1)
    if lead == "no":
        return bool(_CONTINUOUS.search(rest)) and not _NEGATIVE.search(rest) and not _BROKEN.search(rest)
    return bool(_BROKEN.search(_CONTINUOUS.sub(" ", rest)))


_QUESTION_WORDS = frozenset(vocab.VOCABULARY["question_words"])
_DENYING = re.compile(r"\b(?:no|not|never|without|nor|neither)\s+((?:\w+\W+){0,2}\w+)", re.I)


def _denies_asked(text: str, question: str) -> bool:
    """A "yes" whose prose denies what the question asks about ("Is there music in the background?" - "Yes.
    There is no music in the background")."""
    asked = {w for w in tx.words(question) if w not in _QUESTION_WORDS and len(w) > 2}
    asked |= {vocab.singular(w) for w in asked}
    return any(
        w in asked or vocab.singular(w) in asked
        for m in _DENYING.finditer(re.sub(r"^\W*yes\b", "", text, flags=re.I))
        for w in tx.words(m.group(1))
    )


#: A question about another option than the one it names ("on the right of the bagpipe", "at the same time
#: as the pipa").
_RELATIVE_Q = re.compile(vocab.any_of("relative_question"), re.I)


def _is_reference(option: str, ctx: RefineContext) -> bool:
    """The option is the reference a relative question names, so it cannot be the answer."""
    if not ctx.question or not _RELATIVE_Q.search(ctx.question):
        return False
    return option in {m.option for m in _mentions(ctx.question, ctx.options)}


_EITHER = re.compile(r"\beither\b.{1,80}?\bor\b", re.I | re.S)


def _unasked(found: list[str], span: str, ctx: RefineContext) -> list[str]:
    """The options a span names besides those the question itself names as its reference ("the instrument on
    the left of the flute" -> "On the left of the flute there is a clarinet": clarinet), when one is left and
    the span negates nothing."""
    asked = {m.option for m in _mentions(ctx.question, ctx.options)} if ctx.question else set()
    rest = [o for o in found if o not in asked]
    if len(rest) != 1 or len(rest) == len(found):
        return found
    if norm(rest[0]) in _META_OPTIONS and norm(span).strip(" |").endswith(norm(rest[0])):
        return rest  # "There is no trumpet in the video, so: no available option"
    return rest if not _NEGATIVE.search(span) and not _APART.search(span) else found


#: Words that set the other option apart from the question's reference ("the pipa plays alone; the guzheng
#: starts after it"): the other one is then not the answer.
_APART = re.compile(r"\b(?:alone|only|but|however|while|whereas|after|before|until|instead|unlike)\b", re.I)


#: Numbers written as words: cardinals ("two") and multipliers ("twice").
_COUNT_WORDS = {"once": 1, "twice": 2, "thrice": 3, **tx.CARDINALS}


def _numbers(span: str) -> list[int]:
    return [
        int(w) if w.isdigit() and len(w) <= 6 else _COUNT_WORDS[w]
        for w in tx.words(span)
        if (w.isdigit() and len(w) <= 6) or w in _COUNT_WORDS
    ]


_CARDINAL_WORDS = "|".join(tx.CARDINALS)
_AMOUNT = rf"(?:\d+(?:\.\d+)?|{_CARDINAL_WORDS})"
_UNIT = r"(?:seconds?|secs?|s|ms|milliseconds?|minutes?|mins?|hours?|hz|bpm)"
#: Durations, intervals and rates: numbers that do not answer "how many".
_NOT_A_COUNT = re.compile(
    rf"(?:\b(?:between|from)\s+)?\b{_AMOUNT}(?:\s*,\s*{_AMOUNT})*\s*,?\s*(?:-|–|to|and|or)\s*{_AMOUNT}\s*-?\s*{_UNIT}\b"
    rf"|\b{_AMOUNT}\s*-?\s*{_UNIT}\b"
    rf"|\b(?:once|twice|thrice|{_AMOUNT}(?:\s+\w+)?)\s+(?:every|per|a|each)\s+(?:{_AMOUNT}\s+)?{_UNIT}\b"
    r"|\b\d{1,2}:\d{2}(?::\d{2})?\b",
    re.I,
)
_SECONDS = re.compile(rf"\b({_AMOUNT})\s*-?\s*(?:seconds?|secs?|s)\b", re.I)
_ASKS_SECONDS = re.compile(r"\bhow long\b|\bhow many (?:milli)?seconds\b|\bduration\b|\bin seconds\b", re.I)


def _number_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    """The one number a span gives; when the question says what it counts, numbers of the other kind
    (durations and rates for a count, everything but seconds for a duration) are set aside first."""
    if ctx.question and _ASKS_SECONDS.search(ctx.question):
        if _NOT_A_COUNT.sub(" ", _SECONDS.sub(" ", span)) != _NOT_A_COUNT.sub(" ", span):
            return None  # an interval or a rate beside the duration
        values = _distinct([str(v) for m in _SECONDS.finditer(span) for v in _numbers(m.group(1))])
    elif ctx.question:
        values = _distinct([str(v) for v in _numbers(_NOT_A_COUNT.sub(" ", span))])
    else:
        values = _distinct([str(v) for v in _numbers(span)])
    return values[0] if len(values) == 1 else None


def _free_answer(span: str, ctx: RefineContext, *, explicit: bool) -> str | None:
    """Without options: yes/no for a yes/no question, else a short answer as written."""
    tokens = tx.words(span)
    if not tokens:
        return None
    lead = _lead_word(span)
    asks = tx.words(ctx.question)[:1]  # a yes/no question opens with its verb
    if asks and asks[0] in vocab.VOCABULARY["yes_no_question_starts"] and lead in _YES_NO:
        return lead
    if len(tokens) > _MAX_FREE_WORDS or tx.HEDGE.search(span) or tx.REFUSAL.search(span):
        return None
    answer = " ".join(re.sub(r"[*#`]+", " ", span).split()).strip(" .,:;!?\"'()[]{}")
    return answer if re.fullmatch(r"[\w' -]+", answer) else None


def _levels(text: str) -> list[tuple[list[str], bool]]:
    """Candidate spans, most explicit first; ``True`` marks a level where the model named its answer.

    The non-explicit ends are the first sentence, the last one and a concluding last clause ("..., so yes.").
    """
    spans = tx.sentences(text)
    last_clause = re.split(r"[,;:]\s+", spans[-1])[-1] if spans else ""
    last_clause = last_clause if re.match(r"(?:so|therefore|thus|hence)\b", last_clause, re.I) else ""
    ends = _distinct([x for x in (spans[0], spans[-1], last_clause) if x]) if spans else []
    if sum(bool(_BULLET.match(line)) for line in text.splitlines()) >= 2:
        ends = []  # a list's first and last items are not where it answers
    return [
        (tx.hash_spans(text), True),
        (tx.bold_spans(text), True),
        (tx.answer_phrases(text), True),
        (ends, False),
        ([text], False),
    ]


_REASON = re.compile(r"\b(?:because|since|due to|given that|whereas|owing to)\b", re.I)


#: A short answer, a dash and its explanation ("First clip - it's much cleaner, the second one is noisy").
_LEAD_DASH = re.compile(r"^\W*((?:[\w'-]+[ \t]+){0,3}[\w'-]+)[ \t]+[-\u2013\u2014][ \t]+(.+)$", re.S)


def _heads(span: str) -> list[str]:
    """The span before its explanation, shortest reading first: "First clip - it's cleaner than the second" ->
    "First clip"; "The second is clearer because the first is noisy" -> "The second is clearer". An option
    named only in the reasons is not the answer; a lead that names none ("Yes - ...") defers to the rest."""
    span = _REASON.split(span, maxsplit=1)[0]
    lead = _LEAD_DASH.match(span)
    if lead is None or _CORRECTION.search(lead.group(2)) or _NEGATIVE.search(lead.group(1)):
        return [span]
    return [lead.group(1), span]


def _level_answers(spans: list[str], explicit: bool, ctx: RefineContext, pick: Pick) -> list[str]:
    if explicit:
        return _distinct([a for a in (pick(s, ctx, explicit=True) for s in spans) if a])
    found = (next((a for h in _heads(s) if (a := pick(h, ctx, explicit=False))), None) for s in spans)
    return _distinct([a for a in found if a])


_MARKED = re.compile(r"\*\*.+?\*\*|(?<!#)#[^#\n]{1,200}#(?!#)", re.S)
_MARK_SIGNS = re.compile(r"\*\*|#")


def _without_marks(sentence: str) -> str:
    """A sentence that is only a marked answer says nothing else; one that marks a word inside its prose ("The
    **piano** begins first, followed by the violin") keeps that word, so the prose is read whole."""
    bare = _MARKED.sub(" ", sentence)
    return bare if not re.search(r"\w", bare) else _MARK_SIGNS.sub("", sentence)


#: A list item's number standing alone once the text is split into sentences ("1." of "1. Piano - playing").
_ITEM_NUMBER = re.compile(r"^\(?\d{1,2}[.)]$")
#: A labelled description of the media ("Audio caption: ...", "Video description: ..."): it tells what
#: happens, not what the model answers.
_CAPTION = re.compile(r"^\W*(?:(?:audio|video|image|visual|scene)\s+)?(?:caption|description)\s*:", re.I)


def _unmarked_prose(text: str) -> str:
    """The text outside its marked answer: without "the answer is" sentences, sentences that are only a
    bold or ``#x#`` answer, and labelled captions; line by line, so that a list stays a list."""
    lines = (
        " ".join(
            _without_marks(s)
            for s in tx.sentences(line)
            if not tx.answer_phrases(s) and not _CAPTION.match(s)
        )
        for line in text.splitlines()
    )
    return "\n".join(line for line in lines if line.strip())


#: "How many cubes are ...": the thing the question counts is the last word before the verb.
_COUNTED_THING = re.compile(r"\bhow many\s+((?:[a-z-]+\s+){0,2}?[a-z-]{2,}s)\b", re.I)
#: A number and the three words after it, where the thing it counts is named ("two metallic spheres").
_COUNT_OF = re.compile(rf"\b{_AMOUNT}((?:\s+[a-z-]+){{1,3}})", re.I)


def _counting_prose(text: str, question: str) -> str:
    """The unmarked prose as far as it can count what the question asks: without list items' numbers and
    counts of other things ("How many cubes?" - "a scene with two spheres")."""
    prose = _unmarked_prose("\n".join(s for s in tx.sentences(text) if not _ITEM_NUMBER.match(s)))
    asked = _COUNTED_THING.search(question)
    thing = vocab.singular(asked.group(1).split()[-1].lower()) if asked else None
    if thing in (None, "time"):
        return prose  # "how many times does it beat?" counts events, which the prose names freely

    def other(m: re.Match[str]) -> str:
        after = [w.lower() for w in m.group(1).split()]
        if any(vocab.singular(w) == thing for w in after):
            return m.group(0)
        counts_other = any(w in vocab.SHAPE_WORDS or (len(w) > 3 and vocab.singular(w) != w) for w in after)
        return " " if counts_other else m.group(0)

    return _COUNT_OF.sub(other, prose)


def _prose_answer(prose: str, ctx: RefineContext, pick: Pick) -> str | None:
    """What the unmarked prose answers, if it says one thing."""
    for spans in (spans for spans, explicit in _levels(prose) if not explicit):
        if answers := _level_answers(spans, False, ctx, pick):
            return answers[0] if len(answers) == 1 else None
    return None


def _beyond(other: str | None, answer: str) -> bool:
    """Another reading names an option the answer does not choose (of several, one it left out)."""
    return other is not None and not set(other.split(";")) <= set(answer.split(";"))


def _unusable(span: str, ctx: RefineContext, pick: Pick) -> bool:
    """A marked answer that names only the reference of a relative question."""
    if pick is not _option_answer:
        return False
    named = {m.option for m in _mentions(span, ctx.options)}
    return bool(named) and all(_is_reference(o, ctx) for o in named)


def _torn(span: str, ctx: RefineContext, pick: Pick) -> bool:
    """A marked answer that names several candidates without choosing ("**Answer: center / left**")."""
    if pick is _number_answer:
        return len(set(_numbers(span))) > 1
    return (
        pick is _option_answer
        and not ctx.multi_answer
        and len({m.option for m in _mentions(span, ctx.options)}) > 1
    )


def _solve(text: str, ctx: RefineContext, pick: Pick) -> str | None:
    levels = _levels(text)
    for spans, explicit in levels:
        answers = _level_answers(spans, explicit, ctx, pick)
        if len(answers) > 1 and explicit:
            answers = _stated_among(answers, text, ctx, pick)
        if len(answers) > 1:
            return None
        if not answers and explicit:
            if any(_torn(s, ctx, pick) for s in spans):
                return None  # the model marked its answer and it is torn: the prose cannot settle it
            if pick is _option_answer and any(_foreign(s, ctx) for s in spans):
                return None  # "Final answer: sphere" where no option is a sphere: the prose cannot settle it
            if spans is not levels[1][0] and any(_unusable(s, ctx, pick) for s in spans):
                return None  # "**Answer:** banjo" to "what is left of the banjo?": the prose cannot say
        if answers:
            return None if explicit and _contradicted(answers[0], text, ctx, pick) else answers[0]
    return None


def _contradicted(answer: str, text: str, ctx: RefineContext, pick: Pick) -> bool:
    """The rest of the text goes against a marked answer: its prose answers otherwise or takes the answer
    back, another marked form answers otherwise, or (several options) the prose names more."""
    prose = _unmarked_prose(text)
    said = _counting_prose(text, ctx.question) if pick is _number_answer else prose
    return (
        _beyond(_prose_answer(said, ctx, pick), answer)
        or _retracted(answer, prose, ctx)
        or _marked_elsewhere(answer, text, ctx, pick)
        or _prose_adds(answer, prose, ctx, pick)
    )


def _stated_among(answers: list[str], text: str, ctx: RefineContext, pick: Pick) -> list[str]:
    """Of several marked words ("holding a **pipa** ... plays a **suona**"), the one an "Answer: ..." line
    states; the marked words otherwise."""
    stated = _distinct([a for a in (pick(s, ctx, explicit=True) for s in tx.answer_phrases(text)) if a])
    return stated if len(stated) == 1 and stated[0] in answers else answers


def _marked_elsewhere(answer: str, text: str, ctx: RefineContext, pick: Pick) -> bool:
    """Another marked answer gives another option ("#cube# ... **Answer: sphere**"): a ``#x#``, an "answer
    is" phrase, or a bold span that is a sentence of its own (bold inside prose only emphasises)."""
    alone = [
        b for s in tx.sentences(text) if not re.search(r"\w", _MARKED.sub(" ", s)) for b in tx.bold_spans(s)
    ]
    return any(
        _beyond(other, answer)
        for spans in (tx.hash_spans(text), alone, tx.answer_phrases(text))
        for other in _level_answers(spans, True, ctx, pick)
    )


def _prose_adds(answer: str, prose: str, ctx: RefineContext, pick: Pick) -> bool:
    """For several options: the prose names more sounding objects than the marked answer chose ("#sphere#
    ... The sounding objects are the sphere and the cone")."""
    if not ctx.multi_answer or pick is not _option_answer:
        return False
    return _beyond(_multi_prose(prose, ctx) if prose.strip() else None, answer)


#: A model correcting itself after its marked answer ("Looking more closely, ... is actually red").
_CORRECTION = re.compile(vocab.any_of("self_corrections"), re.I)
_CONCLUSION = re.compile(r"(?:^|[,;.]\s*)(?:so|therefore|thus|hence)\b([^.]*)", re.I)
_NEGATIVE = re.compile(tx.NEGATION, re.I)


def _retracted(answer: str, prose: str, ctx: RefineContext) -> bool:
    """The unmarked prose takes the answer back: a self-correction naming another option, or a "yes" whose
    concluding clause is negative ("**Yes** ... so the clarinet is not louder")."""
    chosen = set(answer.split(";"))
    if _CORRECTION.search(prose) and {m.option for m in _mentions(prose, ctx.options)} - chosen:
        return True
    if answer.lower() == "yes":
        return any(_NEGATIVE.search(m.group(1)) for m in _CONCLUSION.finditer(prose))
    return False


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.+)$")
#: Words saying an object is silent: an answer that mentions one is not a plain list of choices.
_SILENT = re.compile(rf"{tx.NEGATION}|{vocab.any_of('silent_words')}", re.I)


def _foreign(text: str, ctx: RefineContext) -> bool:
    """The text names a shape or colour, of the kind the options are, that is not an option ("cylinder")."""
    option_words = {w for o in ctx.options for w in norm(o).split()}
    aliases = vocab.aliases_for(tuple(norm(o) for o in ctx.options))
    named = {
        form
        for w in norm(text).split()
        for form in (w, vocab.singular(w))
        if not any(pattern.fullmatch(form) for _, pattern in aliases)
    }
    return any(
        option_words & kind and (named & kind) - option_words
        for kind in (vocab.SHAPE_WORDS, vocab.COLOUR_WORDS)
    )


def _chosen_in(span: str, ctx: RefineContext) -> list[str]:
    return _distinct([m.option for m in _mentions(span, ctx.options)])


def _multi_prose(text: str, ctx: RefineContext) -> str | None:
    """Several options chosen in prose or a list without the ``#...#`` wrapping: one sentence naming them
    ("the cube and the sphere", "both the red one and the blue one", "cube, sphere") or bullet items of one
    option each. Refused when anything hedges, negates or calls an object silent."""
    if tx.HEDGE.search(text) or tx.REFUSAL.search(text) or _SILENT.search(text):
        return None
    if any(m.negated for m in _mentions(text, ctx.options, negated=True)):
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if items := [m.group(1) for m in (_BULLET.match(ln) for ln in lines) if m]:
        if any(_chosen_in(ln, ctx) for ln in lines if not _BULLET.match(ln)):
            return None
        per_item = [_chosen_in(i, ctx) for i in items]
        if any(len(c) != 1 for c in per_item):
            return None
        chosen = _distinct([c[0] for c in per_item])
    else:
        sets = {tuple(c) for c in (_chosen_in(s, ctx) for s in tx.sentences(text)) if c}
        if len(sets) != 1:
            return None
        chosen = list(sets.pop())
    if len(chosen) < 2 or set(chosen) & {o for o in ctx.options if norm(o) in _META_OPTIONS}:
        return None
    return ";".join(chosen)


_META_OPTIONS = frozenset({"not sure", "no available option", "none"})


def _in_space(answer: str, ctx: RefineContext) -> bool:
    """The answer is one the question allows: its options (several, distinct, for multi-select), or a whole
    number where a number is asked."""
    if ctx.expects_number and answer.isdigit():
        return True
    if ctx.options:
        parts = answer.split(";") if ctx.multi_answer else [answer]
        return len(set(parts)) == len(parts) and all(p in ctx.options for p in parts)
    return not ctx.expects_number


#: The option list repeated before the answer ("Available options: red, blue, white, ...").
_OPTIONS_ECHO = re.compile(r"^\W*(?:available\s+)?options?\s*(?:are|:)", re.I)


def _without_question(text: str, question: str) -> str:
    """The text without sentences that only repeat the question (small models echo it before answering):
    the options a question names are not the answer."""
    asked = tx.words(question)
    echoes = (
        [s for s in tx.sentences(text) if tx.words(s) == asked or _OPTIONS_ECHO.match(s)] if asked else []
    )
    if not echoes or len(echoes) == len(tx.sentences(text)):
        return text
    for echo in echoes:
        text = text.replace(echo, " ", 1)
    return text


def parse_qa(raw: object, ctx: RefineContext) -> str | None:
    """The canonical ``**answer**`` for a QA sample, or ``None`` when the rules cannot tell."""
    if (text := tx.usable(raw)) is None:
        return None
    text = _without_question(tx.strip_answer_prefix(text), ctx.question)
    answer = _solve(text, ctx, _number_answer) if ctx.expects_number else None
    if answer is None and ctx.options:
        answer = _solve(text, ctx, _option_answer)
        if ctx.multi_answer and _foreign(text, ctx) and (answer is None or norm(answer) not in _META_OPTIONS):
            return None  # a shape or colour that is no option, unless the answer is that none of them fits
        if ctx.expects_number and answer is not None and norm(answer) not in _META_OPTIONS | set(_YES_NO):
            return None  # "how many?" is not answered by naming an instrument ("2 or 3 ... the bass line")
        if answer in _YES_NO and _against_always(answer, text, ctx.question):
            return None
        if answer == "yes" and _denies_asked(text, ctx.question):
            return None
        if answer is None and ctx.multi_answer:
            answer = _multi_prose(text, ctx)
    elif answer is None and not ctx.expects_number:
        answer = _solve(text, ctx, _free_answer)
    return f"**{answer}**" if answer and _in_space(answer, ctx) else None
