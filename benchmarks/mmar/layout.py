"""MMAR and MMAU test-mini in their official layouts: reading them into items, checking them, and their version.

MMAR: ``MMAR-meta.jsonl`` at the data root (one JSON object per line; the file before February 2026 was
``MMAR-meta.json``, a JSON list without the rubric fields), audio at the ``audio_path`` each record names
(``./audio/<file>.wav``; 46 records name a file that differs from their id), else ``audio/<id>.wav``.
MMAU test-mini: ``mmau-test-mini.json`` (a JSON list), audio at ``audio_id`` (``./test-mini-audios/<id>.wav``).

Entry numbers count from 0; in a JSONL file entry k is line k + 1.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench import definitions
from avibench.infer.media_verdicts import decode_problem
from avibench.items import Item, Part
from avibench.kits import fields as checks
from avibench.kits import multiple_choice as mc
from avibench.kits import records
from avibench.level_metrics import mmar as metrics
from avibench.plugin import Problem

CATALOGUE = definitions.template_catalogue("mmar.yaml")
TEMPLATES: tuple[str, ...] = definitions.template_ids(CATALOGUE)
"""The template ids, the default (recommended) one first."""


def _category(value: Any) -> str | None:
    """MMAU stores a category as a string, 13 test-mini items as a one-element list."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    ok = isinstance(value, str) and value.strip()
    return None if ok else "must be a string or a one-element list of one"


