"""A stage's result from unchanged inputs: when nothing it reads has changed since it wrote its files, they stand.

A stamp beside eval.json records what the result was computed from: the size and modification time of every file
eval reads (the selected tasks' data files, the run's journals and run.json, or the prediction files, and the
judge journals of the plug-ins with an LLM judge, as this eval left them), the
command's options, the environment settings that change scores, the package version and code, the scoring
plug-in's distribution, version and code (installed or editable, with the classes it builds on), the model files
its metrics read (FENSE, PEDANT), and the size and time of
the eval.json and samples.jsonl it wrote with the lines it printed and its exit code. A later eval with the same
stamp prints those lines again and exits the same way without loading or scoring anything; any difference (an
edited journal, a new answer, another option, a rewritten eval.json) and eval runs in full. An eval that reported
an error (a broken file, a failed scorer or judge request) writes no stamp: the next one tries again. The pages
(report and viewer) keep stamps of their own the same way (:mod:`avibench.evaluate.page_reuse`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from avibench import __version__
from avibench.plugin import ENTRY_POINT_GROUP
from avibench.store import atomic_write_json

STAMP_SUFFIX = ".stamp.json"
#: Environment settings that change what eval computes (FENSE models, judges, the scoring-related switches).
ENV_PREFIXES = ("AVIBENCH_", "JUDGE_", "FENSE_", "OPENAI_BASE_URL", "HF_HUB_OFFLINE")
#: The variables a judge's key is read from (whether each is set is stamped, never its value).
KEY_VARIABLES = ("JUDGE_API_KEY", "OPENAI_API_KEY")


def stamp_path(target: Path) -> Path:
    return target.with_name(target.name + STAMP_SUFFIX)


def _file_state(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


#: The packages whose code computes an eval (the plug-ins, scorers, estimators, prompts and judge templates).
CODE_PACKAGES = (
    "avibench",
    "avibench.benchmarks",
    "avibench.evaluate",
    "avibench.infer",
    "avibench.level_metrics",
    "avibench.prompts",
    "avibench.refine",
)


def code_roots() -> list[Path]:
    """The folders of :data:`CODE_PACKAGES` (found without importing them)."""
    roots: list[Path] = []
    for name in CODE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            roots += [Path(p) for p in spec.submodule_search_locations]
    return roots


def walk_files(root: str, skip: Collection[str] = ()) -> Iterator[tuple[str, str]]:
    """``(path, state)`` of every file under the folder ``root`` in a fixed order: its size and time, and for a
    link where it points. Links to folders are followed once each (a loop is walked no further); caches and the
    folders ``skip`` names are left out."""
    seen: set[tuple[int, int]] = set()
    folders = [root]
    while folders:
        folder = folders.pop()
        if folder in skip:
            continue
        try:
            key = (st := os.stat(folder)).st_dev, st.st_ino
            entries = sorted(os.scandir(folder), key=lambda e: e.name) if key not in seen else []
        except OSError:
            yield folder, "unreadable"
            continue
        seen.add(key)
        below = []
        for entry in entries:
            link = f" -> {os.readlink(entry.path)}" if entry.is_symlink() else ""
            try:
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        below.append(entry.path)
                    if link:
                        yield entry.path, link
                    continue
                st = entry.stat()
                yield entry.path, f"{st.st_size} {st.st_mtime_ns}{link}"
            except OSError:
                yield entry.path, f"missing{link}"
        folders.extend(reversed(below))


def tree_state(roots: Iterable[Path], skip: Collection[str] = ()) -> str:
    """A hash of the path, size and time of every file under ``roots`` (files or folders; caches and the folders
    ``skip`` names left out)."""
    digest = hashlib.sha256()
    for root in roots:
        if not root.is_dir():
            digest.update(f"{root}\0{_file_state(root)}\n".encode())
            continue
        for path, state in walk_files(str(root), skip):
            digest.update(f"{path}\0{state}\n".encode())
    return digest.hexdigest()


def code_state() -> str:
    """A hash of the size and time of every file of the package: a changed scorer is never replayed as the old."""
    return tree_state(code_roots())


def plugin_code(benchmark: object) -> list[Path]:
    """The code of a plug-in from outside this package, found from its class and the classes it builds on: each
    one's top-level package folder (installed or editable) or single module file."""
    own = {Path(p).resolve() for p in code_roots()}
    found: list[Path] = []
    for cls in type(benchmark).__mro__:
        top = cls.__module__.split(".")[0]
        if top in sys.stdlib_module_names or top in ("builtins", "avibench"):
            continue
        spec = importlib.util.find_spec(top)
        if spec is None:
            continue
        paths = list(spec.submodule_search_locations or ()) or ([spec.origin] if spec.origin else [])
        for path in (Path(p).resolve() for p in paths):
            if path.exists() and path not in found and not any(path.is_relative_to(r) for r in own):
                found.append(path)
    return found


