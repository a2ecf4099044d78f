"""The AudioMarathon data layout: loaders of the ten official metadata formats, and their validation.

One data root holds a folder per task, named by its leaderboard abbreviation. Each folder keeps the task's official
metadata file under its official name, with the audio where the task's script looks for it; the names and fields
are data (``prompts/audiomarathon/layout.yaml``). LibriSpeech (ASR) is ``test-clean/<spk>/<chap>/*.flac`` with its
transcript in ``<id>.txt`` or ``<spk>-<chap>.trans.txt``; HAD (SD) is ``real/*.wav`` and ``fake/*.wav``, balanced
to as many real as fake by a seeded sample, as the VoxCeleb gender task is balanced to as many male as female.

Each question becomes an :class:`~avibench.items.Item` with the audio part first and the official prompt text after
it (``prompts/audiomarathon.yaml``), the correct option letter as ``answer`` (ASR: the transcript) and, in ``meta``,
the ground truth in the form the task's script compares (``gold``), the file name results are joined on (``file``)
and the breakdown ``group``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.level_metrics.audiomarathon import TASKS
from avibench.plugin import Problem

BENCHMARK = "audiomarathon"
SEED = 42
"""The seed the HAD and VoxCeleb-gender scripts sample their balanced subsets with."""
MIN_SECONDS, MAX_SECONDS = 60.0, 330.0
"""Clip durations outside this range draw a warning (the benchmark's clips are 90–300 s long)."""
LETTERS = "ABCDE"
ASR_SPLIT = "test-clean"
HAD_FOLDERS = ("real", "fake")
CHECKS: dict[str, fields.Check] = {
    "choices": lambda v: None if isinstance(v, dict) else "must be an object of options A-D",
    "options": fields.strings,
}
"""Field checks beyond being there (and not null)."""


@cache
def data_file(name: str) -> Mapping[str, Any]:
    """A data file under ``prompts/`` (the prompts, the layout, the sample's vocabularies)."""
    return yaml.safe_load(resources.files("avibench.prompts").joinpath(name).read_text(encoding="utf-8"))


def json_task(task: str) -> Mapping[str, Any]:
    """Where one metadata-described task keeps its entries and how an entry reads (see the data file)."""
    return data_file("audiomarathon/layout.yaml")["tasks"][task]


def data_path(root: Path | str, task: str) -> Path:
    """The file or folder a task's questions come from (ASR and SD: a folder)."""
    if task == "ASR":
        return Path(root) / "ASR" / ASR_SPLIT
    return Path(root) / task / ("" if task == "SD" else json_task(task)["metadata"])


def _given(value: Any) -> str | None:
    return None if value is not None else "is missing"


# ---- building items ---------------------------------------------------------------------------------------------


def _item(
    task: str, index: int, item_id: str, audio: Path, question: str, options: Sequence[str], **rest: Any
) -> Item:
    """The question with the task's official prompt: system text, user text after the clip, output-token limit."""
    prompt = data_file("audiomarathon.yaml")["tasks"][task]
    line = prompt.get("option_line", "")
    lines = "\n".join(line.format(letter=LETTERS[i], text=o) for i, o in enumerate(options))
    text = prompt["user"].format(
        question=question or prompt.get("default_question", ""),
        options=lines.strip() if prompt.get("strip_options") else lines,
    )
    return Item(
        benchmark=BENCHMARK,
        task=task,
        item_id=item_id,
        parts=(Part.audio(audio), Part.text(text)),
        index=index,
        options=tuple(options),
        system=prompt["system"],
        max_tokens=prompt["max_tokens"],
        template=f"{BENCHMARK}/{task}",
        **rest,
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
    spec: Mapping[str, Any], entry: Mapping[str, Any], options: Sequence[str]
) -> tuple[str, str | None]:
    """The ground truth as the script compares it, and the option letter it names (``None``: not an option)."""
    raw = str(entry[spec.get("answer", "answer_gt")])
    if spec["gold"] == "letter":
        letter = raw.strip().upper()
        return letter, letter if len(letter) == 1 and letter in LETTERS[: len(options)] else None
    gold = raw.strip() if spec["gold"] == "text" else raw.lower().strip()
    names = [o.strip() if spec["gold"] == "text" else o.lower().strip() for o in options]
    return gold, LETTERS[names.index(gold)] if gold in names else None


def _options(spec: Mapping[str, Any], entry: Mapping[str, Any]) -> list[str]:
    if "option_list" in spec:
        return [str(o) for o in entry[spec["option_list"]]]
    source = entry[spec["options_in"]] if "options_in" in spec else entry
    return [str(source.get(k, "")) for k in spec["options"]]


def _vesus_dropped(entry: Mapping[str, Any]) -> bool:
    pair = [str(entry.get("person_id", "")).strip(), str(entry.get("emotion_label", "")).strip().lower()]
    return pair in data_file("audiomarathon/layout.yaml")["vesus_dropped"]


def _load_json(root: Path, task: str, check_audio: bool) -> tuple[list[Item], list[Problem]]:
    spec = json_task(task)
    folder = root / task
    path = folder / spec["metadata"]
    required = {name: CHECKS.get(name, _given) for name in spec["required"]}
    items: list[Item] = []
    problems: list[Problem] = []
    kept: list[tuple[int, dict[str, Any], Path]] = []
    for index, entry in records.read_rows(path, key=spec.get("container"), otherwise="json"):
        problem = next(fields.problems(path, index, entry, required), None)
        if problem is None and task == "ER" and _vesus_dropped(entry):
            continue
        if problem is None:
            audio = folder / spec.get("audio_dir", "") / str(entry[spec["audio"]])
            if not check_audio or audio.is_file():
                kept.append((index, entry, audio))
                continue
            problem = Problem(str(path), f"audio file not found: {audio}", index, spec["audio"])
        problems.append(problem)
    ids = _unique_ids([str(e[spec["audio"]]) for _, e, _ in kept])
    for (index, entry, audio), item_id in zip(kept, ids, strict=True):
        options = _options(spec, entry)
        gold, letter = _gold_and_letter(spec, entry, options)
        if letter is None:
            field = spec.get("answer", "answer_gt")
            problems.append(Problem(str(path), f"answer {gold!r} is not one of the options", index, field))
            continue
        rel = str(entry[spec["audio"]])
        # RACE's subset is read from the audio path as its script does ("high" wins, anything else is "middle")
        group = (
            ("high" if "high" in rel else "middle")
            if task == "SCR"
            else str(entry.get(spec.get("group"), ""))
        )
        meta = {"gold": gold, "file": Path(rel).name, "path": rel, "group": group}
        meta.update({k: entry[k] for k in spec.get("extra", ()) if k in entry})
        question = str(entry["question"])
        items.append(
            _item(task, index, item_id, audio, question, options, answer=letter, meta=meta, source=entry)
        )
    return (_balanced(items, ("male", "female")) if task == "SGR" else items), problems


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


def _load_had(root: Path) -> tuple[list[Item], list[Problem]]:
    items: list[Item] = []
    problems: list[Problem] = []
    for position, label in enumerate(HAD_FOLDERS):
        sub = root / "SD" / label
        if not sub.is_dir():
            problems.append(Problem(str(sub), "folder not found"))
            continue
        for wav in sorted(sub.glob("*.wav")):
            rel = f"{label}/{wav.name}"
            meta = {"gold": label, "file": wav.name, "path": rel, "group": label}
            items.append(_item("SD", 0, rel, wav, "", HAD_FOLDERS, answer=LETTERS[position], meta=meta))
    return [replace(it, index=i) for i, it in enumerate(_balanced(items, HAD_FOLDERS))], problems


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


def _load_asr(root: Path, check_audio: bool) -> tuple[list[Item], list[Problem]]:
    split = data_path(root, "ASR")
    if not split.is_dir():
        raise DatasetError(split, "folder not found")
    items: list[Item] = []
    problems: list[Problem] = []
    for speaker in sorted(p for p in split.iterdir() if p.is_dir()):
        for chapter in sorted(p for p in speaker.iterdir() if p.is_dir()):
            utterances = {p.stem for p in chapter.glob("*.flac")}
            if not check_audio:
                utterances |= _transcribed(chapter)
            for flac in (chapter / f"{u}.flac" for u in sorted(utterances)):
                text = _transcript(chapter, speaker.name, chapter.name, flac.stem)
                if text is None:
                    problems.append(
                        Problem(str(flac), "no transcript (neither <id>.txt nor a line in the .trans.txt)")
                    )
                    continue
                rel = flac.relative_to(root / "ASR").as_posix()
                meta = {
                    "gold": text,
                    "file": flac.stem,
                    "path": rel,
                    "group": speaker.name,
                    "chapter": chapter.name,
                }
                items.append(_item("ASR", len(items), flac.stem, flac, "", (), answer=text, meta=meta))
    return items, problems


def load(root: Path | str, task: str, *, check_audio: bool = True) -> tuple[list[Item], list[Problem]]:
    """Items of ``task`` under ``root`` with the problems found while reading (no audio is decoded).

    ``check_audio=False`` does not look for the audio at all, so the metadata alone gives the questions (rescoring;
    infer then fails a question whose audio is missing): LibriSpeech utterances then come from the transcripts.
    HAD has no metadata file: its questions are the file names under ``real/`` and ``fake/``, which must be there
    (the files are never read)."""
    root = Path(root)
    if task == "ASR":
        return _load_asr(root, check_audio)
    if task == "SD":
        return _load_had(root)
    return _load_json(root, task, check_audio)


def load_task(root: Path | str, task: str, *, check_audio: bool = True) -> list[Item]:
    """Items of ``task``; raises the first problem as a :class:`DatasetError`."""
    items, problems = load(root, task, check_audio=check_audio)
    fields.raise_first(iter(problems))
    return items


# ---- validation -----------------------------------------------------------------------------------------------


def _duration_problems(items: Sequence[Item]) -> Iterator[Problem]:
    import soundfile as sf  # only validation reads the clips

    for item in items:
        audio = str(item.media[0])
        try:
            seconds = sf.info(audio).duration
        except (RuntimeError, sf.LibsndfileError) as exc:
            yield Problem(audio, f"unreadable audio ({exc})", item.index)
            continue
        if not MIN_SECONDS <= seconds <= MAX_SECONDS:
            why = f"clip lasts {seconds:.1f} s, outside {MIN_SECONDS:g}-{MAX_SECONDS:g} s"
            yield Problem(audio, why, item.index, severity="warning")


def validate(root: Path | str, tasks: Sequence[str] = TASKS) -> list[Problem]:
    """Every problem of each task: its folder, file, entries and fields, answers against options, audio presence
    and duration."""
    root = Path(root)
    found: list[Problem] = []
    for task in tasks:
        if not (root / task).is_dir():
            found.append(Problem(str(root / task), "task folder not found"))
            continue
        try:
            items, problems = load(root, task)
        except DatasetError as exc:
            found.append(Problem(str(exc.path), exc.message, exc.index, exc.field))
            continue
        if not items and not problems:
            problems.append(Problem(str(root / task), "no items"))
        found += problems + list(_duration_problems(items))
    return found
