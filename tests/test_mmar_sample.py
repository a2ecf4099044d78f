"""The generated MMAR / MMAU samples: deterministic, complete, audio that answers its questions, and baselines."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from avibench.benchmarks.mmar.layout import MMAR, MMAU, Layout
from avibench.benchmarks.mmar.sample import FULL_SIZE, FULL_UNIT, mmar_records, mmau_records
from avibench.items import Item, Response
from avibench.level_metrics.mmar import (
    MMAR_CATEGORIES,
    MMAR_MODALITIES,
    MMAU_DIFFICULTIES,
    MMAU_TASKS,
    token_set_match,
)
from avibench.plugin import get_benchmark
from avibench.refine.choice import choose

FRAME = 160  # 10 ms at 16 kHz
oracle_answer = get_benchmark("mmar").oracle_answer
random_answer = get_benchmark("mmar").random_answer


def load(root: Path, layout: Layout, template: str | None = None) -> list[Item]:
    plugin = get_benchmark(layout.benchmark)
    return plugin.load(root, plugin.tasks()[0], template)


def generate_mmar(root: Path, seed: int = 0) -> None:
    get_benchmark("mmar").generate_sample(root, seed=seed)


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("samples")
    generate_mmar(base / "mmar")
    get_benchmark("mmau").generate_sample(base / "mmau")
    return {"mmar": base / "mmar", "mmau": base / "mmau"}


def test_deterministic(roots: dict[str, Path], tmp_path: Path) -> None:
    generate_mmar(tmp_path / "again")
    for path in roots["mmar"].rglob("*"):
        if path.is_file():
            assert (tmp_path / "again" / path.relative_to(roots["mmar"])).read_bytes() == path.read_bytes(), (
                path
            )
    generate_mmar(tmp_path / "other", seed=1)
    assert (tmp_path / "other" / "MMAR-meta.jsonl").read_bytes() != (
        roots["mmar"] / "MMAR-meta.jsonl"
    ).read_bytes()


def test_official_file_formats(roots: dict[str, Path]) -> None:
    text = (roots["mmar"] / "MMAR-meta.jsonl").read_text()
    assert not text.endswith("\n") and len(text.splitlines()) == 30
    assert isinstance(json.loads((roots["mmau"] / "mmau-test-mini.json").read_text()), list)


def test_every_breakdown_value_occurs() -> None:
    mmar = [r for r, _ in mmar_records(30)]
    assert {r["modality"] for r in mmar} == set(MMAR_MODALITIES)
    assert {r["category"] for r in mmar} == set(MMAR_CATEGORIES)
    assert {len(r["choices"]) for r in mmar} >= {2, 3, 4}
    mmau = [r for r, _ in mmau_records(30)]
    assert {r["task"] for r in mmau} == set(MMAU_TASKS)
    assert {r["difficulty"] for r in mmau} == set(MMAU_DIFFICULTIES)
    assert any(isinstance(r["category"], list) for r in mmau)


def test_full_size_counts() -> None:
    pairs = mmar_records(FULL_SIZE, unit=FULL_UNIT)
    assert len(pairs) == 1000 and len({r["id"] for r, _ in pairs}) == 1000
    assert max(len(q.audio) for _, q in pairs) / 16_000 < 0.5  # tiny clips
    assert len({r["id"] for r, _ in mmau_records(FULL_SIZE, unit=FULL_UNIT)}) == 1000


def _frames(audio: np.ndarray) -> np.ndarray:
    n = len(audio) // FRAME
    return np.sqrt((audio[: n * FRAME].reshape(n, FRAME) ** 2).mean(axis=1))


def _bursts(audio: np.ndarray) -> list[np.ndarray]:
    """The sounding stretches of a clip, in order."""
    loud = _frames(audio) > 0.02
    edges = np.flatnonzero(np.diff(np.concatenate([[0], loud.astype(int), [0]])))
    return [audio[a * FRAME : b * FRAME] for a, b in zip(edges[::2], edges[1::2], strict=True)]


def _pitch(audio: np.ndarray) -> float:
    """Zero crossings per second (twice the frequency of a pure tone)."""
    return float(np.count_nonzero(np.diff(np.signbit(audio)))) * 16_000 / len(audio)


def test_audio_answers_its_question(roots: dict[str, Path]) -> None:
    checked = Counter()
    for record in [json.loads(line) for line in (roots["mmar"] / "MMAR-meta.jsonl").read_text().splitlines()]:
        audio, rate = sf.read(roots["mmar"] / record["audio_path"])
        assert rate == 16_000 and audio.ndim == 1
        question, answer, choices = record["question"], record["answer"], record["choices"]
        bursts = _bursts(audio)
        if question.startswith("How many beeps"):
            assert len(bursts) == int(answer)
        elif question.startswith("Which of the two tones is louder"):
            first, second = (float(np.abs(b).max()) for b in bursts)
            assert (first > second) == (answer == "The first")
        elif question.startswith("Which tone has the higher pitch"):
            first, second = (_pitch(b) for b in bursts)
            expected = (
                choices[2] if abs(first - second) < 20 else choices[0] if first > second else choices[1]
            )
            assert answer == expected
        elif question.startswith("How does the pitch move"):
            quarters = [_pitch(q) for q in np.array_split(audio, 4)]
            rising = quarters == sorted(quarters)
            assert answer == choices[0 if rising else 1]
        else:  # speech-like clips fall silent between syllables; music-like ones sound throughout
            silent = float(np.mean(_frames(audio) < 0.01))
            assert (silent > 0.2) == (answer == "Speech")
        checked[question] += 1
    assert len(checked) == 5


def score_responses(responses: list[Response], name: str) -> dict[str, dict]:
    """Each profile's official document of one task's responses, as the plug-in scores them."""
    plugin = get_benchmark(name)
    scored = plugin.score({plugin.layout.task: responses}, profile="reference", options={})
    return {p: view["official"] for p, view in scored.document["summary"]["by_profile"].items()}


@pytest.mark.parametrize(("name", "layout"), [("mmar", MMAR), ("mmau", MMAU)])
@pytest.mark.parametrize("template", ["mmar-official", "mmar-lettered"])
def test_oracle_scores_full_marks_in_both_profiles(roots, name, layout, template) -> None:
    items = load(roots[name], layout, template)
    rng = random.Random(0)
    answers = [oracle_answer(item, rng) for item in items]
    for item, answer in zip(items, answers, strict=True):
        assert token_set_match(item.answer, answer, item.options)
    results = score_responses([Response(i, "answered", a) for i, a in zip(items, answers, strict=True)], name)
    assert results["reference"]["total"] == {"accuracy": 100.0, "n": 30}
    assert results["strict"]["total"] == {"accuracy": 100.0, "n": 30}
    assert len(set(answers) - {i.answer for i in items}) >= 10  # phrased, not just the bare answers


def test_oracle_letter_styles_only_when_letters_are_shown(roots: dict[str, Path]) -> None:
    rng = random.Random(3)
    official = [oracle_answer(i, rng) for i in load(roots["mmar"], MMAR) for _ in range(5)]
    assert not any(a.startswith("(") for a in official)
    lettered = load(roots["mmar"], MMAR, "mmar-lettered")
    assert any(oracle_answer(i, rng).startswith("(") for i in lettered for _ in range(5))


def test_random_answer_is_uniform_over_choices(roots: dict[str, Path]) -> None:
    items = load(roots["mmar"], MMAR)
    rng = random.Random(0)
    item = items[0]
    counts = Counter(random_answer(item, rng) for _ in range(4000))
    assert set(counts) == set(item.options)
    assert max(counts.values()) - min(counts.values()) < 4000 / len(item.options) * 0.2
    for one in items:
        assert choose(random_answer(one, rng), one.options, ()) is not None


def test_random_baseline_lands_near_chance(tmp_path: Path) -> None:
    # 300 questions; the strict profile of a uniform guess should sit within a few points of the chance level
    pairs = mmar_records(300, seed=5, unit=FULL_UNIT)
    root = tmp_path / "mmar"
    root.mkdir()
    (root / "MMAR-meta.jsonl").write_text("\n".join(json.dumps(r) for r, _ in pairs))
    items = load(root, MMAR)
    rng = random.Random(1)
    results = score_responses([Response(i, "answered", random_answer(i, rng)) for i in items], "mmar")
    chance = 100.0 * sum(1.0 / len(i.options) for i in items) / len(items)
    assert abs(results["strict"]["total"]["accuracy"] - chance) < 8
    assert results["reference"]["total"]["accuracy"] >= results["strict"]["total"]["accuracy"]
