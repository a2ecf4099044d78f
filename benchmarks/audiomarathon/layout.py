"""The AudioMarathon data layout: loaders of the ten official metadata formats, and their validation.

One data root holds a folder per task, named by its leaderboard abbreviation. Each folder keeps the task's official
metadata file under its official name, with the audio where the task's script looks for it:

====  ========================================  ==================================================
SER   ``merged_audio_data.json``                ``<path>``
SCR   ``race_benchmark.json``                   ``<audio_path>``
ASR   ``test-clean/<spk>/<chap>/*.flac``        transcript in ``<id>.txt`` or ``<spk>-<chap>.trans.txt``
SED   ``desed_sound_event_detection_task.json``  ``<path>`` (entries under ``"tasks"``)
MC    ``music_genre_classification_meta.json``  ``wav/<path>``
ASC   ``acoustic_scene_task_meta.json``          ``<path>``
SD    ``real/*.wav`` and ``fake/*.wav``          balanced: as many real as fake, seeded sample
ER    ``audio_emotion_dataset.json``             ``<path>``
SAR   ``age_classification_task_meta.json``      ``wav/<path>``
SGR   ``gender_id_task_meta.json``               ``wav/<path>``; balanced male/female, seeded sample
====  ========================================  ==================================================

Each question becomes an :class:`~avibench.items.Item` with the audio part first and the official prompt text after
it, the correct option letter as ``answer`` (ASR: the transcript) and, in ``meta``, the ground truth in the form the
task's script compares (``gold``), the file name results are joined on (``file``) and the breakdown ``group``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from avibench.benchmarks.audiomarathon.prompt import task_prompt
from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import records
from avibench.level_metrics.audiomarathon import TASKS

BENCHMARK = "audiomarathon"
SEED = 42
"""The seed the HAD and VoxCeleb-gender scripts sample their balanced subsets with."""
MIN_SECONDS, MAX_SECONDS = 60.0, 330.0
"""Clip durations outside this range draw a warning (the benchmark's clips are 90–300 s long)."""
LETTERS = "ABCDE"


@dataclass(frozen=True)
class JsonTask:
    """Where one JSON-described task keeps its entries and how an entry reads."""

    metadata: str
    audio_field: str
    options: Callable[[Mapping[str, Any]], list[str]]
    required: tuple[str, ...]
    gold: Literal["letter", "text", "label"]
    """letter: ``answer_gt`` is the option letter; text: it is the option text; label: it is the option text
    compared lower-cased."""
    answer_field: str = "answer_gt"
    audio_dir: str = ""
    container: str | None = None
    group_field: str | None = None
    extra: tuple[str, ...] = ()


def _choice_fields(n: int) -> Callable[[Mapping[str, Any]], list[str]]:
    keys = [f"choice_{c}" for c in "abcde"[:n]]
    return lambda entry: [str(entry.get(k, "")) for k in keys]


def _choice_keys(n: int) -> tuple[str, ...]:
    return tuple(f"choice_{c}" for c in "abcde"[:n])


JSON_TASKS: dict[str, JsonTask] = {
    "SER": JsonTask(
        "merged_audio_data.json",
        "path",
        _choice_fields(4),
        ("path", "question", *_choice_keys(4), "answer_gt"),
        "letter",
        group_field="dataset_name",
        extra=("task_name", "entity_types", "uniq_id"),
    ),
    "SCR": JsonTask(
        "race_benchmark.json",
        "audio_path",
        lambda e: [str(o) for o in e["options"]],
        ("audio_path", "question", "options", "answer"),
        "letter",
        answer_field="answer",
        extra=("article_id", "question_idx"),
    ),
    "SED": JsonTask(
        "desed_sound_event_detection_task.json",
        "path",
        lambda e: [str(e["choices"].get(c, "")) for c in "ABCD"],
        ("path", "question", "choices", "answer_gt"),
        "letter",
        container="tasks",
        group_field="task_type",
        extra=("primary_event", "correct_event", "uniq_id"),
    ),
    "MC": JsonTask(
        "music_genre_classification_meta.json",
        "path",
        _choice_fields(4),
        ("path", "question", *_choice_keys(4), "answer_gt"),
        "letter",
        audio_dir="wav",
        group_field="genre_label",
    ),
    "ASC": JsonTask(
        "acoustic_scene_task_meta.json",
        "path",
        _choice_fields(4),
        ("path", "scene_label", "question", *_choice_keys(4), "answer_gt"),
        "letter",
        group_field="scene_label",
    ),
    "ER": JsonTask(
        "audio_emotion_dataset.json",
        "path",
        _choice_fields(4),
        ("path", "question", "answer_gt"),
        "letter",
        group_field="emotion_label",
        extra=("person_id",),
    ),
    "SAR": JsonTask(
        "age_classification_task_meta.json",
        "path",
        _choice_fields(5),
        ("path", "speaker_id_original", "question", *_choice_keys(5), "answer_gt"),
        "text",
        audio_dir="wav",
        extra=("speaker_id_original", "speaker_age"),
    ),
    "SGR": JsonTask(
        "gender_id_task_meta.json",
        "path",
        _choice_fields(2),
        ("path", "speaker_id_original", "question", *_choice_keys(2), "answer_gt"),
        "label",
        audio_dir="wav",
        extra=("speaker_id_original",),
    ),
}
ASR_SPLIT = "test-clean"
HAD_FOLDERS = ("real", "fake")
VESUS_DROPPED = (("2", "happy"), ("10", "happy"))
"""(person, emotion) pairs the VESUS script leaves out of the task."""


@dataclass(frozen=True)
class Problem:
    """One validation finding: an ``error`` makes the entry unusable, a ``warning`` does not."""

    level: Literal["error", "warning"]
    error: DatasetError

    def __str__(self) -> str:
        return f"{self.level}: {self.error}"


@dataclass
class Loaded:
    """A task's items, the entries left out (with why) and warnings."""

    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


# ---- building items ---------------------------------------------------------------------------------------------


def _item(
    task: str,
    index: int,
    item_id: str,
    audio: Path,
    question: str,
    options: Sequence[str],
    answer: str,
    meta: Mapping[str, Any],
    source: Any,
) -> Item:
    prompt = task_prompt(task)
    return Item(
        benchmark=BENCHMARK,
        task=task,
        item_id=item_id,
        parts=(Part.audio(audio), Part.text(prompt.render(question, options))),
        answer=answer,
        index=index,
        options=tuple(options),
        system=prompt.system,
        max_tokens=prompt.max_tokens,
        template=f"{BENCHMARK}/{task}",
        meta=dict(meta),
        source=source,
    )


def _unique_ids(paths: Sequence[str]) -> list[str]:
    """Item ids from relative audio paths; a path that repeats (RACE: one passage, many questions) gets ``#k``."""
    seen: Counter[str] = Counter()
    ids = []
    for path in paths:
        ids.append(path if not seen[path] else f"{path}#{seen[path]}")
        seen[path] += 1
    return ids


def _gold_and_letter(
    spec: JsonTask, entry: Mapping[str, Any], options: Sequence[str]
) -> tuple[str, str | None]:
    """The ground truth as the script compares it, and the option letter it names (``None``: not an option)."""
    raw = str(entry[spec.answer_field])
    if spec.gold == "letter":
        letter = raw.strip().upper()
        return letter, letter if len(letter) == 1 and letter in LETTERS[: len(options)] else None
    gold = raw.strip() if spec.gold == "text" else raw.lower().strip()
    names = [o.strip() if spec.gold == "text" else o.lower().strip() for o in options]
    return gold, LETTERS[names.index(gold)] if gold in names else None


def _entries(path: Path, spec: JsonTask) -> list[Any]:
    return records.read_records(path, key=spec.container, otherwise="json")


def _entry_problem(path: Path, spec: JsonTask, index: int, entry: Any) -> DatasetError | None:
    if not isinstance(entry, dict):
        return DatasetError(path, "entry is not an object", index=index)
    for name in spec.required:
        if name not in entry or entry[name] is None:
            return DatasetError(path, "missing field", index=index, field=name)
    if spec.container == "tasks" and not isinstance(entry["choices"], dict):
        return DatasetError(path, "expected an object of options A-D", index=index, field="choices")
    if spec.answer_field == "answer" and not isinstance(entry["options"], list):
        return DatasetError(path, "expected a list of options", index=index, field="options")
    return None


def _load_json(root: Path, task: str, *, skip_missing_audio: bool, check_audio: bool) -> Loaded:
    spec = JSON_TASKS[task]
    folder = root / task
    path = folder / spec.metadata
    out = Loaded()
    kept: list[tuple[int, dict[str, Any], Path]] = []
    for index, entry in enumerate(_entries(path, spec)):
        problem = _entry_problem(path, spec, index, entry)
        if problem is None and task == "ER":
            pair = (
                str(entry.get("person_id", "")).strip(),
                str(entry.get("emotion_label", "")).strip().lower(),
            )
            if pair in VESUS_DROPPED:
                continue
        if problem is None:
            audio = folder / spec.audio_dir / str(entry[spec.audio_field])
            if not check_audio or audio.is_file():
                kept.append((index, entry, audio))
                continue
            problem = DatasetError(
                path, f"audio file not found: {audio}", index=index, field=spec.audio_field
            )
            if skip_missing_audio:
                out.problems.append(Problem("warning", problem))
                continue
        out.problems.append(Problem("error", problem))
    ids = _unique_ids([str(e[spec.audio_field]) for _, e, _ in kept])
    for (index, entry, audio), item_id in zip(kept, ids, strict=True):
        options = spec.options(entry)
        gold, letter = _gold_and_letter(spec, entry, options)
        if letter is None:
            error = DatasetError(
                path, f"answer {gold!r} is not one of the options", index=index, field=spec.answer_field
            )
            out.problems.append(Problem("error", error))
            continue
        rel = str(entry[spec.audio_field])
        group = (
            _race_subset(rel)
            if task == "SCR"
            else str(entry.get(spec.group_field, ""))
            if spec.group_field
            else ""
        )
        meta = {"gold": gold, "file": Path(rel).name, "path": rel, "group": group}
        meta.update({k: entry[k] for k in spec.extra if k in entry})
        out.items.append(
            _item(task, index, item_id, audio, str(entry["question"]), options, letter, meta, entry)
        )
    if task == "SGR":
        out.items = _balanced(out.items, ("male", "female"))
    return out


def _race_subset(path: str) -> str:
    """RACE's subset, read from the audio path as its script does ("high" wins, anything else is "middle")."""
    return "high" if "high" in path else "middle"


def _balanced(items: list[Item], labels: Sequence[str]) -> list[Item]:
    """The scripts' balanced subset: each label cut to the rarest label's count by a seeded sample, then shuffled.

    The input order is the metadata order (or sorted file names), so the subset is the same on every machine."""
    rng = random.Random(SEED)
    groups = [[it for it in items if it.meta["gold"] == label] for label in labels]
    n = min((len(g) for g in groups), default=0)
    chosen: list[Item] = []
    for group in groups:
        chosen += rng.sample(group, n) if len(group) > n else group
    rng.shuffle(chosen)
    return chosen


def _load_had(root: Path) -> Loaded:
    folder = root / "SD"
    out = Loaded()
    items: list[Item] = []
    for position, label in enumerate(HAD_FOLDERS):
        sub = folder / label
        if not sub.is_dir():
            out.problems.append(Problem("error", DatasetError(sub, "folder not found")))
            continue
        for wav in sorted(sub.glob("*.wav")):
            rel = f"{label}/{wav.name}"
            meta = {"gold": label, "file": wav.name, "path": rel, "group": label}
            items.append(_item("SD", 0, rel, wav, "", HAD_FOLDERS, LETTERS[position], meta, None))
    out.items = [replace(it, index=i) for i, it in enumerate(_balanced(items, HAD_FOLDERS))]
    return out


def _transcript(chapter: Path, speaker: str, chap: str, utterance: str) -> str | None:
    own = chapter / f"{utterance}.txt"
    if own.is_file():
        return own.read_text(encoding="utf-8").strip() or None
    shared = chapter / f"{speaker}-{chap}.trans.txt"
    if shared.is_file():
        for line in shared.read_text(encoding="utf-8").splitlines():
            if line.startswith(utterance):
                parts = line.split(" ", 1)
                return parts[1].strip() if len(parts) == 2 and parts[1].strip() else None
    return None


def _transcribed(chapter: Path) -> set[str]:
    """The utterance ids a chapter's transcripts name (own ``<id>.txt`` files and ``.trans.txt`` lines)."""
    ids = {p.stem for p in chapter.glob("*.txt") if not p.name.endswith(".trans.txt")}
    for shared in chapter.glob("*.trans.txt"):
        ids.update(line.split(" ", 1)[0] for line in shared.read_text(encoding="utf-8").splitlines() if line)
    return ids


def _load_asr(root: Path, *, skip_missing_audio: bool, check_audio: bool) -> Loaded:
    split = root / "ASR" / ASR_SPLIT
    out = Loaded()
    if not split.is_dir():
        raise DatasetError(split, "folder not found")
    for speaker in sorted(p for p in split.iterdir() if p.is_dir()):
        for chapter in sorted(p for p in speaker.iterdir() if p.is_dir()):
            utterances = {p.stem for p in chapter.glob("*.flac")}
            if not check_audio:
                utterances |= _transcribed(chapter)
            for flac in (chapter / f"{u}.flac" for u in sorted(utterances)):
                text = _transcript(chapter, speaker.name, chapter.name, flac.stem)
                if text is None:
                    error = DatasetError(
                        flac, "no transcript (neither <id>.txt nor a line in the .trans.txt)"
                    )
                    out.problems.append(Problem("warning" if skip_missing_audio else "error", error))
                    continue
                rel = flac.relative_to(root / "ASR").as_posix()
                meta = {
                    "gold": text,
                    "file": flac.stem,
                    "path": rel,
                    "group": speaker.name,
                    "chapter": chapter.name,
                }
                out.items.append(_item("ASR", len(out.items), flac.stem, flac, "", (), text, meta, None))
    return out


def load(
    root: Path | str, task: str, *, skip_missing_audio: bool = False, check_audio: bool = True
) -> Loaded:
    """Items of ``task`` under ``root`` with the problems found while reading (no audio is decoded).

    ``skip_missing_audio`` leaves out, with a warning, the entries the scripts skip silently (audio not found, an
    utterance without transcript); otherwise they are errors. ``check_audio=False`` does not look for the audio at
    all, so the metadata alone gives the questions (rescoring; infer then fails a question whose audio is missing):
    LibriSpeech utterances then come from the transcripts. HAD has no metadata file: its questions are the file
    names under ``real/`` and ``fake/``, which must be there (the files are never read)."""
    root = Path(root)
    if task not in TASKS:
        raise KeyError(f"unknown AudioMarathon task {task!r}; known: {', '.join(TASKS)}")
    if task == "ASR":
        return _load_asr(root, skip_missing_audio=skip_missing_audio, check_audio=check_audio)
    if task == "SD":
        return _load_had(root)
    return _load_json(root, task, skip_missing_audio=skip_missing_audio, check_audio=check_audio)


def load_task(
    root: Path | str, task: str, *, skip_missing_audio: bool = False, check_audio: bool = True
) -> list[Item]:
    """Items of ``task``; raises the first error as a :class:`DatasetError`."""
    loaded = load(root, task, skip_missing_audio=skip_missing_audio, check_audio=check_audio)
    for problem in loaded.problems:
        if problem.level == "error":
            raise problem.error
    return loaded.items


# ---- validation -----------------------------------------------------------------------------------------------


def _duration_problems(items: Sequence[Item]) -> Iterator[Problem]:
    import soundfile as sf  # only validation reads the clips

    for item in items:
        audio = item.media[0]
        try:
            seconds = sf.info(str(audio)).duration
        except (RuntimeError, sf.LibsndfileError) as exc:
            yield Problem("error", DatasetError(audio, f"unreadable audio ({exc})", index=item.index))
            continue
        if not MIN_SECONDS <= seconds <= MAX_SECONDS:
            yield Problem(
                "warning",
                DatasetError(
                    audio,
                    f"clip lasts {seconds:.1f} s, outside {MIN_SECONDS:g}-{MAX_SECONDS:g} s",
                    index=item.index,
                ),
            )


def validate_task(root: Path | str, task: str) -> list[Problem]:
    """Every problem of ``task``: file, entries and fields, answers against options, audio presence and duration."""
    try:
        loaded = load(root, task)
    except DatasetError as exc:
        return [Problem("error", exc)]
    problems = list(loaded.problems)
    if not loaded.items and not problems:
        problems.append(Problem("error", DatasetError(Path(root) / task, "no items")))
    return problems + list(_duration_problems(loaded.items))


def validate(root: Path | str, tasks: Sequence[str] = TASKS) -> dict[str, list[Problem]]:
    """``validate_task`` for each task (a task whose folder is missing reports that as its one error)."""
    root = Path(root)
    out: dict[str, list[Problem]] = {}
    for task in tasks:
        if not (root / task).is_dir():
            out[task] = [Problem("error", DatasetError(root / task, "task folder not found"))]
        else:
            out[task] = validate_task(root, task)
    return out
