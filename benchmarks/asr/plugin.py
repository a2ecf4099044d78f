"""The ASR suite as the omni and audio model reports score it: corpus WER for English, CER for Chinese, per task.

Reference profile: the scoring path of Qwen2-Audio's ``eval_audio/evaluate_asr.py`` (@595360e), which lmms-eval
reproduces: the raw reply is the hypothesis (special tokens taken out, nothing else; an empty reply is an empty
transcript), normalised as :mod:`avibench.level_metrics.asr` says, and errors are pooled over the task. Strict
profile: chatter around a quoted transcript is cut by rules (the LLM fallback only where they cannot), and a
refusal or "I cannot hear" reply is an empty transcript, counted unparsed. The reports give no number over
tasks, and neither does this plug-in: each task is its own number, lower is better.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from avibench.benchmarks.asr import layout, leaderboard_normaliser, predictions, prompt
from avibench.benchmarks.asr.options import LEADERBOARD
from avibench.benchmarks.asr.options import eval_options as declared_options
from avibench.errors import DatasetError
from avibench.items import Item, Part, Response
from avibench.level_metrics.asr import NORMALISERS, error_rate, unit, utterance_errors
from avibench.plugin import Benchmark, Problem, ScoredView, Task, incomplete_mark
from avibench.refine.asr import is_refusal, transcript

ANSWER_TOKENS = 256
"""The official script's ``max_new_tokens``."""


