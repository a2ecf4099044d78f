"""The official STAR-Bench data root, read into the common item model, and its validation.

Layout: ``meta_info/<file>.json`` (a JSON array of items per dataset) and the audio under ``starbench_audios/``,
referenced by paths relative to the root. Each item becomes one :class:`Item` per run (see
:mod:`avibench.level_metrics.starbench_rotation`), with the parts in the official order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import soundfile as sf
import yaml

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import records
from avibench.level_metrics.starbench_rotation import (
    Family,
    answer_letter,
    clip_permutation,
    family,
    order_answer,
    rotate_options,
    run_count,
    temporal_id_parts,
)
from avibench.plugin import Problem

BENCHMARK = "starbench"
Context = Literal["plain", "channels", "caption", "uncut"]
REASONING_TOKENS = 1024
DEFAULT_TOKENS = 256
TEMPORAL_CLIPS = 3
BINAURAL_CHANNELS = 2


@dataclass(frozen=True)
class DatasetSpec:
    """One official dataset alias: its metadata file and what its messages add around the question."""

    alias: str
    meta_file: str
    context: Context = "plain"

    @property
    def family(self) -> Family:
        return family(self.alias)


DATASETS: dict[str, DatasetSpec] = {
    spec.alias: spec
    for spec in (
        DatasetSpec("pc", "meta_info/foundation_perception.json"),
        DatasetSpec("pc_sp", "meta_info/foundation_perception_spatial.json"),
        DatasetSpec("pc_nsp", "meta_info/foundation_perception_nonspatial.json"),
        DatasetSpec("sr", "meta_info/holistic_reasoning_spatial.json"),
        DatasetSpec("sr_ch", "meta_info/holistic_reasoning_spatial.json", "channels"),
        DatasetSpec("tr", "meta_info/holistic_reasoning_temporal.json"),
        DatasetSpec("tr_cap", "meta_info/holistic_reasoning_temporal.json", "caption"),
        DatasetSpec("tr_uncut", "meta_info/holistic_reasoning_temporal.json", "uncut"),
    )
}
DEFAULT_GROUP = "starbench_default"
GROUPS: dict[str, tuple[str, ...]] = {
    DEFAULT_GROUP: ("pc", "tr", "sr"),
    "starbench_all": ("tr", "tr_cap", "tr_uncut", "sr", "sr_ch", "pc_sp", "pc_nsp"),
    "temporal_all": ("tr", "tr_cap", "tr_uncut"),
    "perception_all": ("pc_sp", "pc_nsp"),
    # The official group names the non-existent aliases sp/sp_ch; the spatial datasets are meant.
    "spatial_all": ("sr", "sr_ch"),
}


def resolve_datasets(names: Iterable[str]) -> tuple[str, ...]:
    """Aliases named by ``names`` (aliases, groups, or ``+``-joined lists), in order and without repeats."""
    out: dict[str, None] = {}
    for name in names:
        for part in (p.strip().lower() for p in name.split("+")):
            if part in GROUPS:
                out.update(dict.fromkeys(GROUPS[part]))
            elif part in DATASETS:
                out[part] = None
            else:
                known = ", ".join([*DATASETS, *GROUPS])
                raise ValueError(f"unknown STAR-Bench dataset or group {part!r}; known: {known}")
    return tuple(out)


@lru_cache(maxsize=1)
def templates() -> Mapping[str, Any]:
    """The message templates (``prompts/starbench.yaml``)."""
    text = resources.files("avibench.prompts").joinpath("starbench.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


# ---- checks ---------------------------------------------------------------------------------------------------


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _field_problems(spec: DatasetSpec, path: str, index: int, entry: Any) -> list[Problem]:
    """Problems of one entry that need no file access."""

    def problem(field: str | None, message: str) -> Problem:
        return Problem(path, message, index, field)

    if not isinstance(entry, dict):
        return [problem(None, f"expected an object, found {type(entry).__name__}")]
    problems = [
        problem(name, "missing or not a non-empty string")
        for name in ("id", "task", "question")
        if not _is_text(entry.get(name))
    ]
    problems += [
        problem(name, "not a string")
        for name in ("category", "sub-category")
        if entry.get(name) is not None and not isinstance(entry[name], str)
    ]
    options, answer, audio = entry.get("options"), entry.get("answer"), entry.get("audio_paths")
    if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) for o in options):
        problems.append(problem("options", "expected a list of at least two strings"))
    elif len(set(options)) != len(options):
        problems.append(problem("options", "repeated option text"))
    elif answer not in options:
        problems.append(problem("answer", f"{answer!r} is not one of the options"))
    if not isinstance(audio, list) or not audio or not all(_is_text(a) for a in audio):
        problems.append(problem("audio_paths", "expected a non-empty list of relative paths"))
    elif spec.context == "channels" and len(audio) != 1:
        problems.append(problem("audio_paths", f"expected one binaural recording, found {len(audio)} paths"))
    elif spec.family == "tr" and len(audio) != TEMPORAL_CLIPS:
        problems.append(problem("audio_paths", f"expected {TEMPORAL_CLIPS} clips, found {len(audio)}"))
    if spec.family == "tr" and not problems:
        problems += _temporal_problems(spec, entry, problem)
    return problems


def _temporal_problems(
    spec: DatasetSpec, entry: Mapping[str, Any], problem: Callable[[str | None, str], Problem]
) -> list[Problem]:
    try:
        temporal_id_parts(entry["id"])
    except ValueError as exc:
        return [problem("id", str(exc))]
    problems = [
        problem(name, "missing or not a non-empty string")
        for name, context in (("global_caption", "caption"), ("uncut_audio_path", "uncut"))
        if spec.context == context and not _is_text(entry.get(name))
    ]
    for rotation in range(run_count(spec.alias, len(entry["options"]))):
        gold = order_answer(clip_permutation(entry["id"], rotation))
        if gold not in entry["options"]:
            problems.append(problem("options", f"run {rotation} needs the option {gold!r}, which is missing"))
    return problems


def media_paths(spec: DatasetSpec, entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, relative path)`` of every audio file an entry of ``spec`` uses."""
    paths = [("audio_paths", p) for p in entry["audio_paths"]]
    if spec.context == "uncut":
        paths.append(("uncut_audio_path", entry["uncut_audio_path"]))
    return paths


