"""OmniBench in its official layout: the question file, the media, the prompt, and the items.

``dataset/batch-5_1142_20240817.jsonl`` under the data root holds one JSON object per line (``task type``,
``audio type``, ``question``, ``answer``, ``options``: four strings, ``audio_path``, ``image_path``, ``index``, and
the annotations ``audio content`` / ``image content``); the media are ``mm_data/audio/<audio_path>`` and
``mm_data/image/<image_path>``. The official scorer identifies a question by its line (counting from 0), which is
also its id here and the ``index`` of its inference row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench import definitions
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.omnibench import AUDIO_TYPES, official_letter
from avibench.plugin import Problem

TASK = "OmniBench"
DATASET = Path("dataset") / "batch-5_1142_20240817.jsonl"
AUDIO_DIR = Path("mm_data") / "audio"
IMAGE_DIR = Path("mm_data") / "image"
#: Questions in the official release.
OFFICIAL_COUNT = 1142
#: Fields kept out of ``Item.meta`` (long annotations, and what the item holds elsewhere).
_NOT_META = ("audio content", "image content", "options", "answer", "question")
CATALOGUE = definitions.template_catalogue("omnibench.yaml")
TEMPLATES: tuple[str, ...] = definitions.template_ids(CATALOGUE)
"""The template ids, the official one first."""


def option_lines(options: Sequence[str], template: str = TEMPLATES[0]) -> str:
    line = definitions.template_fields(CATALOGUE, template, "OmniBench")["option"]
    return mc.lettered(options, line=line)


def _options(value: Any) -> str | None:
    four = not fields.strings(value) and len(value) == 4
    return None if four else "must be a list of four strings (the official scorer reads options A-D)"


def _audio_type(value: Any) -> str | None:
    if not isinstance(value, str) or value.strip().lower() not in AUDIO_TYPES:
        return f"{value!r} is not one of {', '.join(AUDIO_TYPES)} (the official scorer knows no other)"
    return None


CHECKS = {
    "task type": fields.text,
    "audio type": _audio_type,
    "question": fields.text,
    "answer": fields.text,
    "options": _options,
    "audio_path": fields.text,
    "image_path": fields.text,
}


def gold_position(answer: str, options: Sequence[str]) -> int | None:
    """The answer's position among the options: the option equal to it, else the one option equal to it up to
    case and spacing; ``None`` when there is none (the official scorer, which parses the answer text, still scores
    such a question; the strict profile counts it wrong)."""
    if answer in options:
        return list(options).index(answer)
    normalised = lambda text: " ".join(text.split()).casefold()  # noqa: E731
    matches = [k for k, option in enumerate(options) if normalised(option) == normalised(answer)]
    return matches[0] if len(matches) == 1 else None


def audio_type(record: Mapping[str, Any]) -> str:
    """The audio type as the official scorer reads it (trimmed, lowercase)."""
    return str(record["audio type"]).strip().lower()


def load(root: Path, template: str) -> list[Item]:
    """Every question as an :class:`Item` (image, audio, prompt) in file order; raises DatasetError for the first
    record that cannot be asked or scored."""
    path = root / DATASET
    spec = definitions.template_fields(CATALOGUE, template, "OmniBench")
    items = []
    for index, record in enumerate(records.read_records(path)):
        fields.require(path, index, record, CHECKS)
        options = tuple(record["options"])
        prompt = spec["text"].format(question=record["question"], options=option_lines(options, template))
        meta = {**{k: v for k, v in record.items() if k not in _NOT_META}, "audio type": audio_type(record)}
        items.append(
            Item(
                benchmark="omnibench",
                task=TASK,
                item_id=str(index),
                parts=(
                    Part.image(root / IMAGE_DIR / record["image_path"]),
                    Part.audio(root / AUDIO_DIR / record["audio_path"]),
                    Part.text(prompt),
                ),
                answer=record["answer"],
                index=index,
                options=options,
                template=template,
                meta=meta,
                source=record,
            )
        )
    return items


def _quirk_warnings(path: Path, index: int, record: Mapping[str, Any]) -> Iterator[Problem]:
    """What the official scorer accepts but scores unlike the answer's position."""
    options = record["options"]
    found = gold_position(record["answer"], options)
    if found is None:
        message = "is not one of the options (the strict profile counts the question wrong)"
        yield Problem(str(path), message, index, "answer")
        return
    position = mc.LETTERS[found]
    if record["answer"] not in options:
        message = f"equals option {position} only up to case and spacing"
        yield Problem(str(path), message, index, "answer", "warning")
    parsed = official_letter(record["answer"], options)
    if parsed != position:
        message = (
            f"the official parser reads the answer text as {parsed or 'N/A'}, not {position} (its position)"
        )
        if parsed is None:
            message += ": only replies it also reads as N/A score correct"
        yield Problem(str(path), message, index, "answer", "warning")
    if record.get("index", index) != index:
        message = f"is {record['index']!r}; the official scorer uses the line position {index}"
        yield Problem(str(path), message, index, "index", "warning")


def validate(root: Path) -> list[Problem]:
    """Every problem of the data under ``root``: fields, answers, media; warnings where the official scorer reads
    a gold answer as another letter or as none."""
    path = root / DATASET

    def further(index: int, record: dict[str, Any]) -> Iterator[Problem]:
        yield from _quirk_warnings(path, index, record)
        for field, folder in (("audio_path", AUDIO_DIR), ("image_path", IMAGE_DIR)):
            media = root / folder / record[field]
            if not media.is_file():
                yield Problem(str(path), f"{media} does not exist", index, field)

    return fields.file_problems(
        lambda: list(enumerate(records.read_records(path))),
        lambda index, record: fields.problems(path, index, record, CHECKS),
        further,
    )
