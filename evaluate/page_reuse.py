"""Pages of an unchanged run: ``report`` and ``view`` print what they printed and leave their pages as they are
when nothing the pages are built from has changed since.

``avibench run`` takes every benchmark through report and view each time it is run. Building the pages of a
full-size run reads every sample, data entry and media path again (seconds per benchmark), only to write what is
already on disk. Each page keeps a stamp beside it, as eval does (:mod:`avibench.evaluate.reuse`), recording:

* every file of the run's folder (eval.json, samples.jsonl, the manifest, infer's run.json and probe, the infer,
  refine and judge journals), except what no page reads and every invocation rewrites: the stage logs
  (``run.log``, ``infer/runs.jsonl``), lock files, files being written, stamps and the pages themselves;
* every file under each data root the run names (the one given or found, eval.json's, the manifest's and
  infer's run.json's): the data files, and the media whose paths, links and lengths the pages read (an output
  folder kept inside a data root is left out);
* the command's options, the environment settings, the package's version and code, and the plug-in's code.

Any difference, or a page deleted or edited, and the page is built again. A page that failed writes no stamp.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from avibench.errors import AvibenchError
from avibench.evaluate import reuse
from avibench.evaluate.run_files import read_run_json
from avibench.manifest import read_manifest
from avibench.run_options import RunLocation

#: The pages a run's folder holds (report.md and report.html from ``report``, viewer.html from ``view``).
PAGE_NAMES = frozenset({"report.md", "report.html", "viewer.html"})
#: Files every invocation of a stage appends to or rewrites, which no page reads.
REWRITTEN_EACH_TIME = frozenset({"run.log", "runs.jsonl"})


class Printed:
    """``click.echo`` that keeps each line it printed (with ``True`` for stderr), for the stamp to print again."""

    def __init__(self) -> None:
        self.lines: list[tuple[bool, str]] = []

    def __call__(self, text: str, err: bool = False) -> None:
        click.echo(text, err=err)
        self.lines.append((err, text))

    def notice(self, text: str) -> None:
        self(text, err=True)


def _read_by_pages(path: str) -> bool:
    name = os.path.basename(path)
    return not (
        name in PAGE_NAMES
        or name in REWRITTEN_EACH_TIME
        or name.startswith(".lock-")
        or name.endswith((reuse.STAMP_SUFFIX, ".tmp"))
    )


def run_files(root: Path) -> dict[str, str]:
    """The state of each file of the run folder ``root`` that pages read (see the module)."""
    if not root.is_dir():
        return {}
    return {path: state for path, state in reuse.walk_files(str(root)) if _read_by_pages(path)}


def named_data_roots(run: RunLocation, meta: Mapping[str, Any], given: Iterable[Path] = ()) -> list[Path]:
    """Every data root the run names: ``given``, the one found for it, eval.json's, the manifest's (run-wide and
    per task) and infer's run.json's; resolved, each once."""
    named: list[Any] = [*given, run.data_root, meta.get("data_root")]
    try:
        manifest = read_manifest(run.paths) or {}
    except AvibenchError:  # a damaged manifest is reported by the page itself
        manifest = {}
    tasks = manifest.get("tasks") if isinstance(manifest.get("tasks"), dict) else {}
    named += [manifest.get("data_root"), *(t.get("data_root") for t in tasks.values() if isinstance(t, dict))]
    run_json = read_run_json(run.paths.run_json)
    if isinstance(run_json, dict):
        named.append(run_json.get("data_root"))
    roots = {Path(r).resolve() for r in named if isinstance(r, str | Path) and str(r)}
    return sorted(roots)


def page_stamp(
    run: RunLocation, meta: Mapping[str, Any], options: Mapping[str, Any], data_roots: Iterable[Path] = ()
) -> dict[str, Any]:
    """What a page of ``run`` is built from, as it is now (see the module); ``options``: the command's own,
    ``data_roots``: roots it was given besides the run's."""
    stamp = reuse.input_stamp(
        [],
        None,
        {"benchmark": run.benchmark.name, "run": str(run.paths.root.resolve()), **options},
        plugin=reuse.plugin_state(run.benchmark, None),
    )
    stamp["run_files"] = run_files(run.paths.root)
    outputs = {str(run.paths.output_dir.resolve())}  # runs kept inside a data root are not its data
    stamp["data"] = {str(r): reuse.tree_state([r], outputs) for r in named_data_roots(run, meta, data_roots)}
    return stamp


def replayed(page: Path, stamp: Mapping[str, Any]) -> bool:
    """Whether ``page`` was built from exactly these inputs and is unchanged since: then what its command printed
    is printed again (where its folder cannot be written, the page is built and fails as it always did)."""
    done = reuse.reusable(page, stamp) if os.access(page.parent, os.W_OK) else None
    if done is None:
        reuse.forget(page)
        return False
    reuse.replay(done)
    return True
