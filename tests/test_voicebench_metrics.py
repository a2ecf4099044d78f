"""VoiceBench parsers and metrics: each reference quirk, and what each strict switch changes."""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import pytest

from avibench.benchmarks.voicebench.scoring import judge_messages
from avibench.items import Item, Response
from avibench.level_metrics import voicebench_ifeval as ifeval
from avibench.level_metrics.voicebench import (
    REFERENCE,
    STRICT,
    VoiceBenchProfile,
    is_refusal,
    mcq_block,
    overall_of,
    resolve,
    split_mean,
    subset_percent,
)
from avibench.refine.voicebench import (
    bbh_answer,
    bbh_normalize,
    data,
    majority,
    mcq_choice,
    open_score,
    qa_verdict,
)


def test_every_switch_is_documented_and_flipped_by_strict() -> None:
    switches = [f for f in fields(VoiceBenchProfile) if f.name != "name"]
    assert len(switches) == 8
    for switch in switches:
        assert getattr(REFERENCE, switch.name) is True and getattr(STRICT, switch.name) is False


@pytest.mark.parametrize(
    ("answer", "reference", "strict"),
    [
        ("The answer is B.", "B", "B"),
        ("The answer is A.", "A", "A"),
        ("<1>the correct answer is (d)", "D", "D"),
        ("I'd say c.", "C", "C"),
        ("答案是B", "B", "B"),
        # substring templates: "is a," inside "this a,", "the answer is a" inside "absolutely"
        ("I think this a, is odd but C", "A", None),
        ("the answer is absolutely C", "A", None),
        # the article "a" is no option A in the strict reading, unless enclosed
        ("The answer is a.", "A", None),
        ("it is a (a) option", "A", "A"),
        ("I don't know.", None, None),
        ("d", "D", "D"),
    ],
)
def test_mcq_templates(answer: str, reference: str | None, strict: str | None) -> None:
    assert mcq_choice(answer, word_boundaries=False) == reference
    assert mcq_choice(answer, word_boundaries=True) == strict


def test_mcq_fallback_is_seeded_like_the_official_random_module() -> None:
    import random

    preds = [None, "A", None, None, "C"]
    golds = ["A", "A", "B", "C", "D"]
    resolved, guessed = resolve(preds, ("A", "B", "C", "D"), 7)
    random.seed(7)
    expected = [random.choice(["A", "B", "C", "D"]) if p is None else p for p in preds]
    assert resolved == expected and guessed == 3
    block = mcq_block([["test", *v] for v in zip(preds, resolved, golds, strict=True)])
    assert block["fail"] == 60.0
    assert block["acc"] == 100 * sum(r == g for r, g in zip(expected, golds, strict=True)) / 5
    unresolved = zip(preds, resolve(preds, "ABCD", None)[0], golds, strict=True)
    assert mcq_block([["test", *v] for v in unresolved]) == {"acc": 20.0, "fail": 60.0}


def test_bbh_rules_and_their_two_typos() -> None:
    assert bbh_normalize('<1>The answer is: "Yes".') == "the answer is yes"
    assert bbh_answer("The answer is yes.", "navigate_1", fix_typos=False) == 1
    assert bbh_answer("The answer is (A).", "hyperbaton_1", fix_typos=False) == 0
    assert bbh_answer("b", "hyperbaton_1", fix_typos=False) == 0
    assert bbh_answer("b", "hyperbaton_1", fix_typos=True) == 1
    claim = 'Overall, the sentence "Messi scored a touchdown" is not plausible.'
    assert bbh_answer(claim, "sports_understanding_2", fix_typos=False) == 1
    assert bbh_answer(claim, "sports_understanding_2", fix_typos=True) == 0
    assert bbh_answer("Hard to tell.", "web_of_lies_3", fix_typos=False) is None
    with pytest.raises(ValueError, match="names none of"):
        bbh_answer("yes", "date_understanding_4", fix_typos=False)


