"""``avibench merge``: one run from the folders of its shards, each written by its own host.

Hosts that share no output folder each run ``avibench infer --shard i/n --output-dir HOST_DIR``; ``merge`` then
combines ``HOST_DIR/<label>/<benchmark>`` of every host into ``--into DIR/<label>/<benchmark>``, which refine,
eval and every other stage use as any run. It refuses, naming the folder and what differs:

* a shard run with another model, backend, generation setting or dataset fingerprint than the others;
* a shard that is missing (no folder ran ``i/n``), or duplicated (two folders ran the same shard, or answered
  the same question), or shards cut differently (``0/2`` beside ``1/3``).

Answers are copied as recorded, in the order of the questions in each task (position, then key), so the merged
journals are the same whatever order the folders are given in. A shard that still has unanswered questions is
merged and named: re-run that shard (its folder, or the merged run) to finish it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from avibench.contracts import RunPaths, is_answered, latest_by_key
from avibench.errors import AvibenchError
from avibench.manifest import BINDING, read_manifest, save_manifest
from avibench.store import append_records, atomic_write_json, read_records

#: Stage folders whose journals are merged (refine's too, where the hosts refined before merging).
JOURNAL_STAGES = ("infer", "refine")


class ShardMergeError(AvibenchError):
    """Shard folders that cannot make one run."""


@dataclass
class ShardFolder:
    """One host's run folder for one benchmark and the shards it ran."""

    paths: RunPaths
    manifest: dict[str, Any]
    shards: set[tuple[int, int]] = field(default_factory=set)

    @property
    def name(self) -> str:
        return str(self.paths.root)


def _shards_run(paths: RunPaths) -> set[tuple[int, int]]:
    """The shards ``(index, count)`` the folder's infer invocations ran (``infer/runs.jsonl``)."""
    shards: set[tuple[int, int]] = set()
    for record in read_records(paths.runs_log):
        shard = record.get("shard") if record.get("event") == "start" else None
        if isinstance(shard, str) and "/" in shard:
            i, n = shard.split("/", 1)
            if i.isdigit() and n.isdigit():
                shards.add((int(i), int(n)))
    return shards


def unfinished(paths: RunPaths) -> list[str]:
    """What the folder's last invocation of each shard left undone: ended without finishing (killed), stopped, or
    with failed questions."""
    state: dict[str, str | None] = {}
    current: str | None = None
    for record in read_records(paths.runs_log):
        if record.get("event") == "start":
            current = str(record.get("shard"))
            state[current] = "ended without finishing (killed?)"
        elif record.get("event") == "end" and current is not None:
            counts = record.get("counts") if isinstance(record.get("counts"), dict) else {}
            failed = sum(int(c.get("failed", 0)) for c in counts.values() if isinstance(c, dict))
            stopped = record.get("stopped")
            state[current] = (
                f"stopped: {stopped}" if stopped else f"{failed} questions failed" if failed else None
            )
            current = None
    return [f"shard {shard} in {paths.root}: {why}" for shard, why in sorted(state.items()) if why]


def load_folder(output_dir: Path, label: str, benchmark: str) -> ShardFolder:
    paths = RunPaths(output_dir, label, benchmark)
    manifest = read_manifest(paths)
    if manifest is None:
        raise ShardMergeError(
            f"{paths.root}: no manifest.json; is this the output folder of an infer --shard run?"
        )
    shards = _shards_run(paths)
    if not shards:
        raise ShardMergeError(f"{paths.runs_log}: no infer invocation recorded, so its shard is unknown")
    return ShardFolder(paths, manifest, shards)


def _binding_differences(first: ShardFolder, other: ShardFolder) -> list[str]:
    out = [
        f"{key} {first.manifest.get(key)!r} vs {other.manifest.get(key)!r}"
        for key in BINDING
        if first.manifest.get(key) != other.manifest.get(key)
    ]
    for task, entry in other.manifest["tasks"].items():
        known = first.manifest["tasks"].get(task)
        if known is not None and known.get("fingerprint") != entry.get("fingerprint"):
            out.append(
                f"task {task} dataset fingerprint {known.get('fingerprint')} vs {entry.get('fingerprint')}"
            )
    return out


def check_folders(folders: Sequence[ShardFolder]) -> int:
    """Refuse mismatched, duplicated or missing shards; returns the shard count ``n``."""
    first = folders[0]
    for other in folders[1:]:
        differences = _binding_differences(first, other)
        if differences:
            raise ShardMergeError(
                f"{other.name} was not run like {first.name}: {'; '.join(differences)}; merge only the shards "
                "of one run"
            )
    counts = {n for folder in folders for _, n in folder.shards}
    if len(counts) > 1:
        cut = ", ".join(f"{f.name}: {', '.join(f'{i}/{n}' for i, n in sorted(f.shards))}" for f in folders)
        raise ShardMergeError(f"the shards are cut differently ({cut}); run every shard with the same n")
    (count,) = counts
    owner: dict[int, str] = {}
    for folder in folders:
        for index, _ in sorted(folder.shards):
            if index in owner:
                raise ShardMergeError(
                    f"shard {index}/{count} is duplicated: both {owner[index]} and {folder.name} ran it; "
                    "merge one of them"
                )
            owner[index] = folder.name
    missing = [i for i in range(count) if i not in owner]
    if missing:
        names = ", ".join(f"{i}/{count}" for i in missing)
        raise ShardMergeError(
            f"shard {names} is missing: no folder given ran it; run 'avibench infer ... --shard {missing[0]}/{count}' "
            "on a host and merge again with its folder"
        )
    return count


