"""STAR-Bench as a benchmark plug-in: the official ``meta_info/`` layout, its rotations, parser and AA/ACR scoring
(docs/starbench.md).

Every dataset alias (``pc``, ``pc_sp``, ``pc_nsp``, ``tr``, ``tr_cap``, ``tr_uncut``, ``sr``, ``sr_ch``) is a task;
the official groups and ``+``-joined lists select several. Each item is asked once per run (rotated options, or
permuted clips for the temporal datasets), keyed ``id@k`` as the official runner keys it. Refine records the strict
parser's choice; there is no LLM fallback, because the official parser is rule-based and both profiles parse the
raw answer themselves when scoring.

Scoring is declared: each run is read by its profile's parser (``<X>``) and scores 1 when that is its gold letter;
:meth:`left_out` drops what each profile drops; a dataset's score is its official AA over the values
``(sub-category, score)``, ``headline`` (``Final MA``'s AA) their mean, and the top level of eval.json is the
official ``performance.json`` block per dataset and the ``Final MA`` row. A run that asked only each item's first
variant (``infer --variants first``) is scored on run 0 alone, as the official evaluator does with robust
evaluation off, and ``meta.rotations`` says so.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.starbench import layout, sample
from avibench.benchmarks.starbench.predictions import read_results, results_path, write_workdir
from avibench.errors import AvibenchError
from avibench.file_memo import items_per_version
from avibench.items import Item, Response, first_variants
from avibench.kits import multiple_choice as mc
from avibench.kits.published import board_rows, published_table
from avibench.level_metrics.starbench import (
    FINAL_MA,
    aa_metric,
    chance_block,
    dataset_block,
    runs_counted,
    with_final_ma,
)
from avibench.level_metrics.starbench_parse import is_error_response, parse_choice
from avibench.level_metrics.starbench_profile import REFERENCE, STRICT, get_profile
from avibench.level_metrics.starbench_rotation import family
from avibench.level_metrics.task_metrics import Metric, mean_of_tasks
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, ScoredRow, ScoredView, Task

GROUP_TITLES = {"pc": "perception", "tr": "temporal reasoning", "sr": "spatial reasoning"}
ALIASES = tuple(layout.DATASETS)
#: each scored by its official AA
TASKS: tuple[Task, ...] = tuple(
    Task(alias, title, GROUP_TITLES[family(alias)], metric=aa_metric(alias, REFERENCE))
    for alias, (title, _) in layout.SHOWN.items()
)
BY_NAME = {t.name: t for t in TASKS}
#: Loaded runs per version of a dataset's metadata file and root (see :meth:`STARBench.load`).
_ITEMS: dict[tuple[Any, ...], tuple[Item, ...]] = {}


def asked_runs(responses: Sequence[Response]) -> tuple[list[Response], bool]:
    """The runs a dataset was asked in, and whether that is run 0 alone: a run that asked nothing but first
    variants (rotations off) is scored on them; otherwise every run counts, those never asked as missing."""
    first = {item.key for item in first_variants(r.item for r in responses)}
    asked = [r for r in responses if r.status != "missing"]
    first_only = len(first) < len(responses) and bool(asked) and all(r.item.key in first for r in asked)
    return ([r for r in responses if r.item.key in first] if first_only else list(responses)), first_only


class STARBench(Benchmark):
    """STAR-Bench (InternLM): spatial-temporal audio reasoning, scored as AA and ACR over rotated runs."""

    name: ClassVar[str] = layout.BENCHMARK
    title: ClassVar[str] = "STAR-Bench"
    templates: ClassVar[tuple[str, ...]] = ("official",)
    download_root: ClassVar[Path] = Path("data/starbench")
    sample_root: ClassVar[Path] = Path("data/starbench-sample")
    #: ``Final MA``'s AA: the mean over the datasets scored (the headline's completeness rests on the default ones)
    aggregates: ClassVar[Mapping[str, Any]] = {"headline": mean_of_tasks(*ALIASES)}
    #: a run asked with rotations off is read from every rotation (:func:`asked_runs`)
    reads_asked_variants: ClassVar[bool] = True
    #: the official AA and ACR are rounded inside (reference) or kept exact (strict); Final MA is their mean
    score_digits: ClassVar[int | None] = None
    #: a missing run leaves out its whole id (:meth:`left_out`); unparsed and failed runs count wrong
    reference_drops_unanswered: ClassVar[bool] = False

    # -- tasks ------------------------------------------------------------------------------------------

    def tasks(self) -> tuple[Task, ...]:
        return TASKS

    def default_tasks(self) -> tuple[Task, ...]:
        return self.expand(layout.DEFAULT_GROUP) or ()

    def expand(self, name: str) -> tuple[Task, ...] | None:
        """Aliases, the official group names and ``+``-joined lists of them, in order and without repeats."""
        aliases: dict[str, None] = {}
        for part in (p.strip().lower() for p in name.split("+")):
            if part not in layout.GROUPS and part not in BY_NAME:
                known = ", ".join([*BY_NAME, *layout.GROUPS])
                raise AvibenchError(f"unknown STAR-Bench dataset or group {part!r}; known: {known}")
            aliases.update(dict.fromkeys(layout.GROUPS.get(part, (part,))))
        return tuple(BY_NAME[a] for a in aliases)

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in TASKS if (Path(root) / layout.DATASETS[t.name]).is_file())

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / layout.DATASETS[task.name],)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        """The task's runs, built once per version of its metadata file (eval loads a task for scoring,
        completeness and per-sample rows)."""
        return items_per_version(
            _ITEMS,
            Path(root) / layout.DATASETS[task.name],
            (str(root), task.name),
            lambda: layout.load_items(root, task.name),
        )

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return layout.validate(root, [t.name for t in tasks])

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        """The sample; returns the questions (runs) each dataset asks."""
        sample.generate(out, seed=seed, full_size=full_size)
        return {t.name: len(self.load(out, t)) for t in TASKS}

    # -- answers ----------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        letter = parse_choice(text, item.options, STRICT).letter
        return None if letter is None else item.options[mc.LETTERS.index(letter)]

    def random_answer(self, item: Item, rng: random.Random) -> str:
        letter = mc.random_reply(item.options, rng)
        return rng.choice(sample.RANDOM_PHRASES).format(letter=letter)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        letter = mc.LETTERS[item.options.index(item.answer)]
        return rng.choice(sample.ORACLE_PHRASES).format(letter=letter, text=item.answer)

    # -- scoring: the declaration ----------------------------------------------------------------------

    def read(self, response: Response, profile: str) -> str | None:
        """The profile's parse of the raw answer as the official token ``<X>``; ``None`` for a run never asked,
        nothing parsed, or a failed request (the reference parses an official error string like an answer)."""
        parser = get_profile(profile)
        if response.status == "missing" or (
            is_error_response(response.raw) and not parser.error_strings_are_answers
        ):
            return None
        choice = parse_choice(response.raw, response.item.options, parser)
        return None if choice.letter is None else choice.token

    def item_score(self, answer: str | None, item: Item) -> float:
        """1 when the token read is the run's gold letter (a lower-case letter never is)."""
        return float(answer == f"<{mc.LETTERS[item.options.index(item.answer)]}>")

    def item_value(self, answer: str | None, item: Item) -> list[Any]:
        """``(sub-category, score)``: perception's AA is a mean over sub-categories."""
        return [item.meta.get("sub-category"), self.item_score(answer, item)]

    def metric_of(self, task: str, profile: str) -> Metric | None:
        """The official AA, rounded to two decimals as the official evaluator writes it (reference) or exact."""
        return aa_metric(task, get_profile(profile)) if task in BY_NAME else None

    def left_out(self, rows: Sequence[ScoredRow], profile: str) -> Collection[int]:
        """Every run of an id with a run missing (reference), a repeated presentation after its first answered
        one (strict)."""
        items = [row.response.item for row in rows]
        # a failed request with a reply on record (an official error row) is a run answered with its error string
        statuses = ["answered" if r.response.raw is not None else r.response.status for r in rows]
        return [k for k, kept in enumerate(runs_counted(items, statuses, get_profile(profile))) if not kept]

    def task_chance(self, task: Task, items: Sequence[Item], profile: str) -> float | None:
        """The AA of guessing uniformly, aggregated as the reference aggregates (perception: over sub-categories),
        in both profiles: a uniform guess is never unread, so the profiles' readings do not change it."""
        return float(chance_block(task.name, items, REFERENCE)["Total"]["AA"])

    def official_document(self, view: ScoredView) -> dict[str, Any]:
        """``performance.json``'s block per dataset with a run scored, and their ``Final MA`` row."""
        profile = get_profile(view.profile)
        blocks = {
            alias: dataset_block(
                alias, [(r.response.item, r.score) for r in rows if r.score is not None], profile
            )
            for alias, rows in view.rows.items()
            if view.tasks.get(alias) is not None
        }
        return with_final_ma(blocks)

    def aggregate_members(self) -> dict[str, tuple[str, ...]]:
        """``Final MA`` is the mean of the datasets scored; the published MA rests on the default datasets, so a
        run without one of them has an incomplete headline."""
        return {"headline": tuple(t.name for t in self.default_tasks())}

    def score(
        self,
        responses: Mapping[str, Sequence[Response]],
        *,
        profile: str,
        options: Mapping[str, Any],
        tasks: Sequence[Task] = (),
    ) -> Scored:
        """The core's scoring of the runs asked (run 0 alone in a rotations-off run; a dataset with no run asked
        is not scored), with what the core does not know: the ACR beside each profile's AA, the ids with a run
        missing and the runs scored per dataset in ``coverage``, and ``meta.rotations``."""
        asked = {
            alias: asked_runs(rs) for alias, rs in responses.items() if any(r.status != "missing" for r in rs)
        }
        scored = super().score(
            {alias: runs for alias, (runs, _) in asked.items()},
            profile=profile,
            options=options,
            tasks=tasks or tuple(t for t in TASKS if t.name in asked),
        )
        document = scored.document
        summary = document["summary"]
        for view in summary["by_profile"].values():
            view["acr"] = {k: b["Total"]["ACR"] for k, b in view["official"].items() if k != FINAL_MA}
            view["headline_acr"] = view["official"][FINAL_MA]["ACR"]
        summary.update({key: summary["by_profile"][profile][key] for key in ("acr", "headline_acr")})
        for alias, (runs, first_only) in asked.items():
            incomplete = {r.item.item_id for r in runs if r.status == "missing"}
            document["coverage"][alias].update(
                incomplete_ids=len(incomplete), runs="first" if first_only else "all"
            )
        kinds = {first_only for _, first_only in asked.values()}
        document["meta"] = {"rotations": "mixed" if len(kinds) > 1 else "off" if kinds == {True} else "on"}
        return scored

    def evaluate(self, request: EvalRequest) -> Scored:
        """Score, and list the selected datasets that have no answers at all in ``coverage``."""
        scored = super().evaluate(request)
        coverage = scored.document["coverage"]
        source = "no infer_results.jsonl" if request.predictions is not None else "no infer journal"
        for task in request.tasks:
            coverage.setdefault(task.name, {"status": "not_scored", "reason": source})
        return scored

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """One model's official work directory: ``<alias>/infer_results.jsonl`` per dataset."""
        responses = {
            t.name: read_results(results_path(path, t.name), self.load(root, t))
            for t in tasks
            if results_path(path, t.name).is_file()
        }
        if not responses:
            names = ", ".join(t.name for t in tasks)
            raise AvibenchError(
                f"{path}: no <dataset>/infer_results.jsonl for the selected datasets ({names})"
            )
        return responses

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """The official work directory; both stages write the raw answers (the official file holds them)."""
        return write_workdir(responses, out)

    def run_of(self, item: Item) -> str | None:
        """The rotation (or clip permutation) index: AA of run k over the items, for the run-to-run spread."""
        return str(item.meta["rotate_id"])

    # -- pages ------------------------------------------------------------------------------------------

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        from avibench.benchmarks.starbench.report import summary_lines

        return summary_lines(document)

    def report_page(self) -> Any:
        """The one report, with AA and ACR side by side and the run-to-run spread as its profiles section."""
        from avibench.benchmarks.starbench.report import PAGE

        return PAGE

    def published(self) -> list[dict[str, Any]]:
        """The paper's table (data v0.5); its MA does not say whether it is AA or ACR."""
        tasks = {"pc": "perception", "tr": "temporal", "sr": "spatial"}
        return board_rows(
            published_table(self.name), headline="ma", tasks=tasks, label="{model} ({data_version})"
        )
