"""PEDANT (``qa_metrics``), sd-qa's ``panda`` score, from model files on disk: never downloaded at run time.

The two files are read from the folder named by ``AVIBENCH_VOICEBENCH_PEDANT`` and the official ``evaluate`` runs
on them; which files (the upstream ``.pkl`` pair beside them does not fit together), and how files pickled by
scikit-learn 1.3 predict under later releases as they did: docs/voicebench.md, "Model files". Without them
sd-qa's ``panda`` is null and the subset has no score (half of its term of Overall is ``panda``), said by :data:`HELP`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ENV_PEDANT = "AVIBENCH_VOICEBENCH_PEDANT"
FILES = ("lr_classifier.pkl", "tf-idf_vectorizer.pkl")
SOURCE = "https://github.com/zli12321/qa_metrics/raw/master/qa_metrics/classifier/"
HELP = (
    f"sd-qa 'panda' needs PEDANT: run 'make pedant' (qa-metrics 0.2.17 without its scikit-learn pin) and set "
    f"{ENV_PEDANT} to a folder holding {' and '.join(FILES)}, the files {SOURCE}lr_classifier and "
    f"{SOURCE}tf-idf_vectorizer saved under those names"
)
TRAINING_LOSSES = ("Log", "Hinge", "ModifiedHuber", "SquaredHinge", "SquaredLoss", "Huber")
"""scikit-learn 1.3's SGD loss classes, pickled with a classifier but used only in training."""


class _TrainingLoss:
    """Stands in for a training-loss object scikit-learn no longer has."""

    def __init__(self, *args: Any) -> None:
        self.args = args

    def __setstate__(self, state: Any) -> None:
        self.state = state


@contextmanager
def _old_training_losses() -> Iterator[None]:
    """While unpickling, the loss classes of scikit-learn 1.3 that the installed release lacks are stand-ins."""
    from sklearn.linear_model import _sgd_fast

    added = [name for name in TRAINING_LOSSES if not hasattr(_sgd_fast, name)]
    for name in added:
        setattr(_sgd_fast, name, _TrainingLoss)
    try:
        yield
    finally:
        for name in added:
            delattr(_sgd_fast, name)


def _restore_idf(vectorizer: Any) -> Any:
    """Give a TF-IDF vectorizer pickled by scikit-learn 1.3 its term weights back.

    1.3 kept them as a sparse diagonal (``_idf_diag``); later releases read an ``idf_`` array and, finding
    none, silently weigh every term alike, which flips PEDANT's verdict on some answers."""
    weights = getattr(vectorizer, "_tfidf", None)
    if weights is not None and not hasattr(weights, "idf_") and hasattr(weights, "_idf_diag"):
        weights.idf_ = np.asarray(weights._idf_diag.diagonal())
    return vectorizer


def load_pickles(folder: Path) -> tuple[Any, Any]:
    """The classifier and the vectorizer in ``folder``, as PEDANT keeps them (``joblib`` pickles), made to
    predict under the installed scikit-learn as they did under 1.3."""
    import joblib
    from sklearn.exceptions import InconsistentVersionWarning

    with _old_training_losses(), warnings.catch_warnings():
        warnings.simplefilter("ignore", InconsistentVersionWarning)  # the release gap is what this bridges
        return joblib.load(folder / FILES[0]), _restore_idf(joblib.load(folder / FILES[1]))


@dataclass
class Pedant:
    """A PEDANT instance whose classifier came from local files; each verdict is computed once (both profiles
    ask for it)."""

    model: Any
    verdicts: dict[tuple[str, str, str], bool] = field(default_factory=dict, repr=False)

    def correct(self, reference: str, response: str, prompt: str) -> bool:
        """The official call: every argument lowercased."""
        key = (reference.lower(), response.lower(), prompt.lower())
        if key not in self.verdicts:
            self.verdicts[key] = bool(self.model.evaluate([key[0]], key[1], key[2]))
        return self.verdicts[key]


def model_files(env: Mapping[str, str] | None = None) -> list[Path]:
    """The two files :func:`load` reads, where ``AVIBENCH_VOICEBENCH_PEDANT`` names a folder."""
    folder = (os.environ if env is None else env).get(ENV_PEDANT)
    return [Path(folder) / name for name in FILES] if folder else []


def load(env: Mapping[str, str] | None = None) -> tuple[Pedant | None, str | None]:
    """``(pedant, None)``, or ``(None, why)`` when it is not configured or cannot be loaded."""
    folder = (os.environ if env is None else env).get(ENV_PEDANT)
    missing = [name for name in FILES if not (Path(folder) / name).is_file()] if folder else []
    if not folder or missing:
        return None, f"{ENV_PEDANT}={folder} lacks {', '.join(missing)}; {HELP}" if missing else HELP
    try:
        from qa_metrics.pedant import PEDANT
    except ImportError:
        return None, HELP
    model = PEDANT.__new__(PEDANT)
    try:
        model.model, model.tokenizer = load_pickles(Path(folder))
    except Exception as exc:  # a truncated or incompatible pickle is a setup problem too
        loading = f"cannot load {' and '.join(FILES)} ({type(exc).__name__}: {exc})"
        return None, f"{ENV_PEDANT}={folder}: {loading}; {HELP}"
    return Pedant(model), None
