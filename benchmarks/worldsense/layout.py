"""WorldSense in its published layout: the question file, the media, the prompt, and the items.

``worldsense_qa.json`` under the data root maps each video id to its record: ``video_id``, ``video_duration``
(seconds), ``duration`` (one of six buckets), ``domain``, ``sub_category``, ``audio_class`` (a list), ``video_caption``
and ``task0`` ... ``task4``, each with ``task_domain``, ``task_type``, ``question``, ``answer`` (a letter) and
``candidates`` (``["A. ...", ...]``; some questions have three). The media are ``videos/<id>.mp4``,
``audios/<id>.wav`` and ``subtitles/<id>.srt``. VLMEvalKit's ``WorldSense.tsv`` has one row per task in file order
(videos in key order, then each key containing "task" in order); a question's ``index`` is its row there, which is
also the id a prediction row carries.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from avibench.benchmarks.worldsense.subtitles import SETTINGS, subtitle_lines
from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.plugin import Problem

BENCHMARK = "worldsense"
TASK = "worldsense"
DATASET = Path("worldsense_qa.json")
VIDEOS, AUDIOS, SUBTITLES = Path("videos"), Path("audios"), Path("subtitles")
#: The release's questions (VLMEvalKit's WorldSense.tsv rows).
OFFICIAL_COUNT = 3172
#: The templates: VLMEvalKit's settings with the separate audio track (``_audio``), without it, and with the
#: subtitles at the frames each ``_subs`` setting samples (the video's own soundtrack goes with the video always).
TEMPLATES = ("audio", "plain", *(f"subtitles-{setting}" for setting in SETTINGS))
VIDEO_FIELDS: dict[str, fields.Check] = {
    "duration": fields.text,
    "domain": fields.text,
    "sub_category": fields.text,
    "audio_class": fields.strings,
}
TASK_FIELDS: dict[str, fields.Check] = {
    "task_domain": fields.text,
    "task_type": fields.text,
    "question": fields.text,
    "candidates": fields.choices,
}


@cache
def protocol(name: str) -> dict[str, Any]:
    """One of the protocol data files under ``prompts/worldsense/`` (prompt, matching, judge, categories)."""
    node = resources.files("avibench.prompts").joinpath("worldsense", f"{name}.json")
    return json.loads(node.read_text(encoding="utf-8"))


def _answer(candidates: Any) -> fields.Check:
    """The answer must be one of the candidates' letters (unchecked where the candidates themselves are wrong:
    their own problem says so)."""
    if fields.choices(candidates) is not None:
        return lambda _: None
    return fields.one_of(tuple(str(c).strip()[:1] for c in candidates))


def _checked(path: Path) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The rows in TSV order and every problem of the question file (a video or task with a problem gives no
    row). Entries are videos, counted from 0; a task's field is named ``<task key>.<field>``."""
    data = records.read_json(path)
    if not isinstance(data, dict):
        return [], [Problem(str(path), "must hold a JSON object keyed by video id")]
    out: list[dict[str, Any]] = []
    found: list[Problem] = []
    for entry, (video, record) in enumerate(data.items()):
        bad = list(fields.problems(path, entry, record, VIDEO_FIELDS))
        found += bad
        if bad:
            continue
        for key in [k for k in record if "task" in k]:
            task = record[key]
            checks = {
                **TASK_FIELDS,
                "answer": _answer(task.get("candidates") if isinstance(task, dict) else None),
            }
            wrong = [
                replace(p, field=f"{key}.{p.field}" if p.field else key)
                for p in fields.problems(path, entry, task, checks)
            ]
            found += wrong
            if not wrong:
                fixed = {n: record[n] for n in VIDEO_FIELDS}
                out.append({"video": str(video), "task_key": key, **fixed,
                            "video_caption": record.get("video_caption", ""), **task})  # fmt: skip
    return out, found


def rows(path: Path) -> list[dict[str, Any]]:
    """One row per question in VLMEvalKit's TSV order, with its video's fields; raises DatasetError naming the
    entry (the video) and field."""
    out, found = _checked(path)
    fields.raise_first(iter(found))
    return out


def problems(root: Path) -> list[Problem]:
    """The question file's problems, and each video, audio track and subtitle file it needs that is missing."""
    path = Path(root) / DATASET
    try:
        found, out = _checked(path)
    except DatasetError as exc:
        return [Problem(exc.path, exc.message)]
    media = ((VIDEOS, ".mp4", "error"), (AUDIOS, ".wav", "error"), (SUBTITLES, ".srt", "warning"))
    for video in dict.fromkeys(row["video"] for row in found):
        for folder, suffix, severity in media:
            if not (Path(root) / folder / f"{video}{suffix}").is_file():
                out.append(
                    Problem(str(Path(root) / folder / f"{video}{suffix}"), "not found", None, None, severity)
                )
    return out


def question_text(row: Mapping[str, Any]) -> str:
    """``Question: <question>\\n<candidates, one a line>\\nAnswer: `` as VLMEvalKit's build_prompt writes it."""
    return protocol("prompt")["question"].format(
        question=row["question"] + "\n" + "\n".join(row["candidates"])
    )


def frames_text(root: Path, video: str, template: str) -> str:
    """The frames template of a setting, with the subtitle lines of a ``subtitles-*`` one."""
    frames = protocol("prompt")["frames"]
    if not template.startswith("subtitles-"):
        return frames[template]
    import av  # here, not at import: only the subtitle settings read a video (its frame times)

    mp4 = Path(root) / VIDEOS / f"{video}.mp4"
    try:
        lines = subtitle_lines(
            Path(root) / SUBTITLES / f"{video}.srt", mp4, template.removeprefix("subtitles-")
        )
    except (av.FFmpegError, OSError, IndexError) as exc:
        raise DatasetError(mp4, f"cannot be read for its frame times ({exc})") from None
    return frames["subtitles"].format(subtitles=lines)


def load(root: Path, template: str) -> list[Item]:
    """Every question as an item in TSV order: the system text, the video, the audio track (``audio``), the frames
    template and the question, each a part as VLMEvalKit's message has them."""
    prompt = protocol("prompt")
    items = []
    for index, row in enumerate(rows(Path(root) / DATASET)):
        video = row["video"]
        media = [Part.video(Path(root) / VIDEOS / f"{video}.mp4")]
        if template == "audio":
            media.append(Part.audio(Path(root) / AUDIOS / f"{video}.wav"))
        parts = (
            Part.text(prompt["system"]),
            *media,
            Part.text(frames_text(root, video, template)),
            Part.text(question_text(row)),
        )
        items.append(
            Item(
                benchmark=BENCHMARK,
                task=TASK,
                item_id=str(index),
                parts=parts,
                answer=row["answer"],
                index=index,
                options=tuple(row["candidates"]),
                template=template,
                meta={
                    "video": video,
                    "duration": row["duration"],
                    "domain": row["domain"],
                    "sub_category": row["sub_category"],
                    "task_domain": row["task_domain"],
                    "task_type": row["task_type"],
                    "audio_class": list(row["audio_class"]),
                    "question": row["question"],
                },
                source=row,
            )
        )
    return items