class ASR(Benchmark):
    """LibriSpeech, FLEURS, AISHELL-1, WenetSpeech and Common Voice 15 speech recognition."""

    name: ClassVar[str] = "asr"
    title: ClassVar[str] = "ASR (LibriSpeech, FLEURS, AISHELL-1, WenetSpeech, Common Voice 15)"
    templates: ClassVar[tuple[str, ...]] = prompt.template_ids()
    download_root: ClassVar[Path] = Path("data/asr")
    sample_root: ClassVar[Path] = Path("data/asr-sample")
    has_headline: ClassVar[bool] = False
    #: the official script scores an empty reply as an empty transcript: every reference word a deletion
    empty_answers: ClassVar[bool] = True
    #: the official script prints the rate unrounded
    score_digits: ClassVar[int | None] = None

    def tasks(self) -> tuple[Task, ...]:
        """Each task's group is its language, a name ``--tasks`` takes (as it takes a corpus: :meth:`expand`)."""
        return tuple(
            Task(name, title, spec.language, metric=error_rate)
            for name, (title, spec) in layout.TASKS.items()
        )

    def expand(self, name: str) -> tuple[Task, ...] | None:
        """``en`` or ``wer`` (the English tasks), ``zh`` or ``cer`` (the Chinese ones), or a corpus: ``librispeech``,
        ``fleurs``, ``aishell1``, ``wenetspeech``, ``commonvoice15``."""
        key = name.lower()
        language = {"en": "en", "wer": "en", "zh": "zh", "cer": "zh"}.get(key)
        found = tuple(
            t
            for t in self.tasks()
            if t.group == language or (language is None and t.name.startswith(f"{key}_"))
        )
        return found or None

    # -- data ---------------------------------------------------------------------------------------------

    def available(self, root: Path) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks() if layout.present(root, t.name))

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return layout.data_files(root, task.name)

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        template = template or self.templates[0]
        reading = layout.read(root, task.name)
        errors = [p for p in reading.problems if p.severity == "error"]
        if errors:
            first = errors[0]
            raise DatasetError(first.path, first.message, index=first.index, field=first.field)
        return [
            Item(
                benchmark=self.name,
                task=task.name,
                item_id=u.id,
                index=index,
                parts=(Part.audio(u.audio), Part.text(prompt.user_text(template, u.language))),
                answer=u.text,
                system=prompt.system_text(template),
                max_tokens=ANSWER_TOKENS,
                template=template,
                meta={"language": u.language},
                source=u,
            )
            for index, u in enumerate(reading.utterances)
        ]

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        return [p for t in tasks for p in layout.read(root, t.name).problems]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        from avibench.benchmarks.asr import sample  # the media stack, only when a sample is made

        return sample.generate(out, seed)

    # -- answers ------------------------------------------------------------------------------------------

    def extract(self, item: Item, text: str) -> str | None:
        return transcript(text)

    def refine_prompt(self, item: Item, raw: str) -> str | None:
        """The LLM fallback for chatter the rules cannot cut; a refusal has no transcript to find."""
        return None if is_refusal(raw) else prompt.refine_text(raw)

    def random_answer(self, item: Item, rng: random.Random) -> str:
        """As many random words (characters in Chinese) as the reference has, from the suite's vocabulary."""
        from avibench.benchmarks.asr.sample import CHINESE, ENGLISH

        chinese = item.meta["language"] == "zh"
        pool = "".join(CHINESE).replace(" ", "") if chinese else " ".join(ENGLISH).split()
        size = len(item.answer.replace(" ", "")) if chinese else len(item.answer.split())
        return ("" if chinese else " ").join(rng.choice(pool) for _ in range(size))

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        """The reference as a model gives it: plain, or between the special tokens some models emit."""
        language = item.meta["language"]
        return rng.choice([item.answer, f"<|{language}|>{item.answer}<|endoftext|>"])

    def read_predictions(self, path: Path, root: Path, tasks: Sequence[Task]) -> dict[str, list[Response]]:
        """The official script's results file(s), each record scored against its own ``gt``."""
        present = set(self.available(root))
        return predictions.read(path, {t.name: self.load(root, t) for t in tasks if t in present})

    def write_predictions(
        self, responses: Mapping[str, Sequence[Response]], out: Path, *, stage: str
    ) -> dict[str, Path]:
        """One results file per task in the official script's shape (it scores raw replies: both stages alike)."""
        return predictions.write(responses, out)

    # -- scoring ------------------------------------------------------------------------------------------

    def eval_options(self) -> list[Any]:
        return declared_options()

    def read(self, response: Response, profile: str) -> Any:
        """Reference: the raw reply as it is (an empty reply is an empty transcript). Strict: refine's
        transcript, else the rules'; ``None`` (a refusal, or chatter left unread) is scored as empty."""
        if response.status != "answered":
            return None
        if profile == "reference":
            return response.raw or ""
        return super().read(response, profile)

    def _counts(self, answer: Any, item: Item) -> tuple[int, int]:
        chosen = self.options.get("asr_normaliser", NORMALISERS[0])
        name, _, folder = chosen.partition("=")
        normaliser = leaderboard_normaliser.load(folder) if name == LEADERBOARD else chosen
        return utterance_errors(item.answer, answer or "", item.meta["language"], normaliser)

    def item_value(self, answer: Any, item: Item) -> Any:
        return self._counts(answer, item)

    def item_score(self, answer: Any, item: Item) -> float:
        """An utterance's share of reference tokens right: ``1 - errors / tokens``, at least 0."""
        errors, tokens = self._counts(answer, item)
        return max(0.0, 1.0 - errors / tokens) if tokens else float(errors == 0)

    def official_document(self, view: ScoredView) -> dict[str, Any] | None:
        """Each task under its name: ``{"wer"|"cer": percent, "errors", "words"|"chars", "utterances"}``."""
        out: dict[str, Any] = {}
        for task, rows in view.rows.items():
            kept = [row.value for row in rows if row.value is not None]
            rate = unit(layout.layout_of(task).language)
            out[task] = {
                rate: view.tasks.get(task),
                "errors": sum(e for e, _ in kept),
                "words" if rate == "wer" else "chars": sum(n for _, n in kept),
                "utterances": len(kept),
            }
        return out

    def summary_lines(self, document: Mapping[str, Any]) -> list[str]:
        lines = []
        for task in (t.name for t in self.tasks()):
            entry = document.get(task)
            if isinstance(entry, Mapping):
                rate = "wer" if "wer" in entry else "cer"
                value = entry.get(rate)
                shown = "-" if value is None else f"{value:.2f}%"
                mark = incomplete_mark(document, f"tasks.{task}")
                lines.append(
                    f"{task:<26}{rate.upper()} {shown:>8} ({entry.get('utterances', 0)} utterances){mark}"
                )
        return lines
