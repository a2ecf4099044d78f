"""Strict multiple-choice extraction: which option did the model commit to? Shared by the option benchmarks.

:func:`choose` takes a model's raw answer and the options as they were presented (and the letters shown beside
them, if any) and returns the index of the chosen option, or ``None`` when the answer does not say. It never
guesses: a hedge ("either A or B", "it could be"), a refusal, or two options named without a commitment give
``None``, and an unparsed answer is the scorer's business, not a coin flip here.

Evidence is read most explicit first, and the first level that decides wins:

1. ``tagged``: the last ``<answer>...</answer>`` or ``\\boxed{...}``;
2. ``commitment``: phrases such as "the answer is X", "Answer: X", "I choose X", "X is the correct answer"; the
   last one that names an option wins (a model that revises itself), unless a later commitment rules it out;
3. ``bold``: markdown bold spans, which must all name the same option;
4. ``lead``: a short first sentence that is not a question ("B.", "(B) Dog", "Dog.");
5. ``ends``: the first and last sentences, which must agree;
6. ``mention``: the whole reply, when it names exactly one option.

An option is named by its text (case, punctuation and spacing ignored; number words equal digits) or by its letter
in an explicit form ("(B)", "option B", a line starting "B."; a bare "B" only where an answer is declared).
Mentions that are negated ("not A", "rather than A", "A is wrong") or sit in a reason clause ("because A ...") do
not count. Levels 4-6 are skipped when the reply refuses ("I cannot ..."), and any sentence that names an option
while hedging makes its level undecidable. Where no option text appears verbatim in a declared answer, the
official token-set rule restricted to that answer must single out exactly one option.

The phrase lists are module constants, so a benchmark with other conventions can be supported by data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from avibench.refine.text import CARDINALS

#: Letters in the order benchmarks show them.
STANDARD_LETTERS: tuple[str, ...] = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

#: Tags whose content is the model's private reasoning, dropped before reading the answer.
REASONING_TAGS: tuple[str, ...] = ("think", "thinking", "reasoning", "thought")

#: Nouns that introduce an answer on their own ("Answer: B", "my response is B").
ANSWER_NOUNS: tuple[str, ...] = ("answer", "response")
#: Nouns that introduce an answer only after one of :data:`ANSWER_ADJECTIVES` ("the correct option is B").
OPTION_NOUNS: tuple[str, ...] = ("option", "choice", "one", "selection", "pick")
ANSWER_ADJECTIVES: tuple[str, ...] = (
    "correct", "right", "best", "final", "my", "selected", "chosen", "most likely", "most appropriate",
    "most accurate", "most suitable", "most plausible", "appropriate", "suitable", "matching",
)  # fmt: skip
#: Verbs after which "X is", "X would be" ... introduce the answer.
COPULAS: tuple[str, ...] = (
    "is", "was", "would be", "will be", "should be", "must be", "has to be", "seems to be", "appears to be",
    "remains", "is clearly", "is likely", "is most likely", "is probably", "is definitely",
)  # fmt: skip
#: Phrases directly followed by the chosen option.
CHOICE_VERBS: tuple[str, ...] = (
    "i choose", "i chose", "i select", "i selected", "i pick", "i picked", "i would choose", "i'd choose",
    "i would select", "i'd select", "i would pick", "i'd pick", "i'll go with", "i will go with", "i'd go with",
    "i would go with", "i go with", "i'll choose", "i will choose", "i opt for", "let's go with", "going with",
    "it must be", "it has to be", "it's actually", "it is actually", "actually, it's", "actually it's",
)  # fmt: skip
#: The same in scripts written without spaces (matched without word boundaries). A bare "选" ("选C", "我选C") is
#: safe because a letter right after another CJK character ("选项A") is not read as a bare letter.
CJK_CHOICE_PHRASES: tuple[str, ...] = (
    "答案是", "答案为", "答案：", "答案:", "选项是", "选项为", "我选择", "应选", "选择", "选",
)  # fmt: skip
#: Words that, shortly before an option, rule it out ("not A", "rather than A", "A is not correct" below).
NEGATORS: tuple[str, ...] = (
    "not", "never", "no longer", "neither", "nor", "rather than", "instead of", "unlike", "except", "excluding",
    "other than", "than", "no", "without", "rule out", "ruled out", "ruling out", "eliminate", "eliminated", "eliminating",
    "exclude", "excluded", "cannot", "can't", "isn't", "wasn't", "aren't", "doesn't", "don't", "didn't", "won't",
    "wouldn't", "couldn't", "shouldn't", "不是",
)  # fmt: skip
#: Words after which an earlier negation no longer applies ("not A but B").
CONTRASTS: tuple[str, ...] = ("but", "however", "yet", "though", "although", "instead")
#: Clauses that give reasons: options named inside them are not the answer ("because A is quieter").
REASON_MARKERS: tuple[str, ...] = (
    "because", "since", "due to", "given that", "as evidenced by", "as indicated by", "as shown by",
    "as suggested by", "whereas", "while", "although", "though", "compared to", "compared with", "which",
    "based on", "considering",
)  # fmt: skip
#: Phrases that hedge the claim of their sentence.
HEDGES: tuple[str, ...] = (
    "either", "not sure", "unsure", "uncertain", "unclear", "not clear", "can't tell", "cannot tell",
    "can't be sure", "cannot be sure", "hard to say", "hard to tell", "hard to determine", "difficult to say",
    "difficult to tell", "difficult to determine", "impossible to", "could be", "might be", "may be", "maybe",
    "perhaps", "possibly", "ambiguous", "not certain", "can't determine", "cannot determine",
    "cannot be determined", "can't be determined", "not possible to",
)  # fmt: skip
#: Phrases that decline to answer.
REFUSALS: tuple[str, ...] = (
    "i cannot", "i can't", "i can not", "i am unable", "i'm unable", "unable to", "i don't know",
    "i do not know", "as an ai", "i don't have", "i do not have", "i'm sorry", "i am sorry", "sorry",
    "none of the", "no audio", "cannot access", "can't access", "i'm not able", "i am not able", "无法",
)  # fmt: skip
#: One-word options that are also ordinary words: they count only as a whole clause ("No, ..." but not "no dog").
INTERJECTIONS: frozenset[str] = frozenset({"yes", "no", "true", "false"})
#: One-letter English words: followed by another word they are a letter only before one of
#: :data:`LETTER_FOLLOWERS` ("A or B", "A is wrong"; but "A dog").
LETTER_WORDS: frozenset[str] = frozenset({"A", "I"})
LETTER_FOLLOWERS: tuple[str, ...] = (
    "and", "or", "nor", "but", "is", "was", "would", "seems", "appears", "should", "must", "could", "might",
    "because", "since", "as", "then", "versus", "vs",
)  # fmt: skip
#: A declared answer that is one short label naming no option ("Final answer: B" when no letters were shown) ends
#: the search for an earlier one: the model committed to something that cannot be read.
_LABEL = re.compile(r"\W*\w{1,2}\W*")
#: A short first sentence is read as a declared answer ("B.", "(B) Dog", "Dog, because ...").
LEAD_MAX_WORDS = 6


@dataclass(frozen=True)
class Choice:
    """The extracted option ``index`` (``None`` = undecided) and the ``rule`` that decided it.

    Rules: ``tagged``, ``commitment``, ``bold``, ``lead``, ``ends``, ``mention`` when an option was chosen;
    ``empty``, ``hedge``, ``refusal``, ``conflict``, ``retracted`` or ``none`` when not.
    """

    index: int | None
    rule: str


def _phrases(words: Iterable[str]) -> str:
    """An alternation of phrases, longest first, with flexible spaces and both apostrophes."""
    parts = sorted(set(words), key=len, reverse=True)
    return "|".join(re.escape(p).replace(r"\ ", r"\s+").replace("'", "['’]") for p in parts)


def _bounded(words: Iterable[str]) -> re.Pattern[str]:
    """Any of the phrases as whole words (CJK phrases need no boundary)."""
    return re.compile(rf"(?<![\w'])(?:{_phrases(words)})(?![\w'])", re.I)


_ADJ = rf"(?:{_phrases(ANSWER_ADJECTIVES)})\s+"
_NOUN = rf"(?:(?:{_ADJ})?(?:{_phrases(ANSWER_NOUNS)})|{_ADJ}(?:{_phrases(OPTION_NOUNS)}))"
_MARK = r"[\s*_`]*"
_PREFIX = re.compile(
    rf"(?<![\w'])(?:{_NOUN}(?:\s+(?:to|for|of)\s+[^.:\n]{{1,60}}?)?{_MARK}(?:\b(?:{_phrases(COPULAS)})\b{_MARK}[:：]?"
    rf"|[:：=]|\s+[-–—])|{_phrases(CHOICE_VERBS)})(?![\w']){_MARK}|(?:{_phrases(CJK_CHOICE_PHRASES)}){_MARK}",
    re.I,
)
_SUFFIX = re.compile(
    rf"\b(?:is|was|would be|seems to be|appears to be|must be)\s+(?:the\s+)?(?:{_NOUN})\b"
    r"|\bis\s+(?:the\s+)?(?:correct|right)\s*(?:[.!\n]|$)",
    re.I,
)
_HEADING = re.compile(
    rf"^[#>*_\s]*(?:final\s+)?(?:{_phrases(ANSWER_NOUNS)}){_MARK}[:：]?{_MARK}$", re.I | re.M
)
_NEGATOR_BEFORE = re.compile(rf"(?<![\w'])(?:{_phrases(NEGATORS)})(?:\W+\w+){{0,3}}?\W*$", re.I)
_NEGATOR_AFTER = re.compile(
    r"^[\s*_\"')\]]*(?:(?:is|was|are|does|do|would|could)n['’]t\b|(?:is|was|are|seems|sounds|appears|would be)\s+"
    r"(?:not|incorrect|wrong|unlikely|ruled out|eliminated|excluded)\b|(?:can|could|should)\s+be\s+"
    r"(?:ruled out|excluded|eliminated|discarded)\b)",
    re.I,
)
_CONTRAST = _bounded(CONTRASTS)
_REASON = _bounded(REASON_MARKERS)
_HEDGE = _bounded(HEDGES)
_REFUSAL = _bounded(REFUSALS)
_CLAUSE_BREAK = re.compile(r"[,;:!?\n。，；：！？]|\.(?!\d)")
_SENTENCE = re.compile(r"[^\n.!?。！？]*(?:\.(?=\d)[^\n.!?。！？]*)*(?:[.!?。！？]+|\n|$)")
_TAGGED = re.compile(r"<answer>(.*?)</answer>|\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}", re.S | re.I)
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.S)
_SPECIAL_TOKEN = re.compile(r"<\|[a-z_]+\|>")
_LATEX_TEXT = re.compile(r"\\text(?:bf)?\{([^{}]*)\}")
_WORD = re.compile(r"\w+")
_NUMBER_OF = {w: str(n) for w, n in CARDINALS.items()}
_WORDS_OF: dict[str, list[str]] = {}
for _w, _n in _NUMBER_OF.items():
    _WORDS_OF.setdefault(_n, []).append(_w)


_TAGS = "|".join(REASONING_TAGS)
_REASONING_BLOCK = re.compile(rf"<({_TAGS})>.*?</\1>", re.S | re.I)
_REASONING_CLOSE = re.compile(rf"</(?:{_TAGS})>", re.I)
_REASONING_OPEN = re.compile(rf"<(?:{_TAGS})>.*", re.S | re.I)


def _strip_reasoning(text: str) -> str:
    if "<" not in text:
        return text
    text = _REASONING_BLOCK.sub(" ", text)
    closes = list(_REASONING_CLOSE.finditer(text))
    if closes:  # a closing tag without its opening one (chat templates often eat the opener)
        text = text[closes[-1].end() :]
    return _REASONING_OPEN.sub(" ", text)  # an unfinished reasoning block


def visible_text(raw: object) -> str:
    """The part of a raw answer a reader would take as the reply: reasoning blocks and special tokens removed."""
    if not isinstance(raw, str):
        return ""
    text = _SPECIAL_TOKEN.sub(" ", _strip_reasoning(raw))
    text = _LATEX_TEXT.sub(lambda m: m.group(1).center(len(m.group(0))), text)
    return text.replace("’", "'").strip()


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, number words as digits."""
    return [_NUMBER_OF.get(t, t) for t in _WORD.findall(text.casefold())]


