"""Rule refine for retrieval (VAR, AVR): the selected candidate indices as ``[0, 3]``.

The prompt asks for 0-based indices, so bare numbers, lists and "index 2" are taken as 0-based. Ordinals in
prose ("the first and fourth clips") are 1-based. Numbers attached to a candidate noun ("clip 2 and clip 5")
are ambiguous: models number items from 1 when they describe them; they are read as 0-based when some item is
numbered 0, as 1-based when one is numbered with the candidate count (out of range for 0-based), and refused
otherwise. "None of them" gives ``[]``.
"""

from __future__ import annotations

import re
from typing import Any

from avibench.refine import text as tx
from avibench.refine.context import RefineContext
from avibench.refine.vocab import VOCABULARY, any_of, singular

_NOUNS = "|".join(VOCABULARY["candidate_nouns"])
_SEP = rf"\s*(?:,\s*and|,|and|&|or|\+)\s*(?:the\s+)?(?:(?:{_NOUNS})\s*)?#?"
_NAMED = re.compile(rf"\b(?:{_NOUNS})[\s_]*#?\s*(\d+(?:(?:{_SEP})\d+)*)", re.I)
#: "Picture No.1", "image number 3": the number sign written out.
_NUMBER_SIGN = re.compile(r"\b(?:no\.|nr\.|number)\s*(?=\d)", re.I)
_INDEXED = re.compile(
    rf"\b(?:index|indices|indexes|idx|positions?)[*`]*\s*(?:is|are|:|=)?[*`]*\s*#?(\d+(?:(?:{_SEP})\d+)*)",
    re.I,
)
_BARE = re.compile(rf"^\s*(\d+(?:(?:{_SEP})\d+)*)\s*\.?\s*$", re.I)
_LISTED = re.compile(rf"(?:\bare|\bis|:)[*`]*\s*(\d+(?:(?:{_SEP})\d+)*)\s*\.?\s*$", re.I)
_NONE = re.compile(any_of("no_candidate"), re.I)
_ONE_BASED = re.compile(r"\b(?:1-based|one-based|1-indexed|starting (?:from|at) 1|counting from 1)\b", re.I)
_MAX_INDEX = 999


def canonical_indices(indices: list[int]) -> str:
    """``[0, 3]``: comma and space, as the reference tokeniser needs, duplicates dropped, order kept."""
    return "[" + ", ".join(str(i) for i in dict.fromkeys(indices)) + "]"


def _int_list(value: list[Any]) -> list[int] | None:
    """The list as indices, or ``None`` when an item is none (a bool, a word, a negative or huge number)."""
    out = [int(v) for v in value if type(v) is int or (isinstance(v, str) and v.strip().isdecimal())]
    return out if len(out) == len(value) and all(0 <= n <= _MAX_INDEX for n in out) else None


def _lists(span: str) -> list[list[int]]:
    return [lst for lst in (_int_list(v) for v in tx.find_lists(span)) if lst is not None]


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", group) if int(n) <= _MAX_INDEX]


def _from_prose(span: str, ctx: RefineContext, *, zero_based: bool = False) -> list[int] | None:
    if tx.HEDGE.search(span) or tx.REFUSAL.search(span):
        return None
    span = _NUMBER_SIGN.sub("", span)
    indexed = [n for m in _INDEXED.finditer(span) for n in _numbers(m.group(1))]
    named = [n for m in _NAMED.finditer(span) for n in _numbers(m.group(1))]
    ordinals = [tx.ORDINALS[w] - 1 for w in tx.words(span) if w in tx.ORDINALS]
    plain = _BARE.match(span) or _LISTED.search(span)  # bare numbers, or numbers listed at the end
    if ctx.n_candidates and re.search(r"\b(?:the )?last (?:one|clip|audio|image|candidate|item)", span, re.I):
        ordinals.append(ctx.n_candidates - 1)
    if named:
        based = named if zero_based else _base_named(named, span, ctx)
        if based is None and ordinals in ([n - 1 for n in named], named):
            based = ordinals  # "image #1 (the first) and image #3 (the third)", "wav 2 (the third one)"
        if (named := based) is None:
            return None
    every, total = _EVERY.search(span), ctx.n_candidates
    if every and total and not _DENY.search(span) and not re.search(r"\b(?:except|only|but)\b", span, re.I):
        said = every.group(1) or every.group("n")
        if said is None or said == str(total) or tx.NUMBER_WORDS.get(said.lower()) == total:
            return list(range(total))  # "All three audio clips match the image."
    kinds = {tuple(k) for k in (indexed, named, ordinals) if k}
    if not kinds and plain:
        numbers = _numbers(plain.group(1))
        if _ONE_BASED.search(span):  # "Using 1-based numbering, the matching wavs are 2 and 3."
            return None if 0 in numbers else [n - 1 for n in numbers]
        return numbers
    if len(kinds) == 1:
        return list(kinds.pop())
    return [] if not kinds and _NONE.search(span) else None


