"""Daily-Omni in its published layout: the question file, the videos, the prompt, and the items.

``qa.json`` under the data root is a JSON list; each question has ``Question``, ``Choice`` (``["A. ...", ...]``),
``Answer`` (a letter), ``video_id``, ``Type``, ``video_category`` and ``video_duration`` (``"30s"``/``"60s"``), and
optionally ``content_parent_category``, ``content_fine_category`` and an explanation. The video, with its
soundtrack inside, is ``Videos/<video_id>/<video_id>_video.mp4``. The same question can appear twice for one
video, so a question's id is its video and its rank among that video's questions (``<video_id>#<k>``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.plugin import Problem

BENCHMARK = "dailyomni"
TASK = "dailyomni"
DATASET = Path("qa.json")
VIDEOS = Path("Videos")
LETTERS = ("A", "B", "C", "D")
#: The fields main_tester.py requires of every question (a question lacking one is skipped, not asked).
FIELDS: dict[str, fields.Check] = {
    "Question": fields.text,
    "Choice": fields.choices,
    "Answer": fields.one_of(LETTERS),
    "video_id": fields.text,
    "Type": fields.text,
    "video_category": fields.text,
    "video_duration": fields.text,
}
#: The release's questions.
OFFICIAL_COUNT = 1197


@cache
def templates() -> dict[str, Any]:
    """The prompt templates (``prompts/dailyomni/templates.json``), the API tester's first."""
    node = resources.files("avibench.prompts").joinpath("dailyomni", "templates.json")
    return json.loads(node.read_text(encoding="utf-8"))["templates"]


def template_ids() -> tuple[str, ...]:
    return tuple(templates())


def video_path(root: Path, video_id: str) -> Path:
    return Path(root) / VIDEOS / video_id / f"{video_id}_video.mp4"


def entries(path: Path) -> list[tuple[int, Any]]:
    """The question list with entry numbers; raises DatasetError naming the file."""
    return records.read_rows(path)


def problems(root: Path) -> list[Problem]:
    """Every problem of the question file and the videos it names."""
    path = Path(root) / DATASET
    try:
        rows = entries(path)
    except DatasetError as exc:
        return [Problem(exc.path, exc.message)]
    found: list[Problem] = []
    for index, record in rows:
        found += fields.problems(path, index, record, FIELDS)
        video_id = record.get("video_id") if isinstance(record, dict) else None
        if isinstance(video_id, str) and video_id and not video_path(root, video_id).is_file():
            missing = video_path(root, video_id).relative_to(root)
            found.append(Problem(str(path), f"video not found: {missing}", index, "video_id"))
    return found


def prompt(record: Mapping[str, Any], template: str) -> str:
    """The user text: the question and ``Choices:`` as the official script shows the list (Python's repr)."""
    return templates()[template]["user"].format(
        question=record["Question"], choices=repr(list(record["Choice"]))
    )


def load(root: Path, template: str) -> list[Item]:
    """Every question as an item, in file order; raises DatasetError naming entry and field."""
    path = Path(root) / DATASET
    spec = templates()[template]
    items: list[Item] = []
    ranks: dict[str, int] = {}
    for index, record in entries(path):
        fields.require(path, index, record, FIELDS)
        video_id = str(record["video_id"])
        rank = ranks[video_id] = ranks.get(video_id, -1) + 1
        video = Part.video(video_path(root, video_id))
        text = Part.text(prompt(record, template))
        items.append(
            Item(
                benchmark=BENCHMARK,
                task=TASK,
                item_id=f"{video_id}#{rank}",
                parts=(video, text) if spec["media_first"] else (text, video),
                answer=record["Answer"],
                index=index,
                options=tuple(record["Choice"]),
                system=spec["system"],
                max_tokens=spec["max_tokens"],
                template=template,
                meta={
                    "qa_type": record["Type"],
                    "video_category": record["video_category"],
                    "video_duration": record["video_duration"],
                    "video_id": video_id,
                },
                source=record,
            )
        )
    return items
