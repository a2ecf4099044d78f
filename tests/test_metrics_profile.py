"""Scoring profiles and the metric dispatcher."""

from __future__ import annotations

import dataclasses

import pytest
from test_metrics_helpers import make_items

from avibench.benchmarks.avibench.metric_kinds import METRIC_KINDS, metric_kind
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.level_metrics import (
    PROFILES,
    REFERENCE,
    STRICT,
    ScoringProfile,
    get_profile,
)


def _switches(profile: ScoringProfile) -> dict[str, bool]:
    return {f.name: getattr(profile, f.name) for f in dataclasses.fields(profile) if f.name != "name"}


def test_get_profile() -> None:
    assert get_profile("reference") is REFERENCE
    assert get_profile("strict") is STRICT
    assert get_profile(STRICT) is STRICT
    with pytest.raises(KeyError, match="reference, strict"):
        get_profile("lenient")
    assert set(PROFILES) == {"reference", "strict"}


def test_strict_flips_every_switch() -> None:
    reference, strict = _switches(REFERENCE), _switches(STRICT)
    assert reference and all(isinstance(v, bool) for v in reference.values())
    assert {name for name in reference if reference[name] == strict[name]} == set()


def test_every_switch_is_documented() -> None:
    import inspect

    source = inspect.getsource(ScoringProfile)
    for name in _switches(REFERENCE):
        assert f"{name}: bool" in source
        block = source.split(f"{name}: bool", 1)[1].split(":", 1)[0]
        assert '"""' in block, f"{name} has no docstring"


def test_every_registry_metric_has_a_scorer() -> None:
    assert {t.metric for t in AVIBENCH.tasks} <= set(METRIC_KINDS)


def test_score_task_dispatch() -> None:
    items = make_items("AVM", [("0", "yes", "Yes!")])
    assert metric_kind("full_match").score(items, profile="reference").value == 1.0
    with pytest.raises(KeyError, match="full_match"):
        metric_kind("bleu").score(items, profile=REFERENCE)


def test_single_switches_act_alone() -> None:
    # One code path: flipping one switch of the reference profile changes exactly that behaviour.
    spec_vector = make_items("VAR", [("0", [2], "[2, 0]")])
    model_order = dataclasses.replace(REFERENCE, name="custom", retrieval_set_order=False)
    assert metric_kind("retrieval").score(spec_vector, profile=REFERENCE).value["Recall@1"] == 0.0
    assert metric_kind("retrieval").score(spec_vector, profile=model_order).value["Recall@1"] == 1.0
    no_space = make_items("VAR", [("0", [0, 3], "[0,3]")])
    regex_tokens = dataclasses.replace(REFERENCE, name="custom", retrieval_isdigit_tokens=False)
    assert metric_kind("retrieval").score(no_space, profile=regex_tokens).value["F1_score"] == 1.0
    pre_first = make_items("ASQA", [("pre_X", "yes", "no"), ("X", "cube", "cube")])
    by_id = dataclasses.replace(REFERENCE, name="custom", double_confirm_positional=False)
    assert metric_kind("full_match").score(pre_first, profile=by_id).value == 0.0
    assert metric_kind("full_match").score(pre_first, profile=REFERENCE).value == 1.0
