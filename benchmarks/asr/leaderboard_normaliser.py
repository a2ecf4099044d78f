"""The Open ASR Leaderboard's English normaliser, loaded from the user's checkout of the leaderboard.

It ships in no package and this project does not rewrite it, so ``--asr-normaliser open-asr-leaderboard=DIR``
reads it from DIR, the repository's ``normalizer/`` folder: ``normalizer.py`` is imported as a module of a package
made of that folder (its ``from .english_abbreviations import ...`` finds its neighbour), and its
``EnglishTextNormalizer`` is built with the spelling map it ships, as the leaderboard's ``data_utils.py`` builds it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import types
from collections.abc import Callable
from functools import cache
from pathlib import Path

from avibench.errors import AvibenchError


@cache
def load(folder: str) -> Callable[[str], str]:
    """The leaderboard's ``EnglishTextNormalizer(english_spelling_normalizer)`` from ``folder``."""
    package = "avibench_open_asr_leaderboard_" + hashlib.sha256(folder.encode()).hexdigest()[:12]
    holder = types.ModuleType(package)
    holder.__path__ = [folder]
    sys.modules[package] = holder
    spec = importlib.util.spec_from_file_location(f"{package}.normalizer", Path(folder) / "normalizer.py")
    if spec is None or spec.loader is None:
        raise AvibenchError(f"{folder}: no normalizer.py to load")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        return module.EnglishTextNormalizer(module.english_spelling_normalizer)
    except Exception as exc:  # foreign code: any failure is reported in one line naming the file
        raise AvibenchError(
            f"{folder}/normalizer.py: cannot build the leaderboard's EnglishTextNormalizer with its "
            f"english_spelling_normalizer ({type(exc).__name__}: {exc})"
        ) from exc