def _token_pattern(token: str) -> str:
    forms = [token, *_WORDS_OF.get(token, ())]
    return "(?:" + "|".join(re.escape(f) for f in forms) + ")"


def _is_spaced(ch: str) -> bool:
    """Whether a word character belongs to a script that separates words with spaces (not CJK or kana)."""
    return not ("\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")


def _option_pattern(toks: Sequence[str]) -> str:
    body = r"\W+".join(_token_pattern(t) for t in toks)
    before = r"(?<!\w)" if _is_spaced(toks[0][0]) else ""
    after = r"(?!\w)" if _is_spaced(toks[-1][-1]) else ""
    if len(toks) == 1 and toks[0] in INTERJECTIONS:
        after += r"(?=[\s*_\"')\]]*(?:[,.;:!?\n]|$))"
    return before + body + after


def _add_letter(raw: list[tuple[int, int, frozenset[int]]], start: int, end: int, index: int) -> None:
    """Record a letter mention. A letter that is an option's whole text ("C" among chord names) names both; one
    inside a longer option text ("A Locrian mode") is part of that name."""
    for k, (s, e, indices) in enumerate(raw):
        if start < e and s < end:
            if start <= s and e <= end:
                raw[k] = (s, e, indices | {index})
            return
    raw.append((start, end, frozenset({index})))


