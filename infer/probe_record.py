"""Where a run keeps its media-probe verdicts, and how pages state them (no media libraries imported here)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PROBE_NAME = "probe.json"
"""The verdicts of a run's endpoint, kept in the run's infer folder so that a re-run asks nothing again."""


def probe_path(infer_dir: Path) -> Path:
    return infer_dir / PROBE_NAME


def read_probe(path: Path) -> dict[str, Any]:
    """The probe file as stored (``{"endpoint": ..., "results": {modality: result}}``), empty when missing or
    unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("results"), dict) else {}


def recorded_verdicts(infer_dir: Path) -> dict[str, str] | None:
    """``{"audio": "counted", ...}`` on file for a run, or None when its media were never probed."""
    results = read_probe(probe_path(infer_dir)).get("results", {})
    found = {m: r.get("verdict") for m, r in results.items() if isinstance(r, Mapping)}
    return {m: str(v) for m, v in found.items() if isinstance(v, str)} or None


def media_verdicts(verdicts: Any) -> str | None:
    """The verdicts a probe gave (``audio counted, image unverified``, then the media kinds it skipped as not
    verified); ``None`` when the run was never probed or every kind was skipped."""
    if not isinstance(verdicts, Mapping):
        return None
    told = {m: str(v) for m, v in verdicts.items() if v != "skipped"}
    if not told:
        return None
    missing = [str(m) for m, v in verdicts.items() if v == "skipped"]
    text = ", ".join(f"{m} {v}" for m, v in told.items())
    return text + (f"; {', '.join(missing)} not verified" if missing else "")


def media_note(verdicts: Any) -> str:
    """How a page states the probe: ``media: audio counted, image unverified``, or ``media not verified``."""
    if not isinstance(verdicts, Mapping) or not verdicts:
        return "media not verified (no media probe on record)"
    told = media_verdicts(verdicts)
    return "media not verified (--skip-probe)" if told is None else f"media: {told}"


def sentence(text: str) -> str:
    """``text`` as a sentence: first letter capital, a full stop at the end."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
