"""The official STAR-Bench data root, read into the common item model, and its validation.

Layout: ``meta_info/<file>.json`` (a JSON array of items per dataset) and the audio under ``starbench_audios/``,
referenced by paths relative to the root. Each item becomes one :class:`Item` per run (see
:mod:`avibench.level_metrics.starbench_rotation`), with the parts in the official order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from avibench import definitions
from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.kits import fields, records
from avibench.kits import multiple_choice as mc
from avibench.level_metrics.starbench_rotation import (
    clip_permutation,
    family,
    order_answer,
    run_count,
)
from avibench.plugin import Problem

BENCHMARK = "starbench"
REASONING_TOKENS = 1024
DEFAULT_TOKENS = 256
TEMPORAL_CLIPS = 3
BINAURAL_CHANNELS = 2


#: the official protocol: dataset files, groups, parser keywords
PROTOCOL = definitions.template_catalogue("starbench", "protocol.yaml")
#: what a dataset's messages add around the question: ``context -> (the entry field it needs, its meta flag)``
CONTEXTS = {
    "plain": (None, None),
    "channels": (None, "channel_wise"),
    "caption": ("global_caption", "given_caption"),
    "uncut": ("uncut_audio_path", "given_uncut_audio"),
}


#: alias -> (title, context), in report order: perception, temporal, spatial (the paper's order)
SHOWN = {
    "pc": ("Foundational perception (all)", "plain"),
    "pc_sp": ("Foundational perception, spatial", "plain"),
    "pc_nsp": ("Foundational perception, non-spatial", "plain"),
    "tr": ("Temporal reasoning", "plain"),
    "tr_cap": ("Temporal reasoning with the scene's caption", "caption"),
    "tr_uncut": ("Temporal reasoning with the uncut recording", "uncut"),
    "sr": ("Spatial reasoning", "plain"),
    "sr_ch": ("Spatial reasoning, binaural channels as two clips", "channels"),
}
#: alias -> its metadata file, in report order
DATASETS: dict[str, str] = {alias: PROTOCOL["datasets"][alias] for alias in SHOWN}
DEFAULT_GROUP = "starbench_default"
GROUPS: dict[str, tuple[str, ...]] = {name: tuple(aliases) for name, aliases in PROTOCOL["groups"].items()}


def context(alias: str) -> str:
    """What dataset ``alias``'s messages add around the question (a key of :data:`CONTEXTS`)."""
    return SHOWN[alias][1]


def _clips(value: Any) -> str | None:
    if fields.strings(value) or not value or not all(v.strip() for v in value):
        return "expected a non-empty list of relative paths"
    return None


FIELDS = {
    "id": fields.text,
    "task": fields.text,
    "question": fields.text,
    "options": fields.choices,
    "answer": fields.string,
    "audio_paths": _clips,
}
OPTIONAL = {"category": fields.optional_string, "sub-category": fields.optional_string}


# ---- checks ---------------------------------------------------------------------------------------------------


def _problems(alias: str, path: str, index: int, entry: Any) -> list[Problem]:
    """Problems of one entry that need no file access."""
    found = list(fields.problems(path, index, entry, FIELDS, OPTIONAL))
    if found:
        return found
    options, audio, needed = entry["options"], entry["audio_paths"], CONTEXTS[context(alias)][0]
    clips = 1 if context(alias) == "channels" else TEMPORAL_CLIPS if family(alias) == "tr" else len(audio)
    checks = [
        ("options", len(set(options)) != len(options), "repeated option text"),
        ("answer", entry["answer"] not in options, f"{entry['answer']!r} is not one of the options"),
        ("audio_paths", len(audio) != clips, f"expected {clips} path(s), found {len(audio)}"),
        (needed, bool(needed and fields.text(entry.get(needed))), "missing or not a non-empty string"),
    ]
    found = [Problem(path, message, index, name) for name, failed, message in checks if failed]
    if found:
        return found
    try:
        runs = _runs(alias, entry)
    except ValueError as exc:  # a temporal id that does not end with its subtask and number
        return [Problem(path, str(exc), index, "id")]
    return [
        Problem(path, f"run {r} needs the option {gold!r}, which is missing", index, "options")
        for r, _, gold, _ in runs
        if gold not in options
    ]


def _entries(root: Path, alias: str) -> Iterator[tuple[int, dict[str, Any], list[Problem]]]:
    """Every entry of the dataset's metadata file with its problems (a repeated id is one)."""
    path = root / DATASETS[alias]
    seen: dict[str, int] = {}
    for index, entry in records.read_rows(path):
        found = _problems(alias, str(path), index, entry)
        if not found and entry["id"] in seen:
            found = [Problem(str(path), f"id {entry['id']!r} repeats entry {seen[entry['id']]}", index, "id")]
        if not found:
            seen[entry["id"]] = index
        yield index, entry, found


