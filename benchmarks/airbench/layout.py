"""The AIR-Bench data layout: loading ``Foundation/`` and ``Chat/`` into items, and validating them.

A data root holds ``Foundation/Foundation_meta.json`` and/or ``Chat/Chat_meta.json`` (JSON lists), with the audio
of an entry at ``<section>/<task_name>_<dataset_name>/<path>``. Audio_Grounding audio is stored as ``.flac`` while
its entries name ``.wav`` files: the last three characters of its path become ``flac``, as in the official scripts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avibench.benchmarks.airbench.prompt import DEFAULT_TEMPLATE, foundation_prompt
from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import records
from avibench.level_metrics.airbench import TASKS_BY_NAME
from avibench.level_metrics.airbench_chat import CHAT_CATEGORY_OF_TASK

BENCHMARK = "airbench"
FOUNDATION = "Foundation"
CHAT = "Chat"
OPTION_FIELDS = ("choice_a", "choice_b", "choice_c", "choice_d")
GROUNDING_TASK = "Audio_Grounding"

Entry = Mapping[str, Any]


@dataclass(frozen=True)
class Section:
    """One half of AIR-Bench: its folder, required text fields and known task names."""

    name: str
    text_fields: tuple[str, ...]
    tasks: frozenset[str]

    def meta_path(self, root: Path) -> Path:
        return Path(root) / self.name / f"{self.name}_meta.json"

    def audio_path(self, root: Path, entry: Entry) -> Path:
        relative = f"{entry['task_name']}_{entry['dataset_name']}/{entry['path']}"
        if entry["task_name"] == GROUNDING_TASK:
            relative = relative[:-3] + "flac"
        return Path(root) / self.name / relative


FOUNDATION_SECTION = Section(
    FOUNDATION, ("path", "question", "task_name", "dataset_name"), frozenset(TASKS_BY_NAME)
)
CHAT_SECTION = Section(
    CHAT,
    ("path", "question", "answer_gt", "task_name", "dataset_name", "meta_info"),
    frozenset(CHAT_CATEGORY_OF_TASK),
)
SECTIONS = (FOUNDATION_SECTION, CHAT_SECTION)


def sections_present(root: Path) -> tuple[str, ...]:
    """The sections whose meta file exists under ``root`` (either alone is a valid data root)."""
    return tuple(s.name for s in SECTIONS if s.meta_path(root).is_file())


def _is_value(value: Any) -> bool:
    """Option and answer values are strings or numbers, as the official prompt f-string renders them."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def entry_options(entry: Entry) -> tuple[str, ...]:
    """The options of a Foundation entry, in letter order, as the prompt shows them."""
    return tuple(str(entry[f]) for f in OPTION_FIELDS if entry.get(f) is not None)


def option_problems(path: Path, index: int, entry: Entry) -> list[DatasetError]:
    """Problems of a Foundation entry's options and ``answer_gt`` (which must equal one of them)."""
    present = [f for f in OPTION_FIELDS if entry.get(f) is not None]
    problems = [
        DatasetError(path, "must be a string or number", index=index, field=f)
        for f in present
        if not _is_value(entry[f])
    ]
    for required in OPTION_FIELDS[:2]:
        if required not in present:
            problems.append(DatasetError(path, "is missing", index=index, field=required))
    if present != list(OPTION_FIELDS[: len(present)]):
        problems.append(
            DatasetError(path, "options must fill choice_a, choice_b, ... without gaps", index=index)
        )
    answer = entry.get("answer_gt")
    if answer is None or not _is_value(answer):
        problems.append(
            DatasetError(path, "is missing or not a string or number", index=index, field="answer_gt")
        )
    elif not any(entry[f] == answer for f in present):
        problems.append(
            DatasetError(path, f"{answer!r} is not one of the choices", index=index, field="answer_gt")
        )
    return problems