#: "All (three) clips match": every candidate chosen.
_EVERY = re.compile(
    rf"^\W*all\s+(?:(?!of\b)(\w+)\s+)?(?:of\s+)?(?:the\s+)?(?:(?!of\b)(?P<n>\w+)\s+)?(?:{_NOUNS})\s+(?:\w+\s+){{0,2}}?"
    rf"(?:match(?:es)?|correspond|fit)\b",
    re.I,
)


def _base_named(named: list[int], span: str, ctx: RefineContext) -> list[int] | None:
    """Numbers attached to a candidate noun, made 0-based, or ``None`` when the base is unknowable."""
    if 0 in named:
        return named
    if _ONE_BASED.search(span) or (ctx.n_candidates is not None and max(named) == ctx.n_candidates):
        return [n - 1 for n in named]
    return None


def _solve(text: str, ctx: RefineContext) -> list[int] | None:
    explicit = tx.bold_spans(text) + tx.answer_phrases(text)
    for spans in (explicit, [text]):
        distinct = {tuple(lst) for s in spans for lst in _lists(s)}
        if len(distinct) > 1:
            return None
        if distinct:
            chosen = list(distinct.pop())
            if tx.DOUBT.search(text) or any(
                lst != chosen and not _enumeration(lst, ctx) for lst in _lists(text)
            ):
                return None  # "Possibly [2], maybe 3 as well"; "[1, 3] ... so the answer is [1]"
            prose = _LIST.sub(" ", text)
            affirmed = _affirmed(prose, ctx)
            # the numbers of the candidates the prose says match, as written (zero- or one-based)
            said = {n for s in _affirming(prose) for m in _NAMED.finditer(s) for n in _numbers(m.group(1))}
            if (
                (said and said not in ({*chosen}, {c + 1 for c in chosen}))
                or _grouped_against(chosen, prose)
                or _selected_against(chosen, prose, ctx)
            ):
                return None  # "[2] ... the audio matches images 2 and 5", whichever way it counts
            return chosen if affirmed is None or set(affirmed) == set(chosen) else None
    prose = _from_text(text, ctx)
    return prose if prose is not None else _from_bullets(text, ctx)


def _enumeration(indices: list[int], ctx: RefineContext) -> bool:
    """A list of every candidate ("The candidates are [0, 1, 2, 3, 4]"): it names them, it does not answer."""
    whole = ctx.n_candidates or len(indices)
    return len(indices) >= 3 and indices == list(range(whole))


_AFFIRM = re.compile(
    r"\b(?:match(?:es|ed|ing)?|correspond(?:s|ing)?|fits?|consistent with|yes|only)\b|[\u2713\u2714\u2611\u2705]",
    re.I,
)
_DENY = re.compile(
    rf"{tx.NEGATION}|\b(?:none|neither|nor|unlike|mismatch(?:es|ed)?)\b|[\u2717\u2718\u274c]", re.I
)
#: A list item or a per-candidate line ("- ...", "2. ...", "Image 3: ...").
_ITEM = re.compile(rf"^\s*(?:[-*•]|\d+[.)]|(?:{_NOUNS}|index)\s*#?\s*\d+\s*[:–—-])\s*", re.I)
_ZERO_NAMED = re.compile(rf"\b(?:{_NOUNS})\s*#?\s*0\b", re.I)


def _affirmed(prose: str, ctx: RefineContext) -> list[int] | None:
    """The candidates the prose beside a list says match ("Clip 1: piano - matches", "The second clip
    matches"), sentence by sentence, denials skipped; ``None`` when it affirms none."""
    zero_based = _ZERO_NAMED.search(prose) is not None
    picked = [n for s in _affirming(prose) for n in _from_prose(s, ctx, zero_based=zero_based) or []]
    return picked or None


#: Candidates picked out by what they show: "Images with horses: 1, 4", "the clips containing rain are 0 and 3".
_SELECTED = re.compile(
    rf"\b(?:{_NOUNS})\s+(?:with|showing|that (?:show|contain|have)|containing|featuring|depicting)\s+"
    rf"([^.:\n\d]{{1,40}}?)\s*(?::|\bare\b(?:\s+at)?(?:\s+(?:indices|indexes|positions|numbers?))?)\s*"
    rf"(\d+(?:(?:{_SEP})\d+)*|[^.;\n]+)",
    re.I,
)


def _readings(chosen: list[int], prose: str) -> list[set[int]]:
    """The chosen indices as prose may number them: as written, and one-based unless the prose names a
    candidate 0."""
    return [{*chosen}] if _ZERO_NAMED.search(prose) else [{*chosen}, {c + 1 for c in chosen}]