def _audio_problems(
    spec: DatasetSpec, root: Path, path: str, index: int, entry: Mapping[str, Any]
) -> list[Problem]:
    problems = []
    for name, rel in media_paths(spec, entry):
        try:
            info = sf.info(str(root / rel))
        except (RuntimeError, OSError) as exc:
            reason = "file not found" if not (root / rel).is_file() else f"unreadable audio ({exc})"
            problems.append(Problem(path, f"{rel}: {reason}", index, name))
            continue
        if spec.family == "sr" and name == "audio_paths" and info.channels != BINAURAL_CHANNELS:
            problems.append(
                Problem(
                    path,
                    f"{rel}: binaural audio must be stereo, found {info.channels} channel(s)",
                    index,
                    name,
                )
            )
    return problems


def _read_entries(root: Path, spec: DatasetSpec) -> list[Any]:
    return records.read_records(root / spec.meta_file)


def validate(
    root: Path | str, aliases: Sequence[str] | None = None, *, check_audio: bool = True
) -> list[Problem]:
    """Every problem of the datasets ``aliases`` (default: all) under ``root``, each naming file, entry and field."""
    root = Path(root)
    problems: list[Problem] = []
    for alias in aliases or tuple(DATASETS):
        spec = DATASETS[alias]
        path = str(root / spec.meta_file)
        try:
            entries = _read_entries(root, spec)
        except DatasetError as exc:
            problems.append(Problem(exc.path, exc.message))
            continue
        seen: dict[str, int] = {}
        for index, entry in enumerate(entries):
            found = _field_problems(spec, path, index, entry)
            if not found and entry["id"] in seen:
                found.append(
                    Problem(path, f"id {entry['id']!r} repeats entry {seen[entry['id']]}", index, "id")
                )
            if not found:
                seen[entry["id"]] = index
                if check_audio:
                    found = _audio_problems(spec, root, path, index, entry)
            problems.extend(found)
    return list(dict.fromkeys(problems))


# ---- items ----------------------------------------------------------------------------------------------------


def _question_text(question: str, options: Sequence[str]) -> str:
    t = templates()
    lines = "".join(
        t["option_line"].format(letter=chr(ord("A") + i), option=o) for i, o in enumerate(options)
    )
    return t["question"].format(question=question, options=lines)


