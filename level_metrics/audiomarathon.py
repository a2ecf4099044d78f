"""AudioMarathon metrics, in the reference profile (the Qwen2.5-Omni baseline scripts) and the strict one. Pure.

Every task is scored from :class:`Record` lists that already carry the profile's extracted prediction. The
reference block of a task holds its leaderboard score (F1 × 100; ASR: 100 − mean WER) beside the sub-fields its
script writes, under the script's own key names. The strict block scores every classification by macro F1 over the
option texts (the semantic classes), the two multiple-choice comprehension tasks (SER, SCR) by accuracy, counts
every unparsed answer as wrong and reports corpus WER beside the per-utterance mean.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from statistics import fmean, pstdev
from typing import Any, Literal

import jiwer
import numpy as np
import yaml

from avibench.kits.multiple_choice import letters_for
from avibench.level_metrics.profile import lookup_profile

TASKS: tuple[str, ...] = ("SER", "SCR", "ASR", "SED", "MC", "ASC", "SD", "ER", "SAR", "SGR")
"""The ten tasks under their leaderboard abbreviations, in leaderboard column order."""

COMPREHENSION = ("SER", "SCR")
"""Multiple-choice tasks whose options are not classes (entity spans, reading-comprehension answers)."""

LETTERS: tuple[str, ...] = letters_for(4)


@dataclass(frozen=True)
class MarathonProfile:
    """The switches of one AudioMarathon scoring profile (``True`` = behave like the baseline scripts)."""

    name: str

    official_extraction: bool = True
    """Reference: each task's own extractor, with its "first A–D character anywhere" fallbacks and loose substring
    tests. When False one strict extractor reads a stated letter, an option text or a synonym."""

    skip_unanswered: bool = True
    """Reference: a question never answered is left out, and a failed request is handled as the task's script
    handles an exception (RACE and LibriSpeech drop the sample, the others keep it with an empty prediction). When
    False both count as wrong answers (ASR: WER 100)."""

    drop_unparsed: bool = True
    """Reference: F1 and accuracy are computed over "valid" samples only (an unparsed answer, or one outside the
    script's label set, is dropped from the denominator), which inflates the scores of models that often fail to
    answer; LibriSpeech drops empty transcripts from the mean WER. When False they count as wrong (WER 100)."""

    letter_classes: bool = True
    """Reference: DESED, GTZAN, TAU and VESUS compute F1 over option letters, which measures how evenly the model
    spreads its answers over letter positions. When False the classes are the option texts."""

    script_label_sets: bool = True
    """Reference: each script picks its own label list for sklearn (fixed A–D for RACE and GTZAN, only the labels
    present for SLUE, DESED, TAU, VESUS and gender, the age groups seen in the ground truth for age). When False every
    task averages over the classes that occur in its ground truth."""

    comprehension_letter_f1: bool = True
    """Reference: SLUE and RACE are scored by macro F1 over option letters although their options are not classes.
    When False they are scored by accuracy."""

    sgr_weighted_f1: bool = True
    """Reference: the gender script reports weighted F1 where every other classification reports macro F1. When False
    it is macro F1 like the others."""

    had_fake_binary_f1: bool = True
    """Reference: HAD's score is binary F1 with "fake" positive, from counts in which an unparsed real sample is a
    false positive and an unparsed fake one a false negative. When False it is macro F1 over real and fake."""


REFERENCE = MarathonProfile(name="reference")
STRICT = MarathonProfile(
    name="strict",
    official_extraction=False,
    skip_unanswered=False,
    drop_unparsed=False,
    letter_classes=False,
    script_label_sets=False,
    comprehension_letter_f1=False,
    sgr_weighted_f1=False,
    had_fake_binary_f1=False,
)
PROFILES: dict[str, MarathonProfile] = {p.name: p for p in (REFERENCE, STRICT)}


def get_profile(name: str | MarathonProfile) -> MarathonProfile:
    """The profile called ``name`` (a profile passes through); KeyError lists the known names."""
    return lookup_profile(name, PROFILES)


@dataclass(frozen=True)
class Record:
    """One scored question.

    ``answer`` is the correct option letter (ASR: the reference transcript); ``gold`` the ground truth in the form its
    script compares (a letter, "real"/"fake", "male"/"female", an age-group text, a transcript). ``pred`` is the
    prediction the profile's extractor gave, in the same form as ``gold`` for the reference and as a letter (ASR: a
    transcript) for strict; ``""`` or ``None`` when it gave none. ``group`` is the RACE subset or the ASR speaker.
    """

    answer: str
    gold: str
    pred: str | None
    options: tuple[str, ...] = ()
    group: str = ""


# ---- the scripts' label rules ---------------------------------------------------------------------------------


@cache
def _script_data() -> Mapping[str, Any]:
    """The scripts' label rules and summary keys (packaged data, ``prompts/audiomarathon/result_keys.yaml``)."""
    text = resources.files("avibench.prompts").joinpath("audiomarathon/result_keys.yaml").read_text("utf-8")
    return yaml.safe_load(text)