def _selected_against(chosen: list[int], prose: str, ctx: RefineContext) -> bool:
    """The prose picks candidates out by what they show, the thing it says was heard or seen ("Sound: horse
    hooves ... Images with horses: 1, 4", "Images showing a sax: the second and the fifth"), and they are not
    the chosen ones: numbers whichever way they count, ordinals by position."""
    counted = _readings(chosen, prose)
    for m in _SELECTED.finditer(prose):
        if _DENY.search(m.group(0)):
            continue
        rest = tx.words(prose[: m.start()] + " " + prose[m.end() :])
        described = {singular(w) for w in tx.words(m.group(1)) if len(w) > 3}
        if not described & {singular(w) for w in rest}:
            continue
        if re.fullmatch(rf"\d+(?:(?:{_SEP})\d+)*", m.group(2).strip()):
            if set(_numbers(m.group(2))) not in counted:
                return True
        elif (ordinals := _from_prose(m.group(2), ctx)) is not None and set(ordinals) != {*chosen}:
            return True
    return False


def _grouped_against(chosen: list[int], prose: str) -> bool:
    """The prose names candidates together, in a sentence that denies nothing, as a group that shares some
    but not all of the chosen ones ("The images showing a cat are at indices 1 and 5" beside ``[1, 3]``),
    whichever way it counts. A group apart from the choice describes the others ("Clips 0 and 2 contain a
    mower and a saxophone"). A candidate numbered 0 anywhere means the prose counts from 0."""
    readings = _readings(chosen, prose)
    groups = (
        set(_numbers(m.group(1)))
        for sentence in tx.sentences(prose)
        if not _DENY.search(sentence)
        for m in (*_NAMED.finditer(sentence), *_INDEXED.finditer(sentence))
    )
    return any(len(g) > 1 and g not in readings and any(g & r for r in readings) for g in groups)


def _affirming(prose: str) -> list[str]:
    """The sentences that say a candidate matches, without denying one."""
    return [s for s in tx.sentences(prose) if _AFFIRM.search(s) and not _DENY.search(s)]


def _joined_bold(text: str) -> list[str]:
    """Bold spans (not item labels), except that several short ones in one sentence ("The **second** and **fifth** images") are
    read as that sentence: together they are one answer."""
    spans = [s for s in tx.bold_spans(text) if not s.rstrip().endswith(":")]  # "**Clip 0:**" labels an item
    if len(spans) > 1 and all(len(tx.words(s)) <= 3 for s in spans):
        holding = [
            s for s in tx.sentences(text) if all(f"**{b}**" in s for b in spans) and "\n" not in s.strip()
        ]
        if len(holding) == 1:
            return [holding[0].replace("**", "")]
    return spans


def _from_text(text: str, ctx: RefineContext) -> list[int] | None:
    """The indices prose names, where models put the answer: marked spans, the last sentence, the first,
    then the whole text; ``None`` when those disagree or name none."""
    explicit = _joined_bold(text) + tx.answer_phrases(text)
    parts = tx.sentences(text)
    zero_based = _ZERO_NAMED.search(text) is not None
    listed = sum(bool(_ITEM.match(line)) for line in text.splitlines()) >= 2
    ends = [] if listed else [parts[-1:], parts[:1]]  # a list's first and last items are not its answer
    if listed and parts and not _ITEM.match(parts[-1]):
        ends = [parts[-1:]]  # a concluding sentence after a per-candidate list
    for spans in (explicit, *ends, [text]):
        results = {
            tuple(r) for r in (_from_prose(s, ctx, zero_based=zero_based) for s in spans) if r is not None
        }
        if len(results) > 1:
            return None
        if results:
            return list(results.pop())
    return None


_LIST = re.compile(r"\[[^\[\]]*\]")
#: A bullet that opens on the candidate it picks: "- **Index 1**: ...", "* `0` – ...", "1. Image 3 ...".
_BULLET_PICK = re.compile(
    rf"^\s*[-*•]\s+[*`]*\s*((?:(?:{_NOUNS}|index)\s*#?\s*)?\d+)\s*[*`]*\s*(?:[:–—-]|$)", re.I
)


def _from_bullets(text: str, ctx: RefineContext) -> list[int] | None:
    """Chosen candidates as bullet items, one each, read as the same candidates in running text would be."""
    picks = [m.group(1) for m in (_BULLET_PICK.match(line) for line in text.splitlines()) if m]
    if not picks or tx.DOUBT.search(text) or tx.REFUSAL.search(text):
        return None
    if ctx.n_candidates and len(set(picks)) >= ctx.n_candidates:
        return None  # one bullet per candidate: an analysis of each, not a pick
    return _from_prose(", ".join(picks), ctx)


def parse_retrieval(raw: object, ctx: RefineContext) -> str | None:
    """The canonical index list for a retrieval sample, or ``None`` when the rules cannot tell."""
    if (text := tx.usable(raw)) is None:
        return None
    indices = _solve(tx.strip_answer_prefix(tx.without_echo(text, ctx.prompt_text)), ctx)
    if indices is None or (ctx.n_candidates and any(i >= ctx.n_candidates for i in indices)):
        return None  # an index past the candidates is outside the answer space
    return canonical_indices(indices)
