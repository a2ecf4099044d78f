"""Speech recognition error counts as the ASR reports compute them. Pure (the normalisers' own data ship with them).

The path is the one of Qwen2-Audio's ``eval_audio/evaluate_asr.py`` (which lmms-eval reproduces and most omni
model reports follow), step by step:

1. special tokens ``<|...|>`` become spaces, runs of whitespace one space, a space before ``!,.?;:`` goes and the
   text is left-stripped; in Chinese every whitespace goes;
2. English: Whisper's English normaliser, then Whisper's basic normaliser (the script chains them: its Chinese
   branch is an ``if``/``else`` after the English ``if``); Chinese: the SpeechIO ``cn_tn`` reading of numbers,
   dates, money, fractions and percents as characters, punctuation replaced by spaces; any other language:
   the basic normaliser;
3. lowercase, whitespace tokens that are all punctuation dropped; Chinese is then split into characters;
4. the Levenshtein distance between the token lists, summed over the task and divided by the summed reference
   length: a **corpus** rate.

The normalisers are the field's own: Whisper's English and basic normalisers as transformers ships them
(the same rules as the copy the script carries; the ``whisper-normalizer`` package's own English normaliser adds
rules of its own, ``kinda`` → ``kind of`` and ``cause`` → ``because``, so only its data file is used: Whisper's
spelling map, equal to the script's ``english.json``), and for Chinese SpeechIO's ``cn_tn.TextNorm`` with the
script's settings, read from the copy lmms-eval ships (``lmms_eval/tasks/librispeech/cn_tn.py``, which the
script's own copy equals). That file needs nothing beyond the standard library; it is loaded by its path, so the
lmms-eval framework itself (installed without its dependencies, see the Makefile) is never imported. jiwer aligns
the tokens.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from avibench.errors import AvibenchError
from avibench.level_metrics.task_metrics import tallied

Normaliser = Literal["whisper", "whisper-english"] | Callable[[str], str]
NORMALISERS = ("whisper", "whisper-english")
"""``whisper``: the reference chain (English then basic normaliser for English); ``whisper-english``: Whisper's
English normaliser alone (it keeps ``$``, ``%`` and decimal points the basic normaliser splits off), the one the Open
ASR Leaderboard's normaliser is copied from. A callable in their place is an English normaliser used alone (the
leaderboard's own, which the plug-in loads from the user's checkout)."""

CHINESE = ("zh",)
"""Languages scored by characters (``cer``); every other language is scored by words (``wer``)."""

_SPECIAL = re.compile(r"<\|.*?\|>")
_SPACE_BEFORE_PUNCT = re.compile(r" ?([!,.?;:])")


def unit(language: str) -> Literal["wer", "cer"]:
    """The rate a language is scored with: characters for Chinese, words otherwise."""
    return "cer" if language in CHINESE else "wer"


def strip_special_tokens(text: str, language: str) -> str:
    """Step 1: special tokens out, whitespace tidied; all whitespace out in Chinese."""
    text = _SPECIAL.sub(" ", text)
    text = re.sub(r"\s+", " ", text)
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text).lstrip(" ")
    return re.sub(r"\s+", "", text) if language in CHINESE else text


@cache
def _english() -> object:
    """Whisper's English normaliser as transformers ships it, with Whisper's British-to-American spelling map
    (``english.json``, the data file the ``whisper-normalizer`` package carries)."""
    import json
    from importlib.resources import files

    from transformers.models.whisper.english_normalizer import EnglishTextNormalizer

    spelling = json.loads(files("whisper_normalizer").joinpath("normalizers/english.json").read_text("utf-8"))
    return EnglishTextNormalizer(spelling)


@cache
def _basic() -> object:
    from transformers.models.whisper.english_normalizer import BasicTextNormalizer

    return BasicTextNormalizer()


CN_TN = ("lmms-eval", "0.7.3", ("tasks", "librispeech", "cn_tn.py"))
"""Where SpeechIO's ``cn_tn.py`` is read from: the distribution, the version the project installs, and the file."""