def _clause_end(text: str, pos: int) -> int:
    brk = _CLAUSE_BREAK.search(text, pos)
    return brk.start() if brk else len(text)


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    indices: frozenset[int]
    negated: bool
    reason: bool

    @property
    def counts(self) -> bool:
        return not (self.negated or self.reason)


@dataclass(frozen=True)
class _Outcome:
    """What one span says: an option, a conflict (several, or a hedge), or nothing; and what it rules out."""

    index: int | None = None
    conflict: str | None = None
    """``"conflict"`` (several options named) or ``"hedge"`` (an option named while hedging)."""
    negated: frozenset[int] = frozenset()


class _Matcher:
    """The compiled patterns for one option list and its letters."""

    def __init__(self, options: tuple[str, ...], letters: tuple[str, ...]):
        self.n = len(options)
        self.option_tokens = [tokens(o) for o in options]
        keys: dict[tuple[str, ...], set[int]] = {}
        first_of: dict[str, int] = {}
        for i, (option, toks) in enumerate(zip(options, self.option_tokens, strict=True)):
            if toks:  # an option repeated verbatim is one option, named by its first position
                keys.setdefault(tuple(toks), set()).add(first_of.setdefault(option.strip(), i))
        ordered = sorted(keys, key=lambda k: (-len(k), -len(" ".join(k))))
        self.key_indices = [frozenset(keys[k]) for k in ordered]
        alternatives = [f"(?P<o{k}>{_option_pattern(key)})" for k, key in enumerate(ordered)]
        self.text_re = re.compile("|".join(alternatives), re.I) if alternatives else None
        self.letter_index = {letter.casefold(): i for i, letter in enumerate(letters[: self.n])}
        self.letters_re = self.bare_re = None
        if self.letter_index:
            shown = "|".join(re.escape(x) for x in sorted(letters[: self.n], key=len, reverse=True))
            self.letters_re = re.compile(
                rf"[(\[]\s*(?i:(?P<a>{shown}))\s*[)\]]|(?i:\b(?:option|choice)\s*[(\[]?(?P<b>{shown})[)\]]?)(?!\w)"
                rf"|^[\s*#>_-]*(?P<c>{shown})[*_]*\s*[.):](?=\s|$)",
                re.M,
            )
            article = rf"(?!\s+(?!(?:{'|'.join(LETTER_FOLLOWERS)})\b)[a-z])"
            bare = [
                re.escape(x) + r"(?![\w'])" + (article if x in LETTER_WORDS else "")
                for x in letters[: self.n]
            ]
            self.bare_re = re.compile(rf"(?<![\w'])(?:{'|'.join(bare)})")
        shared: dict[str, int] = {}
        for toks in self.option_tokens:
            for t in set(toks):
                shared[t] = shared.get(t, 0) + 1
        self.distinctive = [
            frozenset(t for t in toks if shared[t] == 1)
            if toks and not set(toks) <= INTERJECTIONS
            else frozenset()
            for toks in self.option_tokens
        ]

    def _mention(
        self, text: str, start: int, end: int, indices: frozenset[int], reasons: list[range]
    ) -> _Mention:
        clause = _CLAUSE_BREAK.split(text[max(0, start - 200) : start])[-1]
        clause = _CONTRAST.split(clause)[-1]
        after = _CLAUSE_BREAK.split(text[end : end + 80])[0]
        negated = bool(_NEGATOR_BEFORE.search(clause) or _NEGATOR_AFTER.match(after))
        return _Mention(start, end, indices, negated, any(start in r for r in reasons))

    def mentions(self, text: str) -> tuple[list[_Mention], list[range]]:
        """Option texts and explicit letters named in the text, in order and without overlaps; and the reason
        clauses (a reason marker inside an option's own text starts none)."""
        raw: list[tuple[int, int, frozenset[int]]] = []
        if self.text_re is not None:
            for m in self.text_re.finditer(text):
                raw.append((m.start(), m.end(), self.key_indices[int(m.lastgroup[1:])]))
        if self.letters_re is not None:
            for m in self.letters_re.finditer(text):
                letter = next(g for g in (m.group("a"), m.group("b"), m.group("c")) if g)
                _add_letter(raw, m.start(), m.end(), self.letter_index[letter.casefold()])
        reasons = [
            range(r.start(), _clause_end(text, r.end()))
            for r in _REASON.finditer(text)
            if not any(s <= r.start() < e for s, e, _ in raw)
        ]
        found = [self._mention(text, s, e, indices, reasons) for s, e, indices in sorted(raw)]
        return found, reasons

    def with_bare_letters(
        self, text: str, span: range, known: list[_Mention], reasons: list[range]
    ) -> list[_Mention]:
        """The span's mentions plus its bare letters ("Answer: B"), read only where an answer is declared."""
        if self.bare_re is None:
            return known
        raw = [(k.start, k.end, k.indices) for k in known]
        for m in self.bare_re.finditer(text[span.start : span.stop]):
            _add_letter(
                raw, span.start + m.start(), span.start + m.end(), self.letter_index[m.group(0).casefold()]
            )
        return [self._mention(text, s, e, indices, reasons) for s, e, indices in sorted(raw)]

    def by_tokens(self, words: set[str]) -> int | None:
        """The one option whose distinctive words all appear, while no other option's do."""
        hits = [
            i
            for i, own in enumerate(self.distinctive)
            if own
            and own <= words
            and not any(words & other for j, other in enumerate(self.distinctive) if j != i)
        ]
        return hits[0] if len(hits) == 1 else None


