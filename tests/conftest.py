"""Shared fixtures. Tests run offline: nothing may reach the Hugging Face hub."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Caches shared by every output dir (chance levels) go to a folder of this session, not the user's.
os.environ.setdefault("AVIBENCH_CACHE_DIR", tempfile.mkdtemp(prefix="avibench-test-cache-"))

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer

#: The ``serve`` fixture: start a fake OpenAI-compatible server (``FakeOpenAIServer``'s keyword arguments).
Serve = Callable[..., FakeOpenAIServer]


@pytest.fixture(scope="session")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated sample benchmark (seed 0), made once per test session."""
    from avibench.benchmarks.avibench.sample_data import generate

    root = tmp_path_factory.mktemp("sample") / "levels"
    generate(root, seed=0)
    return root


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Starts fake servers on demand, each in its own thread, and stops them all when the test ends."""
    with ExitStack() as stack:

        def start(**kwargs: Any) -> FakeOpenAIServer:
            server = FakeOpenAIServer(**kwargs)
            stack.enter_context(server.run_in_thread())
            return server

        yield start