#: The script's ``TextNorm`` settings: numbers, dates, money, fractions and percents read as characters and
#: punctuation removed, nothing else changed (no case folding, no traditional-to-simplified conversion).
CN_TN_SETTINGS = {
    "to_banjiao": False,
    "to_upper": False,
    "to_lower": False,
    "remove_fillers": False,
    "remove_erhua": False,
    "check_chars": False,
    "remove_space": False,
    "cc_mode": "",
}


@cache
def _chinese() -> object:
    """``cn_tn.TextNorm`` with the script's settings, loaded from lmms-eval's copy without importing lmms-eval."""
    distribution, version, parts = CN_TN
    package = importlib.util.find_spec(distribution.replace("-", "_"))
    path = (
        Path(package.submodule_search_locations[0], *parts)
        if package and package.submodule_search_locations
        else None
    )
    if path is None or not path.is_file():
        raise AvibenchError(
            "the ASR benchmark's Chinese character error rate needs SpeechIO's cn_tn normaliser, read from "
            f"{distribution} {version} (which ships it); install it without its dependencies: "
            f"'pip install --no-deps {distribution}=={version}' ('make setup' does)"
        )
    spec = importlib.util.spec_from_file_location("avibench_cn_tn", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.TextNorm(**CN_TN_SETTINGS)


def normalise(text: str, language: str, normaliser: Normaliser = "whisper") -> str:
    """Step 2 on a text step 1 has cleaned."""
    if language in CHINESE:
        return _chinese()(text)  # type: ignore[operator]
    if language == "en":
        if callable(normaliser):
            return normaliser(text)
        text = _english()(text)  # type: ignore[operator]
        if normaliser == "whisper-english":
            return text
    return _basic()(text)  # type: ignore[operator]


def _punctuation_only(token: str) -> bool:
    return all(unicodedata.category(c).startswith("P") for c in token)


def tokens(text: str, language: str, normaliser: Normaliser = "whisper") -> list[str]:
    """Steps 1-3: the tokens a transcript is scored on (characters for Chinese, words otherwise)."""
    normalised = normalise(strip_special_tokens(text, language), language, normaliser)
    if (
        callable(normaliser) and language == "en"
    ):  # a leaderboard's normaliser alone: its words, split as jiwer does
        return normalised.split()
    words = [w for w in normalised.lower().split(" ") if w and not _punctuation_only(w)]
    kept = " ".join(words).split()
    return list("".join(kept)) if language in CHINESE else kept


def edit_distance(reference: Sequence[str], hypothesis: Sequence[str]) -> int:
    """Substitutions + deletions + insertions of the best alignment (jiwer's)."""
    if not reference or not hypothesis:
        return max(len(reference), len(hypothesis))
    import jiwer

    out = jiwer.process_words(" ".join(reference), " ".join(hypothesis))
    return out.substitutions + out.deletions + out.insertions


@lru_cache(maxsize=1 << 16)
def utterance_errors(
    reference: str, hypothesis: str, language: str, normaliser: Normaliser = "whisper"
) -> tuple[int, int]:
    """One utterance's ``(errors, reference tokens)``; an empty hypothesis deletes every reference token.

    Cached: eval asks for the same pair's value and score, in both profiles (which mostly read the same text)."""
    ref = tokens(reference, language, normaliser)
    return edit_distance(ref, tokens(hypothesis, language, normaliser)), len(ref)


def corpus_rate(counts: Sequence[tuple[int, int]]) -> float | None:
    """The corpus error rate in percent: summed errors over summed reference tokens (``None`` without any)."""
    words = sum(n for _, n in counts)
    return 100.0 * sum(e for e, _ in counts) / words if words else None


def _rate_from_totals(totals: Mapping[Hashable, float]) -> float | None:
    words = totals.get("words", 0.0)
    return 100.0 * totals.get("errors", 0.0) / words if words else None


@tallied(lambda v: {"errors": float(v[0]), "words": float(v[1])}, _rate_from_totals)
def error_rate(values: Sequence[Any]) -> float | None:
    """A task's metric: the corpus error rate in percent (lower is better; above 100 when insertions pile up)
    of ``(errors, reference tokens)`` values. The bootstrap resamples utterances with both counts together."""
    return corpus_rate([(int(e), int(n)) for e, n in values])


error_rate.lower_is_better = True  # type: ignore[attr-defined]
