"""Rule refine for multi-instance classification and counting (AMIC, VMIC): ``{"dog": "2", "man": "1"}``.

Accepted: a dict (JSON or Python literal, in a code fence, after ``answer=``), ``class: count`` lines, and prose
with explicit quantities ("two dogs and a man"). Counts must be exact integers; vague quantities ("some birds",
"several people"), hedges and refusals return ``None``. A class given a count of zero is left out (the model
says it is absent). Names go onto the task's class list (plurals, case, hyphens, modifiers such as "black dog").
"""

from __future__ import annotations

import json
import re
from typing import Any

from avibench.refine import text as tx
from avibench.refine.boxes import BOX_KEYS, LABEL_KEYS
from avibench.refine.context import RefineContext
from avibench.refine.vocab import VOCABULARY, class_at, match_class, normalise_key, singular

_VAGUE = frozenset(VOCABULARY["vague_quantities"])
_DEFINITE = frozenset({"the", "this", "that", "these", "those", "its", "his", "her", "their", "same"})
_NOT_OBJECTS = frozenset(VOCABULARY["not_objects"])
_LINE_PAIR = re.compile(
    r"^[\s*\-•\d.)]*\**([A-Za-z][A-Za-z _'-]{0,40}?)\**\s*(?:[:=]|-|–|—|x|×|\(x?)\s*\**\s*(\w+)\**\s*\)?\s*[.,;]?$"
)
#: "2 × dog", "3x cat": the count first.
_COUNT_FIRST = re.compile(r"^[\s*\-•]*\**(\d+)\s*(?:×|x)\s*\**([A-Za-z][A-Za-z _'-]{0,40}?)\**\s*[.,;]?$")
#: Several "name × count" pairs on one line ("Dog × 2, Man × 1"), and a lead-in before them ("I hear: ").
_PAIR_SPLIT = re.compile(r"\s*(?:[,;]|\band\b)\s*")
_LEAD_IN = re.compile(r"^[^:×]{0,60}:\s+(?=.*×|.*\sx\s*\d|.*\(\s*\d+\s*\)|[^:]*[A-Za-z]\s+\d+\s*(?:[,;]|$))")
_COUNT_HEADERS = ("count", "number", "quantity", "instances", "how many", "amount", "#")
_LOOKBACK = 3
#: Prose longer than this is an essay, not an answer: it goes to the LLM.
_MAX_PROSE = 2000


def canonical_mic(counts: dict[str, int]) -> str:
    return json.dumps({k: str(v) for k, v in counts.items()}, ensure_ascii=False)


def _add(counts: dict[str, int], key: str, n: int) -> None:
    if n > 0:
        counts[key] = counts.get(key, 0) + n


def _unwrap(value: dict[Any, Any]) -> dict[Any, Any]:
    """``{"answer": {...}}`` or ``{"counts": {...}}`` -> the inner dict."""
    while len(value) == 1 and isinstance(next(iter(value.values())), dict):
        value = next(iter(value.values()))
    return value


_SLOT = re.compile(r"^(cls|class|name|object|count|number)_?(\d+)$", re.I)


def _slots(value: dict[Any, Any]) -> dict[Any, Any] | None:
    """The prompt's template filled in slot by slot (``{cls_1: 'guitar', count_1: 1, ...}``) as name -> count;
    ``None`` when the dict is not such a template."""
    names: dict[str, Any] = {}
    numbers: dict[str, Any] = {}
    for key, item in value.items():
        if (m := _SLOT.match(str(key))) is None:
            return None
        (numbers if m.group(1).lower() in ("count", "number") else names)[m.group(2)] = item
    if not names or names.keys() != numbers.keys() or not all(isinstance(n, str) for n in names.values()):
        return None
    return {names[k]: numbers[k] for k in names}


def _count_key(name: str, ctx: RefineContext) -> str:
    """A counted object's key: its class, else the model's own word in lowercase and singular ("Balls" ->
    "ball"), as the scorer's class names are written."""
    key = normalise_key(name, ctx.classes)
    if key in ctx.classes:
        return key
    parts = key.lower().split()
    return " ".join([*parts[:-1], singular(parts[-1])]) if parts else key