def _audio_parts(spec: DatasetSpec, audio: Sequence[Path]) -> list[Part]:
    """Perception and spatial audio, placed before the question."""
    t = templates()
    if spec.context == "channels":
        left, right = t["channel_labels"]
        return [
            Part.text(left),
            Part.audio(audio[0], 0),
            Part.text(right),
            Part.audio(audio[0], 1),
            Part.text(t["channel_note"]),
        ]
    if len(audio) == 1:
        return [Part.audio(audio[0])]
    return [
        p
        for n, a in enumerate(audio, start=1)
        for p in (Part.text(t["audio_label"].format(number=n)), Part.audio(a))
    ]


def _temporal_context(spec: DatasetSpec, root: Path, entry: Mapping[str, Any]) -> list[Part]:
    t = templates()
    if spec.context == "caption":
        return [Part.text(t["caption"].format(caption=entry["global_caption"]))]
    if spec.context == "uncut":
        return [
            Part.text(t["uncut_before"]),
            Part.audio(root / entry["uncut_audio_path"]),
            Part.text(t["uncut_after"]),
        ]
    return []


def max_tokens(task: str) -> int:
    """The official output limit: 1024 tokens for reasoning tasks, 256 otherwise."""
    return REASONING_TOKENS if "reasoning" in task.lower() else DEFAULT_TOKENS


def build_item(spec: DatasetSpec, root: Path, index: int, entry: Mapping[str, Any], rotation: int) -> Item:
    """Run ``rotation`` of one checked entry, with its parts, options and gold as presented."""
    meta: dict[str, Any] = {
        "task": entry["task"],
        "category": entry.get("category"),
        "sub-category": entry.get("sub-category"),
    }
    if spec.family == "tr":
        order = clip_permutation(entry["id"], rotation)
        options, answer = tuple(entry["options"]), order_answer(order)
        clips = [root / entry["audio_paths"][k - 1] for k in order]
        label = templates()["clip_label"]
        parts = [
            Part.text(_question_text(entry["question"], options)),
            *_temporal_context(spec, root, entry),
            *(
                p
                for n, c in enumerate(clips, start=1)
                for p in (Part.text(label.format(number=n)), Part.audio(c))
            ),
        ]
        meta["shuffled_seg_order"] = "-".join(map(str, order))
    else:
        options, answer = rotate_options(entry["options"], rotation), entry["answer"]
        audio = [root / a for a in entry["audio_paths"]]
        parts = [*_audio_parts(spec, audio), Part.text(_question_text(entry["question"], options))]
    meta.update(answer_letter=f"<{answer_letter(options, answer)}>", rotate_id=rotation)
    flag = {"caption": "given_caption", "uncut": "given_uncut_audio", "channels": "channel_wise"}.get(
        spec.context
    )
    if flag:
        meta[flag] = True
    return Item(
        benchmark=BENCHMARK,
        task=spec.alias,
        item_id=entry["id"],
        parts=tuple(parts),
        answer=answer,
        variant=f"r{rotation}",
        index=index,
        options=options,
        max_tokens=max_tokens(entry["task"]),
        template=f"{BENCHMARK}/{spec.alias}",
        meta=meta,
        key_override=f"{entry['id']}@{rotation}",
        source=entry,
    )


def load_items(root: Path | str, alias: str, *, all_runs: bool = True) -> list[Item]:
    """Every run of every item of dataset ``alias`` (only run 0 when ``all_runs`` is False).

    Raises :class:`DatasetError` naming the file, entry and field of the first unusable entry; audio files are not
    opened (``validate`` checks them).
    """
    root = Path(root)
    spec = DATASETS[alias]
    entries = _read_entries(root, spec)
    path = str(root / spec.meta_file)
    items: list[Item] = []
    for index, entry in enumerate(entries):
        problems = _field_problems(spec, path, index, entry)
        if problems:
            p = problems[0]
            raise DatasetError(p.path, p.message, index=p.index, field=p.field)
        runs = run_count(alias, len(entry["options"])) if all_runs else 1
        items.extend(build_item(spec, root, index, entry, r) for r in range(runs))
    first: dict[str, int] = {}
    for item in items:
        if first.setdefault(item.key, item.index) != item.index:
            raise DatasetError(
                path, f"id {item.item_id!r} repeats entry {first[item.key]}", index=item.index, field="id"
            )
    return items