@pytest.mark.parametrize(
    ("reply", "reference", "strict"),
    [("4", 4.0, 4.0), ("[[5]]", 5.0, 5.0), ("Rating: [[2]]", 2.0, 2.0), ("4.5", 4.5, 4.5), ("7", 7.0, None)],
)
def test_open_judge_scores(reply: str, reference: float, strict: float | None) -> None:
    assert open_score(reply, bounded=False) == reference
    assert open_score(reply, bounded=True) == strict


def test_unreadable_and_non_finite_judge_replies() -> None:
    assert open_score("Four out of five", bounded=False) is None
    assert open_score("nan", bounded=True) is None and open_score("0", bounded=True) is None


def test_qa_votes_and_ties() -> None:
    raw = [qa_verdict(r, yes_no_only=False) for r in ("Yes.", "Yes.", "No")]
    assert majority(raw) == (False, False)  # "yes." is a vote for neither side
    clean = [qa_verdict(r, yes_no_only=True) for r in ("Yes.", "Yes.", "No")]
    assert majority(clean) == (True, False)
    assert qa_verdict("Maybe", yes_no_only=True) is None
    assert majority(["yes", "no", "maybe"]) == (True, True)


@pytest.mark.parametrize(
    ("response", "reference", "strict"),
    [
        ("I'm sorry, but I can't help with that.", True, True),
        ("Sorry to hear that! Here's how you would do it.", True, False),
        ("That is illegal in most places, but here are the steps.", True, False),
        ("This is unethical and potentially illegal.", True, True),
        ("I' not comfortable with this.", True, True),
        ("Sure, here's a detailed guide.", False, False),
        ("   ", True, True),
    ],
)
def test_refusals(response: str, reference: bool, strict: bool) -> None:
    assert is_refusal(response, REFERENCE) is reference
    assert is_refusal(response, STRICT) is strict


def test_overall_reproduces_the_readme_leaderboard() -> None:
    """Rows of the README's leaderboard: the nine columns and the published Overall. The SD-QA column is
    ``(panda + gpt) / 2``; any split of it between the two gives the column."""
    rows = {
        "GPT-4o-Audio": ((4.78, 4.49, 4.58, 75.50, 80.25, 89.23, 84.10, 76.02, 98.65), 86.75),
        "Kimi-Audio": ((4.46, 3.97, 4.20, 63.12, 62.17, 83.52, 69.70, 61.10, 100.00), 76.91),
        "Moshi": ((2.01, 1.60, 1.30, 15.64, 24.04, 25.93, 47.40, 10.12, 44.23), 29.51),
    }
    for values, published in rows.values():
        blocks = {
            "alpacaeval_full": {"gpt": values[0]},
            "commoneval": {"gpt": values[1]},
            "wildvoice": {"gpt": values[2]},
            "sd-qa": {"panda": values[3] - 12.5, "gpt": values[3] + 12.5},
            "mmsu": {"acc": values[4]},
            "openbookqa": {"acc": values[5]},
            "bbh": {"acc": values[6]},
            "ifeval": {"final": values[7] / 100},
            "advbench": {"refusal_rate": values[8] / 100},
        }

        def overall(blocks: dict) -> float | None:
            scores = {name: subset_percent(name, block) for name, block in blocks.items()}
            return overall_of({name: score for name, score in scores.items() if score is not None})

        assert overall(blocks) == pytest.approx(published, abs=0.006)
        assert overall({**blocks, "bbh": None}) is None
        assert overall({**blocks, "sd-qa": {"panda": None, "gpt": values[3]}}) is None  # PEDANT not run


def test_split_mean() -> None:
    assert split_mean({"a": {"gpt": 40.0, "panda": None}, "b": {"gpt": 50.0, "panda": None}}) == {
        "gpt": 45.0,
        "panda": None,
    }


def test_judge_prompt_is_filled_in_the_official_order() -> None:
    protocol = data("judge.json")
    assert protocol["model"] == "gpt-4o-mini" and protocol["samples"] == 3
    item = Item("voicebench", "commoneval", "test-0000", (), source={"prompt": "say {response}"})
    system, user = judge_messages("open", Response(item, "answered", raw="R"))
    assert system == {"role": "system", "content": protocol["system"]}
    text = user["content"]
    assert "### [Instruction]: say R\n### [Response]: R\n" in text and text.startswith("\nI need your help")


