"""AudioMarathon's efficiency axis in the run report: latency, time to first token, decode speed, audio throughput.

Every number comes from the run's infer journal (the latest answered record per question): ``latency_s`` for every
backend; ``timings.ttft_s`` and ``timings.output_tokens_per_s`` where the backend can tell (the transformers
backend, the openai backend with ``--stream``); token counts from ``usage`` or the local backend's timings; and the
upload size (``request_bytes``). Audio seconds come from the clips' headers under the run's data root. Nothing is
timed twice: a streamed answer's prefill is its time to first token and its decode the rest of the same request,
unlike the official scripts, whose decode time is a second full ``generate`` call that runs the prefill again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

from avibench.benchmarks.audiomarathon import layout
from avibench.contracts import RunPaths, is_answered, latest_by_key
from avibench.errors import DatasetError
from avibench.evaluate.document import DASH, Heading, Paragraph, Table, as_number
from avibench.evaluate.run_files import read_run_json
from avibench.kits.published import published_table

TOKEN_FIELDS = {
    "prompt": ("prompt_tokens", "input_tokens"),
    "audio": ("audio_tokens", "audio_tokens"),
    "output": ("completion_tokens", "output_tokens"),
}
"""Per count: its key in ``usage`` (remote endpoints) and in ``timings`` (in-process models)."""


HEADERS = ("Task", "Answered", "Latency p50 (s)", "p90 (s)", "TTFT p50 (s)", "Decode tok/s p50", "Prompt tok")
HEADERS += ("Audio tok", "Output tok", "Upload (MB)", "Audio s / wall s")


def _quantile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _count(record: Mapping[str, Any], kind: str) -> float | None:
    usage_key, timing_key = TOKEN_FIELDS[kind]
    value = as_number((record.get("usage") or {}).get(usage_key))
    return value if value is not None else as_number((record.get("timings") or {}).get(timing_key))


def _cell(value: float | None, digits: int = 2) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def task_row(task: str, records: Sequence[Mapping[str, Any]], durations: Mapping[str, float]) -> list[str]:
    """One task's answered records summarised (``durations``: audio seconds per question key): latency, time to
    first token and decode speed, mean token counts and upload size, and seconds of audio answered per second of
    request time (one request at a time; concurrency multiplies it)."""

    def values(get: Any) -> list[float]:
        return [v for r in records if (v := get(r)) is not None]

    def timing(key: str) -> list[float]:
        return values(lambda r: as_number((r.get("timings") or {}).get(key)))

    latency = values(lambda r: as_number(r.get("latency_s")))
    timed = [
        (durations[r["key"]], as_number(r.get("latency_s")) or 0.0) for r in records if r["key"] in durations
    ]
    wall = sum(t for _, t in timed)
    cells = [
        (_quantile(latency, 50), 2),
        (_quantile(latency, 90), 2),
        (_quantile(timing("ttft_s"), 50), 3),
        (_quantile(timing("output_tokens_per_s"), 50), 1),
        *((_mean(values(lambda r, k=kind: _count(r, k))), 0) for kind in TOKEN_FIELDS),
        (_mean([b / 1e6 for b in values(lambda r: as_number(r.get("request_bytes")))]), 2),
        (sum(a for a, _ in timed) / wall if timed and wall > 0 else None, 1),
    ]
    return [task, str(len(records)), *(_cell(value, digits) for value, digits in cells)]


def audio_seconds(root: Path, task: str) -> dict[str, float]:
    """Seconds of audio per question key, read from the clips' headers (clips that cannot be read are left out)."""
    try:
        items = layout.load_task(root, task, check_audio=False)
    except DatasetError:
        return {}
    seconds = {}
    for item in items:
        try:
            seconds[item.key] = sf.info(str(item.media[0])).duration
        except (RuntimeError, sf.LibsndfileError):
            continue
    return seconds


TIMINGS = published_table("audiomarathon", "timings")
SINGLE_CALL_TOTAL: tuple[str, ...] = tuple(TIMINGS.facts["single_call_total"])
"""Tasks whose script times the full answer call as the total (DESED, GTZAN, HAD, TAU)."""


def prefill_counted_twice(row: Mapping[str, Any]) -> bool:
    """True where the script's total adds a decode time that already contains a second prefill."""
    return row["task"] not in SINGLE_CALL_TOTAL


def one_answer_s(row: Mapping[str, Any]) -> float:
    """Seconds for one answer with a single prefill: the decode call alone where prefill was counted twice."""
    return row["decode_s"] if prefill_counted_twice(row) else row["total_s"]


def published_timing_table() -> Table:
    rows = []
    for row in TIMINGS.rows:
        seconds = [f"{row[key]:.3f}" for key in ("total_s", "prefill_s", "decode_s")]
        twice = "yes" if prefill_counted_twice(row) else "no"
        rows.append([row["task"], row["dataset"], row["model"], *seconds, twice, f"{one_answer_s(row):.3f}"])
    headers = ["Task", "Dataset", "Model", "Total (s)", "Prefill (s)", "Decode (s)", "Prefill twice"]
    headers.append("One answer (s)")
    return Table(headers, rows, align="lll" + "r" * 3 + "lr")


TIMING_NOTE = (
    "How to read the published timings. The official scripts time a prefill as one generate call limited to one "
    "new token, then time a second, full generate call as the decode; that second call runs the prefill again. "
    f"Where the script reports total = prefill + decode (every task but {', '.join(SINGLE_CALL_TOTAL)}) the total "
    "counts the prefill twice and the decode column alone is the cost of one answer; for "
    f"{', '.join(SINGLE_CALL_TOTAL)} the total is the second call itself. 'One answer' is that single-call time. "
    "The scripts also skip the first sample as a warm-up and time at most 100 samples on some tasks. This run's "
    "numbers above are one request each: latency is the whole request, TTFT its prefill, and decode speed the "
    "output tokens after the first over the rest of the same request; they are not reproduced the official way. "
    f"Source: {TIMINGS.source.cite}."
)


def efficiency_blocks(paths: RunPaths, tasks: Sequence[str]) -> list[Any]:
    """The report section: this run's efficiency per task, then the published timings and how to read them."""
    run_json = read_run_json(paths.run_json)
    root = Path(run_json["data_root"]) if isinstance(run_json, dict) and run_json.get("data_root") else None
    rows = []
    for task in tasks:
        journal = paths.infer_journal(task)
        if not journal.is_file():
            continue
        answered = [r for r in latest_by_key(journal).values() if is_answered(r)]
        durations = audio_seconds(root, task) if root is not None and root.is_dir() else {}
        rows.append(task_row(task, answered, durations))
    blocks: list[Any] = [Heading("Efficiency")]
    if rows:
        blocks.append(
            Paragraph(
                "Per answered question (latest answer): request latency; time to first token and decode speed "
                "where the backend measures them (the transformers backend; the openai backend with --stream); "
                "mean token counts and upload size; seconds of audio answered per second of request time, one "
                "request at a time."
            )
        )
        blocks.append(Table(list(HEADERS), rows))
    else:
        blocks.append(Paragraph("Not available: no infer journal."))
    blocks += [Heading("Published inference times (seconds per sample)", 3), published_timing_table()]
    blocks.append(Paragraph(TIMING_NOTE))
    return blocks
