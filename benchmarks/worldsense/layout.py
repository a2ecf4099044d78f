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

import hashlib
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.plugin import Problem

BENCHMARK = "worldsense"
TASK = "worldsense"
DATASET = Path("worldsense_qa.json")
VIDEOS, AUDIOS, SUBTITLES = Path("videos"), Path("audios"), Path("subtitles")
#: The release's questions (VLMEvalKit's WorldSense.tsv rows).
OFFICIAL_COUNT = 3172
#: The templates: VLMEvalKit's settings without and with the separate audio track (the video's own
#: soundtrack goes with the video either way).
TEMPLATES = ("audio", "plain")
VIDEO_FIELDS = ("video_id", "duration", "domain", "sub_category", "audio_class")
TASK_FIELDS = ("task_domain", "task_type", "question", "answer", "candidates")


@cache
def protocol(name: str) -> dict[str, Any]:
    """One of the protocol data files under ``prompts/worldsense/`` (prompt, matching, judge, categories)."""
    node = resources.files("avibench.prompts").joinpath("worldsense", f"{name}.json")
    return json.loads(node.read_text(encoding="utf-8"))


def read_dataset(path: Path) -> dict[str, Any]:
    """The question file; raises DatasetError naming the file (and the line where the JSON breaks)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatasetError(path, "does not exist") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(path, f"is not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(path, f"cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise DatasetError(path, "must hold a JSON object keyed by video id")
    return data


def rows(path: Path) -> list[dict[str, Any]]:
    """One row per question in VLMEvalKit's TSV order, with the video's fields; raises DatasetError naming the
    entry (``<video>.<task>``) and field."""
    out: list[dict[str, Any]] = []
    for video, record in read_dataset(path).items():
        if not isinstance(record, dict):
            raise DatasetError(path, "must be a JSON object", field=str(video))
        for name in VIDEO_FIELDS[1:]:
            if name not in record:
                raise DatasetError(path, "is missing", field=f"{video}.{name}")
        if not isinstance(record["audio_class"], list):
            raise DatasetError(path, "must be a list", field=f"{video}.audio_class")
        for key in [k for k in record if "task" in k]:
            task = record[key]
            for name in TASK_FIELDS:
                if not isinstance(task, dict) or name not in task:
                    raise DatasetError(path, "is missing", field=f"{video}.{key}.{name}")
            candidates = task["candidates"]
            if not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates):
                raise DatasetError(path, "must be a list of strings", field=f"{video}.{key}.candidates")
            if task["answer"] not in [c.strip()[:1] for c in candidates]:
                raise DatasetError(
                    path, f"{task['answer']!r} is no candidate's letter", field=f"{video}.{key}.answer"
                )
            fields = {n: record[n] for n in VIDEO_FIELDS[1:]}
            caption = record.get("video_caption", "")
            out.append({"video": str(video), "task_key": key, **fields, "video_caption": caption, **task})
    return out


def problems(root: Path) -> list[Problem]:
    """The question file's problems, and each video, audio track and subtitle file it needs that is missing."""
    path = Path(root) / DATASET
    try:
        found = rows(path)
    except DatasetError as exc:
        return [Problem(exc.path, exc.message, field=exc.field)]
    out = []
    for index, row in enumerate(found):
        for folder, suffix, severity in (
            (VIDEOS, ".mp4", "error"),
            (AUDIOS, ".wav", "error"),
            (SUBTITLES, ".srt", "warning"),
        ):
            media = Path(root) / folder / f"{row['video']}{suffix}"
            if not media.is_file():
                out.append(Problem(str(media), "not found", index, "video", severity))
    return out


def question_text(row: Mapping[str, Any]) -> str:
    """``Question: <question>\\n<candidates, one a line>\\nAnswer: `` as VLMEvalKit's build_prompt writes it."""
    return protocol("prompt")["question"].format(
        question=row["question"] + "\n" + "\n".join(row["candidates"])
    )


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
            Part.text(prompt["frames"][template]),
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


def fingerprint(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