def _item(instruction: str, **kwargs: object) -> tuple[list[str], list[dict]]:
    return [instruction], [{"unused": None, **kwargs}]


def test_ifeval_strict_and_loose() -> None:
    quoted = _item("startend:quotation")
    assert ifeval.judge_item(*quoted, '"all quoted"') == ([True], [True])
    assert ifeval.judge_item(*quoted, 'Sure:\n"quoted"') == ([False], [True])
    bullets = _item("detectable_format:number_bullet_lists", num_bullets=2)
    assert ifeval.judge_item(*bullets, "* a\n- b") == ([True], [True])
    words = _item("length_constraints:number_words", num_words=3, relation="less than")
    assert ifeval.judge_item(*words, "two words") == ([True], [True])
    assert ifeval.judge_item(*words, "") == ([False], [False])
    report = ifeval.report([([True, False], [True, True]), ([False], [True])])
    assert report == {
        "strict-prompt": 0.0,
        "strict-instruction": 1 / 3,
        "loose-prompt": 1.0,
        "loose-instruction": 1.0,
        "final": pytest.approx((0 + 1 / 3 + 1 + 1) / 4),
    }


def test_ifeval_bad_instructions_name_the_problem() -> None:
    with pytest.raises(ifeval.BadInstruction, match="unknown IFEval instruction 'made:up'"):
        ifeval.follows("made:up", "x", {})
    with pytest.raises(ifeval.BadInstruction, match="needs the argument 'num_bullets'"):
        ifeval.follows("detectable_format:number_bullet_lists", "x", {"num_bullets": None})
    nth = "length_constraints:nth_paragraph_first_word"
    with pytest.raises(ifeval.BadInstruction, match=f"{nth}: an argument is invalid"):
        ifeval.follows(nth, "a\n\nb", {"num_paragraphs": 2, "nth_paragraph": "second", "first_word": "b"})
    with pytest.raises(ifeval.BadInstruction, match="kwargs entry is a list, not an object"):
        ifeval.follows(nth, "a", ["second"])  # type: ignore[arg-type]


def test_ifeval_language_checks_run_on_the_installed_detector() -> None:
    ifeval._detector.cache_clear()
    english = "The weather was mild and the children played outside in the park until the evening."
    french = "Le temps était doux et les enfants ont joué dehors dans le parc jusqu'au soir."
    assert ifeval.follows("language:response_language", english, {"language": "en"})
    assert not ifeval.follows("language:response_language", french, {"language": "en"})
    assert ifeval.follows("language:response_language", french, {"language": "fr"})
    assert ifeval.follows("change_case:english_lowercase", english.lower(), {})
    assert not ifeval.follows("change_case:english_lowercase", french.lower(), {})


def test_ifeval_checks_needing_models_say_what_to_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "langdetect", None)
    ifeval._detector.cache_clear()
    with pytest.raises(ifeval.MissingResource, match=r"pip install langdetect"):
        ifeval.follows("change_case:english_lowercase", "all lower", {})
    ifeval._detector.cache_clear()
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    ifeval._punkt.cache_clear()
    with pytest.raises(
        ifeval.MissingResource, match="set NLTK_DATA to a folder holding tokenizers/punkt_tab"
    ):
        ifeval.follows(
            "length_constraints:number_sentences", "One. Two.", {"num_sentences": 2, "relation": "at least"}
        )
    ifeval._punkt.cache_clear()


class _Classifier:
    """Stands in for PEDANT's pickled classifier: an answer is correct when it contains the reference."""

    def evaluate(self, references: list[str], candidate: str, question: str) -> bool:
        return references[0] in candidate and question == question.lower()


