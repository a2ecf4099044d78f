"""VoiceBench's IFEval subset: the instruction checks of Google's IFEval as VoiceBench ships them, and its report.

Every instruction family of the official registry is checked from the instruction's keyword arguments (a null or
empty argument dropped first, as officially). Sentence and capital-word counts need NLTK's Punkt model and the
language checks ``langdetect`` (seeded 0, where the official detector is not): never downloaded at run time
(docs/voicebench.md, "Model files"). A response is checked strictly as it is and loosely as its eight variants
(first and/or last line dropped, ``*`` removed); the report holds the official keys as fractions.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from statistics import fmean
from typing import Any

LESS, AT_LEAST = "less than", "at least"
NLTK_HELP = (
    "set NLTK_DATA to a folder holding tokenizers/punkt_tab "
    "(python -m nltk.downloader -d FOLDER punkt_tab, on a machine with network)"
)
LANGDETECT_HELP = "install langdetect (pip install langdetect; the project's own install brings it)"


class MissingResource(RuntimeError):
    """A check needs a model file or package that is not configured; the message says what to set."""


class BadInstruction(ValueError):
    """An instruction id the registry does not know, or one whose arguments are missing or invalid."""


@cache
def _punkt() -> Any:
    import nltk

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        raise MissingResource(f"IFEval sentence counting needs NLTK's Punkt model: {NLTK_HELP}") from None
    return nltk.tokenize.PunktTokenizer("english")


@cache
def _detector() -> Callable[[str], str]:
    try:
        import langdetect
    except ImportError:
        raise MissingResource(f"IFEval language checks need langdetect: {LANGDETECT_HELP}") from None
    langdetect.DetectorFactory.seed = 0

    def detect(text: str) -> str:
        try:
            return str(langdetect.detect(text))
        except langdetect.LangDetectException:
            return ""

    return detect


def _language_is(text: str, language: str) -> bool:
    """The official check counts an undetectable language as followed."""
    found = _detector()(text)
    return found == "" or found == language


def _compare(count: int, relation: str, threshold: int) -> bool:
    if relation == LESS:
        return count < threshold
    if relation == AT_LEAST:
        return count >= threshold
    raise BadInstruction(f"relation {relation!r} is neither {LESS!r} nor {AT_LEAST!r}")


def _parts(text: str, separator: str) -> list[str] | None:
    """The non-empty parts of ``text`` between separators (a regex), or ``None`` when an inner one is empty
    (an empty first or last part is dropped)."""
    parts = re.split(separator, text)
    if any(not part.strip() for part in parts[1:-1]):
        return None
    return [part for part in parts if part.strip()]


def _paragraphs(text: str) -> bool | int:
    """The number of ``***``-separated paragraphs, or ``False`` when an inner one is empty (officially, so a
    count of 0 asked is then met)."""
    parts = _parts(text, r"\s?\*\*\*\s?")
    return False if parts is None else len(parts)


def _first_word_ok(text: str, args: Mapping[str, Any]) -> bool:
    parts = re.split(r"\n\n", text)
    count = sum(1 for p in parts if p.strip())
    nth = int(args["nth_paragraph"])
    if nth > count:
        return False
    paragraph = parts[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = "".join(letter.lower() for letter in re.split(r"[.,?!'\"]", word, maxsplit=1)[0])
    return count == int(args["num_paragraphs"]) and first == str(args["first_word"]).lower()


def _postscript(text: str, marker: str) -> bool:
    official = {"P.P.S": r"\s*p\.\s?p\.\s?s.*$", "P.S.": r"\s*p\.\s?s\..*$"}
    pattern = official.get(marker, r"\s*" + marker.lower() + r".*$")
    return bool(re.findall(pattern, text.lower(), flags=re.MULTILINE))


def _highlights(text: str) -> int:
    single = [h for h in re.findall(r"\*[^\n\*]*\*", text) if h.strip("*").strip()]
    double = [
        h for h in re.findall(r"\*\*[^\n\*]*\*\*", text) if h.removeprefix("**").removesuffix("**").strip()
    ]
    return len(single) + len(double)


def _json(text: str) -> bool:
    body = text.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        body = body.removeprefix(prefix)
    try:
        json.loads(body.removesuffix("```").strip())
    except ValueError:
        return False
    return True


def _two_responses(text: str) -> bool:
    parts = _parts(text, re.escape("******"))
    return parts is not None and len(parts) == 2 and parts[0].strip() != parts[1].strip()


def _title(text: str) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in re.findall(r"<<[^\n]+>>", text))


def _capital_words(text: str) -> int:
    import nltk

    _punkt()
    return sum(1 for w in nltk.word_tokenize(text) if w.isupper())


Check = Callable[[str, Mapping[str, Any]], bool]

CHECKS: dict[str, Check] = {
    "keywords:existence": lambda t, a: all(re.search(k, t, flags=re.IGNORECASE) for k in a["keywords"]),
    "keywords:frequency": lambda t, a: _compare(
        len(re.findall(str(a["keyword"]).strip(), t, flags=re.IGNORECASE)), a["relation"], int(a["frequency"])
    ),
    "keywords:forbidden_words": lambda t, a: (
        not any(
            re.search(r"\b" + w + r"\b", t, flags=re.IGNORECASE) for w in sorted(set(a["forbidden_words"]))
        )
    ),
    "keywords:letter_frequency": lambda t, a: _compare(  # any relation but "less than" is "at least"
        collections.Counter(t.lower())[str(a["letter"]).strip().lower()],
        LESS if a["let_relation"] == LESS else AT_LEAST,
        int(a["let_frequency"]),
    ),
    "language:response_language": lambda t, a: _language_is(t, str(a["language"])),
    "length_constraints:number_sentences": lambda t, a: _compare(
        len(_punkt().tokenize(t)), a["relation"], int(a["num_sentences"])
    ),
    "length_constraints:number_paragraphs": lambda t, a: _paragraphs(t) == int(a["num_paragraphs"]),
    "length_constraints:number_words": lambda t, a: _compare(
        len(re.findall(r"\w+", t)), a["relation"], int(a["num_words"])
    ),
    "length_constraints:nth_paragraph_first_word": _first_word_ok,
    "detectable_content:number_placeholders": lambda t, a: (
        len(re.findall(r"\[.*?\]", t)) >= int(a["num_placeholders"])
    ),
    "detectable_content:postscript": lambda t, a: _postscript(t, str(a["postscript_marker"]).strip()),
    "detectable_format:number_bullet_lists": lambda t, a: (
        len(re.findall(r"^\s*\*[^\*].*$", t, flags=re.MULTILINE))
        + len(re.findall(r"^\s*-.*$", t, flags=re.MULTILINE))
        == int(a["num_bullets"])
    ),
    "detectable_format:constrained_response": lambda t, a: any(
        option in t.strip() for option in ("My answer is yes.", "My answer is no.", "My answer is maybe.")
    ),
    "detectable_format:number_highlighted_sections": lambda t, a: _highlights(t) >= int(a["num_highlights"]),
    "detectable_format:multiple_sections": lambda t, a: (
        len(re.split(r"\s?" + str(a["section_spliter"]).strip() + r"\s?\d+\s?", t)) - 1
        >= int(a["num_sections"])
    ),
    "detectable_format:json_format": lambda t, a: _json(t),
    "detectable_format:title": lambda t, a: _title(t),
    "combination:two_responses": lambda t, a: _two_responses(t),
    "combination:repeat_prompt": lambda t, a: (
        t.strip().lower().startswith(str(a["prompt_to_repeat"]).strip().lower())
    ),
    "startend:end_checker": lambda t, a: (
        t.strip().strip('"').lower().endswith(str(a["end_phrase"]).strip().lower())
    ),
    "change_case:capital_word_frequency": lambda t, a: _compare(
        _capital_words(t), a["capital_relation"], int(a["capital_frequency"])
    ),
    "change_case:english_capital": lambda t, a: t.isupper() and _language_is(t, "en"),
    "change_case:english_lowercase": lambda t, a: t.islower() and _language_is(t, "en"),
    "punctuation:no_comma": lambda t, a: "," not in t,
    "startend:quotation": lambda t, a: len(t.strip()) > 1 and t.strip()[0] == '"' and t.strip()[-1] == '"',
}
"""Instruction id -> its check (response text, keyword arguments)."""


def follows(instruction: str, response: str, kwargs: Mapping[str, Any]) -> bool:
    """Whether ``response`` follows one instruction (an empty response follows none, as officially)."""
    check = CHECKS.get(instruction)
    if check is None:
        raise BadInstruction(f"unknown IFEval instruction {instruction!r}")
    if not isinstance(kwargs, Mapping):
        raise BadInstruction(f"{instruction}: its kwargs entry is a {type(kwargs).__name__}, not an object")
    args = {k: v for k, v in kwargs.items() if v}
    try:
        return bool(response.strip()) and check(response, args)
    except KeyError as exc:
        raise BadInstruction(f"{instruction} needs the argument {exc.args[0]!r}") from None
    except BadInstruction:
        raise
    except (TypeError, ValueError) as exc:  # e.g. a count given as text: the row's fault, named, not a crash
        raise BadInstruction(f"{instruction}: an argument is invalid ({exc})") from None


def loose_variants(response: str) -> list[str]:
    """The official loose reading's eight versions of a response."""
    lines = response.split("\n")
    plain = [response, *("\n".join(kept).strip() for kept in (lines[1:], lines[:-1], lines[1:-1]))]
    return [*plain, *(text.replace("*", "") for text in plain)]


def judge_item(
    instruction_ids: Sequence[str], kwargs: Sequence[Mapping[str, Any]], response: str
) -> tuple[list[bool], list[bool]]:
    """Per instruction: followed strictly, followed loosely."""
    variants = loose_variants(response)
    strict, loose = [], []
    for instruction, args in zip(instruction_ids, kwargs, strict=True):
        strict.append(follows(instruction, response, args))
        loose.append(any(v.strip() and follows(instruction, v, args) for v in variants))
    return strict, loose


def report(results: Sequence[tuple[list[bool], list[bool]]]) -> dict[str, float]:
    """The official report (fractions): prompt- and instruction-level accuracy, strict and loose, and their mean."""
    out: dict[str, float] = {}
    for name, position in (("strict", 0), ("loose", 1)):
        lists = [r[position] for r in results]
        out[f"{name}-prompt"] = sum(all(x) for x in lists) / len(lists)
        out[f"{name}-instruction"] = sum(sum(x) for x in lists) / sum(len(x) for x in lists)
    out["final"] = fmean(out.values())
    return out