@dataclass(frozen=True)
class ScriptRule:
    """How one script filters "valid" pairs and which label list it gives sklearn (see the data file)."""

    valid: Literal["fixed", "gold"]
    labels: Literal["fixed", "present", "gold"]
    fixed: tuple[str, ...] = LETTERS
    per_class: tuple[str, ...] = ()


SCRIPT_RULES: dict[str, ScriptRule] = {
    task: ScriptRule(
        rule["valid"], rule["labels"], tuple(rule.get("fixed", LETTERS)), tuple(rule.get("per_class", ()))
    )
    for task, rule in _script_data()["rules"].items()
}


def option_class(letter: str | None, options: Sequence[str]) -> str:
    """The semantic class an option letter stands for (its text, lower-cased), ``""`` for no valid letter."""
    if not letter or len(letter) != 1 or not "A" <= letter <= chr(ord("A") + len(options) - 1):
        return ""
    return options[ord(letter) - ord("A")].strip().lower()


def classes(task: str, records: Sequence[Record], profile: MarathonProfile) -> tuple[list[str], list[str]]:
    """Ground-truth and predicted classes of ``records`` in the profile's class space (``""`` = no answer).

    With ``letter_classes`` these are the scripts' own forms; otherwise option letters for the comprehension tasks
    and option texts for the classifications."""
    if profile.letter_classes:
        return [r.gold for r in records], [r.pred or "" for r in records]
    if task in COMPREHENSION:
        return [r.answer for r in records], [r.pred or "" for r in records]
    return [option_class(r.answer, r.options) for r in records], [
        option_class(r.pred, r.options) for r in records
    ]


# ---- the scripts' sklearn summaries, computed as sklearn does (zero_division=0) --------------------------------


