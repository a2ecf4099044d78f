"""What eval computes before the core scores AVI-Bench: the inputs a question's value needs that one answer does
not hold, each computed once for the whole run.

* :func:`readings`: per profile, the prediction the official scorer reads of each entry (refine's answer; in the
  reference profile, VSQA's predictions paired by position as the reference pools its two prediction files);
* :func:`~avibench.benchmarks.avibench.values.gates`: per profile, the pre-questions that gate each formal entry;
* :func:`image_sizes`: the size of the image of a box ground truth that does not record it;
* :func:`caption_pairs`: each caption's FENSE inputs, from the models loaded once;
* :func:`chance_levels`: each task folder's chance level, kept between runs in a cache file.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.baselines import candidates
from avibench.benchmarks.avibench.dataset import Sample, data_digest, task_dir
from avibench.benchmarks.avibench.fense import FenseConfig, FenseUnavailable, Pair, load_scorer
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec
from avibench.benchmarks.avibench.values import BOX_KINDS, gates
from avibench.items import Response
from avibench.level_metrics.caption import references_of
from avibench.level_metrics.chance import ESTIMATOR_VERSION
from avibench.level_metrics.common import END_OF_TEXT, Notes
from avibench.level_metrics.profile import get_profile
from avibench.level_metrics.types import Item
from avibench.store import atomic_write_json

PROFILES: tuple[str, ...] = ("reference", "strict")
Readings = dict[str, dict[str, dict[int, str | None]]]
"""profile -> task folder -> data.json position -> the prediction the scorer reads (``None``: none)."""


def recorded(response: Response) -> str | None:
    """The prediction the official pipeline scores: the refine record's, or the prediction file's."""
    return response.recorded if response.status == "answered" else None


def readings(
    responses: Mapping[str, Sequence[Response]], positional: Mapping[str, Sequence[str | None]] | None
) -> Readings:
    """Per profile and folder, the prediction of each entry; ``positional`` (VSQA folder -> its prediction file's
    array, as long as the file) pairs VSQA's predictions by position in a profile with ``vsqa_pool_by_position``."""
    aligned = {
        task: {r.item.index: recorded(r) for r in task_responses}
        for task, task_responses in responses.items()
    }
    out: Readings = {profile: dict(aligned) for profile in PROFILES}
    pooled = [p for array in (positional or {}).values() for p in array]
    for profile in (p for p in PROFILES if get_profile(p).vsqa_pool_by_position):
        files = iter(pooled)  # the files concatenated, paired with the entries of both folders in order
        for task in positional or {}:
            out[profile][task] = {r.item.index: next(files, None) for r in responses[task]}
    return out


def image_sizes(samples: Sequence[Sample]) -> dict[int, tuple[int, int]]:
    """(W, H) of the first image of entries whose box GT has no ``original_wh`` (read from the file header); PIL
    is imported only when an entry needs it (the official data gives every entry its size)."""
    sizes: dict[int, tuple[int, int]] = {}
    for s in samples:
        gt = s.answer
        if s.spec.metric not in BOX_KINDS or not s.image_files:
            continue
        if isinstance(gt, dict) and isinstance(gt.get("original_wh"), list | tuple):
            continue
        from PIL import Image

        try:
            with Image.open(s.image_files[0]) as img:
                sizes[s.index] = (int(img.size[0]), int(img.size[1]))
        except OSError:
            continue
    return sizes


def caption_text(predict: str | None) -> str | None:
    """The caption FENSE is asked about (the scorer's reading of the prediction); ``None`` when empty."""
    if predict is None:
        return None
    return predict.replace(END_OF_TEXT, "") or None


def caption_pairs(
    config: FenseConfig, captions: Sequence[tuple[str, Sample]]
) -> tuple[dict[tuple[str, int], Pair] | None, dict[str, Any]]:
    """Each (caption, entry)'s FENSE pair, the models loaded once and only when there is a caption to score;
    ``None`` (with the reason in the meta) when the models are unavailable."""
    meta = config.meta()
    asked = [(text, s) for text, s in captions if references_of(s.answer)]
    if not asked:
        meta["note"] = (
            meta["note"] + " " if meta["note"] else ""
        ) + "(no caption scored in this run; models not loaded)"
        return {}, meta
    try:
        scorer = load_scorer(config)
    except FenseUnavailable as exc:
        meta.update(status="unavailable", sbert_model=None, echecker=None, note=str(exc))
        return None, meta
    if scorer.models.warnings:
        meta["note"] = "; ".join([*([meta["note"]] if meta["note"] else []), *scorer.models.warnings])
    pairs = scorer.pairs([text for text, _ in asked], [references_of(s.answer) for _, s in asked])
    return {(text, s.index): pair for (text, s), pair in zip(asked, pairs, strict=True)}, meta


