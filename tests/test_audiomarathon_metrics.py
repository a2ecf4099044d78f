"""AudioMarathon metrics on hand-computed fixtures, in both profiles."""

from __future__ import annotations

import math

import pytest

from avibench.level_metrics.audiomarathon import (
    REFERENCE,
    STRICT,
    Record,
    benchmark_block,
    chance_level,
    corpus_wer,
    get_profile,
    had_count_f1,
    normalise_transcript,
    score_task,
    utterance_wer,
)

FOUR = ("x1", "x2", "x3", "x4")


def letters(gold: str, pred: str) -> list[Record]:
    """Records whose gold and prediction are letters ('-' = unparsed)."""
    return [Record(g, g, "" if p == "-" else p, FOUR) for g, p in zip(gold, pred, strict=True)]


def test_ser_valid_only_and_the_key_mixup() -> None:
    # Valid pairs (gold, pred): (A,A) (C,C) (D,A) (A,B); the unparsed B is dropped.
    # F1 A = 0.5 (1 hit of 2 predicted, 2 true), B = 0, C = 1, D = 0 -> macro 0.375; weighted by support (2,0,1,1) 0.5.
    block = score_task("SER", letters("ABCDA", "A-CAB"), REFERENCE)
    assert block["score"] == pytest.approx(37.5)
    assert (block["n"], block["valid"]) == (5, 4)
    assert block["f1_score"] == pytest.approx(0.375)
    assert block["macro_f1"] == pytest.approx(0.5)  # the key named macro_f1 holds weighted F1
    assert block["overall_accuracy"] == pytest.approx(0.4)  # accuracy counts every sample
    # Strict: accuracy over all five questions, the unparsed one wrong.
    assert score_task("SER", letters("ABCDA", "A-CAB"), STRICT)["score"] == pytest.approx(40.0)


def test_fixed_against_present_label_sets() -> None:
    # (A,A) (A,B) (B,B): F1 A = 2/3, B = 2/3. RACE averages over fixed A-D (C and D score 0): 1/3.
    # DESED averages over the labels present: 2/3.
    assert score_task("SCR", letters("AAB", "ABB"))["score"] == pytest.approx(100 / 3)
    assert score_task("SED", letters("AAB", "ABB"))["score"] == pytest.approx(200 / 3)
    assert score_task("MC", letters("AAB", "ABB"))["per_class_metrics"]["C"]["support"] == 0


def test_race_subsets() -> None:
    records = [
        Record("A", "A", "A", FOUR, "high"),
        Record("B", "B", "A", FOUR, "high"),
        Record("C", "C", "C", FOUR, "middle"),
    ]
    block = score_task("SCR", records)
    assert (block["high_accuracy"], block["middle_accuracy"]) == (50.0, 100.0)
    assert block["overall_accuracy"] == pytest.approx(200 / 3)
    # Subset F1 averages over the labels present in the subset: high has A (P .5 R 1 -> 2/3) and B (0): 1/3.
    assert block["sklearn_metrics"]["subset_metrics"]["high"]["f1_score"] == pytest.approx(1 / 3)


def test_gold_letter_set_validity_and_strict_classes() -> None:
    # TAU: a pair is valid when both sides are ground-truth letters ({A, B}); C and the unparsed answer drop out.
    records = letters("ABA", "AC-")
    reference = score_task("ASC", records, REFERENCE)
    assert (reference["valid"], reference["score"]) == (1, 100.0)
    # Strict: option texts, classes = {x1, x2}; x1: P 1 R .5 -> 2/3, x2: 0 -> macro 1/3.
    strict = score_task("ASC", [Record(r.answer, r.gold, r.pred or None, FOUR) for r in records], STRICT)
    assert (strict["valid"], strict["score"]) == (3, pytest.approx(100 / 3))
    assert strict["unparsed"] == 1


def test_had_count_rule() -> None:
    truth = ["real", "real", "fake", "fake", "fake"]
    guess = ["real", "", "fake", "", "real"]
    # TP 1; FP = reals not answered real = 1; FN = fakes not answered fake = 2 -> P 1/2, R 1/3, F1 0.4.
    assert had_count_f1((pair, 1) for pair in zip(truth, guess, strict=True)) == pytest.approx(
        {"precision": 0.5, "recall": 1 / 3, "f1_score": 0.4}
    )
    records = [Record("AB"[t == "fake"], t, g, ("real", "fake")) for t, g in zip(truth, guess, strict=True)]
    block = score_task("SD", records, REFERENCE)
    assert block["score"] == pytest.approx(40.0)
    assert block["sklearn_metrics"]["valid_samples"] == 3
    assert (block["real_accuracy"], block["fake_accuracy"]) == (0.5, pytest.approx(1 / 3))


