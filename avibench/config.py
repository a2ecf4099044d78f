"""Defaults shared by every stage: where outputs live, how a run is labelled."""

from __future__ import annotations

import os
import re
from pathlib import Path

OUTPUT_DIR = Path("outputs")


def default_output_dir() -> Path:
    return Path(os.environ.get("OUTPUT_DIR") or OUTPUT_DIR)


_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def label_for(model: str) -> str:
    """A folder-safe run label from a model id (``models/gemini-2.5-pro`` -> ``models_gemini-2.5-pro``)."""
    label = _LABEL_UNSAFE.sub("_", model.strip()).strip("._")
    if not label:
        raise ValueError(f"cannot derive an output label from model {model!r}; pass --label")
    return label


def user_cache_dir() -> Path:
    """Where results derived from a dataset alone are kept for every output dir: ``$AVIBENCH_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/avibench``, else ``~/.cache/avibench``."""
    explicit = os.environ.get("AVIBENCH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "avibench"
