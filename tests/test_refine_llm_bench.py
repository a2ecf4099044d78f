"""The LLM-fallback bench runs against the local OpenAI-compatible test server and prints its figures."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from avibench.testing.fake_openai import FakeOpenAIServer

BENCH = Path(__file__).resolve().parent.parent / "bench" / "refine_llm.py"


def test_llm_bench_prints_accuracy_refusals_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("refine_llm", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    with FakeOpenAIServer().run_in_thread() as server:
        code = module.main(
            ["--base-url", server.base_url, "--model", "fake", "--api-key", "k", "--limit", "12"]
        )
        sent = len(server.bodies())
    out = capsys.readouterr().out
    assert code == 0 and sent == 12
    # the fake server says "**yes**" to everything: right only where the answer is yes, never a box or a count
    accuracy = re.search(r"accuracy on determinable answers: (\d+)/(\d+)", out)
    assert accuracy is not None and int(accuracy.group(2)) == 12
    assert int(accuracy.group(1)) < 12
    tokens = re.search(r"cost: 12 requests, (\d+) prompt \+ (\d+) completion tokens", out)
    assert tokens is not None and int(tokens.group(1)) > 12 * 50 and int(tokens.group(2)) == 12 * 4