def _rubric(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        return "must be a list of objects"
    for k, point in enumerate(value):
        missing = [key for key in ("name", "scoring_point", "note", "choices") if key not in point]
        if missing:
            return f"point {k} lacks {', '.join(missing)}"
        numbers = isinstance(point["choices"], list) and all(
            isinstance(c, int | float) for c in point["choices"]
        )
        if not numbers:
            return f"point {k} choices must be a list of numbers"
    return None


@dataclass(frozen=True)
class Layout:
    """One benchmark's file layout: where its questions are and what every record must hold."""

    benchmark: str
    task: str
    meta_files: tuple[str, ...]
    """Candidate question files at the data root, the current format first."""
    audio_field: str
    fields: Mapping[str, checks.Check]
    """Required fields, in the official key order."""
    breakdowns: Mapping[str, tuple[str, ...]]
    """The official breakdowns: record field -> its fixed groups in the official order (empty: first-seen order)."""
    prediction_key: str
    """The key of the official scorer's prediction; the older ``model_prediction`` (of older MMAR scorers, of
    MMAU's README) is read only when no record has it."""
    audio_fallback: str | None = None
    """Where the audio is when the named path does not exist (``{id}`` is the record id), or ``None``."""
    optional: Mapping[str, checks.Check] = field(default_factory=dict)
    """Fields a record may lack (added in a later data version)."""
    annotations: tuple[str, ...] = ()
    """Large annotation fields kept out of ``Item.meta`` (they stay in ``Item.source``)."""

    def meta_path(self, root: Path) -> Path:
        """The question file present under ``root`` (the current one when none is)."""
        found = [Path(root) / name for name in self.meta_files if (Path(root) / name).is_file()]
        return (found or [Path(root) / self.meta_files[0]])[0]

    def audio_path(self, root: Path, record: Mapping[str, Any]) -> Path:
        named = root / str(record[self.audio_field])
        if named.is_file() or self.audio_fallback is None:
            return named
        fallback = root / self.audio_fallback.format(id=record["id"])
        return fallback if fallback.is_file() else named


MMAR = Layout(
    benchmark="mmar",
    task="MMAR",
    meta_files=("MMAR-meta.jsonl", "MMAR-meta.json"),
    audio_field="audio_path",
    audio_fallback="audio/{id}.wav",
    fields={
        "id": checks.text,
        "audio_path": checks.text,
        "question": checks.text,
        "choices": checks.choices,
        "answer": checks.text,
        "modality": checks.one_of(metrics.MMAR_MODALITIES),
        "category": checks.one_of(metrics.MMAR_CATEGORIES),
        "sub-category": checks.text,
        "language": checks.optional_string,
        "source": checks.string,
        "url": checks.string,
        "timestamp": checks.string,
    },
    optional={"thinking": checks.string, "cue": checks.strings, "rubric": _rubric},
    breakdowns={"modality": metrics.MMAR_MODALITIES, "category": metrics.MMAR_CATEGORIES, "sub-category": ()},
    prediction_key="answer_prediction",
    annotations=("thinking", "cue", "rubric"),
)
MMAU = Layout(
    benchmark="mmau",
    task="test-mini",
    meta_files=("mmau-test-mini.json",),
    audio_field="audio_id",
    fields={
        "id": checks.text,
        "audio_id": checks.text,
        "question": checks.text,
        "choices": checks.choices,
        "answer": checks.text,
        "dataset": checks.string,
        "task": checks.one_of(metrics.MMAU_TASKS),
        "split": checks.string,
        "category": _category,
        "sub-category": checks.text,
        "difficulty": checks.one_of(metrics.MMAU_DIFFICULTIES),
    },
    # then ``category``, not printed officially (13 items store it as a one-element list)
    breakdowns={
        "task": metrics.MMAU_TASKS,
        "difficulty": metrics.MMAU_DIFFICULTIES,
        "sub-category": (),
        "category": (),
    },
    prediction_key="model_output",
)


def record_problems(
    layout: Layout, path: Path, index: int, record: Any, fields: Mapping[str, checks.Check] | None = None
) -> Iterator[Problem]:
    """What is wrong with one record's fields (``fields``: the checks to apply, default all of the layout's)."""
    optional = layout.optional if fields is None else None
    yield from checks.problems(path, index, record, layout.fields if fields is None else fields, optional)
    if not isinstance(record, dict):
        return
    answer, choices = record.get("answer"), record.get("choices")
    if isinstance(answer, str) and isinstance(choices, list) and answer not in choices:
        yield Problem(str(path), f"{answer!r} is not one of the choices", index, "answer")


def _answer_warnings(path: Path, index: int, record: Mapping[str, Any]) -> Iterator[Problem]:
    choices = record["choices"]
    if len(set(choices)) < len(choices):
        yield Problem(str(path), "repeats a choice", index, "choices", "warning")
    gold = metrics.official_tokens(record["answer"])
    twins = [c for c in choices if c != record["answer"] and metrics.official_tokens(c) == gold]
    if twins:
        message = f"the official match also accepts {twins[0]!r} (same words as the answer in another order)"
        yield Problem(str(path), message, index, "answer", "warning")


def validate(root: Path, layout: Layout) -> list[Problem]:
    """Every problem of a benchmark's data under ``root``: fields, answers, ids, audio (present, and decoding as
    audio); each names file, entry and field. Warnings mark what the official scorer accepts but scores oddly."""
    path = layout.meta_path(root)
    first: dict[str, int] = {}

    def further(index: int, record: dict[str, Any]) -> Iterator[Problem]:
        yield from _answer_warnings(path, index, record)
        if record["id"] in first:
            yield Problem(str(path), f"repeats the id of entry {first[record['id']]}", index, "id")
        first.setdefault(record["id"], index)
        audio = layout.audio_path(root, record)
        message = decode_problem(audio, "audio") if audio.is_file() else f"audio file {audio} does not exist"
        if message:
            yield Problem(str(path), message, index, layout.audio_field)

    return checks.file_problems(
        lambda: records.read_rows(path, otherwise="json"),
        lambda index, record: record_problems(layout, path, index, record),
        further,
    )


def shown_letters(template: str, n_choices: int) -> tuple[str, ...]:
    """The letters a template shows beside ``n_choices`` choices (empty when it shows none)."""
    letters = definitions.template_fields(CATALOGUE, template, "MMAR/MMAU")["letters"]
    return mc.letters_for(n_choices) if letters else ()


def build_prompt(question: str, choices: tuple[str, ...], template: str) -> str:
    spec = definitions.template_fields(CATALOGUE, template, "MMAR/MMAU")
    return spec["text"].format(question=question, choices=mc.lettered(choices, line=spec["choice"]))


def as_item(
    layout: Layout,
    record: Mapping[str, Any],
    index: int,
    item_id: str,
    template: str,
    parts: tuple[Part, ...] = (),
) -> Item:
    """One checked record as an :class:`Item`; the annotations stay out of ``meta`` (in ``source`` only)."""
    skip = {"choices", "answer", *layout.annotations}
    return Item(
        layout.benchmark,
        layout.task,
        item_id,
        parts,
        record["answer"],
        index=index,
        options=tuple(record["choices"]),
        template=template,
        meta={k: v for k, v in record.items() if k not in skip},
        source=record,
    )


def load(root: Path, layout: Layout, template: str) -> list[Item]:
    """Every question as an :class:`Item` (the audio, then the prompt), in file order; raises DatasetError for the
    first record that cannot be asked or scored (:func:`validate` lists them all, and checks the audio)."""
    path = layout.meta_path(root)
    items = []
    for index, record in records.read_rows(path, otherwise="json"):
        checks.raise_first(record_problems(layout, path, index, record))
        prompt = build_prompt(record["question"], tuple(record["choices"]), template)
        parts = (Part.audio(layout.audio_path(root, record)), Part.text(prompt))
        items.append(as_item(layout, record, index, str(record["id"]), template, parts))
    return items


#: Fingerprints of the official question files (as committed upstream), and the commit that last changed each.
KNOWN_VERSIONS: dict[str, str] = {
    "1c9a343e7bebf103": "MMAR-meta.jsonl of ddlBoJack/MMAR a355584 (2026-02-16, with rubrics)",
    "7240ecca11b252c7": "MMAR-meta.json of ddlBoJack/MMAR 6249700 (2025-05-11, the original release)",
    "9f18fda99f8dbc2b": "mmau-test-mini.json of Sakshi113/MMAU f0a4a97 (2025-08-09, MMAU-v05.15.25)",
}