def _per_label(
    truth: Sequence[str], guess: Sequence[str], labels: Sequence[str] | None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Labels (``None``: every label seen, sorted), then per label precision, recall, F1 and support."""
    names = sorted(set(truth) | set(guess)) if labels is None else list(labels)
    hits = Counter(t for t, g in zip(truth, guess, strict=True) if t == g)
    said, true = Counter(guess), Counter(truth)
    return (
        names,
        np.array([hits[c] / said[c] if said[c] else 0.0 for c in names]),
        np.array([hits[c] / true[c] if true[c] else 0.0 for c in names]),
        np.array([2 * hits[c] / (true[c] + said[c]) if true[c] + said[c] else 0.0 for c in names]),
        np.array([float(true[c]) for c in names]),
    )


def _averaged(values: np.ndarray, support: np.ndarray, average: str) -> float:
    """sklearn's average: weighted by support (plain when no label has support), or the plain mean."""
    if average == "weighted" and np.sum(support):
        return float(np.sum(np.multiply(values, support)) / np.sum(support))
    return float(np.mean(values))


def prf(
    truth: Sequence[str], guess: Sequence[str], labels: Sequence[str] | None, average: str
) -> dict[str, float]:
    """Precision, recall and F1 with one averaging (``macro`` or ``weighted``), zero where undefined."""
    if not truth:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    _, p, r, f, s = _per_label(truth, guess, labels)
    return {
        "precision": _averaged(p, s, average),
        "recall": _averaged(r, s, average),
        "f1": _averaged(f, s, average),
    }


def accuracy(truth: Sequence[str], guess: Sequence[str]) -> float:
    """Share of exact matches (0 for no pairs)."""
    return sum(t == g for t, g in zip(truth, guess, strict=True)) / len(truth) if truth else 0.0


def per_class(
    truth: Sequence[str], guess: Sequence[str], labels: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Per-label precision, recall, F1 and support over ``labels``."""
    if not truth:
        return {}
    names, p, r, f, s = _per_label(truth, guess, labels)
    return {
        label: {
            "precision": float(p[i]),
            "recall": float(r[i]),
            "f1_score": float(f[i]),
            "support": int(s[i]),
        }
        for i, label in enumerate(names)
    }


def report(truth: Sequence[str], guess: Sequence[str], labels: Sequence[str]) -> str:
    """sklearn's text classification report over ``labels``, four digits, as the scripts print it: a row per
    label, then ``accuracy`` (``micro avg`` when ``labels`` miss a label seen), ``macro avg`` and ``weighted avg``."""
    if not truth:
        return "No valid predictions"
    names, p, r, f, s = _per_label(truth, guess, labels)
    width = max([len(n) for n in names] + [len("weighted avg")])
    row = "{:>{width}s} " + " {:>9.4f}" * 3 + " {:>9}\n"
    text = f"{'':>{width}s} " + "".join(f" {h:>9}" for h in ("precision", "recall", "f1-score", "support"))
    # sklearn's counts are floats when no pair at all is a hit, and print as such ("4.0")
    shown = s.astype(int) if any(t == g for t, g in zip(truth, guess, strict=True)) else s
    text += "\n\n" + "".join(
        row.format(*cells, width=width) for cells in zip(names, p, r, f, shown, strict=True)
    )
    total = np.sum(shown)
    hits = sum(t == g and t in names for t, g in zip(truth, guess, strict=True))
    said = sum(g in names for g in guess)
    micro = (hits / said if said else 0.0, hits / total if total else 0.0)
    micro_f1 = 2 * hits / (total + said) if total + said else 0.0
    if set(names) >= set(truth) | set(guess):
        text += (
            "\n" + f"{'accuracy':>{width}s} " + " {:>9.4}".format("") * 2 + f" {micro_f1:>9.4f} {total:>9}\n"
        )
    else:
        text += "\n" + row.format("micro avg", *micro, micro_f1, total, width=width)
    for average in ("macro", "weighted"):
        cells = (_averaged(v, s, average) for v in (p, r, f))
        text += row.format(f"{average} avg", *cells, total, width=width)
    return text


def had_count_f1(pairs: Iterable[tuple[tuple[str, str], float]]) -> dict[str, float]:
    """HAD's binary F1 ("fake" positive) from ``((truth, guess), count)`` over *all* samples: every real sample not
    answered "real" is a false positive and every fake one not answered "fake" a false negative, parsed or not."""
    tp = real_wrong = fake_wrong = 0.0
    for (t, g), n in pairs:
        tp += n if t == g == "fake" else 0
        real_wrong += n if t == "real" and g != "real" else 0
        fake_wrong += n if t == "fake" and g != "fake" else 0
    precision = tp / (tp + real_wrong) if tp + real_wrong else 0.0
    recall = tp / (tp + fake_wrong) if tp + fake_wrong else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1_score": f1}


# ---- classification and multiple choice ---------------------------------------------------------------------


def _labels(task: str, truth: Sequence[str], profile: MarathonProfile) -> list[str] | None:
    rule = SCRIPT_RULES[task]
    if not profile.script_label_sets:
        return sorted(set(truth) - {""})
    return {"fixed": list(rule.fixed), "present": None, "gold": sorted(set(truth))}[rule.labels]


def _valid(task: str, truth: Sequence[str], guess: Sequence[str], profile: MarathonProfile) -> list[int]:
    """Indices of the pairs the profile keeps: the script's "valid" pairs, or all of them."""
    if not profile.drop_unparsed:
        return list(range(len(truth)))
    rule = SCRIPT_RULES[task]
    allowed = set(rule.fixed) if rule.valid == "fixed" else set(truth)
    return [i for i, (t, g) in enumerate(zip(truth, guess, strict=True)) if t in allowed and g in allowed]


def _average(task: str, profile: MarathonProfile) -> str:
    return "weighted" if task == "SGR" and profile.sgr_weighted_f1 else "macro"


def _metric_name(task: str, profile: MarathonProfile) -> str:
    if task in COMPREHENSION and not profile.comprehension_letter_f1:
        return "accuracy"
    if task == "SD" and profile.had_fake_binary_f1:
        return "binary_f1_fake"
    space = (
        "letters"
        if profile.letter_classes and task in ("SER", "SCR", "SED", "MC", "ASC", "ER")
        else "classes"
    )
    scope = "valid_only" if profile.drop_unparsed else "all"
    return f"{_average(task, profile)}_f1_{space}_{scope}"


def _choice_block(task: str, records: Sequence[Record], profile: MarathonProfile) -> dict[str, Any]:
    truth, guess = classes(task, records, profile)
    keep = _valid(task, truth, guess, profile)
    vt, vg = [truth[i] for i in keep], [guess[i] for i in keep]
    labels = _labels(task, truth, profile)
    macro = prf(vt, vg, labels, "macro")
    weighted = prf(vt, vg, labels, "weighted")
    chosen = weighted if _average(task, profile) == "weighted" else macro
    score = chosen["f1"]
    if task in COMPREHENSION and not profile.comprehension_letter_f1:
        score = accuracy(vt, vg)
    hits = accuracy(truth, guess)
    if task == "SD" and profile.had_fake_binary_f1:
        score = had_count_f1((pair, 1) for pair in zip(truth, guess, strict=True))["f1_score"]
    block: dict[str, Any] = {
        "metric": _metric_name(task, profile),
        "score": 100 * score,
        "n": len(records),
        "valid": len(keep),
    }
    if profile.official_extraction and profile.script_label_sets:
        stats = {
            "accuracy_all": hits,
            "accuracy_valid": accuracy(vt, vg),
            "valid": len(vt),
            "n": len(records),
        }
        for average, summary in (("macro", macro), ("weighted", weighted)):
            stats.update({f"{average}_{name}": value for name, value in summary.items()})
        order = list(SCRIPT_RULES[task].per_class) or sorted(set(truth))
        block.update(
            _official_fields(
                _script_data()["tasks"][task], Pairs(task, records, truth, guess, vt, vg, stats, order)
            )
        )
    else:
        names = labels or sorted(set(vt))
        block.update(
            accuracy=hits,
            macro_f1=macro["f1"],
            weighted_f1=weighted["f1"],
            unparsed=sum(not g for g in guess),
            per_class=per_class(vt, vg, names),
        )
    return block


# ---- the scripts' own result keys ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairs:
    """What a script's keys are computed from: all records, their classes, the kept (valid) pairs, the summary
    statistics and the label order of the script's per-class table and report."""

    task: str
    records: Sequence[Record]
    truth: list[str]
    guess: list[str]
    vt: list[str]
    vg: list[str]
    stats: Mapping[str, Any]
    labels: list[str]


def _official_fields(spec: Any, p: Pairs) -> Any:
    """The value of one key of the scripts' summary (see the data file for the forms ``spec`` takes)."""
    if isinstance(spec, dict):
        return {key: _official_fields(value, p) for key, value in spec.items()}
    word, _, arg = spec.partition(" ")
    if word == "percent":
        return 100 * _official_fields(arg, p)
    if word in ("share", "count"):
        by = [r.group for r in p.records] if p.task == "SCR" else p.truth
        idx = [i for i, value in enumerate(by) if value == arg]
        return len(idx) if word == "count" else accuracy([p.truth[i] for i in idx], [p.guess[i] for i in idx])
    if word == "had":
        return had_count_f1((pair, 1) for pair in zip(p.truth, p.guess, strict=True))[arg]
    if word == "class":
        label, key = arg.split()
        return per_class(p.vt, p.vg, p.labels).get(label, {}).get(key, 0.0)
    tables = {"per_class": per_class, "report": report}
    if word in tables:
        return tables[word](p.vt, p.vg, p.labels)
    if word == "age_groups":
        return p.labels
    if word == "subsets":
        return _race_subsets(p)
    return p.stats[spec]


def _race_subsets(p: Pairs) -> dict[str, Any]:
    """RACE's sklearn metrics per subset: over its valid pairs, each averaged over the labels present."""
    groups = [r.group for r in p.records]
    keep = _valid("SCR", p.truth, p.guess, REFERENCE)
    subsets: dict[str, Any] = {}
    for subset in sorted({groups[i] for i in keep}):
        idx = [i for i in keep if groups[i] == subset]
        st, sg = [p.truth[i] for i in idx], [p.guess[i] for i in idx]
        m = prf(st, sg, None, "macro")
        subsets[subset] = {
            "accuracy": accuracy(st, sg),
            "precision": m["precision"],
            "recall": m["recall"],
            "f1_score": m["f1"],
            "samples": len(idx),
        }
    return subsets


# ---- speech recognition --------------------------------------------------------------------------------------


def normalise_transcript(text: str) -> str:
    """LibriSpeech's normalisation: lower-case, ``.!?,;:"()[]{}`` to spaces, ``-`` and ``'`` deleted, spaces collapsed."""
    text = text.lower()
    text = "".join(" " if c in '.!?,;:"()[]{}' else c for c in text)
    text = text.replace("-", "").replace("'", "")
    return " ".join(text.split())


def utterance_wer(reference: str, hypothesis: str) -> float:
    """Per-utterance WER in percent after normalisation; 100 when either side normalises to nothing."""
    ref, hyp = normalise_transcript(reference), normalise_transcript(hypothesis)
    if not ref or not hyp:
        return 100.0
    return 100.0 * jiwer.wer(ref, hyp)


def corpus_wer(references: Sequence[str], hypotheses: Sequence[str]) -> float:
    """Corpus WER in percent: all edits over all reference words (utterances with an empty reference left out)."""
    pairs = [
        (normalise_transcript(r), normalise_transcript(h))
        for r, h in zip(references, hypotheses, strict=True)
    ]
    pairs = [(r, h) for r, h in pairs if r]
    if not pairs:
        return 100.0
    out = jiwer.process_words([r for r, _ in pairs], [h for _, h in pairs])
    return 100.0 * out.wer


def _asr_block(records: Sequence[Record], profile: MarathonProfile) -> dict[str, Any]:
    refs, hyps = [r.gold for r in records], [r.pred or "" for r in records]
    wers = [cached_wer(ref, hyp) for ref, hyp in zip(refs, hyps, strict=True)]
    keep = (
        [i for i in range(len(records)) if refs[i] and hyps[i]] if profile.drop_unparsed else range(len(wers))
    )
    kept = [wers[i] for i in keep]
    mean = fmean(kept) if kept else 100.0
    block: dict[str, Any] = {
        "metric": "100_minus_mean_wer" + ("_valid_only" if profile.drop_unparsed else ""),
        "score": 100.0 - mean,
        "n": len(records),
        "valid": len(kept),
        "wer_mean": mean,
        "wer_std": pstdev(kept) if kept else 0.0,
        "wer_min": min(kept) if kept else 100.0,
        "wer_max": max(kept) if kept else 100.0,
        "perfect_predictions": sum(w == 0.0 for w in kept),
        "word_accuracy": 100.0 - mean,
    }
    if profile.official_extraction:
        by_speaker: dict[str, list[float]] = defaultdict(list)
        for record, wer in zip(records, wers, strict=True):
            by_speaker[record.group].append(wer)
        block["speaker_wer"] = {k: fmean(v) for k, v in by_speaker.items()}
    else:
        block["corpus_wer"] = corpus_wer(refs, hyps)
    return block


# ---- the score alone, for resampling -----------------------------------------------------------------------


@cache
def cached_wer(reference: str, hypothesis: str) -> float:
    """:func:`utterance_wer`, computed once per pair: every question is scored per profile and per resample."""
    return utterance_wer(reference, hypothesis)


def class_pairs(
    task: str, records: Sequence[Record], profile: str | MarathonProfile
) -> list[tuple[str, str]]:
    """Each record's (truth, guess) in the profile's class space: all a classification or choice task's score
    depends on (:func:`pair_scores`)."""
    return list(zip(*classes(task, records, get_profile(profile)), strict=True))


@dataclass(frozen=True)
class _Counted:
    """Rows of pair counts seen as classes: per row which classes are truths, drawn and labels, and per class the
    true positives, truths and guesses among the pairs the profile keeps (all integer-valued: sums are exact)."""

    names: list[str]
    n: np.ndarray
    truths: np.ndarray
    drawn: np.ndarray
    labels: np.ndarray
    tp: np.ndarray
    true: np.ndarray
    said: np.ndarray


def _counted(
    task: str, pairs: Sequence[tuple[str, str]], counts: np.ndarray, profile: MarathonProfile
) -> _Counted:
    rule = SCRIPT_RULES[task]
    fixed = rule.fixed if profile.script_label_sets and rule.labels == "fixed" else ()
    names = sorted({c for pair in pairs for c in pair} | set(fixed))
    at = {c: i for i, c in enumerate(names)}
    ti, gi = np.array([at[t] for t, _ in pairs], dtype=int), np.array([at[g] for _, g in pairs], dtype=int)
    truth, guess = np.eye(len(names))[ti], np.eye(len(names))[gi]
    present = counts > 0
    truths = (present @ truth) > 0
    kept = present
    if profile.drop_unparsed:
        if rule.valid == "fixed":
            kept = present & np.array([t in rule.fixed and g in rule.fixed for t, g in pairs], dtype=bool)
        else:
            kept = present & truths[:, ti] & truths[:, gi]
    n = np.where(kept, counts, 0.0)
    true, said = n @ truth, n @ guess
    real = np.array([c != "" for c in names], dtype=bool)
    if task == "SD" and profile.had_fake_binary_f1:
        drawn = ((present @ truth) + (present @ guess) > 0) & real
    else:
        drawn = (true + said > 0) & real
    if not profile.script_label_sets:
        labels = truths & real
    else:
        labels = {
            "fixed": np.array([c in fixed for c in names], dtype=bool)[None, :],
            "present": true + said > 0,
            "gold": truths,
        }[rule.labels]
    tp = (n * (ti == gi)) @ truth
    return _Counted(names, n, truths, drawn, np.broadcast_to(labels, drawn.shape), tp, true, said)


def pair_scores(
    task: str,
    pairs: Sequence[tuple[str, str]],
    counts: np.ndarray,
    profile: str | MarathonProfile,
    defined: Collection[str] | None = None,
) -> list[float | None]:
    """A classification or choice task's score (not ASR) for each row of ``counts`` (how often each of ``pairs``,
    (truth, guess) in the profile's class space, occurs among a resample's questions): what :func:`score_task`
    gives on those questions, every sum and average taken as sklearn takes it.

    ``defined`` are the classes of the whole task (:func:`defined_classes`). A class it has that a row holds neither
    as truth nor as prediction has no F1 in that row (0/0): it is left out of the average instead of counting as 0,
    which would pull an all-correct run's interval below its score whenever a resample misses a class of a fixed
    label set (RACE's and GTZAN's A-D). HAD's binary F1 of "fake" with no fake drawn on either side is undefined, so
    the row is ``None`` (left out of the percentiles). On the whole task (every defined class drawn) this is the
    task's score."""
    profile = get_profile(profile)
    c = _counted(task, pairs, counts, profile)
    scores: list[float | None] = []
    if task in COMPREHENSION and not profile.comprehension_letter_f1:
        hits = c.tp.sum(axis=1)
        for hit, total in zip(hits.tolist(), c.n.sum(axis=1).tolist(), strict=True):
            scores.append(100 * (hit / total if total else 0.0))
        return scores
    if task == "SD" and profile.had_fake_binary_f1:
        fake_drawn = [name == "fake" for name in c.names] @ c.drawn.T
        for row, drawn in zip(counts.tolist(), fake_drawn.tolist(), strict=True):
            if defined is not None and "fake" in defined and not drawn:
                scores.append(None)
                continue
            scores.append(100 * had_count_f1(zip(pairs, row, strict=True))["f1_score"])
        return scores
    omitted = np.array([name in (defined or ()) for name in c.names], dtype=bool) & ~c.drawn
    included = c.labels & ~omitted
    f1 = np.where(c.tp > 0, 2 * c.tp / np.maximum(c.true + c.said, 1), 0.0)
    weighted = _average(task, profile) == "weighted"
    for r in range(len(counts)):
        f1s, supports = f1[r, included[r]], c.true[r, included[r]]
        if not c.n[r].any():
            score = 0.0
        elif weighted:
            total = float(supports.sum())
            score = float(np.sum(np.multiply(f1s, supports))) / total if total else 0.0
        else:
            score = float(np.mean(f1s)) if len(f1s) else 0.0
        scores.append(100 * score)
    return scores


def task_score(task: str, records: Sequence[Record], profile: str | MarathonProfile = REFERENCE) -> float:
    """``score_task(task, records, profile)["score"]`` computed alone (no official sub-fields)."""
    profile = get_profile(profile)
    if task == "ASR":
        pairs = [(r.gold, r.pred or "") for r in records]
        kept = [cached_wer(ref, hyp) for ref, hyp in pairs if (ref and hyp) or not profile.drop_unparsed]
        return 100.0 - (fmean(kept) if kept else 100.0)
    counted = Counter(class_pairs(task, records, profile))
    return (
        pair_scores(task, list(counted), np.array([list(counted.values())], dtype=float), profile)[0] or 0.0
    )


def defined_classes(
    task: str, records: Sequence[Record], profile: str | MarathonProfile = REFERENCE
) -> frozenset[str]:
    """The classes whose F1 is defined on ``records``: those the scored pairs hold as truth or as prediction (HAD's
    count rule: over all pairs). A class outside this set scores 0 by the scripts' ``zero_division=0``."""
    if task == "ASR" or not records:
        return frozenset()
    counted = Counter(class_pairs(task, records, profile))
    c = _counted(task, list(counted), np.array([list(counted.values())], dtype=float), get_profile(profile))
    return frozenset(name for name, drawn in zip(c.names, c.drawn[0], strict=True) if drawn)


# ---- tasks and benchmark -------------------------------------------------------------------------------------


def score_task(
    task: str, records: Sequence[Record], profile: str | MarathonProfile = REFERENCE
) -> dict[str, Any]:
    """One task's block: ``metric``, ``score`` (leaderboard scale), ``n``, ``valid`` and the profile's sub-fields."""
    profile = get_profile(profile)
    if task == "ASR":
        return _asr_block(records, profile)
    return _choice_block(task, records, profile)


def benchmark_block(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Task blocks in leaderboard order plus ``average``: the unweighted mean of the task scores.

    With fewer than ten tasks the mean is over those present and ``complete`` is False."""
    present = {t: dict(blocks[t]) for t in TASKS if t in blocks}
    scores = [b["score"] for b in present.values()]
    return {
        **present,
        "average": fmean(scores) if scores else math.nan,
        "complete": len(present) == len(TASKS),
    }


# ---- chance levels ---------------------------------------------------------------------------------------------


def _guess_distribution(task: str, record: Record, profile: MarathonProfile) -> dict[str, float]:
    """Each class a uniform guess among the record's options lands on, with its probability."""
    k = len(record.options)
    out: dict[str, float] = defaultdict(float)
    for i in range(k):
        letter = chr(ord("A") + i)
        if not profile.letter_classes and task not in COMPREHENSION:
            out[option_class(letter, record.options)] += 1 / k
        elif task in ("SD", "SGR"):
            out[record.options[i].strip().lower()] += 1 / k
        elif task == "SAR":
            out[record.options[i]] += 1 / k
        else:
            out[letter] += 1 / k
    return out


def chance_level(task: str, records: Sequence[Record], profile: str | MarathonProfile = REFERENCE) -> float:
    """Score (0–100) of a uniform random guess among each question's options, in the large-sample limit.

    Guesses are independent of the truth, so per class the expected true positives are the sum over questions of
    P(guess = class) where the truth is that class; precision, recall and F1 follow from these expectations. ASR has
    no answer space to guess from: its chance level is 0.
    """
    profile = get_profile(profile)
    if task == "ASR" or not records:
        return 0.0
    truth, _ = classes(task, records, profile)
    dists = [_guess_distribution(task, r, profile) for r in records]
    if task in COMPREHENSION and not profile.comprehension_letter_f1:
        return 100 * fmean(d.get(t, 0.0) for d, t in zip(dists, truth, strict=True))
    tp: dict[str, float] = defaultdict(float)
    predicted: dict[str, float] = defaultdict(float)
    for d, t in zip(dists, truth, strict=True):
        tp[t] += d.get(t, 0.0)
        for label, p in d.items():
            predicted[label] += p
    support = {label: truth.count(label) for label in set(truth)}
    if task == "SD" and profile.had_fake_binary_f1:
        fake_tp = tp.get("fake", 0.0)
        denominator = predicted.get("fake", 0.0) + support.get("fake", 0)
        return 100 * 2 * fake_tp / denominator if denominator else 0.0
    labels = _labels(task, truth, profile) or sorted(set(truth) | set(predicted))
    f1 = {
        label: _f1(tp.get(label, 0.0), predicted.get(label, 0.0), support.get(label, 0)) for label in labels
    }
    if _average(task, profile) == "weighted":
        total = sum(support.get(label, 0) for label in labels)
        return 100 * sum(f1[label] * support.get(label, 0) for label in labels) / total if total else 0.0
    return 100 * fmean(f1.values())


def _f1(tp: float, predicted: float, support: float) -> float:
    return 2 * tp / (predicted + support) if predicted + support else 0.0
