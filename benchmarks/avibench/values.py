"""AVI-Bench's declaration: a question's value, its score, and each task's metric, all by the official scorers.

The official scorers are functions of a whole task: a wrong double-confirm pre-question zeroes a formal entry,
retrieval discounts answers that repeat, counting takes an RMSE over the task. So a question's value is what the
scorer reads of its entry together with the pre-questions that gate it (:func:`question_value`), and the numbers
the scorer aggregates of that entry, read once when the value is made (:func:`question_numbers`: its 0/1 after its
gates, its IoU and missed instances, its hits, ...). Its score is the scorer's own score of that entry
(:func:`question_score`); a task's metric totals its questions' numbers as the scorer totals them
(:func:`task_metric`, VSQA pooling its two folders as the reference does), which on every question of a task is
exactly the official score (:func:`official_score`, the scorer run on the entries, which writes the official
document). On a bootstrap draw, a question drawn twice is two questions, gated by its own pre-questions; the
metric scores every draw at once from the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from avibench.benchmarks.avibench.dataset import Sample
from avibench.benchmarks.avibench.fense import Pair, fense_summary
from avibench.benchmarks.avibench.metric_kinds import MetricKind, metric_kind
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.level_metrics.aggregate import rounded
from avibench.level_metrics.caption import caption_total
from avibench.level_metrics.common import (
    PRE_PREFIX,
    DrawnStats,
    Notes,
    column_stats,
    is_invalid_pre,
    prediction_text,
)
from avibench.level_metrics.profile import ScoringProfile, get_profile
from avibench.level_metrics.task_metrics import RESAMPLE_BATCH
from avibench.level_metrics.types import Item, TaskScore
from avibench.level_metrics.vsqa import pool_vsqa

if TYPE_CHECKING:
    from avibench.plugin import ScoredView

#: The paper-level task pooled from two folders (VSQA: images and videos) and its folders, from the task table.
((POOLED, VSQA_HALVES),) = AVIBENCH.pooled().items()
#: The reference eval.json's stage keys, in its order.
STAGE_KEYS = ("sensation", "perception", "understand", "reasoning")
#: Metric kinds whose scorer snaps answers to the entry's options.
OPTION_KINDS = frozenset({"full_match"})
#: Metric kinds whose scorer reads boxes, which may need the image's size.
BOX_KINDS = frozenset({"avl", "avlg"})


class Reading(NamedTuple):
    """What a profile reads of one answer: the prediction the official scorer takes (refine's answer)."""

    profile: str
    predict: str


def entry(sample: Sample, predict: str | None) -> dict[str, Any]:
    """What the official scorer reads of one data.json entry answered with ``predict`` (JSON)."""
    out: dict[str, Any] = {
        "task": sample.task,
        "index": sample.index,
        "id": sample.id,
        "answer": sample.answer,
        "predict": predict,
        "asked": sample.question.get("text") is not None,
    }
    if sample.spec.metric in OPTION_KINDS:
        out["options"] = sample.options
    return out


def _apart(identifier: str, tag: int | None) -> str:
    """An entry's id tagged as one question's own (``tag``; ``None``: as it is), after the double-confirm prefix:
    a pre-question still names its formal question the way the scorer matches them (by the id up to its first
    ``#``), and names no other question's."""
    if tag is None:
        return identifier
    if identifier.startswith(PRE_PREFIX):
        return f"{PRE_PREFIX}{tag}~{identifier[len(PRE_PREFIX) :]}"
    return f"{tag}~{identifier}"


def _scorer_item(e: Mapping[str, Any], suffix: str = "", tag: int | None = None) -> Item:
    return Item(
        index=int(e["index"]),
        id=_apart(f"{e['id']}{suffix}", tag),
        answer=e["answer"],
        predict=e["predict"],
        options=e.get("options", ""),
        question_text="" if e["asked"] else None,
        task=str(e["task"]),
    )


def gates(
    samples: Sequence[Sample], predicts: Mapping[int, str | None], profile: ScoringProfile
) -> dict[int, list[int]]:
    """Per formal entry (data.json position), the positions of the pre-questions that gate it in ``profile``.

    Reference (positional): a pre-question gates the first formal entry with its id that precedes it and was
    answered (the first one the scorer has recorded by then); an invalid pre-question makes every pre-question
    with its id skipped. Strict: every valid pre-question with the id gates every formal entry with it.
    """
    out: dict[int, list[int]] = {}
    pres = [s for s in samples if s.is_pre]
    if not pres:
        return out
    skipped = {  # invalid pre-questions the task's scorer leaves out (AVSQA's reference scorer keeps them)
        s.index
        for s in pres
        if (s.spec.metric != "avsqa" or profile.avsqa_skip_invalid_pre)
        and is_invalid_pre(_scorer_item(entry(s, None)))
    }
    poisoned = {s.id for s in pres if s.index in skipped}
    formal: dict[str, list[Sample]] = {}
    for s in samples:
        if not s.is_pre:
            formal.setdefault(s.id, []).append(s)
    for pre in pres:
        if (pre.id in poisoned) if profile.double_confirm_positional else (pre.index in skipped):
            continue
        same = formal.get(pre.formal_id, [])
        if profile.double_confirm_positional:
            if predicts.get(pre.index) is None:
                continue  # the reference never reads a pre-question without an answer
            same = [s for s in same if s.index < pre.index and predicts.get(s.index) is not None][:1]
        for target in same:
            out.setdefault(target.index, []).append(pre.index)
    return out


def question_value(
    sample: Sample,
    predict: str | None,
    gating: Sequence[Mapping[str, Any]] = (),
    *,
    size: tuple[int, int] | None = None,
    fense: Pair | None = None,
) -> dict[str, Any]:
    """One question's value: its entry and the pre-questions that gate it, its image size where its boxes need
    one, and its caption's FENSE inputs."""
    value: dict[str, Any] = {"entries": [entry(sample, predict), *gating]}
    if size is not None:
        value["size"] = list(size)
    if fense is not None:
        value["fense"] = list(fense)
    return value


def _items(values: Sequence[Mapping[str, Any]], tag: int | None = None) -> list[Item]:
    """The scorer's items of some values, in data.json order: a question drawn again is renamed (``~k``) with
    its gates, and a pre-question gating several questions is read once; ``tag``: every id tagged with it
    (:func:`_apart`)."""
    drawn: dict[tuple[str, int], int] = {}
    seen: set[tuple[str, str, int]] = set()
    items: list[tuple[int, int, Item]] = []
    for value in values:
        head = value["entries"][0]
        copy = drawn.get((head["task"], head["index"]), 0)
        drawn[(head["task"], head["index"])] = copy + 1
        suffix = f"~{copy}" if copy else ""
        for e in value["entries"]:
            item = _scorer_item(e, suffix, tag)
            if (item.task, item.id, item.index) not in seen:
                seen.add((item.task, item.id, item.index))
                items.append((item.index, copy, item))
    return [item for _, _, item in sorted(items, key=lambda t: (t[0], t[1]))]


def _sizes(values: Sequence[Mapping[str, Any]]) -> dict[int, tuple[int, int]]:
    return {
        int(v["entries"][0]["index"]): (int(v["size"][0]), int(v["size"][1])) for v in values if "size" in v
    }


def _replay(values: Sequence[Mapping[str, Any]]) -> Callable[[list[str], list[list[str]]], dict[str, Any]]:
    """FENSE from the pairs the values carry (computed once, before scoring, by the models)."""
    known: dict[str, Pair] = {}
    for v in values:
        if "fense" in v:
            text = prediction_text(_scorer_item(v["entries"][0]), clean=False, notes=Notes())
            known[str(text)] = (float(v["fense"][0]), float(v["fense"][1]))
    return lambda candidates, _refs: fense_summary([known[c] for c in candidates])


def official_score(task: str, values: Sequence[Mapping[str, Any]], profile: str) -> TaskScore:
    """The official scorer's result on the values of one task folder or of the pooled VSQA."""
    scoring = get_profile(profile)
    if task == POOLED:
        halves = [[i for i in _items(values) if i.task == half] for half in VSQA_HALVES]
        return metric_kind("full_match").score(pool_vsqa(*halves), profile=scoring)
    kind = metric_kind(AVIBENCH.task(task).metric)
    available = {"task": task, "image_sizes": _sizes(values), "fense_fn": _replay(values)}
    return kind.score(_items(values), profile=scoring, **{need: available[need] for need in kind.needs})


def _kind(task: str) -> MetricKind:
    """The metric kind of a task folder or of the pooled VSQA."""
    return metric_kind("full_match" if task == POOLED else AVIBENCH.task(task).metric)


def question_numbers(value: Mapping[str, Any], profile: str, notes: Notes | None = None) -> Any:
    """What the official scorer aggregates of the question's entry, read from its value once: its record
    (accuracy: its 0/1 after the pre-questions that gate it; AVL: IoU, class F1, missed instances; AVLG: its
    frame IoU; counting: semantic score and count error; retrieval: F1, hits at 1 and 3, ranked indices).
    ``None`` where the scorer leaves the entry out (a pre-question). Captions have none: their FENSE pair is
    what the metric reads."""
    return questions_numbers([value], profile, Notes() if notes is None else notes)[0]


def questions_numbers(values: Sequence[Mapping[str, Any]], profile: str, notes: Notes) -> list[Any]:
    """:func:`question_numbers` of each of ``values`` (questions of one task folder), read in one pass of the
    scorer: each question's entries (its own and its gates') tagged apart (:func:`_apart`), so that no entry of
    one question gates another's, and laid out question after question, so that the scorer notes what it
    would note reading them one by one, in the same order. A call per question was a third of an eval's
    scoring."""
    if not values:
        return []
    task = str(values[0]["entries"][0]["task"])
    kind = _kind(task)
    assert kind.records is not None
    items: list[Item] = []
    heads: list[int] = []
    for tag, value in enumerate(values):
        own = _items([value], tag)
        head = value["entries"][0]["index"]
        heads.append(len(items) + next(i for i, item in enumerate(own) if item.index == head))
        items += own
    available = {"task": task, "image_sizes": _sizes(values)}  # what the kinds with records may need
    records = kind.records.of(
        items, profile=get_profile(profile), notes=notes, **{need: available[need] for need in kind.needs}
    )
    return [records[head] for head in heads]


def gate_note(value: Mapping[str, Any], profile: str) -> str | None:
    """What the double-confirm pre-questions that gate a formal question did to its score in ``profile``: each
    pre-question's id, its expected and given answers, and whether it was answered right (a wrong one scores the
    question 0). ``None`` for a question no pre-question gates."""
    gates = value["entries"][1:]
    if not gates:
        return None
    said = []
    for pre in gates:
        as_formal = {**pre, "id": str(pre["id"]).removeprefix(PRE_PREFIX)}
        right = question_numbers({"entries": [as_formal]}, profile) == 1
        outcome = "answered right" if right else "answered wrong, so this question scores 0"
        said.append(
            f"double-confirm pre-question {pre['id']} (expected {pre['answer']!r}, answered {pre['predict']!r}): "
            f"{outcome}"
        )
    return "; ".join(said)


def _position(value: Mapping[str, Any]) -> int:
    return value["entries"][0]["index"]


def _caption_score(values: Sequence[Mapping[str, Any]]) -> TaskScore:
    """AVC's score from its captions' FENSE pairs, in data.json order (a value without one: a caption strict
    scores 0)."""
    pairs = [
        (float(v["fense"][0]), float(v["fense"][1])) for v in sorted(values, key=_position) if "fense" in v
    ]
    return caption_total(fense_summary(pairs), len(pairs), len(values) - len(pairs))


def _numbers(values: Sequence[Mapping[str, Any]], profile: str) -> list[Any]:
    """The values' numbers (read again from a value written without them)."""
    return [v["numbers"] if "numbers" in v else question_numbers(v, profile) for v in values]


def task_score(task: str, values: Sequence[Mapping[str, Any]], profile: str) -> TaskScore:
    """The official scorer's task score from its questions' numbers (:func:`question_numbers`): equal to
    :func:`official_score` on the same values, without parsing an answer again."""
    records = _kind(task).records
    if records is None:
        return _caption_score(values)
    ordered = values if records.order_free else sorted(values, key=_position)
    return records.total(column_stats(records.columns(_numbers(ordered, profile))), get_profile(profile))


def _unit_draws(units: int, draws: np.ndarray) -> np.ndarray:
    """How often each row of ``draws`` (unit positions) draws each unit: one row of counts per draw."""
    rows = len(draws)
    offsets = (draws + units * np.arange(rows)[:, None]).ravel()
    return np.bincount(offsets, minlength=rows * units).reshape(rows, units)


class TaskMetric:
    """A reported task's metric (see :func:`task_metric`), and the same metric on every bootstrap draw at once."""

    def __init__(self, task: str, profile: str) -> None:
        self.task, self.profile = task, profile
        self.__name__ = f"avibench_{task.lower()}_{profile}"

    def __call__(self, values: Sequence[Any]) -> float | None:
        if values and not isinstance(values[0], Mapping):
            # a samples.jsonl written before values were kept holds scores only: their mean
            return 100.0 * sum(float(v) for v in values) / len(values)
        if not self._pooled(values):
            return None
        return rounded(task_score(self.task, values, self.profile).headline * 100)

    def _pooled(self, values: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the run answered what the task needs: both folders of the pooled VSQA (every value of a run
        names the same folders)."""
        return self.task != POOLED or not values or set(values[0]["pooled_from"]) == set(VSQA_HALVES)

    def resample(self, units: Sequence[Sequence[Any]], draws: np.ndarray) -> list[float | None]:
        """The metric on each row of ``draws`` (positions in ``units``, each unit the values of its questions):
        the numbers of the questions drawn, each as often as its unit is drawn, in data.json order (a question
        drawn twice is two questions), totalled as the official scorer totals them."""
        flat = [(u, v) for u, unit in enumerate(units) for v in unit]
        records = _kind(self.task).records
        if records is None or not flat or not isinstance(flat[0][1], Mapping):
            return [self([v for i in row for v in units[i]]) for row in draws.tolist()]
        if not self._pooled([v for _, v in flat]):
            return [None] * len(draws)
        if not records.order_free:
            flat.sort(key=lambda uv: _position(uv[1]))
        columns = records.columns(_numbers([v for _, v in flat], self.profile))
        positions = np.asarray([u for u, _ in flat], dtype=np.intp)
        profile = get_profile(self.profile)
        scores: list[float | None] = []
        for start in range(
            0, len(draws), RESAMPLE_BATCH
        ):  # a batch of rows at a time bounds the count matrices
            times = _unit_draws(len(units), draws[start : start + RESAMPLE_BATCH])[:, positions]
            drawn = DrawnStats(columns, times)
            headlines = (
                records.headlines(drawn)
                if records.headlines is not None
                else [records.total(row, profile).headline for row in drawn.rows()]
            )
            scores += [rounded(headline * 100) for headline in headlines]
        return scores


def task_metric(task: str, profile: str) -> TaskMetric:
    """The metric of a reported task: the official score on 0-100 with the official rounding. The pooled VSQA
    has a score only when the run answered both of its folders (its values say which it did: ``pooled_from``),
    as the reference pools only when both prediction files are there. The values are one run's: all of them
    dicts (or, from an older samples.jsonl, all scores)."""
    return TaskMetric(task, profile)


def question_score(value: Mapping[str, Any], profile: str) -> float | None:
    """The official scorer's score of one question from its value (``None``: the scorer leaves it out, as a
    pre-question); rounded to 6 decimals, as samples.jsonl keeps it."""
    head = value["entries"][0]
    records = _kind(str(head["task"])).records
    if records is None:
        score = official_score(str(head["task"]), [value], profile).per_sample
        first = next(
            (s for s, i in zip(score, _items([value]), strict=True) if i.index == head["index"]), None
        )
    else:
        number = value["numbers"] if "numbers" in value else question_numbers(value, profile)
        first = None if number is None else records.sample(number)
    if first is None or not math.isfinite(first):
        return None
    return round(float(first), 6)


def json_safe(value: Any) -> Any:
    """NaN or infinite floats (the reference writes NaN in a few degenerate cases) become null: valid JSON."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def official_document(view: ScoredView) -> dict[str, Any]:
    """The reference evaluator's eval.json for one profile: stage -> task key -> the official scorer's value, in
    the reference's order, for each folder with a scored question; VSQA pooled (``vsqa``) when it is scored,
    else each of its folders on its own. Each value is totalled from the questions' numbers (:func:`task_score`,
    equal to the official scorer on them: ``tests/test_avibench_fast_metric.py``), not parsed again."""
    doc: dict[str, dict[str, Any]] = {key: {} for key in STAGE_KEYS}
    pooled = view.tasks.get(POOLED) is not None
    for spec in AVIBENCH.tasks:
        kept = [row.value for row in view.rows.get(spec.name, ()) if row.score is not None]
        if kept and not (spec.name in VSQA_HALVES and pooled):
            doc[spec.stage][spec.eval_key] = json_safe(task_score(spec.name, kept, view.profile).value)
    if pooled:
        kept = [row.value for half in VSQA_HALVES for row in view.rows[half] if row.score is not None]
        stage = AVIBENCH.task(VSQA_HALVES[0]).stage
        doc[stage][POOLED.lower()] = json_safe(task_score(POOLED, kept, view.profile).value)
    return doc