def _entry_problems(
    section: Section, root: Path, index: int, entry: Any, check_audio: bool
) -> list[DatasetError]:
    path = section.meta_path(root)
    if not isinstance(entry, Mapping):
        return [DatasetError(path, "is not a JSON object", index=index)]
    problems = [
        DatasetError(path, "is missing or not a string", index=index, field=f)
        for f in section.text_fields
        if not isinstance(entry.get(f), str)
    ]
    if not isinstance(entry.get("uniq_id"), str | int) or isinstance(entry.get("uniq_id"), bool):
        problems.append(
            DatasetError(path, "is missing or not a string or integer", index=index, field="uniq_id")
        )
    if problems:
        return problems
    if entry["task_name"] not in section.tasks:
        problems.append(
            DatasetError(
                path,
                f"{entry['task_name']!r} is not an AIR-Bench {section.name} task",
                index=index,
                field="task_name",
            )
        )
    if section is FOUNDATION_SECTION:
        problems += option_problems(path, index, entry)
    if check_audio and not section.audio_path(root, entry).is_file():
        audio = section.audio_path(root, entry)
        problems.append(DatasetError(path, f"audio file {audio} does not exist", index=index, field="path"))
    return problems


def _read_meta(section: Section, root: Path) -> list[Any]:
    return records.read_records(section.meta_path(root))


def _checked(section: Section, root: Path, check_audio: bool) -> tuple[list[Any], list[DatasetError]]:
    """The section's entries and every problem of its meta file and audio, in entry order."""
    try:
        entries = _read_meta(section, root)
    except DatasetError as exc:
        return [], [exc]
    problems: list[DatasetError] = []
    first_index: dict[str, int] = {}
    for index, entry in enumerate(entries):
        entry_problems = _entry_problems(section, root, index, entry, check_audio)
        problems += entry_problems
        if entry_problems:
            continue
        uid = str(entry["uniq_id"])
        if uid in first_index:
            message = f"{uid!r} repeats entry {first_index[uid]}"
            problems.append(DatasetError(section.meta_path(root), message, index=index, field="uniq_id"))
        first_index.setdefault(uid, index)
    return entries, problems


def validate_section(section: Section, root: Path, check_audio: bool = True) -> list[DatasetError]:
    """Every problem of one section's meta file and audio, each naming the file, entry and field."""
    return _checked(section, root, check_audio)[1]


def validate(root: Path, check_audio: bool = True) -> list[DatasetError]:
    """Problems of every section present; a root with neither section is one problem."""
    present = sections_present(root)
    if not present:
        message = f"holds neither {FOUNDATION_SECTION.meta_path('.')} nor {CHAT_SECTION.meta_path('.')}"
        return [DatasetError(root, message)]
    return [p for s in SECTIONS if s.name in present for p in validate_section(s, root, check_audio)]


def foundation_item(entry: Entry, index: int, audio: Path, template: str = DEFAULT_TEMPLATE) -> Item:
    options = entry_options(entry)
    task = TASKS_BY_NAME[entry["task_name"]]
    return Item(
        benchmark=BENCHMARK,
        task="foundation",
        item_id=str(entry["uniq_id"]),
        parts=(Part.audio(audio), Part.text(foundation_prompt(entry["question"], options, template))),
        answer=str(entry["answer_gt"]),
        index=index,
        options=options,
        template=template,
        meta={
            "task_name": task.name,
            "dataset_name": entry["dataset_name"],
            "subset": f"{task.name}_{entry['dataset_name']}",
            "category": task.category,
        },
        source=entry,
    )


def chat_item(entry: Entry, index: int, audio: Path) -> Item:
    return Item(
        benchmark=BENCHMARK,
        task="chat",
        item_id=str(entry["uniq_id"]),
        parts=(Part.audio(audio), Part.text(entry["question"])),
        answer=entry["answer_gt"],
        index=index,
        template="question",
        meta={
            "task_name": entry["task_name"],
            "dataset_name": entry["dataset_name"],
            "category": CHAT_CATEGORY_OF_TASK[entry["task_name"]],
            "meta_info": entry["meta_info"],
        },
        source=entry,
    )


def _load(
    section: Section, root: Path, check_audio: bool, build: Callable[[Entry, int, Path], Item]
) -> list[Item]:
    entries, problems = _checked(section, root, check_audio)
    if problems:
        raise problems[0]
    return [build(e, i, section.audio_path(root, e)) for i, e in enumerate(entries)]


def load_foundation(root: Path, template: str = DEFAULT_TEMPLATE, check_audio: bool = True) -> list[Item]:
    """The Foundation items in file order; raises the first validation problem as a :class:`DatasetError`."""
    return _load(FOUNDATION_SECTION, root, check_audio, lambda e, i, a: foundation_item(e, i, a, template))


def load_chat(root: Path, check_audio: bool = True) -> list[Item]:
    """The Chat items in file order; raises the first validation problem as a :class:`DatasetError`."""
    return _load(CHAT_SECTION, root, check_audio, chat_item)
