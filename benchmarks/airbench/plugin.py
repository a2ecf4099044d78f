"""AIR-Bench as a benchmark plug-in: two tasks, ``foundation`` (single choice) and ``chat`` (open questions, judged).

A data root holds ``Foundation/Foundation_meta.json`` and/or ``Chat/Chat_meta.json`` (either alone is valid; the
other part is reported as absent). Foundation items are keyed by ``uniq_id`` and asked with the ``air-official``
prompt (or ``air-clean``: only the real options); refine reads the chosen option's text with the strict
extractor, then the LLM fallback. Chat answers pass through refine unchanged and are scored by a pairwise LLM
judge at eval time (``--judge-model``, ``--judge-base-url``, ``--judge-concurrency``; key from ``JUDGE_API_KEY``
or ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from avibench.benchmarks.airbench import layout, predictions, sample
from avibench.benchmarks.airbench.prompt import DEFAULT_TEMPLATE, foundation_prompt, foundation_templates
from avibench.contracts import RunPaths, journal_responses, latest_by_key
from avibench.definitions import prompt_resource
from avibench.errors import AvibenchError
from avibench.items import Item, Response
from avibench.level_metrics.airbench import strict_choice
from avibench.level_metrics.airbench_chat import ORDERS
from avibench.plugin import Benchmark, EvalRequest, Problem, Scored, Task

if TYPE_CHECKING:
    from avibench.benchmarks.airbench.scoring import EvalInputs
    from avibench.evaluate.judge import JudgeSettings

FOUNDATION = Task(
    "foundation", "Foundation: 19 single-choice tasks over speech, sound and music", "foundation"
)
CHAT = Task("chat", "Chat: open questions scored by a pairwise LLM judge", "chat")
SECTIONS = {FOUNDATION.name: layout.FOUNDATION_SECTION, CHAT.name: layout.CHAT_SECTION}
#: The refine LLM sees the question with only its real options, whichever template the model was asked with.
CLEAN_TEMPLATE = "air-clean"
SAMPLE_PER_SUBSET = 2
#: Questions per Foundation subset and per Chat folder at full size (about 19k and 2k, as published).
FULL_PER_SUBSET = {FOUNDATION.name: 760, CHAT.name: 200}


@cache
def _refine_template() -> str:
    return prompt_resource("airbench", "refine.txt")


def judge_departures(settings: JudgeSettings, template_id: str) -> list[str]:
    """How a run's judge differs from the official one (empty: the official settings). The official script's
    temperature 2.0 for a random half of its requests is never reproduced, so it is not listed."""
    from avibench.refine.airbench_judge import OFFICIAL_JUDGE, default_judge_template

    found = []
    if template_id != default_judge_template():
        found.append(f"template {template_id}")
    for name, value in (
        ("model", settings.model),
        ("temperature", settings.temperature),
        ("max_tokens", settings.max_tokens),
    ):
        if value != OFFICIAL_JUDGE[name]:
            found.append(f"{name} {value} (official {OFFICIAL_JUDGE[name]})")
    return found


class AIRBench(Benchmark):
    """AIR-Bench (ACL 2024): Foundation and Chat."""

    name: ClassVar[str] = "airbench"
    title: ClassVar[str] = "AIR-Bench"
    templates: ClassVar[tuple[str, ...]] = tuple(foundation_templates())
    download_root: ClassVar[Path] = Path("data/airbench")
    sample_root: ClassVar[Path] = Path("data/airbench-sample")

    def tasks(self) -> tuple[Task, ...]:
        return (FOUNDATION, CHAT)

    # -- data -------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks() if SECTIONS[t.name].meta_path(root).is_file())

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (SECTIONS[task.name].meta_path(root),)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        """The task's items; audio is not checked here (``validate-data`` does; infer records a missing file)."""
        if task.name == FOUNDATION.name:
            return layout.load_foundation(root, template or DEFAULT_TEMPLATE, check_audio=False)
        return layout.load_chat(root, check_audio=False)

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        present = self.available(root)
        if not present:
            return [Problem(str(p.path), p.message) for p in layout.validate(root)]
        return [
            Problem(p.path, p.message, p.index, p.field)
            for task in tasks
            if task in present
            for p in layout.validate_section(SECTIONS[task.name], root)
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        for task in self.tasks():
            per_subset = FULL_PER_SUBSET[task.name] if full_size else SAMPLE_PER_SUBSET
            sample.generate(
                out, per_subset=per_subset, seed=seed, foundation=task is FOUNDATION, chat=task is CHAT
            )
        return {t.name: len(self.load(out, t)) for t in self.tasks()}

    # -- answers ----------------------------------------------------------------------------------------

    def passthrough(self, task: str) -> bool:
        return task == CHAT.name

    def extract(self, item: Item, text: str) -> str | None:
        """The text of the option a Foundation answer chooses (strict extractor), else ``None``."""
        chosen = strict_choice(text, item.options)
        return None if chosen is None else item.options[chosen]

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        if item.task != FOUNDATION.name:
            return None
        question = foundation_prompt(item.source["question"], item.options, CLEAN_TEMPLATE)
        return _refine_template().format(question=question, response=raw)

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return sample.random_answer(item, rng)

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return sample.oracle_answer(item, rng)

    # -- scoring ----------------------------------------------------------------------------------------

    def _inputs(self, request: EvalRequest) -> EvalInputs:
        """The responses of every selected task that has some, and why the others have none."""
        from avibench.benchmarks.airbench.scoring import EvalInputs

        inputs = EvalInputs()
        if request.predictions is not None:
            inputs.responses = self.read_predictions(request.predictions, request.data_root, request.tasks)
            for task in request.tasks:
                if task.name not in inputs.responses:
                    name = predictions.TASK_FILES[task.name][1]
                    inputs.absent[task.name] = f"no {name} in {request.predictions}"
            return inputs
        for task in request.tasks:
            meta, journal = (
                SECTIONS[task.name].meta_path(request.data_root),
                request.paths.infer_journal(task.name),
            )
            if not meta.is_file():
                inputs.absent[task.name] = f"no {meta} under the data root"
            elif not journal.is_file():
                inputs.absent[task.name] = f"no infer journal {journal}"
            else:
                items = self.load(request.data_root, task)
                inputs.responses[task.name] = journal_responses(request.paths, task.name, items)
        return inputs

    def eval_options(self) -> list[Any]:
        from avibench.benchmarks.airbench.judging import DEFAULT_JUDGE_MODEL
        from avibench.evaluate.judge import JudgeSettings

        return JudgeSettings.cli_options(DEFAULT_JUDGE_MODEL, template_and_temperature=True)

    def evaluate(self, request: EvalRequest) -> Scored:
        from avibench.benchmarks.airbench.judging import (
            DEFAULT_JUDGE_MODEL,
            DEFAULT_JUDGE_TEMPERATURE,
            judge_chat,
        )
        from avibench.benchmarks.airbench.scoring import build_document, per_sample
        from avibench.evaluate.judge import JudgeSettings
        from avibench.refine.airbench_judge import TEMPLATE_FILE, judge_template

        try:
            template = judge_template(request.options.get("judge_template"))
        except ValueError as exc:
            raise AvibenchError(str(exc)) from None
        inputs = self._inputs(request)
        temperature = request.options.get("judge_temperature")
        settings = JudgeSettings.from_options(request.options, DEFAULT_JUDGE_MODEL)
        settings = replace(
            settings,
            temperature=DEFAULT_JUDGE_TEMPERATURE if temperature is None else float(temperature),
            retry=replace(
                settings.retry, empty_retries=0
            ),  # the official script keeps an empty reply at once
        )
        errors: list[str] = []
        if CHAT.name in inputs.responses:
            try:
                inputs.judging = judge_chat(
                    inputs.responses[CHAT.name], request.paths.root, settings, template
                )
            except AvibenchError as exc:
                inputs.unjudged = str(exc)
                errors.append(f"chat not scored: {exc}")
        document = build_document(inputs, request.profile)
        judging = inputs.judging
        if judging is not None and judging.errors:
            errors.append(f"chat: {judging.errors} judge requests failed ({judging.first_error})")
        document["meta"] = {"template": self._template_used(request)}
        if CHAT.name in inputs.responses:
            document["meta"]["judge"] = {
                "model": settings.model,
                "template": template.id,
                "template_sha256": template.sha256,
                "template_file": f"prompts/airbench/{TEMPLATE_FILE}",
                "temperature": settings.temperature,
                "max_tokens": settings.max_tokens,
                "orders": list(ORDERS),
                "departures": judge_departures(settings, template.id),
                "requests_sent": judging.requests if judging else 0,
                "replies_reused": judging.reused if judging else 0,
            }
        return Scored(document=document, errors=errors, per_sample=per_sample(inputs))

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        """The task scores, then why a part that was scored is partial (judge failures quote the judge)."""
        lines = super().summary_lines(document)
        coverage = document.get("coverage") or {}
        for part in (FOUNDATION.name, CHAT.name):
            cover = coverage.get(part) or {}
            if cover.get("status") == "partial" and cover.get("reason"):
                lines.append(f"{part}: partial: {cover['reason']}")
        return lines

    @staticmethod
    def _template_used(request: EvalRequest) -> str | None:
        """The Foundation prompt template recorded by infer (``None`` for official result files)."""
        if request.predictions is not None:
            return None
        found = {
            r.get("params", {}).get("template")
            for r in latest_by_key(request.paths.infer_journal(FOUNDATION.name)).values()
        }
        found.discard(None)
        return ",".join(sorted(found)) or None

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        files = predictions.prediction_files(path)
        return {
            t.name: predictions.responses_from_results(files[t.name], t.name, self.load(root, t), root)
            for t in tasks
            if t.name in files
        }

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        return predictions.write_predictions(responses, out, stage=stage)

    # -- pages ------------------------------------------------------------------------------------------

    def published(self) -> list[dict[str, Any]]:
        from avibench.benchmarks.airbench.pages import published_rows

        return published_rows()

    def report_blocks(self, document: Mapping[str, Any], paths: RunPaths) -> list[Any]:
        from avibench.benchmarks.airbench.pages import report_blocks

        return report_blocks(document)

    def write_leaderboard(self, output_dir: Path, options: Any = None) -> tuple[Path, ...]:
        from avibench.benchmarks.airbench.pages import write_leaderboard

        return write_leaderboard(self, output_dir, options)
