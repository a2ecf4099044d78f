"""The plain-text summary ``avibench eval`` prints: per task, stages, Overall and L1–L4, both profiles."""

from __future__ import annotations

from typing import Any

from avibench.benchmarks.avibench.tasks import AVIBENCH


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


INCOMPLETE = "  [incomplete]"


def summary_table(document: dict[str, Any]) -> str:
    summary = document["summary"]
    by_profile = summary["by_profile"]
    profiles = list(by_profile)
    primary = summary["profile"]
    partial = (summary.get("incomplete") or {}).get("numbers", {})

    def badge(number: str) -> str:
        return INCOMPLETE if number in partial else ""

    header = f"{'':16}" + "".join(f"{p + (' *' if p == primary else ''):>14}" for p in profiles)
    lines = ["Scores (0-100), * = primary profile written at the top level of eval.json", header]
    for stage in AVIBENCH.stages:
        lines.append(
            f"{stage.label:16}"
            + "".join(f"{_fmt(by_profile[p]['stages'].get(stage.name)):>14}" for p in profiles)
            + badge(stage.name)
        )
        for task in AVIBENCH.paper_tasks(stage.key):
            lines.append(
                f"  {task:14}"
                + "".join(f"{_fmt(by_profile[p]['tasks'].get(task)):>14}" for p in profiles)
                + badge(f"tasks.{task}")
            )
    lines.append(
        f"{'Overall':16}"
        + "".join(f"{_fmt(by_profile[p]['overall']):>14}" for p in profiles)
        + badge("overall")
    )
    labels = {
        "l1_task": "L1 Task",
        "l2_modality": "L2 Modality",
        "l3_stage": "L3 Stage",
        "l4_domain": "L4 Domain",
    }
    for key, label in labels.items():
        note = (
            f"  ({primary})" if key == "l1_task" else f"  ({primary}; reconstruction of the paper's formula)"
        )
        lines.append(f"{label:16}{_fmt(summary['taxonomy'].get(key)):>14}{note}{badge(key)}")
    not_scored = {k: v["reason"] for k, v in document["coverage"].items() if v["status"] == "not_scored"}
    thin = [k for k, v in document["coverage"].items() if v["status"] == "partial"]
    if thin:
        lines.append(f"partial coverage: {', '.join(thin)} (see coverage in eval.json)")
    for task, reason in not_scored.items():
        lines.append(f"not scored: {task}: {reason}")
    fense = document["meta"]["fense"]
    if fense["status"] == "stand-in":
        lines.append("AVC: stand-in FENSE models; the AVC number is not comparable with published FENSE")
    return "\n".join(lines)
