"""``avibench [COMMAND] --help`` must stay instant: printing help loads none of the heavy libraries a command needs
only once it runs (numeric, media, model, HTTP and plotting stacks)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from avibench.cli import COMMANDS

HEAVY = ("numpy", "av", "PIL", "torch", "scipy", "sklearn", "matplotlib", "yaml", "tqdm", "aiohttp", "openai")
PROBE = """
import contextlib, io, json, sys
from avibench.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(json.loads(sys.argv[1]))
print(" ".join(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)))
"""


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_loads_no_heavy_library(command: str) -> None:
    argv = [*([command] if command else []), "--help"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "", f"avibench {command} --help imports {done.stdout.strip()}"