def _scorer_items(samples: Sequence[Sample]) -> list[Item]:
    return [
        Item(
            index=s.index,
            id=s.id,
            answer=s.answer,
            predict=None,
            options=s.options,
            question_text=s.question.get("text"),
            task=s.task,
        )
        for s in samples
    ]


def folder_chance(spec: TaskSpec, samples: Sequence[Sample]) -> float:
    """A task folder's chance level (0-100) from its entries, by its metric kind."""
    counts = {s.index: len(candidates(s)) for s in samples}
    return metric_kind(spec.metric).chance(_scorer_items(samples), task=spec.name, candidates=counts)


def chance_levels(
    folders: Mapping[TaskSpec, Sequence[Sample]], *, data_root: Path | None = None, cache: Path | None = None
) -> dict[str, float]:
    """Each task folder's chance level (0-100) from its entries, for judging a baseline or head-normalising.

    The structured tasks' levels are Monte Carlo estimates that would cost most of an eval; with ``cache`` (a JSON
    file, shared by every output dir) each folder's level is kept under the hash of its data.json and the
    estimator's version, and computed again only when either changes. Levels of other estimator versions are
    dropped when the file is written; a cache that cannot be read or written is ignored.
    """
    stored: dict[str, float] = {}
    if cache is not None:
        try:
            stored = {k: float(v) for k, v in json.loads(cache.read_text(encoding="utf-8")).items()}
        except (OSError, ValueError, TypeError, AttributeError):
            stored = {}  # a missing or damaged cache is rebuilt
    fresh = dict(stored)
    levels: dict[str, float] = {}
    for spec, samples in folders.items():
        key = None  # what a folder's level depends on: its data.json and the estimator's version
        if cache is not None and data_root is not None:
            digest = data_digest(task_dir(data_root, spec) / "data.json").hex()[:24]
            key = f"{spec.name}:{ESTIMATOR_VERSION}:{digest}"
        level = fresh.get(key) if key is not None else None
        if level is None:
            level = folder_chance(spec, samples)
            if key is not None:
                fresh[key] = level
        levels[spec.name] = level
    if cache is not None and fresh != stored:
        current = f":{ESTIMATOR_VERSION}:"
        with contextlib.suppress(OSError):  # a read-only cache folder only costs the estimate next time
            atomic_write_json(cache, {k: v for k, v in fresh.items() if current in k})
    return levels


@dataclass(frozen=True)
class Context:
    """What an eval knows beyond the responses: the data root and the chance cache file (the cache is used only
    with both), and VSQA's prediction-file arrays when it rescores official prediction files."""

    data_root: Path | None = None
    positional: Mapping[str, Sequence[str | None]] = field(default_factory=dict)
    cache: Path | None = None


@dataclass
class Prepared:
    """Everything a question's value needs beyond its answer, computed once for the run (see the module)."""

    readings: Readings
    samples: dict[str, dict[int, Sample]]
    gates: dict[str, dict[str, dict[int, list[int]]]]
    sizes: dict[str, dict[int, tuple[int, int]]]
    pairs: dict[tuple[str, int], Pair] | None
    chance: dict[str, float]
    fense_meta: dict[str, Any]
    notes: dict[tuple[str, str], Notes] = field(default_factory=dict)
    """What the official scorer noted while reading the entries, per (profile, task folder)."""
    valued: dict[tuple[str, str], dict[int, dict[str, Any]] | None] = field(default_factory=dict)
    """Per (profile, task folder), its questions' values, read together on first use."""


def prepare(responses: Mapping[str, Sequence[Response]], context: Context, fense: FenseConfig) -> Prepared:
    """The run's readings, gates, image sizes, FENSE pairs and chance levels."""
    reads = readings(responses, context.positional)
    samples = {task: {r.item.index: r.item.source for r in rs} for task, rs in responses.items()}
    specs = {task: AVIBENCH.task(task) for task in responses}
    captions = [
        (text, sample)
        for task, by_index in samples.items()
        if specs[task].metric == "caption"
        for index, sample in by_index.items()
        for text in dict.fromkeys(caption_text(reads[p][task].get(index)) for p in PROFILES)
        if text is not None
    ]
    pairs, fense_meta = caption_pairs(fense, captions)
    return Prepared(
        readings=reads,
        samples=samples,
        gates={
            p: {
                task: gates(list(by_index.values()), reads[p][task], get_profile(p))
                for task, by_index in samples.items()
            }
            for p in PROFILES
        },
        sizes={task: image_sizes(list(by_index.values())) for task, by_index in samples.items()},
        pairs=pairs,
        chance=chance_levels(
            {specs[task]: list(by_index.values()) for task, by_index in samples.items()},
            data_root=context.data_root,
            cache=context.cache,
        ),
        fense_meta=fense_meta,
    )
