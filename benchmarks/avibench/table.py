"""The plain-text summary ``avibench eval`` prints: per task, stages, Overall and L1–L4, both profiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.evaluate.document import as_dict, as_number


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


INCOMPLETE = "  [incomplete]"
TAXONOMY_LABELS = {
    "l1_task": "L1 Task",
    "l2_modality": "L2 Modality",
    "l3_stage": "L3 Stage",
    "l4_domain": "L4 Domain",
}
TAXONOMY_KEYS = tuple(TAXONOMY_LABELS)


def summary_table(document: Mapping[str, Any]) -> str:
    summary = document["summary"]
    profiles = list(summary["by_profile"])
    primary = summary["profile"]
    numbers = {p: summary_numbers(summary, p) for p in profiles}
    partial = (summary.get("incomplete") or {}).get("numbers", {})

    def badge(number: str) -> str:
        return INCOMPLETE if number in partial else ""

    def row(label: str, values: list[float | None]) -> str:
        return f"{label:16}" + "".join(f"{_fmt(v):>14}" for v in values)

    header = f"{'':16}" + "".join(f"{p + (' *' if p == primary else ''):>14}" for p in profiles)
    lines = ["Scores (0-100), * = primary profile written at the top level of eval.json", header]
    for stage in AVIBENCH.stages:
        lines.append(
            row(stage.label, [numbers[p]["stages"][stage.name] for p in profiles]) + badge(stage.name)
        )
        for task in AVIBENCH.paper_tasks(stage.key):
            tasks = [summary["by_profile"][p]["tasks"].get(task) for p in profiles]
            lines.append(row(f"  {task}", tasks) + badge(f"tasks.{task}"))
    lines.append(row("Overall", [numbers[p]["overall"] for p in profiles]) + badge("overall"))
    for key, label in TAXONOMY_LABELS.items():
        note = (
            f"  ({primary})" if key == "l1_task" else f"  ({primary}; reconstruction of the paper's formula)"
        )
        lines.append(f"{label:16}{_fmt(numbers[primary]['taxonomy'][key]):>14}{note}{badge(key)}")
    coverage = document["coverage"]
    not_scored = {k: v["reason"] for k, v in coverage.items() if v["status"] == "not_scored"}
    thin = [k for k, v in coverage.items() if v["status"] == "partial"]
    if thin:
        lines.append(f"partial coverage: {', '.join(thin)} (see coverage in eval.json)")
    for task, reason in not_scored.items():
        lines.append(f"not scored: {task}: {reason}")
    fense = (document.get("meta") or {}).get("fense") or {}
    if fense.get("status") == "stand-in":
        lines.append("AVC: stand-in FENSE models; the AVC number is not comparable with published FENSE")
    elif fense.get("status") == "unavailable" and "AVC" in coverage and "AVC" not in not_scored:
        lines.append(str(fense.get("note")))
    return "\n".join(lines)


def summary_numbers(summary: Mapping[str, Any], profile: str | None = None) -> dict[str, Any]:
    """Stages, Overall and L1-L4 of one profile (the primary by default) from an eval.json summary, where the core
    keeps each profile's summary numbers side by side (``summary.by_profile.<profile>``); an eval.json written
    before the core nests the stages there and keeps the taxonomy of the primary profile only."""
    by_profile = summary.get("by_profile") if isinstance(summary.get("by_profile"), Mapping) else {}
    block = by_profile.get(profile or summary.get("profile"))
    block = block if isinstance(block, Mapping) else {}
    older = "stages" in block
    primary = (profile or summary.get("profile")) == summary.get("profile")
    stages = as_dict(block.get("stages")) if older else block
    taxonomy = as_dict(summary.get("taxonomy") if primary else None) if older else block
    return {
        "stages": {stage.name: stages.get(stage.name) for stage in AVIBENCH.stages},
        "overall": block.get("overall"),
        "taxonomy": {key: taxonomy.get(key) for key in TAXONOMY_KEYS},
    }


def taxonomy_note(summary: Mapping[str, Any], meta: Mapping[str, Any]) -> str:
    """How the summary numbers were made: the reconstruction note, the stages missing tasks, a stand-in FENSE."""
    from avibench.level_metrics.aggregate import TAXONOMY_NOTE, aggregate

    tasks = {k: as_number(v) for k, v in as_dict(summary.get("tasks")).items()}
    notes = [TAXONOMY_NOTE, *aggregate(tasks, benchmark=AVIBENCH).notes]
    if as_dict(meta.get("fense")).get("status") == "stand-in" and tasks.get("AVC") is not None:
        notes.append("AVC was scored with stand-in FENSE models and is not comparable with published numbers")
    return " ".join(notes)
