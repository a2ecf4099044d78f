"""PEDANT (``qa_metrics``), sd-qa's ``panda`` score, from model files on disk: never downloaded at run time.

The official evaluator builds ``qa_metrics.pedant.PEDANT()``, which downloads its classifier on first use. Here
the two files it downloads are read from the folder named by ``AVIBENCH_VOICEBENCH_PEDANT`` (``lr_classifier.pkl``
and ``tf-idf_vectorizer.pkl`` from the ``qa_metrics/classifier`` folder of github.com/zli12321/qa_metrics, with
``pip install qa-metrics==0.2.17`` for the code). Without them sd-qa's ``panda`` is null, its GPT score is
still computed, and the subset is reported partial with this message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PEDANT = "AVIBENCH_VOICEBENCH_PEDANT"
FILES = ("lr_classifier.pkl", "tf-idf_vectorizer.pkl")
HELP = (
    f"sd-qa 'panda' needs PEDANT: pip install qa-metrics==0.2.17 and set {ENV_PEDANT} to a folder holding "
    f"{' and '.join(FILES)} (qa_metrics/classifier in github.com/zli12321/qa_metrics)"
)


@dataclass
class Pedant:
    """A PEDANT instance whose classifier came from local files."""

    model: Any

    def correct(self, reference: str, response: str, prompt: str) -> bool:
        """The official call: every argument lowercased."""
        return bool(self.model.evaluate([reference.lower()], response.lower(), prompt.lower()))


def load(env: Mapping[str, str] | None = None) -> tuple[Pedant | None, str | None]:
    """``(pedant, None)``, or ``(None, why)`` when it is not configured or cannot be loaded."""
    env = os.environ if env is None else env
    folder = env.get(ENV_PEDANT)
    if not folder:
        return None, HELP
    missing = [name for name in FILES if not (Path(folder) / name).is_file()]
    if missing:
        return None, f"{ENV_PEDANT}={folder} lacks {', '.join(missing)}; {HELP}"
    try:
        import joblib
        from qa_metrics.pedant import PEDANT
    except ImportError:
        return None, HELP
    model = PEDANT.__new__(PEDANT)
    try:
        model.model = joblib.load(Path(folder) / FILES[0])
        model.tokenizer = joblib.load(Path(folder) / FILES[1])
    except (
        Exception
    ) as exc:  # a truncated or incompatible pickle is a setup problem, reported like a missing file
        return (
            None,
            f"{ENV_PEDANT}={folder}: cannot load {' and '.join(FILES)} ({type(exc).__name__}: {exc}); {HELP}",
        )
    return Pedant(model), None