def plugin_state(benchmark: object, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """What the scoring plug-in brings beyond this package: its distribution and version, a hash of its code, and
    a hash of the model files its metrics read under the eval options ``options``
    (:meth:`~avibench.plugin.Benchmark.model_files`; ``None``: a stage that scores nothing reads none)."""
    name = str(getattr(benchmark, "name", ""))
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP, name=name)
    dists = sorted({f"{ep.dist.name} {ep.dist.version}" for ep in found if ep.dist is not None})
    model_files = getattr(benchmark, "model_files", None)
    models = (
        [Path(p) for p in model_files(options)] if model_files is not None and options is not None else []
    )
    return {
        "class": f"{type(benchmark).__module__}.{type(benchmark).__qualname__}",
        "distribution": dists,
        "code": tree_state(plugin_code(benchmark)),
        "models": {str(p): tree_state([p]) for p in models},
    }


#: Folder of a run where the plug-ins with an LLM judge journal its replies (one JSONL file per judged part).
JUDGE_DIR = "judge"


def _judge_journals(run_root: str) -> dict[str, list[int] | None]:
    """The run's judge journals: eval takes a judge's replies from them, so one deleted or edited is judged (or
    scored) again rather than replayed."""
    return {str(p): _file_state(p) for p in sorted((Path(run_root) / JUDGE_DIR).glob("*.jsonl"))}


def _tree(path: Path) -> Iterable[Path]:
    """A prediction path: the file itself, or every file under the folder."""
    if path.is_file():
        yield path
        return
    for folder, _, names in os.walk(path):
        for name in sorted(names):
            yield Path(folder) / name


def input_stamp(
    inputs: Sequence[Path],
    predictions: Path | None,
    options: Mapping[str, Any],
    *,
    run_root: Path | None = None,
    plugin: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What an eval reads, as it is now (see the module docstring); ``run_root``: the run whose judge journals
    eval reads (and :func:`record` stamps as the eval leaves them, since judging appends to them); ``plugin``:
    the scoring plug-in's :func:`plugin_state`."""
    files = {str(p): _file_state(p) for p in inputs}
    if predictions is not None:
        files.update({str(p): _file_state(p) for p in _tree(predictions)})
    env = json.dumps(
        {
            **{k: v for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)},
            "keys set": [
                k for k in KEY_VARIABLES if os.environ.get(k)
            ],  # a judge key given judges what was not
        }
    )
    # the settings are kept as a hash: they may hold a key or a URL with credentials
    stamp: dict[str, Any] = {
        "version": __version__,
        "code": code_state(),
        "options": dict(options),
        "env": hashlib.sha256(env.encode()).hexdigest(),
        "files": files,
        "plugin": dict(plugin or {}),
    }
    if run_root is not None:
        stamp["judge"] = {"run": str(run_root), "files": _judge_journals(str(run_root))}
    return stamp


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
    if not all(
        isinstance(line, list) and len(line) == 2 and isinstance(line[0], bool) and isinstance(line[1], str)
        for line in lines
    ):
        return None  # a stamp edited by hand or torn: score again rather than replay what cannot be read
    return {"lines": lines, "exit": code}


def replay(done: Mapping[str, Any]) -> None:
    """Print a reused result's lines as the stage printed them, and leave with its exit code."""
    for err, line in done["lines"]:
        click.echo(line, err=bool(err))
    if done["exit"]:
        sys.exit(done["exit"])


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
    judge = stamp.get("judge")
    if isinstance(judge, dict):
        stamp = {**stamp, "judge": {**judge, "files": _judge_journals(judge["run"])}}
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
