"""Defaults shared by every stage: where the dataset and outputs live, how a run is labelled."""

from __future__ import annotations

import os
import re
from pathlib import Path

SAMPLE_ROOT = Path("data/sample")
DOWNLOAD_ROOT = Path("data/levels")
OUTPUT_DIR = Path("outputs")


def default_data_root() -> Path:
    """``$DATA_ROOT``, else ``data/levels`` (the real download) if present, else the generated ``data/sample``."""
    env = os.environ.get("DATA_ROOT")
    if env:
        return Path(env)
    return DOWNLOAD_ROOT if DOWNLOAD_ROOT.is_dir() else SAMPLE_ROOT


def default_output_dir() -> Path:
    return Path(os.environ.get("OUTPUT_DIR") or OUTPUT_DIR)


_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def label_for(model: str) -> str:
    """A folder-safe run label from a model id (``models/gemini-2.5-pro`` -> ``models_gemini-2.5-pro``)."""
    label = _LABEL_UNSAFE.sub("_", model.strip()).strip("._")
    if not label:
        raise ValueError(f"cannot derive an output label from model {model!r}; pass --label")
    return label


def run_dir(output_dir: Path | str, label: str) -> Path:
    return Path(output_dir) / label