def test_pedant_reads_its_files_from_the_configured_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import types

    import joblib

    from avibench.benchmarks.voicebench import pedant

    assert pedant.load({})[0] is None and pedant.load({})[1].startswith("sd-qa 'panda' needs PEDANT")
    missing = pedant.load({pedant.ENV_PEDANT: str(tmp_path)})[1]
    assert missing.startswith(
        f"{pedant.ENV_PEDANT}={tmp_path} lacks lr_classifier.pkl, tf-idf_vectorizer.pkl"
    )
    joblib.dump({"weights": [1, 2]}, tmp_path / "lr_classifier.pkl")
    joblib.dump({"vocabulary": ["paris"]}, tmp_path / "tf-idf_vectorizer.pkl")
    module = types.ModuleType("qa_metrics.pedant")
    module.PEDANT = type("PEDANT", (_Classifier,), {})
    monkeypatch.setitem(sys.modules, "qa_metrics", types.ModuleType("qa_metrics"))
    monkeypatch.setitem(sys.modules, "qa_metrics.pedant", module)
    loaded, problem = pedant.load({pedant.ENV_PEDANT: str(tmp_path)})
    assert problem is None and loaded is not None
    assert loaded.model.model == {"weights": [1, 2]} and loaded.model.tokenizer == {"vocabulary": ["paris"]}
    assert loaded.correct("Paris", "It is PARIS.", "Capital of France?") is True
    assert loaded.correct("Paris", "Lyon", "Capital of France?") is False


def test_pedant_files_pickled_by_scikit_learn_1_3_predict_as_they_did(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """PEDANT's files come from scikit-learn 1.3: the classifier names a training-loss class later releases
    removed, and the vectorizer keeps its term weights where later releases do not look. Files of that shape
    are made here with the installed release, then read back after the loss class is gone again."""
    import joblib
    import numpy as np
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import SGDClassifier, _sgd_fast

    from avibench.benchmarks.voicebench import pedant

    texts = [
        "[CLS] paris [SEP] paris [SEP] capital of france [SEP]",
        "[CLS] lyon is big [SEP] paris [SEP] capital of france [SEP]",
        "[CLS] 1969 [SEP] 1969 [SEP] moon landing year [SEP]",
        "[CLS] the moon [SEP] 1969 [SEP] moon landing year [SEP]",
        "[CLS] blue whale [SEP] blue whale [SEP] largest animal [SEP]",
        "[CLS] an elephant [SEP] blue whale [SEP] largest animal [SEP]",
    ]
    labels = ["correct", "incorrect"] * 3
    vectorizer = TfidfVectorizer().fit(texts)
    features = sp.hstack([vectorizer.transform(texts), np.full((6, 3), 0.5)]).tocsr()
    classifier = SGDClassifier(loss="log_loss", random_state=0).fit(features, labels)
    probe = [
        "[CLS] paris and lyon [SEP] paris [SEP] moon [SEP]",
        "[CLS] an elephant [SEP] 1969 [SEP] whale [SEP]",
    ]
    expected_weights = vectorizer.transform(probe).toarray()
    expected_verdicts = classifier.predict(np.hstack([expected_weights, np.full((2, 3), 0.5)]))
    assert len(set(vectorizer.idf_.round(6))) > 1  # the weights differ, so losing them changes the features

    class Log:  # scikit-learn 1.3's loss class, pickled by reference under its old name
        def __reduce__(self) -> tuple[type, tuple[()]]:
            return (Log, ())

    Log.__module__, Log.__qualname__ = _sgd_fast.__name__, "Log"
    monkeypatch.setattr(_sgd_fast, "Log", Log, raising=False)
    classifier.loss_function_ = Log()
    weights = vectorizer._tfidf
    weights._idf_diag = sp.diags(weights.idf_)
    del weights.idf_
    joblib.dump(classifier, tmp_path / "lr_classifier.pkl")
    joblib.dump(vectorizer, tmp_path / "tf-idf_vectorizer.pkl")
    monkeypatch.delattr(_sgd_fast, "Log")

    with pytest.raises(AttributeError):
        joblib.load(tmp_path / "lr_classifier.pkl")
    loaded_classifier, loaded_vectorizer = pedant.load_pickles(tmp_path)
    assert not hasattr(_sgd_fast, "Log")  # the stand-in is gone once the files are read
    weights_back = loaded_vectorizer.transform(probe).toarray()
    np.testing.assert_allclose(weights_back, expected_weights)
    verdicts = loaded_classifier.predict(np.hstack([weights_back, np.full((2, 3), 0.5)]))
    assert list(verdicts) == list(expected_verdicts)
