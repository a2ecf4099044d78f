"""The AIR-Bench data layout: loading ``Foundation/`` and ``Chat/`` into items, validating them, and the Foundation
prompt (rendered from the templates shipped as data, ``prompts/airbench/foundation.yaml``).

A data root holds ``Foundation/Foundation_meta.json`` and/or ``Chat/Chat_meta.json`` (JSON lists), with the audio
of an entry at ``<section>/<task_name>_<dataset_name>/<path>``. Audio_Grounding audio is stored as ``.flac`` while
its entries name ``.wav`` files: the last three characters of its path become ``flac``, as in the official scripts.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from avibench.definitions import prompt_resource
from avibench.errors import DatasetError
from avibench.items import Item, Part, path_text
from avibench.kits import multiple_choice as mc
from avibench.kits import records
from avibench.level_metrics.airbench import LETTERS, OFFICIAL_LAYOUT, TASKS_BY_NAME
from avibench.level_metrics.airbench_chat import CHAT_CATEGORY_OF_TASK

OPTION_FIELDS = ("choice_a", "choice_b", "choice_c", "choice_d")
GROUNDING_TASK = "Audio_Grounding"
DEFAULT_TEMPLATE = "air-official"

Entry = Mapping[str, Any]


@dataclass(frozen=True)
class Section:
    """One half of AIR-Bench: its task, folder, required text fields and known task names, and its official
    result file (``eval --predictions``, ``export``): name, fields in the official writer's order, and the
    fields a result row must share with its meta entry."""

    task: str
    name: str
    text_fields: Sequence[str]
    tasks: Collection[str]
    result_file: str
    result_fields: Sequence[str]
    matched_fields: Sequence[str]

    def meta_path(self, root: Path) -> Path:
        return Path(root) / self.name / f"{self.name}_meta.json"

    def audio_path(self, root: Path, entry: Entry) -> Path:
        return Path(self.audio_file(root, entry))

    def audio_file(self, root: Path, entry: Entry) -> str:
        """The entry's audio file as its media part holds it (21,000 of them: text, not paths)."""
        relative = f"{entry['task_name']}_{entry['dataset_name']}/{entry['path']}"
        if entry["task_name"] == GROUNDING_TASK:
            relative = relative[:-3] + "flac"
        return path_text(os.path.join(root, self.name, relative))


#: The sections by task name, as ``prompts/airbench/layout.yaml`` declares them.
SECTIONS = {
    task: Section(task, tasks=known, **OFFICIAL_LAYOUT["sections"][task])
    for task, known in (("foundation", TASKS_BY_NAME), ("chat", CHAT_CATEGORY_OF_TASK))
}
FOUNDATION_SECTION, CHAT_SECTION = SECTIONS["foundation"], SECTIONS["chat"]


@cache
def foundation_templates() -> dict[str, dict]:
    return yaml.safe_load(prompt_resource("airbench", "foundation.yaml"))


def _letters_and(letters: Sequence[str]) -> str:
    if len(letters) == 2:
        return f"{letters[0]} and {letters[1]}"
    return ", ".join(letters[:-1]) + f", and {letters[-1]}"


def foundation_prompt(question: str, options: Sequence[str], template: str = DEFAULT_TEMPLATE) -> str:
    """The instruction, the question and the lettered options, as one text."""
    templates = foundation_templates()
    if template not in templates:
        raise KeyError(f"unknown AIR-Bench template {template!r}; known templates: {', '.join(templates)}")
    spec = templates[template]
    shown = list(options) + ["None"] * (len(LETTERS) - len(options)) if spec["pad_options"] else list(options)
    letters = LETTERS[: len(shown)]
    instruction = spec["instruction"].format(
        letters_and=_letters_and(letters), letters_or=" or ".join(letters)
    )
    return "\n".join([instruction, question, mc.lettered(shown, letters=LETTERS)])


