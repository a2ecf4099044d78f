"""The ASR suite's data root: LibriSpeech and AISHELL-1 as distributed, a JSONL manifest for every other task.

* LibriSpeech: ``LibriSpeech/<split>/<speaker>/<chapter>/<speaker>-<chapter>.trans.txt``, one
  ``<utterance id> <TRANSCRIPT>`` a line, beside ``<utterance id>.flac`` (the archive's top-level ``*.TXT`` files
  are not data);
* AISHELL-1: ``data_aishell/transcript/aishell_transcript_v0.8.txt`` (one ``<id> <word-segmented text>`` a line,
  for every split) and ``data_aishell/wav/test/<speaker>/<id>.wav``; a test clip the transcript does not name is
  left out, as the official recipes leave it out;
* every other task: ``<root>/<task>.jsonl``, one ``{"id", "audio", "text", "language"}`` a line, ``audio``
  relative to the manifest's folder.

One reader per layout gathers the utterances and every problem (file, entry, field; entry k is line k + 1) in
one pass: ``load`` raises the first error, ``validate-data`` lists them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from avibench.kits import fields, records
from avibench.plugin import Problem


@dataclass(frozen=True)
class Layout:
    """Where a task's data lives: ``kind`` is ``librispeech``, ``aishell`` or ``manifest``."""

    kind: str
    language: str
    split: str = ""


TASKS: dict[str, tuple[str, Layout]] = {
    "librispeech_test_clean": ("LibriSpeech test-clean", Layout("librispeech", "en", "test-clean")),
    "librispeech_test_other": ("LibriSpeech test-other", Layout("librispeech", "en", "test-other")),
    "fleurs_en": ("FLEURS English (en_us) test", Layout("manifest", "en")),
    "fleurs_zh": ("FLEURS Mandarin (cmn_hans_cn) test", Layout("manifest", "zh")),
    "aishell1_test": ("AISHELL-1 test", Layout("aishell", "zh", "test")),
    "wenetspeech_test_net": ("WenetSpeech TEST_NET", Layout("manifest", "zh")),
    "wenetspeech_test_meeting": ("WenetSpeech TEST_MEETING", Layout("manifest", "zh")),
    "commonvoice15_en": ("Common Voice 15 English test", Layout("manifest", "en")),
    "commonvoice15_zh": ("Common Voice 15 Chinese (zh-CN) test", Layout("manifest", "zh")),
}
AISHELL_TRANSCRIPT = Path("data_aishell/transcript/aishell_transcript_v0.8.txt")
MANIFEST_FIELDS: dict[str, fields.Check] = {
    "id": fields.text,
    "audio": fields.text,
    "text": fields.string,
    "language": fields.text,
}


@dataclass(frozen=True)
class Utterance:
    """One clip and its reference transcript; ``entry`` is where the transcript is in ``source`` (entry k is
    line k + 1)."""

    id: str
    audio: Path
    text: str
    language: str
    source: Path
    entry: int


@dataclass
class Reading:
    """A task's utterances in load order and every problem met reading them."""

    utterances: list[Utterance] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def problem(self, path: Path, message: str, entry: int | None = None, field_: str | None = None) -> None:
        self.problems.append(Problem(str(path), message, index=entry, field=field_))


def layout_of(task: str) -> Layout:
    return TASKS[task][1]


def manifest_path(root: Path, task: str) -> Path:
    return Path(root) / f"{task}.jsonl"


def data_files(root: Path, task: str) -> tuple[Path, ...]:
    """The transcript files a task is read from (hashed into the data fingerprint)."""
    layout, root = layout_of(task), Path(root)
    if layout.kind == "librispeech":
        return tuple(sorted((root / "LibriSpeech" / layout.split).glob("*/*/*.trans.txt")))
    if layout.kind == "aishell":
        return (root / AISHELL_TRANSCRIPT,)
    return (manifest_path(root, task),)


def present(root: Path, task: str) -> bool:
    layout, root = layout_of(task), Path(root)
    if layout.kind == "librispeech":
        return (root / "LibriSpeech" / layout.split).is_dir()
    if layout.kind == "aishell":
        return (root / AISHELL_TRANSCRIPT).is_file() and (root / "data_aishell/wav" / layout.split).is_dir()
    return manifest_path(root, task).is_file()


def _id_and_text(line: str) -> tuple[str, str] | None:
    parts = line.strip().split(maxsplit=1)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(entry, line) of each non-blank line; entry k is line k + 1."""
    for entry, line in enumerate(records.read_text(path).splitlines()):
        if line.strip():
            yield entry, line


def _librispeech(root: Path, layout: Layout, out: Reading) -> None:
    split = root / "LibriSpeech" / layout.split
    for transcript in sorted(split.glob("*/*/*.trans.txt")):
        for entry, line in _lines(transcript):
            parsed = _id_and_text(line)
            if parsed is None:
                out.problem(transcript, "expected '<utterance id> <TRANSCRIPT>'", entry)
                continue
            uid, text = parsed
            audio = transcript.parent / f"{uid}.flac"
            if not audio.is_file():
                out.problem(transcript, f"audio file not found: {audio.name}", entry, "audio")
                continue
            out.utterances.append(Utterance(uid, audio, text, layout.language, transcript, entry))


def _aishell(root: Path, layout: Layout, out: Reading) -> None:
    transcript = root / AISHELL_TRANSCRIPT
    texts: dict[str, tuple[str, int]] = {}
    for entry, line in _lines(transcript):
        parsed = _id_and_text(line)
        if parsed is None:
            out.problem(transcript, "expected '<utterance id> <word-segmented text>'", entry)
            continue
        texts[parsed[0]] = (parsed[1], entry)
    for audio in sorted((root / "data_aishell/wav" / layout.split).glob("*/*.wav")):
        found = texts.get(audio.stem)
        if found is None:
            out.problems.append(
                Problem(str(audio), "not in the transcript file: left out", severity="warning")
            )
            continue
        out.utterances.append(Utterance(audio.stem, audio, found[0], layout.language, transcript, found[1]))


def _manifest(root: Path, task: str, layout: Layout, out: Reading) -> None:
    path = manifest_path(root, task)
    rows = records.jsonl_rows(
        path, on_error=lambda entry, why: out.problem(path, f"not valid JSON ({why})", entry)
    )
    seen: dict[str, int] = {}
    for entry, record in rows:
        found = list(fields.problems(path, entry, record, MANIFEST_FIELDS))
        if found:
            out.problems += found
            continue
        if record["language"] != layout.language:
            message = f"{record['language']!r} is not this task's language {layout.language!r}"
            out.problem(path, message, entry, "language")
        elif record["id"] in seen:
            out.problem(path, f"id {record['id']!r} repeats entry {seen[record['id']]}", entry, "id")
        elif not (path.parent / record["audio"]).is_file():
            out.problem(path, f"audio file not found: {record['audio']}", entry, "audio")
        else:
            seen[record["id"]] = entry
            audio = path.parent / record["audio"]
            out.utterances.append(
                Utterance(record["id"], audio, record["text"], layout.language, path, entry)
            )


def read(root: Path, task: str) -> Reading:
    """Every utterance of a task and every problem of its files."""
    layout, root, out = layout_of(task), Path(root), Reading()
    if not present(root, task):
        where = (
            root / "LibriSpeech" / layout.split if layout.kind == "librispeech" else data_files(root, task)[0]
        )
        out.problem(where, "not found")
        return out
    if layout.kind == "librispeech":
        _librispeech(root, layout, out)
    elif layout.kind == "aishell":
        _aishell(root, layout, out)
    else:
        _manifest(root, task, layout, out)
    return out