def _from_dict(value: dict[Any, Any], ctx: RefineContext) -> dict[str, int] | None:
    value = _unwrap(value)
    pairs = list((_slots(value) or value).items())
    if any(not isinstance(key, str) or not key.strip() or re.search(r"\bor\b|/", key) for key, _ in pairs):
        return None  # no key, or one that hedges between objects ("man or woman")
    return _tally(pairs, ctx)


#: A note in parentheses without a number ("female × 1 (lead vocals)"), and a unit word after a count
#: ("Bread – 1 loaf"): neither changes the pair.
_NOTE = re.compile(r"\s*\((?![^)]*\d)[^)]*\)")
_UNIT_AFTER = re.compile(
    r"(\d+)\s+(?!(?:or|to|and|plus|more|maybe|possibly|probably|perhaps|approx|approximately|roughly|about|at|or so|ish)\b)[A-Za-z]+\s*([.,;]?)\s*$"
)


def _pair(piece: str) -> tuple[str, str] | None:
    """(name, count) of one ``dog: 2`` / ``Dog × 2`` / ``2 × dog`` piece."""
    piece = _UNIT_AFTER.sub(r"\1\2", _NOTE.sub("", piece))
    if (m := _LINE_PAIR.match(piece)) is not None:
        return m.group(1), m.group(2)
    m = _COUNT_FIRST.match(piece)
    return (m.group(2), m.group(1)) if m else None


#: "tomato 4": a name and its count with nothing between, read only when the name is on the class list.
_BARE_PAIR = re.compile(r"^[\s*\-•]*\**([A-Za-z][A-Za-z _'-]{0,40}?)\**\s+(\d+)\s*[.,;]?$")


#: "Sound sources: 1 bird, 2 dogs": a heading, then counts of named things.
_HEADING = re.compile(r"^[\s*\-•]*\**([A-Za-z][A-Za-z _'-]{0,40}?)\**\s*:\**\s+(.+)$")
#: "1 bird", "2 dogs": a count, then a name of one or two words.
_COUNT_NAME = re.compile(r"^\**(\d+)\s+\**([A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*)?)\**\s*[.,;]?$")


def _headed_pairs(line: str, ctx: RefineContext) -> list[tuple[str, str]] | None:
    """The pairs after a heading that is not itself a class ("Sound sources: 1 bird." is one bird, not a class
    "sound source" counted once): every piece after the colon a count and a class name."""
    m = _HEADING.match(line)
    if m is None or match_class(m.group(1), ctx.classes):
        return None  # "dog: 2 barks" counts the class before the colon
    counted = [_COUNT_NAME.match(p.strip()) for p in _PAIR_SPLIT.split(m.group(2).strip()) if p.strip()]
    if any(c is None or not match_class(c.group(2), ctx.classes) for c in counted):
        return None
    pairs = [(c.group(2), c.group(1)) for c in counted if c]
    return pairs or None


def _line_pairs(line: str, ctx: RefineContext) -> list[tuple[str, str]] | None:
    if (headed := _headed_pairs(line, ctx)) is not None:
        return headed
    if (whole := _pair(line)) is not None:
        return [whole]
    if (counted := _BULLET_COUNT.match(line)) is not None:
        return [(counted.group(2), counted.group(1))]
    pieces = [p for p in _PAIR_SPLIT.split(_LEAD_IN.sub("", line.strip())) if p.strip()]
    pairs = [_pair(p) or _bare_pair(p, ctx) for p in pieces]
    return None if len(pairs) < 2 or None in pairs else pairs  # type: ignore[return-value]


#: "- 2 chairs": a bullet holding a count and a name of one or two words.
_BULLET_COUNT = re.compile(
    r"^\s*[-*•]\s+\**(\d+)\**\s+\**([A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*)?)\**\s*[.,;]?$"
)


def _bare_pair(piece: str, ctx: RefineContext) -> tuple[str, str] | None:
    m = _BARE_PAIR.match(piece)
    return (m.group(1), m.group(2)) if m and match_class(m.group(1), ctx.classes) else None