def _merged_journal(folders: Sequence[ShardFolder], stage: str, task: str) -> list[dict[str, Any]]:
    """Every folder's records of one task, refusing a question answered in two folders."""
    seen: dict[str, str] = {}
    records: list[dict[str, Any]] = []
    for folder in folders:
        path = folder.paths.root / stage / f"{task}.jsonl"
        for key, record in latest_by_key(path).items():
            if stage == "infer" and key in seen and is_answered(record):
                raise ShardMergeError(
                    f"{path}: question {key} is also answered in {seen[key]}; two folders hold the same shard"
                )
            if is_answered(record) or stage != "infer":
                seen.setdefault(key, str(path))
        records.extend(read_records(path))
    return sorted(
        records, key=lambda r: (r.get("index") if isinstance(r.get("index"), int) else -1, str(r.get("key")))
    )


def _tasks(folders: Sequence[ShardFolder], stage: str) -> list[str]:
    names = {p.stem for f in folders for p in (f.paths.root / stage).glob("*.jsonl") if p.stem != "runs"}
    return sorted(names)


def merge_run(folders: Sequence[ShardFolder], target: RunPaths) -> dict[str, Any]:
    """Write the merged run at ``target``; returns its summary (shards, tasks, answered and unanswered)."""
    count = check_folders(folders)
    if target.root.exists() and any(target.root.iterdir()):
        raise ShardMergeError(f"{target.root} already exists; merge into a new folder (nothing was written)")
    manifest = dict(folders[0].manifest)
    manifest["tasks"] = {t: e for f in reversed(folders) for t, e in f.manifest["tasks"].items()}
    manifest["created_by"] = "merge"
    manifest["merged_from"] = [f.name for f in folders]
    target.infer_dir.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {"shards": count, "tasks": {}}
    for stage in JOURNAL_STAGES:
        for task in _tasks(folders, stage):
            records = _merged_journal(folders, stage, task)
            append_records(target.root / stage / f"{task}.jsonl", records)
            if stage == "infer":
                answered = sum(is_answered(r) for r in latest_by_key(target.infer_journal(task)).values())
                summary["tasks"][task] = answered
    append_records(target.runs_log, [r for f in folders for r in read_records(f.paths.runs_log)])
    last = (
        json.loads(folders[0].paths.run_json.read_text(encoding="utf-8"))
        if folders[0].paths.run_json.is_file()
        else {}
    )
    atomic_write_json(
        target.run_json, {**last, "shard": f"merged {count} shards", "merged_from": manifest["merged_from"]}
    )
    probe = folders[0].paths.infer_dir / "probe.json"
    if probe.is_file():
        atomic_write_json(target.infer_dir / "probe.json", json.loads(probe.read_text(encoding="utf-8")))
    save_manifest(target, manifest)
    return summary


def _labels(source: Path) -> list[str]:
    return sorted(p.name for p in source.iterdir() if p.is_dir()) if source.is_dir() else []


@click.command(name="merge")
@click.argument("sources", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--into",
    "into",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder of the merged run (it must not hold the run yet).",
)
@click.option("--label", default=None, help="Run label to merge (default: the one label the folders hold).")
@click.option(
    "--benchmarks",
    default=None,
    help="Benchmarks to merge, comma separated (default: every benchmark the first folder holds).",
)
def merge(sources: tuple[Path, ...], into: Path, label: str | None, benchmarks: str | None) -> None:
    """Merge the output folders of shards run on separate hosts into one run.

    Each SOURCE is an --output-dir that one host wrote with 'avibench infer --shard i/n'. The merged run lands in
    --into DIR/<label>/<benchmark>; refine, eval and report then run on it with --output-dir DIR. A shard run with
    other settings or data, a missing shard and a duplicated one are refused, naming the folder.
    """
    if label is None:
        found = sorted({name for s in sources for name in _labels(s)})
        if len(found) != 1:
            raise ShardMergeError(
                f"the folders hold {'no run' if not found else 'several labels: ' + ', '.join(found)}; pass --label"
            )
        label = found[0]
    names = benchmarks.split(",") if benchmarks else _labels(sources[0] / label)
    if not names:
        raise ShardMergeError(f"{sources[0] / label}: no benchmark run found")
    for benchmark in names:
        folders = [load_folder(source, label, benchmark) for source in sources]
        summary = merge_run(folders, RunPaths(into, label, benchmark))
        answered = ", ".join(f"{t} {n}" for t, n in summary["tasks"].items())
        click.echo(
            f"{benchmark}: merged {summary['shards']} shards into {into / label / benchmark} ({answered} answered)"
        )
        for line in (line for folder in folders for line in unfinished(folder.paths)):
            click.echo(
                f"warning: {line}; re-run that shard (or infer on the merged run) to finish it", err=True
            )
