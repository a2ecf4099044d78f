"""Which local runs a leaderboard shows, and which of them may be ranked beside published results.

Only runs scored on the official dataset (``meta.dataset.kind`` is ``official``, recorded by ``eval``) are
comparable with published numbers; the others are listed apart unless ``--include-unofficial`` ranks them
anyway, marked. An eval.json written before the kind was recorded counts as other data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.errors import AvibenchError
from avibench.evaluate.document import as_dict
from avibench.evaluate.eval_options import options_mark
from avibench.infer.probe_record import media_note
from avibench.manifest import binding_mark

OTHER_DATA_HEADING = "Runs on other data (not comparable)"
UNRECORDED = {"kind": "other", "why": "eval.json records no dataset kind; re-run eval to record it"}


@dataclass(frozen=True)
class BoardOptions:
    """``runs``: the labels to show (None: every run); ``include_unofficial``: rank runs on other data too;
    ``out``: where the pages go (None: the output dir)."""

    runs: tuple[str, ...] | None = None
    include_unofficial: bool = False
    out: Path | None = None


def run_labels(output_dir: Path, benchmark: str, options: BoardOptions) -> list[str]:
    """The labels of the selected runs that have an eval.json; a named label without one is an error."""
    found = sorted(p.parent.parent.name for p in Path(output_dir).glob(f"*/{benchmark}/eval.json"))
    if options.runs is None:
        return found
    unknown = [label for label in options.runs if label not in found]
    if unknown:
        raise AvibenchError(
            f"--runs: no {benchmark} eval.json under {output_dir} for {', '.join(unknown)} "
            f"(runs with one: {', '.join(found) or 'none'})"
        )
    return list(dict.fromkeys(options.runs))


def dataset_of(meta: Mapping[str, Any]) -> dict[str, str]:
    """``meta.dataset`` of an eval.json, or :data:`UNRECORDED`; a run scored on other data than its own by
    ``--allow-other-data`` is other data whatever that data is."""
    uses = as_dict(meta.get("run")).get("other_data")
    if uses:
        roots = ", ".join(sorted({str(as_dict(u).get("data_root")) for u in uses}))
        return {"kind": "other", "why": f"scored on {roots}, not the run's own data (--allow-other-data)"}
    dataset = as_dict(meta.get("dataset"))
    if dataset.get("kind") in ("official", "sample", "other"):
        return {"kind": str(dataset["kind"]), "why": str(dataset.get("why") or "")}
    return dict(UNRECORDED)


def data_mark(dataset: Mapping[str, str]) -> str:
    """The marker a run on other data carries wherever it is shown ("" for the official data)."""
    return "" if dataset["kind"] == "official" else f"{dataset['kind']} data, not comparable"


def run_origin(meta: Mapping[str, Any], label: str, profile: str | None = None) -> str:
    """How a local run is named in a leaderboard's origin column: its model (and profile), the data mark, the
    media probe's verdicts, the run's binding overrides and the eval options it was scored with where not their
    defaults, the same on every benchmark's board."""
    who = meta.get("model") or label
    head = f"run ({who}, {profile} profile)" if profile else f"run of {who}"
    mark = data_mark(dataset_of(meta))
    return (
        head
        + (f" [{mark}]" if mark else "")
        + f"; {media_note(meta.get('media_probe'))}"
        + binding_mark(meta)
        + options_mark(meta)
    )


def other_data_note(runs: Sequence[tuple[str, Mapping[str, str]]]) -> str:
    """What the runs listed apart were scored on, and why that is not the official dataset."""
    return (
        "Scored on a generated sample or other data, so not comparable with the published numbers and not "
        "ranked (rank them anyway, marked, with --include-unofficial): "
        + "; ".join(f"{name}: {dataset['kind']} data, {dataset['why']}" for name, dataset in runs)
        + "."
    )


def split_runs(
    rows: Sequence[Any], options: BoardOptions, kind_of: Callable[[Any], str]
) -> tuple[list[Any], list[Any]]:
    """(rows ranked with the published results, rows listed apart): runs on other data go apart by default."""
    ranked: list[Any] = []
    apart: list[Any] = []
    for row in rows:
        (ranked if options.include_unofficial or kind_of(row) == "official" else apart).append(row)
    return ranked, apart


def entry_refusals(meta: Mapping[str, Any]) -> list[str]:
    """Why a run's scores must not become a leaderboard entry (``--force`` overrides)."""
    reasons = []
    dataset = dataset_of(meta)
    if dataset["kind"] != "official":
        reasons.append(f"it was scored on {dataset['kind']} data ({dataset['why']})")
    if as_dict(meta.get("fense")).get("status") == "stand-in":
        reasons.append("its AVC score used the stand-in FENSE models, not the official ones")
    return reasons
