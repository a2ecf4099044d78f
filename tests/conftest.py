"""Shared fixtures. Tests run offline: nothing may reach the Hugging Face hub."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Caches shared by every output dir (chance levels) go to a folder of this session, not the user's.
os.environ.setdefault("AVIBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="avibench-test-cache-"))

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated sample benchmark (seed 0), made once per test session."""
    from avibench.benchmarks.avibench.sample_data import generate

    root = tmp_path_factory.mktemp("sample") / "levels"
    generate(root, seed=0)
    return root