def _audio_problems(alias: str, root: Path, path: str, index: int, entry: Mapping[str, Any]) -> list[Problem]:
    """Each clip that is missing or does not decode, and binaural clips that are not stereo."""
    import soundfile as sf  # here, not at import: validation reads audio headers, eval does not

    problems = []
    clips = [("audio_paths", p) for p in entry["audio_paths"]]
    if context(alias) == "uncut":
        clips.append(("uncut_audio_path", entry["uncut_audio_path"]))
    for name, rel in clips:
        try:
            channels = sf.info(str(root / rel)).channels
        except (RuntimeError, OSError) as exc:
            reason = "file not found" if not (root / rel).is_file() else f"unreadable audio ({exc})"
            problems.append(Problem(path, f"{rel}: {reason}", index, name))
            continue
        if family(alias) == "sr" and name == "audio_paths" and channels != BINAURAL_CHANNELS:
            message = f"{rel}: binaural audio must be stereo, found {channels} channel(s)"
            problems.append(Problem(path, message, index, name))
    return problems


def validate(root: Path | str, aliases: Sequence[str] | None = None) -> list[Problem]:
    """Every problem of the datasets ``aliases`` (default: all) under ``root``, each naming file, entry and field."""
    root = Path(root)
    problems: list[Problem] = []
    for alias in aliases or tuple(DATASETS):
        try:
            for index, entry, found in _entries(root, alias):
                path = str(root / DATASETS[alias])
                problems += found or _audio_problems(alias, root, path, index, entry)
        except DatasetError as exc:
            problems.append(Problem(exc.path, exc.message))
    return list(dict.fromkeys(problems))


# ---- items ----------------------------------------------------------------------------------------------------


def _labelled(label: str, clips: Sequence[tuple[Path, int | None]]) -> list[Part]:
    return [
        p
        for n, clip in enumerate(clips, start=1)
        for p in (Part.text(label.format(number=n)), Part.audio(*clip))
    ]


def _parts(
    alias: str, root: Path, entry: Mapping[str, Any], options: Sequence[str], order: Sequence[int]
) -> list[Part]:
    """The official message: perception and spatial audio before the question; temporal items the question, the
    caption or uncut recording, then the clips in the run's order."""
    t = definitions.template_catalogue("starbench.yaml")
    lettered = mc.lettered(options, line=t["option_line"], sep="")
    question = Part.text(t["question"].format(question=entry["question"], options=lettered))
    audio = [root / a for a in entry["audio_paths"]]
    if family(alias) == "tr":
        around: list[Part] = []
        if context(alias) == "caption":
            around = [Part.text(t["caption"].format(caption=entry["global_caption"]))]
        elif context(alias) == "uncut":
            uncut = root / entry["uncut_audio_path"]
            around = [Part.text(t["uncut_before"]), Part.audio(uncut), Part.text(t["uncut_after"])]
        return [question, *around, *_labelled(t["clip_label"], [(audio[k - 1], None) for k in order])]
    if context(alias) == "channels":
        ears = [(audio[0], 0), (audio[0], 1)]
        return [*_labelled(t["audio_label"], ears), Part.text(t["channel_note"]), question]
    if len(audio) == 1:
        return [Part.audio(audio[0]), question]
    return [*_labelled(t["audio_label"], [(a, None) for a in audio]), question]


def _runs(alias: str, entry: Mapping[str, Any]) -> list[tuple[int, tuple[str, ...], str, tuple[int, ...]]]:
    """``(run, options, gold, clip order)`` of every run of one checked entry."""
    options = tuple(entry["options"])
    count = run_count(alias, len(options))
    if family(alias) == "tr":
        orders = [clip_permutation(entry["id"], r) for r in range(count)]
        return [(r, options, order_answer(order), order) for r, order in enumerate(orders)]
    gold = mc.gold_index(options, entry["answer"])
    return [(r, shown, shown[k], ()) for r, (_, shown, k) in enumerate(mc.rotations(options, gold, count))]


def load_items(root: Path | str, alias: str) -> list[Item]:
    """Every run of every item of dataset ``alias``.

    Raises :class:`DatasetError` naming the file, entry and field of the first unusable entry; audio files are not
    opened (``validate`` checks them).
    """
    root = Path(root)
    flag = CONTEXTS[context(alias)][1]
    items: list[Item] = []
    for index, entry, found in _entries(root, alias):
        fields.raise_first(iter(found))
        for rotation, options, answer, order in _runs(alias, entry):
            meta: dict[str, Any] = {k: entry.get(k) for k in ("task", "category", "sub-category")}
            if order:
                meta["shuffled_seg_order"] = "-".join(map(str, order))
            meta.update(answer_letter=f"<{mc.LETTERS[options.index(answer)]}>", rotate_id=rotation)
            if flag:
                meta[flag] = True
            items.append(
                Item(
                    benchmark=BENCHMARK,
                    task=alias,
                    item_id=entry["id"],
                    parts=tuple(_parts(alias, root, entry, options, order)),
                    answer=answer,
                    variant=f"r{rotation}",
                    index=index,
                    options=options,
                    # the official output limit: 1024 tokens for reasoning tasks, 256 otherwise
                    max_tokens=REASONING_TOKENS if "reasoning" in entry["task"].lower() else DEFAULT_TOKENS,
                    template=f"{BENCHMARK}/{alias}",
                    meta=meta,
                    key_override=f"{entry['id']}@{rotation}",
                    source=entry,
                )
            )
    return items
