"""Eval of an unchanged run: when nothing eval reads has changed since it wrote eval.json, its result stands.

A stamp beside eval.json records what the result was computed from: the size and modification time of every file
eval reads (the selected tasks' data files, the run's journals and run.json, or the prediction files), the
command's options, the environment settings that change scores, the package version, and the size and time of
the eval.json and samples.jsonl it wrote with the lines it printed and its exit code. A later eval with the same
stamp prints those lines again and exits the same way without loading or scoring anything; any difference (an
edited journal, a new answer, another option, a rewritten eval.json) and eval runs in full. An eval that reported
an error (a broken file, a failed scorer or judge request) writes no stamp: the next one tries again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench import __version__
from avibench.store import atomic_write_json

STAMP_SUFFIX = ".stamp.json"
#: Environment settings that change what eval computes (FENSE models, judges, the scoring-related switches).
ENV_PREFIXES = ("AVIBENCH_", "JUDGE_", "FENSE_", "OPENAI_BASE_URL", "HF_HUB_OFFLINE")


def stamp_path(target: Path) -> Path:
    return target.with_name(target.name + STAMP_SUFFIX)


def _file_state(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _tree(path: Path) -> Iterable[Path]:
    """A prediction path: the file itself, or every file under the folder."""
    if path.is_file():
        yield path
        return
    for folder, _, names in os.walk(path):
        for name in sorted(names):
            yield Path(folder) / name


def input_stamp(
    inputs: Sequence[Path], predictions: Path | None, options: Mapping[str, Any]
) -> dict[str, Any]:
    """What an eval reads, as it is now (see the module docstring)."""
    files = {str(p): _file_state(p) for p in inputs}
    if predictions is not None:
        files.update({str(p): _file_state(p) for p in _tree(predictions)})
    env = json.dumps({k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)})
    # the settings are kept as a hash: they may hold a key or a URL with credentials
    return {
        "version": __version__,
        "options": dict(options),
        "env": hashlib.sha256(env.encode()).hexdigest(),
        "files": files,
    }


def reusable(target: Path, stamp: Mapping[str, Any]) -> dict[str, Any] | None:
    """The recorded outcome (``lines``: ``[to_stderr, text]`` in the order printed, and ``exit``) when ``target``
    was written from exactly these inputs and is unchanged since, else ``None``."""
    try:
        recorded = json.loads(stamp_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(recorded, dict) or recorded.get("inputs") != json.loads(json.dumps(stamp)):
        return None
    outputs = recorded.get("outputs")
    if not isinstance(outputs, dict) or not outputs:
        return None
    if any(_file_state(Path(p)) != state for p, state in outputs.items()):
        return None
    lines = recorded.get("lines")
    code = recorded.get("exit")
    if not isinstance(lines, list) or not isinstance(code, int):
        return None
    return {"lines": lines, "exit": code}


def record(
    target: Path,
    stamp: Mapping[str, Any],
    outputs: Sequence[Path],
    *,
    lines: Sequence[tuple[bool, str]],
    exit_code: int,
) -> None:
    """Write the stamp after the outputs (a crash before it leaves none, so the next eval runs in full), with the
    lines eval printed (``True`` for stderr) and its exit code."""
    record = {
        "inputs": stamp,
        "outputs": {str(p): _file_state(p) for p in outputs},
        "lines": [[err, line] for err, line in lines],
        "exit": exit_code,
    }
    with contextlib.suppress(OSError):  # without a stamp the next eval only runs in full
        atomic_write_json(stamp_path(target), record)


def forget(target: Path) -> None:
    """Remove the stamp before outputs are rewritten, so a half-finished eval is never taken as done."""
    with contextlib.suppress(OSError):  # a folder eval cannot write to is reported when eval.json is written
        stamp_path(target).unlink(missing_ok=True)