def _tally(pairs: list[tuple[str, str]], ctx: RefineContext) -> dict[str, int] | None:
    counts: dict[str, int] = {}
    for name, raw_count in pairs:
        if (n := tx.to_int(raw_count)) is None:
            return None
        _add(counts, _count_key(name, ctx), n)
    return counts


def _from_lines(text: str, ctx: RefineContext) -> dict[str, int] | None:
    """``dog: 2`` / ``- Dog x 2`` / ``Dog × 2, Man × 1`` lines in one block; headings ("Objects:") and prose
    before or after the block are allowed when they give no quantity of their own."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.strip().strip("*").endswith(":")]
    found = [_line_pairs(line, ctx) for line in lines]
    rows = [i for i, f in enumerate(found) if f is not None]
    if not rows or rows != list(range(rows[0], rows[-1] + 1)):
        return None
    counts = _tally([pair for f in found if f is not None for pair in f], ctx)
    prose = " ".join(lines[i] for i, f in enumerate(found) if f is None)
    if counts is None or (_quantities(prose) and not _agrees(counts, prose, ctx)):
        return None
    return counts


_RESTATING = frozenset(VOCABULARY["restating_words"])


def _quantities(text: str) -> list[tuple[int, list[str]]]:
    """Each number in the text, with the few words after it."""
    tokens = tx.words(text)
    return [
        (int(w) if w.isdigit() else tx.CARDINALS[w], tokens[i + 1 : i + 1 + _LOOKBACK])
        for i, w in enumerate(tokens)
        if w.isdigit() or w in tx.CARDINALS
    ]


def _agrees(counts: dict[str, int], prose: str, ctx: RefineContext) -> bool:
    """Prose beside a list of counts that gives no class another count and whose other numbers restate a
    count or the total ("so I counted three separate animals" beside ``Dogs: 3``); "3 more birds" adds."""
    if _contradicts(counts, prose, ctx):
        return False
    allowed = {*counts.values(), sum(counts.values())}
    for n, after in _quantities(prose):
        if _VAGUE & set(after):
            return False
        named = next((hit[0] for k in range(len(after)) if (hit := class_at(after, k, ctx.classes))), None)
        if named is not None:
            if counts.get(named) != n:
                return False
        elif not (n in allowed and _RESTATING & set(after)):
            return False
    return True


def _from_table(text: str, ctx: RefineContext) -> dict[str, int] | None:
    """A markdown table of names and counts (a "Total" row is skipped)."""
    tables = tx.markdown_tables(text)
    if len(tables) != 1 or len(tables[0][0]) < 2:
        return None
    header, *rows = tables[0]
    count_col = next((i for i, h in enumerate(header) if any(k in h.lower() for k in _COUNT_HEADERS)), None)
    if count_col is None:
        return None
    name_col = next(i for i in range(len(header)) if i != count_col)
    pairs = [(r[name_col], r[count_col]) for r in rows if len(r) == len(header)]
    if len(pairs) != len(rows):
        return None
    return _tally([(n, c) for n, c in pairs if n.strip().lower() != "total"], ctx)


def _quantity(
    tokens: list[str], i: int, classes: tuple[str, ...], *, articles: bool = True
) -> int | str | None:
    """The quantity written before a class mention: an int, "vague", "definite", or ``None`` (none written).
    Without ``articles``, "a dog" gives no quantity: only numerals count."""
    for j in range(i - 1, max(-1, i - 1 - _LOOKBACK), -1):
        t = tokens[j]
        if t.isdigit() and len(t) <= 4:
            return int(t)
        if t in tx.NUMBER_WORDS:
            return tx.NUMBER_WORDS[t] if articles or t in tx.CARDINALS or t in {"single", "lone"} else None
        if t == "of" and j > 0 and tokens[j - 1] == "pair":
            return 2
        if t in _VAGUE:
            return "vague"
        if t in _DEFINITE:
            return "definite"
        if class_at(tokens, j, classes) is not None or t in {"and", "with", "or", "plus", "of"}:
            return None
    return None


def _stray_quantity(tokens: list[str], classes: tuple[str, ...]) -> bool:
    """A quantity that counts something off the class list ("two ducks", "a cow"): the rules would drop it."""
    for j, t in enumerate(tokens):
        if not (t.isdigit() or t in tx.NUMBER_WORDS) or t in {"no", "none"}:
            continue
        if t == "one" and tokens[j + 1 : j + 2] == ["of"]:
            continue  # "riding one of them": a pronoun, not a count
        ahead = tokens[j + 1 : j + 1 + _LOOKBACK]
        if any(class_at(tokens, k, classes) for k in range(j + 1, j + 1 + len(ahead))):
            continue
        if t in {"a", "an"} and (
            (ahead and ahead[0] in _NOT_OBJECTS) or (j > 0 and tokens[j - 1] in _PLACE_WORDS | _LIKENING)
        ):
            continue  # "a loud sound", "down a street", "what sounds like a stop"
        return True
    return False


_PLACE_WORDS = frozenset(VOCABULARY["place_words"])


#: "like a", "as a": a comparison, not an object counted.
_LIKENING = frozenset({"like", "as"})


def _prose_quantities(
    tokens: list[str], classes: tuple[str, ...], *, articles: bool = True
) -> tuple[dict[str, set[int]], set[str]] | None:
    """The quantities prose gives each class it names, and the classes it names without one; ``None`` when
    a quantity is vague ("some birds"). Without ``articles`` only numerals count ("two men", not "a man")."""
    quantities: dict[str, set[int]] = {}
    unquantified: set[str] = set()
    i = 0
    while i < len(tokens):
        if (hit := class_at(tokens, i, classes)) is None:
            i += 1
            continue
        cls, width = hit
        q = _quantity(tokens, i, classes, articles=articles)
        if q == "vague":
            return None
        last = tokens[i + width - 1]
        placed = i >= 2 and tokens[i - 2] in _PLACE_WORDS  # "on the table": a place named in passing
        if articles and q == "definite" and singular(last) == last and not placed:
            q = 1  # "a man playing the guitar": one guitar
        if isinstance(q, int):
            quantities.setdefault(cls, set()).add(q)
        else:
            unquantified.add(cls)
        i += width
    return quantities, unquantified


_COUNT_AFTER = re.compile(
    r"\(\s*[x×]?\s*\d+\s*\)|[:=×]\**\s*\d+|\bx\s*\d+\b|\s[-–—]\s*\d+\b|^\s*\d+[.)]\s", re.M
)


#: A sentence about one of the counted objects ("one sheep behind the fence is included in the count").
_MEMBER = re.compile(
    r"\b(?:is|are|was|were) (?:also |still )?(?:included|counted)\b|\bin (?:the|my) (?:count|total)\b", re.I
)


def _contradicts(counts: dict[str, int], prose: str, ctx: RefineContext) -> bool:
    """Prose beside a dict that gives a class another count ("I hear two men ... answer={'man': 1}")."""
    # "guitar (1), piano (2)", "1. Boat - 2": a count after its name or a list number, not before the next name;
    # each line on its own, so that a number never reaches across a line break
    by_kind: dict[str, int] = {}
    for cls, n in counts.items():
        by_kind[_kind(cls)] = by_kind.get(_kind(cls), 0) + n
    found: dict[str, set[int]] = {}
    for line in _COUNT_AFTER.sub(" ", prose).splitlines():
        line = " ".join(s for s in tx.sentences(line) if not _MEMBER.search(s))
        part = _prose_quantities(tx.words(line), ctx.classes, articles=False)
        if part is None:  # "several birds": no count, but a class the counts leave out is another answer
            if any(_kind(c) not in by_kind for c in _vague_classes(tx.words(line), ctx.classes)):
                return True
            continue
        for cls, qs in part[0].items():
            found.setdefault(cls, set()).update(qs)
    # "a single female vocalist" beside {"woman": 1} agrees; beside {} it does not
    return any(
        qs != {counts[cls] if cls in counts else by_kind.get(_kind(cls), 0)}
        for cls, qs in found.items()
        if qs != {0}
    )


#: Classes that name the same people: the prose may call the dict's "woman" a "female vocalist".
_SAME_PEOPLE = {"female": "woman", "male": "man"}


def _kind(cls: str) -> str:
    return _SAME_PEOPLE.get(cls, cls)


#: Doubt about a count beside the dict ("could also be 6", "maybe 3", "4 or 5").
_COUNT_DOUBT = re.compile(
    r"\b(?:could|might|may) (?:also |well )?be (?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b|"
    r"\b(?:maybe|possibly|perhaps|probably|or) \d+\b|\b\d+ ?(?:or|to) ?\d+\b",
    re.I,
)


def _vague_classes(tokens: list[str], classes: tuple[str, ...]) -> set[str]:
    """The classes prose gives a vague quantity ("some birds", "3 more dogs")."""
    hits = ((i, class_at(tokens, i, classes)) for i in range(len(tokens)))
    return {hit[0] for i, hit in hits if hit and _quantity(tokens, i, classes, articles=False) == "vague"}


def _from_prose(text: str, ctx: RefineContext) -> dict[str, int] | None:
    if len(text) > _MAX_PROSE or tx.HEDGE.search(text) or tx.REFUSAL.search(text):
        return None
    tokens = tx.words(text)
    if (found := _prose_quantities(tokens, ctx.classes)) is None:
        return None
    quantities, unquantified = found
    if not quantities or unquantified - set(quantities) or _stray_quantity(tokens, ctx.classes):
        return None
    if any(len(qs) > 1 for qs in quantities.values()):
        return None
    return {cls: n for cls, (n,) in quantities.items() if n > 0}


_COUNT_KEYS = ("count", "number", "quantity", "num", "amount")


def _detections(dicts: list[dict[Any, Any]]) -> list[tuple[str, str]] | None:
    """(label, count) of labelled objects: grounding output (Qwen's ``[{"bbox_2d": [...], "label": "dog"}]``),
    one per object, or ``[{"label": "gun", "count": 3}]``; ``None`` when the dicts are not all of one kind."""
    pairs = []
    for d in dicts:
        keys = {str(k).lower(): v for k, v in d.items()}
        label = next((keys[k] for k in LABEL_KEYS if k in keys), None)
        count = next((keys[k] for k in _COUNT_KEYS if k in keys), None)
        boxed = any(k in keys for k in BOX_KEYS)
        if not isinstance(label, str) or boxed == (count is not None) or (not boxed and len(keys) > 3):
            return None
        pairs.append((label, "1" if boxed else str(count)))
    return pairs or None


#: A label with another name for it in parentheses ("**Person (man):** 1").
_ALSO_NAMED = re.compile(r"\b([A-Za-z][A-Za-z -]{0,30}?)\s*\(\s*([A-Za-z][A-Za-z -]{0,30}?)\s*\)")


def parse_mic(raw: object, ctx: RefineContext) -> str | None:
    """The canonical count dict for a MIC sample, or ``None`` when the rules cannot tell."""
    if (text := tx.usable(raw)) is None:
        return None
    text = tx.strip_answer_prefix(tx.without_echo(text, ctx.prompt_text))
    dicts = [value for _, _, value in tx.dict_spans(text)]
    if (detected := _detections(dicts)) is not None:
        counts = _tally(detected, ctx)
        return canonical_mic(counts) if counts else None
    if dicts:
        parsed = [_from_dict(d, ctx) for d in dicts]
        distinct = {canonical_mic(p) for p in parsed if p is not None}
        if None in parsed or len(distinct) != 1:
            return None
        prose = tx.outside_dicts(text)
        if _COUNT_DOUBT.search(prose):
            return None  # "answer={'pumpkin': 5} (could also be 6 ...)"
        # "Person (man): 1" beside {'man': 1} lists the man, not another class
        counts = parsed[0]
        prose = _ALSO_NAMED.sub(lambda m: m.group(2) if m.group(2).lower() in counts else m.group(0), prose)
        listed = _from_table(prose, ctx) or _from_lines(prose, ctx)
        if _contradicts(parsed[0], prose, ctx) or listed not in (None, parsed[0]):  # type: ignore[arg-type]
            return None  # the prose counts differently, in words or in its own list
        return distinct.pop()
    for parser in (_from_table, _from_lines, _from_prose):
        if (counts := parser(text, ctx)) is not None:
            return canonical_mic(counts)
    return None