def _is_value(value: Any) -> bool:
    """Option and answer values are strings or numbers, as the official prompt f-string renders them."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def entry_options(entry: Entry) -> tuple[str, ...]:
    """The options of a Foundation entry, in letter order, as the prompt shows them."""
    return tuple(str(entry[f]) for f in OPTION_FIELDS if entry.get(f) is not None)


Found = list[tuple[str | None, str]]
"""Problems of one entry, each as (field, message)."""


def option_problems(entry: Entry) -> Found:
    """Problems of a Foundation entry's options and ``answer_gt`` (which must equal one of them)."""
    present = [f for f in OPTION_FIELDS if entry.get(f) is not None]
    found: Found = [(f, "must be a string or number") for f in present if not _is_value(entry[f])]
    found += [(f, "is missing") for f in OPTION_FIELDS[:2] if f not in present]
    if present != list(OPTION_FIELDS[: len(present)]):
        found.append((None, "options must fill choice_a, choice_b, ... without gaps"))
    answer = entry.get("answer_gt")
    if answer is None or not _is_value(answer):
        found.append(("answer_gt", "is missing or not a string or number"))
    elif not any(entry[f] == answer for f in present):
        found.append(("answer_gt", f"{answer!r} is not one of the choices"))
    return found


def _entry_problems(section: Section, root: Path, entry: Any, check_audio: bool) -> Found:
    if not isinstance(entry, Mapping):
        return [(None, "is not a JSON object")]
    found: Found = [
        (f, "is missing or not a string") for f in section.text_fields if not isinstance(entry.get(f), str)
    ]
    if not isinstance(entry.get("uniq_id"), str | int) or isinstance(entry.get("uniq_id"), bool):
        found.append(("uniq_id", "is missing or not a string or integer"))
    if found:
        return found
    if entry["task_name"] not in section.tasks:
        found.append(("task_name", f"{entry['task_name']!r} is not an AIR-Bench {section.name} task"))
    if section is FOUNDATION_SECTION:
        found += option_problems(entry)
    if check_audio and not (audio := section.audio_path(root, entry)).is_file():
        found.append(("path", f"audio file {audio} does not exist"))
    return found


def checked(section: Section, root: Path, check_audio: bool = True) -> tuple[list[Any], list[DatasetError]]:
    """The section's entries and every problem of its meta file and audio (each naming the file, entry and
    field), in entry order; an entry repeating an earlier ``uniq_id`` is one."""
    path = section.meta_path(root)
    try:
        entries = records.read_records(path)
    except DatasetError as exc:
        return [], [exc]
    problems: list[DatasetError] = []
    first_index: dict[str, int] = {}
    for index, entry in enumerate(entries):
        found = _entry_problems(section, root, entry, check_audio)
        if not found:
            uid = str(entry["uniq_id"])
            if uid in first_index:
                found = [("uniq_id", f"{uid!r} repeats entry {first_index[uid]}")]
            first_index.setdefault(uid, index)
        problems += [DatasetError(path, message, index=index, field=field) for field, message in found]
    return entries, problems


def _item(section: Section, root: Path, index: int, entry: Entry, template: str) -> Item:
    meta = {"task_name": entry["task_name"], "dataset_name": entry["dataset_name"]}
    if section is FOUNDATION_SECTION:
        options = entry_options(entry)
        text, answer = foundation_prompt(entry["question"], options, template), str(entry["answer_gt"])
        task = TASKS_BY_NAME[entry["task_name"]]
        # the official scorer's key of a question: <task_name>_<dataset_name>
        meta |= {"subset": f"{task.name}_{entry['dataset_name']}", "category": task.category}
    else:
        options, text, answer, template = (), entry["question"], entry["answer_gt"], "question"
        meta |= {"category": CHAT_CATEGORY_OF_TASK[entry["task_name"]], "meta_info": entry["meta_info"]}
    return Item(
        benchmark="airbench",
        task=section.task,
        item_id=str(entry["uniq_id"]),
        parts=(Part.audio(section.audio_file(root, entry)), Part.text(text)),
        answer=answer,
        index=index,
        options=options,
        template=template,
        meta=meta,
        source=entry,
    )


def load(
    section: Section, root: Path, template: str = DEFAULT_TEMPLATE, check_audio: bool = True
) -> list[Item]:
    """The section's items in file order; raises the first validation problem as a :class:`DatasetError`."""
    entries, problems = checked(section, root, check_audio)
    if problems:
        raise problems[0]
    return [_item(section, root, i, e, template) for i, e in enumerate(entries)]