@lru_cache(maxsize=4096)
def _matcher(options: tuple[str, ...], letters: tuple[str, ...]) -> _Matcher:
    return _Matcher(options, letters)


class _Reader:
    """One reply, read against one option list."""

    def __init__(self, text: str, matcher: _Matcher):
        self.text = text
        self.m = matcher
        self.all, self.reasons = matcher.mentions(text)

    def masked(self, span: range, mentions: Sequence[_Mention]) -> str:
        """The span's text without option names and reason clauses, for the hedge and refusal checks."""
        chars = list(self.text[span.start : span.stop])
        for blank in [*(range(x.start, x.end) for x in mentions), *self.reasons]:
            for pos in range(max(blank.start, span.start), min(blank.stop, span.stop)):
                chars[pos - span.start] = " "
        return "".join(chars)

    def read(self, span: range, *, declared: bool, fuzzy: bool = False) -> _Outcome:
        """What the text in ``span`` chooses. ``declared``: the model states its answer there (bare letters count
        and a hedge makes a conflict); ``fuzzy``: the token-set rule may pick an option not named verbatim."""
        inside = [x for x in self.all if span.start <= x.start < span.stop]
        if declared:
            inside = self.m.with_bare_letters(self.text, span, inside, self.reasons)
        negated = frozenset(i for x in inside if x.negated for i in x.indices)
        chosen = {i for x in inside if x.counts for i in x.indices}
        if any(len(x.indices) > 1 for x in inside if x.counts) or len(chosen) > 1:
            return _Outcome(conflict="conflict", negated=negated)
        hedged = bool(_HEDGE.search(self.masked(span, inside)))
        if hedged and (chosen or declared):
            return _Outcome(conflict="hedge", negated=negated)
        if chosen:
            return _Outcome(index=chosen.pop(), negated=negated)
        if fuzzy:
            words = set(tokens(self.masked(span, [x for x in inside if not x.counts])))
            return _Outcome(index=self.m.by_tokens(words), negated=negated)
        return _Outcome(negated=negated)

    def _extend(self, start: int, stop: int) -> range:
        """A declared answer runs to the end of its sentence, and past it while an option name continues."""
        for x in self.all:
            if x.start < stop < x.end:
                stop = x.end
        return range(start, stop)

    def _sentence_end(self, pos: int) -> int:
        m = _SENTENCE.match(self.text, pos)
        return m.end() if m else len(self.text)

    def tagged(self) -> list[range]:
        return [range(m.start(m.lastindex), m.end(m.lastindex)) for m in _TAGGED.finditer(self.text)]

    def _in_option_text(self, pos: int) -> bool:
        return any(x.start <= pos < x.end for x in self.all)

    def _declared_from(self, pos: int) -> range:
        """The answer after a phrase ending at ``pos``: the rest of the sentence, or the next line when the phrase
        ends its line ("Answer:" or a heading, with the answer below)."""
        if not self.text[pos : self._sentence_end(pos)].strip(" \t*_#:"):
            nxt = re.search(r"\S", self.text[pos:])
            pos = pos + nxt.start() if nxt else pos
        return self._extend(pos, self._sentence_end(pos))

    def commitments(self) -> list[range]:
        """Where the reply declares its answer, in order (phrases inside an option's own text excluded)."""
        spans = [
            self._declared_from(m.end())
            for m in (*_PREFIX.finditer(self.text), *_HEADING.finditer(self.text))
            if not self._in_option_text(m.start())
        ]
        for m in _SUFFIX.finditer(self.text):
            if not self._in_option_text(m.start()):
                clause = _CLAUSE_BREAK.split(self.text[max(0, m.start() - 120) : m.start()])[-1]
                spans.append(range(m.start() - len(clause), m.start()))
        return sorted(spans, key=lambda r: r.start)

    def is_listing(self) -> bool:
        """Whether lines start with different options, as when a reply walks through every option."""
        starts = {m.end() for m in re.finditer(r"^[\s*#>_-]*", self.text, re.M)}
        return len({i for x in self.all if x.start in starts for i in x.indices}) > 1

    def bold(self) -> list[range]:
        return [range(m.start(m.lastindex), m.end(m.lastindex)) for m in _BOLD.finditer(self.text)]

    def sentences(self) -> list[range]:
        found = []
        for m in _SENTENCE.finditer(self.text):
            if m.group(0).strip(" \t\n*_#>-"):
                found.append(range(m.start(), m.end()))
        return found