def test_sgr_weighted_f1() -> None:
    truth = ["male", "male", "male", "female"]
    guess = ["male", "male", "female", "female"]
    records = [
        Record("AB"[t == "female"], t, g, ("male", "female")) for t, g in zip(truth, guess, strict=True)
    ]
    # male: P 1, R 2/3, F1 .8; female: P .5, R 1, F1 2/3. Weighted (3:1) = 0.76667; macro = 0.73333.
    assert score_task("SGR", records, REFERENCE)["score"] == pytest.approx(100 * (3 * 0.8 + 2 / 3) / 4)
    strict_records = [
        Record(r.answer, r.gold, r.answer if t == g else "AB"[r.answer == "A"], r.options)
        for r, t, g in zip(records, truth, guess, strict=True)
    ]
    assert score_task("SGR", strict_records, STRICT)["score"] == pytest.approx(100 * (0.8 + 2 / 3) / 2)


def test_sar_averages_over_ground_truth_groups() -> None:
    ages = ("young", "adult", "senior")
    records = [Record("A", "young", "young", ages), Record("B", "adult", "young", ages)]
    # Groups seen in the truth: adult, young. young: P .5 R 1 -> 2/3; adult: 0 -> macro 1/3.
    assert score_task("SAR", records)["score"] == pytest.approx(100 / 3)


def test_transcript_normalisation_and_wer() -> None:
    assert (
        normalise_transcript("Hello, World! It's a well-known (fact).") == "hello world its a wellknown fact"
    )
    assert utterance_wer("A B C D", "a b x d") == pytest.approx(25.0)
    assert utterance_wer("a b", "...") == 100.0  # a hypothesis that normalises to nothing
    assert corpus_wer(["a b c d", "e f"], ["a b x d", ""]) == pytest.approx(50.0)  # 3 edits / 6 words


def test_asr_empty_hypothesis() -> None:
    records = [Record("a b c d", "a b c d", "a b x d", group="s1"), Record("e f", "e f", "", group="s2")]
    reference = score_task("ASR", records, REFERENCE)
    # Reference: the empty transcript is left out of the mean (25), though its speaker average shows 100.
    assert (reference["score"], reference["valid"], reference["wer_mean"]) == (75.0, 1, 25.0)
    assert reference["speaker_wer"] == {"s1": 25.0, "s2": 100.0}
    strict = score_task("ASR", [Record(r.answer, r.gold, r.pred or None) for r in records], STRICT)
    assert (strict["wer_mean"], strict["score"], strict["corpus_wer"]) == (62.5, 37.5, pytest.approx(50.0))


def test_average_and_completeness() -> None:
    block = benchmark_block({"MC": {"score": 80.0}, "SER": {"score": 40.0}})
    assert (block["average"], block["complete"]) == (60.0, False)
    assert list(block)[:2] == ["SER", "MC"]
    assert math.isnan(benchmark_block({})["average"])


def test_chance_levels() -> None:
    balanced = letters("ABCD" * 5, "A" * 20)
    assert chance_level("SCR", balanced) == pytest.approx(25.0)
    assert chance_level("SCR", balanced, STRICT) == pytest.approx(25.0)
    # HAD count rule: binary F1 of fake with half the guesses fake = 0.5 whatever the balance of fake samples.
    had = [Record("AB"[i % 2], ("real", "fake")[i % 2], None, ("real", "fake")) for i in range(10)]
    assert chance_level("SD", had) == pytest.approx(50.0)
    # Skewed truth (3 A, 1 B) over two options: F1 A = 2*.75*.5/1.25 = .6, F1 B = 2*.25*.5/.75 = 1/3.
    skew = [Record(a, ("male", "female")[a == "B"], None, ("male", "female")) for a in "AAAB"]
    assert chance_level("SGR", skew, STRICT) == pytest.approx(100 * (0.6 + 1 / 3) / 2)
    assert chance_level("SGR", skew, REFERENCE) == pytest.approx(100 * (3 * 0.6 + 1 / 3) / 4)
    assert chance_level("ASR", [Record("a", "a", None)]) == 0.0


def test_profiles_by_name() -> None:
    assert get_profile("strict") is STRICT
    with pytest.raises(KeyError, match="known profiles: reference, strict"):
        get_profile("lenient")
