"""The score stage: predictions + dataset -> per-task scores in both profiles, stages, Overall, L1–L4, coverage.

Every selected task folder ends up either scored or listed in ``coverage`` as not scored with the reason
(no data, no predictions, a broken prediction file, FENSE unavailable, a scoring error); no task disappears
silently, which is what the reference evaluator does when a scorer raises.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from avibench import __version__
from avibench.benchmarks.avibench.baselines import candidates
from avibench.benchmarks.avibench.dataset import Sample, data_digest, fingerprint, load_task, task_dir
from avibench.benchmarks.avibench.fense import FenseConfig, FenseUnavailable, load_scorer
from avibench.benchmarks.avibench.metric_kinds import metric_kind
from avibench.benchmarks.avibench.predictions import (
    PredictionFileError,
    TaskPredictions,
    from_reference_file,
    from_refine_journal,
)
from avibench.benchmarks.avibench.tasks import AVIBENCH, TaskSpec
from avibench.errors import DatasetError
from avibench.level_metrics.aggregate import TAXONOMY_NOTE, aggregate, rounded
from avibench.level_metrics.chance import ESTIMATOR_VERSION
from avibench.store import atomic_write_json

Source = Literal["refine", "predictions"]
PROFILES: tuple[str, ...] = ("reference", "strict")
#: The paper-level task pooled from two folders (VSQA: images and videos) and its folders, from the task table.
((POOLED, VSQA_HALVES),) = AVIBENCH.pooled().items()
FenseFn = Callable[[list[str], list[list[str]]], dict[str, Any]]


@dataclass
class TaskInput:
    """What one task folder brings to scoring; ``reason`` says why it cannot be scored."""

    spec: TaskSpec
    samples: list[Sample] | None = None
    predictions: TaskPredictions | None = None
    reason: str | None = None
    broken: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.reason is None and self.samples is not None and self.predictions is not None


@dataclass
class Outcome:
    """One scored (or failed) task in one profile: the reference-shaped value and the 0–1 headline."""

    value: Any = None
    headline: float | None = None
    scored: int = 0
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    failed: bool = False
    per_sample: list[float | None] = field(default_factory=list)


@dataclass
class EvalResult:
    """The eval.json object plus what the CLI needs to report.

    ``per_sample`` maps task folder -> record key (the entry's data.json position) -> profile -> the entry's own
    score (0-1; ``None`` where it did not enter the task score).
    """

    document: dict[str, Any]
    errors: list[str]
    per_sample: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)


def load_inputs(
    data_root: Path, specs: Sequence[TaskSpec], source: Source, source_dir: Path
) -> dict[str, TaskInput]:
    """Read each selected task's data.json and predictions; problems become the task's ``reason``."""
    inputs: dict[str, TaskInput] = {}
    for spec in specs:
        item = TaskInput(spec)
        inputs[spec.name] = item
        data_path = task_dir(data_root, spec) / "data.json"
        if not data_path.is_file():
            item.reason = f"no dataset file {data_path}"
            continue
        try:
            item.samples = load_task(data_root, spec)
        except DatasetError as exc:
            item.reason, item.broken = f"dataset error: {exc}", True
            continue
        try:
            if source == "refine":
                item.predictions = from_refine_journal(source_dir, spec, item.samples)
            else:
                item.predictions = from_reference_file(source_dir, spec, item.samples)
        except PredictionFileError as exc:
            item.reason, item.broken = f"broken prediction file: {exc}", True
            continue
        if item.predictions is None:
            where = (
                f"{source_dir}/refine/{spec.name}.jsonl"
                if source == "refine"
                else f"{source_dir}/{spec.name}.json (or tasks/{spec.name}.json)"
            )
            item.reason = f"no predictions ({where} not found)"
        else:
            item.warnings.extend(item.predictions.warnings)
    return inputs


def build_items(spec: TaskSpec, samples: Sequence[Sample], predicts: Sequence[str | None]) -> list[Any]:
    """Scorer items, one per dataset entry, in file order."""
    from avibench.level_metrics.types import Item

    return [
        Item(
            index=s.index,
            id=s.id,
            answer=s.answer,
            predict=p,
            options=s.options,
            question_text=s.question.get("text"),
            task=spec.name,
        )
        for s, p in zip(samples, predicts, strict=True)
    ]


def image_sizes(samples: Sequence[Sample]) -> dict[int, tuple[int, int]]:
    """(W, H) of the first image of entries whose box GT has no ``original_wh`` (read from the file header)."""
    from PIL import Image

    sizes: dict[int, tuple[int, int]] = {}
    for s in samples:
        gt = s.answer
        if isinstance(gt, dict) and isinstance(gt.get("original_wh"), list | tuple):
            continue
        if not s.images:
            continue
        try:
            with Image.open(s.images[0]) as img:
                sizes[s.index] = (int(img.size[0]), int(img.size[1]))
        except OSError:
            continue
    return sizes


def _score(
    spec: TaskSpec,
    items: list[Any],
    profile: Any,
    *,
    sizes: Mapping[int, tuple[int, int]] | None,
    fense_fn: FenseFn | None,
) -> Any:
    available = {"task": spec.name, "image_sizes": sizes, "fense_fn": fense_fn}
    kind = metric_kind(spec.metric)
    return kind.score(items, profile=profile, **{need: available[need] for need in kind.needs})


def _run(fn: Callable[[], Any]) -> Outcome:
    try:
        result = fn()
    except Exception as exc:  # a scorer bug must not take the other tasks down
        return Outcome(error=f"scoring failed: {type(exc).__name__}: {exc}", failed=True)
    return Outcome(
        value=result.value,
        headline=None if result.headline is None else float(result.headline),
        scored=int(result.scored),
        warnings=list(result.warnings),
        per_sample=list(result.per_sample),
    )


class _Scoring:
    """Scores the ready tasks in one profile."""

    def __init__(self, inputs: Mapping[str, TaskInput], fense_fn: FenseFn | None, fense_reason: str | None):
        self.inputs = inputs
        self.fense_fn = fense_fn
        self.fense_reason = fense_reason
        self._sizes: dict[str, dict[int, tuple[int, int]]] = {}

    def sizes(self, task: TaskInput) -> dict[int, tuple[int, int]]:
        if task.spec.name not in self._sizes:
            self._sizes[task.spec.name] = image_sizes(task.samples or [])
        return self._sizes[task.spec.name]

    def folder(self, task: TaskInput, profile: Any) -> Outcome:
        assert task.samples is not None and task.predictions is not None
        spec = task.spec
        needs = metric_kind(spec.metric).needs
        if "fense_fn" in needs and self.fense_fn is None:
            return Outcome(error=self.fense_reason)
        items = build_items(spec, task.samples, task.predictions.predicts)
        sizes = self.sizes(task) if "image_sizes" in needs else None
        return _run(lambda: _score(spec, items, profile, sizes=sizes, fense_fn=self.fense_fn))

    def vsqa(self, profile: Any) -> Outcome:
        from avibench import level_metrics as lm

        half_i, half_v = (self.inputs[n] for n in VSQA_HALVES)
        pi, pv = half_i.predictions, half_v.predictions
        assert pi is not None and pv is not None and half_i.samples is not None and half_v.samples is not None
        items_i = build_items(half_i.spec, half_i.samples, pi.predicts)
        items_v = build_items(half_v.spec, half_v.samples, pv.predicts)
        raw = None
        if pi.file_predicts is not None and pv.file_predicts is not None:
            raw = (pi.file_predicts, pv.file_predicts)
        outcome = _run(
            lambda: lm.full_match(
                lm.pool_vsqa(items_i, items_v, profile=profile, raw_predictions=raw), profile=profile
            )
        )
        if raw is not None and profile.vsqa_pool_by_position and len(raw[0]) != len(half_i.samples):
            outcome.warnings.append(
                f"VSQA_I predictions have {len(raw[0])} elements for {len(half_i.samples)} entries: pooled by "
                "position as the reference does, so every VSQA_V prediction is shifted"
            )
        return outcome


@dataclass
class ProfileScores:
    """One profile's results: per folder (for coverage and the halves), per paper task (0–1 headline)."""

    folders: dict[str, Outcome]
    paper: dict[str, Outcome]

    def failed(self) -> set[str]:
        """Folders whose scorer raised (both VSQA halves when the pooled VSQA did)."""
        names = {name for name, outcome in self.folders.items() if outcome.failed}
        if POOLED in self.paper and self.paper[POOLED].failed:
            names.update(VSQA_HALVES)
        return names


def score_profile(inputs: Mapping[str, TaskInput], profile_name: str, scoring: _Scoring) -> ProfileScores:
    from avibench.level_metrics.profile import get_profile

    profile = get_profile(profile_name)
    folders: dict[str, Outcome] = {}
    paper: dict[str, Outcome] = {}
    for name, task in inputs.items():
        if task.ready:
            folders[name] = scoring.folder(task, profile)
            if task.spec.paper_task == name:
                paper[name] = folders[name]
    if all(n in inputs and inputs[n].ready for n in VSQA_HALVES):
        paper[POOLED] = scoring.vsqa(profile)
    return ProfileScores(folders, paper)


def _x100(outcome: Outcome | None) -> float | None:
    if outcome is None or outcome.error or outcome.headline is None:
        return None
    return rounded(outcome.headline * 100)


def _profile_summary(scores: ProfileScores) -> tuple[dict[str, float | None], Any]:
    tasks = {name: _x100(scores.paper.get(name)) for name in AVIBENCH.paper_tasks()}
    return tasks, aggregate(tasks, benchmark=AVIBENCH)


def _json_safe(value: Any) -> Any:
    """NaN or infinite floats (the reference writes NaN in a few degenerate cases) become null: valid JSON."""
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _reference_shaped(scores: ProfileScores) -> dict[str, dict[str, Any]]:
    """Stage -> task key -> the reference's value, in the reference's order; VSQA pooled when both halves are."""
    doc: dict[str, dict[str, Any]] = {
        stage.key: {}
        for stage in (AVIBENCH.stage(k) for k in ("sensation", "perception", "understand", "reasoning"))
    }
    pooled = scores.paper.get(POOLED)
    for spec in AVIBENCH.tasks:
        if spec.name in VSQA_HALVES and pooled is not None:
            continue
        outcome = scores.folders.get(spec.name)
        if outcome is not None and outcome.error is None:
            doc[spec.stage][spec.eval_key] = _json_safe(outcome.value)
    if pooled is not None and pooled.error is None:
        first = AVIBENCH.task(VSQA_HALVES[0])
        doc[first.stage][POOLED.lower()] = _json_safe(pooled.value)
    return doc


def _coverage(task: TaskInput, primary: ProfileScores, pooled: Outcome | None) -> dict[str, Any]:
    samples = task.samples or []
    preds = task.predictions
    outcome = primary.folders.get(task.spec.name)
    formal = sum(not s.is_pre for s in samples)
    reason = task.reason
    warnings = list(task.warnings)
    if outcome is not None:
        reason = reason or outcome.error
        warnings.extend(outcome.warnings)
    if task.spec.name in VSQA_HALVES and pooled is not None:
        reason = reason or pooled.error
        warnings.extend(w for w in pooled.warnings if w not in warnings)
    scored = outcome.scored if outcome is not None and outcome.error is None else 0
    present = preds.present if preds else 0
    formal_present = (
        sum(p is not None for s, p in zip(samples, preds.predicts, strict=True) if not s.is_pre)
        if preds
        else 0
    )
    if reason is not None:
        status = "not_scored"
    elif scored < formal or formal_present < formal:
        status = "partial"
    else:
        status = "scored"
    return {
        "entries": len(samples),
        "formal": formal,
        "predictions": present,
        "failed": preds.failed if preds else 0,
        "unparsed": preds.unparsed if preds else 0,
        "scored": scored,
        "status": status,
        "reason": reason,
        "warnings": warnings,
    }


def _fense(
    inputs: Mapping[str, TaskInput], config: FenseConfig
) -> tuple[FenseFn | None, str | None, dict[str, Any]]:
    """Load FENSE only when a captioning task will be scored; otherwise say why not, once."""
    meta = config.meta()
    captioning = [t for t in inputs.values() if "fense_fn" in metric_kind(t.spec.metric).needs]
    ready = [t for t in captioning if t.ready]
    if not ready:
        names = ", ".join(t.spec.name for t in captioning) or "captioning"
        meta["note"] = (
            meta["note"] + " " if meta["note"] else ""
        ) + f"({names} not scored in this run; models not loaded)"
        return None, None, meta
    try:
        scorer = load_scorer(config)
    except FenseUnavailable as exc:
        meta.update(status="unavailable", sbert_model=None, echecker=None, note=str(exc))
        return None, str(exc), meta
    if scorer.models.warnings:
        meta["note"] = "; ".join([*([meta["note"]] if meta["note"] else []), *scorer.models.warnings])
    if config.status == "stand-in":
        for task in ready:
            task.warnings.append(meta["note"])
    return scorer, None, meta


def _chance_key(data_root: Path, spec: TaskSpec) -> str:
    """What a folder's chance level depends on: its data.json, and the version of the estimator."""
    digest = data_digest(task_dir(data_root, spec) / "data.json").hex()[:24]
    return f"{spec.name}:{ESTIMATOR_VERSION}:{digest}"


def _folder_chance(task: TaskInput) -> float:
    assert task.samples is not None
    spec = task.spec
    items = build_items(spec, task.samples, [None] * len(task.samples))
    counts = {s.index: len(candidates(s)) for s in task.samples}
    return metric_kind(spec.metric).chance(items, task=spec.name, candidates=counts)


def chance_levels(
    inputs: Mapping[str, TaskInput], *, data_root: Path | None = None, cache: Path | None = None
) -> dict[str, float]:
    """Per paper-level task chance level (0-100) from the dataset, for judging a baseline or head-normalising.

    A pooled task (VSQA) weights its folders by their number of formal entries. The structured tasks' levels
    are Monte Carlo estimates that would cost most of an eval; with ``cache`` (a JSON file, shared by every
    output dir) each folder's level is kept under the hash of its data.json and the estimator's version, and
    computed again only when either changes. Levels of other estimator versions are dropped when the file is
    written; a cache that cannot be read or written is ignored.
    """
    stored: dict[str, float] = {}
    if cache is not None:
        try:
            stored = {k: float(v) for k, v in json.loads(cache.read_text(encoding="utf-8")).items()}
        except (OSError, ValueError, TypeError, AttributeError):
            stored = {}  # a missing or damaged cache is rebuilt
    fresh = dict(stored)
    weighted: dict[str, list[tuple[float, int]]] = {}
    for task in inputs.values():
        if task.samples is None:
            continue
        spec = task.spec
        key = _chance_key(data_root, spec) if cache is not None and data_root is not None else None
        level = fresh.get(key) if key is not None else None
        if level is None:
            level = _folder_chance(task)
            if key is not None:
                fresh[key] = level
        formal = sum(not s.is_pre for s in task.samples)
        weighted.setdefault(spec.paper_task, []).append((level, formal))
    if cache is not None and fresh != stored:
        current = f":{ESTIMATOR_VERSION}:"
        with contextlib.suppress(OSError):  # a read-only cache folder only costs the estimate next time
            atomic_write_json(cache, {k: v for k, v in fresh.items() if current in k})
    return {
        name: rounded(sum(c * n for c, n in parts) / max(1, sum(n for _, n in parts)))
        for name, parts in weighted.items()
    }


def evaluate(
    *,
    data_root: Path,
    specs: Sequence[TaskSpec],
    source: Source,
    source_dir: Path,
    profile: str = "reference",
    fense: FenseConfig | None = None,
    model: str | None = None,
    label: str | None = None,
    fense_fn: FenseFn | None = None,
    chance_cache: Path | None = None,
) -> EvalResult:
    """Score the selected tasks in both profiles and build the eval.json object (``profile`` is the primary).

    ``fense_fn`` replaces the configured FENSE models (tests pass a loaded stand-in scorer); ``chance_cache`` is
    the file that keeps the chance levels between runs.
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; use one of {', '.join(PROFILES)}")
    config = fense or FenseConfig.from_env()
    inputs = load_inputs(data_root, specs, source, source_dir)
    if fense_fn is not None:
        fense_meta = config.meta()
        fense_reason = None
    else:
        fense_fn, fense_reason, fense_meta = _fense(inputs, config)
    scoring = _Scoring(inputs, fense_fn, fense_reason)
    by_profile = {name: score_profile(inputs, name, scoring) for name in PROFILES}
    primary = by_profile[profile]

    summaries = {name: _profile_summary(scores) for name, scores in by_profile.items()}
    tasks, agg = summaries[profile]
    notes = list(agg.notes)
    captioned = [
        t.paper_task
        for t in specs
        if "fense_fn" in metric_kind(t.metric).needs and tasks.get(t.paper_task) is not None
    ]
    if fense_meta["status"] == "stand-in" and captioned:
        notes.append(
            f"{', '.join(captioned)} was scored with stand-in FENSE models and is not comparable with published numbers"
        )
    summary = {
        "scale": "0-100",
        "profile": profile,
        "tasks": tasks,
        "stages": {k: rounded(v) for k, v in agg.stages.items()},
        "overall": rounded(agg.overall),
        "taxonomy": {k: rounded(v) for k, v in agg.taxonomy.items()},
        "taxonomy_note": " ".join([TAXONOMY_NOTE, *notes]),
        "chance": chance_levels(inputs, data_root=data_root, cache=chance_cache),
        "by_profile": {
            name: {
                "tasks": t,
                "stages": {k: rounded(v) for k, v in a.stages.items()},
                "overall": rounded(a.overall),
            }
            for name, (t, a) in summaries.items()
        },
    }
    pooled = primary.paper.get(POOLED)
    coverage = {name: _coverage(task, primary, pooled) for name, task in inputs.items()}
    failures = {name for scores in by_profile.values() for name in scores.failed()}
    errors = [
        f"{name}: {coverage[name]['reason'] or 'scoring failed in the other profile'}"
        for name, task in inputs.items()
        if task.broken or name in failures
    ]
    document = {
        **_reference_shaped(primary),
        "summary": summary,
        "coverage": coverage,
        "meta": {
            "benchmark": AVIBENCH.name,
            "profile": profile,
            "version": __version__,
            "model": model,
            "label": label,
            "source": source,
            "data_root": str(data_root),
            "dataset_fingerprint": fingerprint(data_root, specs),
            "fense": fense_meta,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    }
    return EvalResult(document=document, errors=errors, per_sample=_per_sample(inputs, by_profile))


def _per_sample(
    inputs: Mapping[str, TaskInput], by_profile: Mapping[str, ProfileScores]
) -> dict[str, dict[str, dict[str, float | None]]]:
    """Each scored folder's per-entry scores in every profile, keyed like the journals (data.json position)."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for name, task in inputs.items():
        for profile, scores in by_profile.items():
            outcome = scores.folders.get(name)
            if outcome is None or outcome.error is not None or task.samples is None:
                continue
            rows = out.setdefault(name, {})
            for sample, score in zip(task.samples, outcome.per_sample, strict=False):
                rows.setdefault(str(sample.index), {})[profile] = _finite(score)
    return out


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 6)