def _last_commitment(reader: _Reader, spans: list[range]) -> Choice | None:
    """The last declared answer that names an option, unless a later one ruled it out; ``None``: no decision."""
    ruled_out: set[int] = set()
    for span in reversed(spans):
        outcome = reader.read(span, declared=True, fuzzy=True)
        if outcome.conflict:
            return Choice(None, outcome.conflict)
        if outcome.index is not None:
            if outcome.index in ruled_out:
                return Choice(None, "retracted")
            return Choice(outcome.index, "commitment")
        if _LABEL.fullmatch(reader.text[span.start : span.stop]):
            return Choice(None, "none")
        ruled_out |= outcome.negated
    return None


def _agreeing(
    reader: _Reader, spans: Sequence[range], rule: str, *, declared: bool, fuzzy: bool = False
) -> Choice | None:
    """The option all spans that name one agree on; a conflict between or within spans decides ``None``."""
    outcomes = [reader.read(span, declared=declared, fuzzy=fuzzy) for span in spans]
    for outcome in outcomes:
        if outcome.conflict:
            return Choice(None, outcome.conflict)
    picked = {o.index for o in outcomes if o.index is not None}
    if len(picked) > 1:
        return Choice(None, "conflict")
    return Choice(picked.pop(), rule) if picked else None


def read_choice(raw: object, options: Sequence[str], letters: Sequence[str] | None = None) -> Choice:
    """The option a raw answer commits to, with the rule that decided it (see the module docstring).

    ``letters`` are the labels shown beside the options, in order: ``None`` means the standard ``A``, ``B``, ...;
    an empty sequence means the options were shown without letters, so letters in the answer are not read.
    """
    text = visible_text(raw)
    if not text or not options:
        return Choice(None, "empty")
    shown = STANDARD_LETTERS if letters is None else tuple(letters)
    reader = _Reader(text, _matcher(tuple(str(o) for o in options), shown))
    tagged = reader.tagged()
    if tagged:
        outcome = reader.read(tagged[-1], declared=True, fuzzy=True)
        if outcome.conflict or outcome.index is not None:
            return Choice(outcome.index, outcome.conflict or "tagged")
    decided = _last_commitment(reader, reader.commitments()) or _agreeing(
        reader, reader.bold(), "bold", declared=True
    )
    if decided is not None:
        return decided
    if _REFUSAL.search(reader.masked(range(0, len(text)), reader.all)):
        return Choice(None, "refusal")
    sentences = reader.sentences()
    if not sentences:
        return Choice(None, "none")
    first, last = sentences[0], sentences[-1]
    lead = text[first.start : first.stop].rstrip(" \t\n*_")
    # A question ("Classical? No, ...") is a thought, not the answer.
    if len(tokens(lead)) <= LEAD_MAX_WORDS and not lead.endswith(("?", "？")) and not reader.is_listing():
        decided = _agreeing(reader, [first], "lead", declared=True, fuzzy=True)
    ends = [first] if first == last else [first, last]
    decided = (
        decided
        or _agreeing(reader, ends, "ends", declared=False)
        or _agreeing(reader, sentences, "mention", declared=False)
    )
    return decided or Choice(None, "none")


def choose(raw: object, options: Sequence[str], letters: Sequence[str] | None = None) -> int | None:
    """The index of the option a raw answer commits to, or ``None`` when it cannot be told (never a guess)."""
    return read_choice(raw, options, letters).index
