"""Hand-made run folders (eval.json and journals, following the file contracts) for the report and leaderboard tests.

This module holds no tests itself; the report and leaderboard tests import it.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.contracts import RunPaths
from avibench.testing.harness import invoke

REFERENCE_SHAPED: dict[str, dict[str, Any]] = {
    "sensation": {"asqa": 0.29512, "avsqa": 0.16523, "vsqa": 0.32011},
    "perception": {
        "amic": {"Semantic": 0.61234, "Instance": 0.40126, "Average": 0.5068},
        "vmic": {"Semantic": 0.55001, "Instance": 0.33333, "Average": 0.44167},
        "avl": {"mIoU": 0.41097, "Instance": 0.37205, "Average": 0.39151},
        "avm": 0.768,
    },
    "understand": {
        "avr": {"Recall@1": 0.5, "Recall@3": 0.75, "F1_score": 0.61111, "Average": 0.618055},
        "var": {"Recall@1": 0.25, "Recall@3": 0.5, "F1_score": 0.44444, "Average": 0.40972},
        "avc": {"fense": 0.56123, "sbert_sim": 0.60321, "fer": 0.07012, "n_samples": 280, "average": 0.56123},
    },
    "reasoning": {"avh": 0.86, "vah": 0.8, "avqa": 0.40085, "avlg": 0.35123},
}

HEADLINE_KEY = {
    "amic": "Average",
    "vmic": "Average",
    "avl": "Average",
    "avr": "Average",
    "var": "Average",
    "avc": "average",
}


def paper_scores(shaped: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Paper-level headline scores on 0–100 (spec 4.10) from the reference-shaped part."""
    scores = {}
    for block in shaped.values():
        for key, value in block.items():
            scores[key.upper()] = round(
                100 * (value[HEADLINE_KEY[key]] if isinstance(value, dict) else value), 4
            )
    return scores


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _profile(tasks: dict[str, float | None]) -> dict[str, Any]:
    """A profile's block of ``summary.by_profile`` as the core writes it: task scores, then each summary number."""
    stages = {
        stage.name: _mean([tasks[t] or 0.0 for t in AVIBENCH.paper_tasks(stage.key)])
        for stage in AVIBENCH.stages
    }
    l1 = _mean([stages["perception"], stages["understanding"], stages["reasoning"]])
    overall = _mean(list(stages.values()))
    return {
        "tasks": tasks,
        **stages,
        "overall": overall,
        **{"l1_task": l1, "l2_modality": l1 * 0.97, "l3_stage": l1 * 0.85, "l4_domain": l1 * 0.6},
        "headline": overall,
        "counts": {t: 8 for t, v in tasks.items() if v is not None},
    }


def make_eval_doc(
    *,
    model: str = "gemini-test",
    drop: tuple[str, ...] = (),
    scale: float = 1.0,
    profile: str = "reference",
    dataset: str = "official",
    fense: str = "stand-in",
) -> dict[str, Any]:
    """An eval.json as the eval driver writes it; ``drop`` leaves folders unscored, ``scale`` shifts every score,
    ``dataset`` is the recorded dataset kind and ``fense`` the FENSE status."""
    shaped = json.loads(json.dumps(REFERENCE_SHAPED))
    for name in drop:
        spec = AVIBENCH.task(name)
        key = spec.paper_task.lower()
        shaped[spec.stage].pop(key, None)
    tasks: dict[str, float | None] = {t: None for t in AVIBENCH.paper_tasks()}
    tasks.update({t: round(v * scale, 4) for t, v in paper_scores(shaped).items()})
    reference = _profile(tasks)
    strict = _profile({t: None if v is None else round(v - 1.5, 4) for t, v in tasks.items()})
    coverage = {}
    for spec in AVIBENCH.tasks:
        dropped = spec.name in drop
        coverage[spec.name] = {
            "questions": 10,
            "answered": 0 if dropped else 10,
            "failed": 0,
            "missing": 10 if dropped else 0,
            "unparsed": 0,
            "scored": 0 if dropped else 8,
            "status": "not_scored" if dropped else "scored",
            "reason": "no predictions" if dropped else None,
            **({"notes": ["AVH: double-confirm pair out of order"]} if spec.name == "AVH" else {}),
        }
    summary = {
        "scale": "0-100",
        "profile": profile,
        "tasks": tasks,
        "headline": reference["overall"],
        "by_profile": {"reference": reference, "strict": strict},
    }
    meta = {
        "profile": profile,
        "version": "0.1.0",
        "model": model,
        "label": "run",
        "source": "refine",
        "data_root": "data/sample",
        "dataset_fingerprint": "sha256:abc123",
        "dataset": {"kind": dataset, "why": "set by the test"},
        "fense": {"status": fense, "sbert_model": "all-MiniLM-L6-v2", "echecker": None, "note": "test"},
        "created": "2026-11-20T10:11:12+00:00",
    }
    return {**shaped, "summary": summary, "coverage": coverage, "meta": meta}


def write_run(output_dir: Path, label: str, doc: dict[str, Any]) -> Path:
    run_dir = RunPaths(output_dir, label, AVIBENCH.name).root
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "eval.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return run_dir


def write_report(output_dir: Path, label: str) -> tuple[Path, Path]:
    """Write one AVI-Bench run's report with ``avibench report``; returns (md, html)."""
    result = invoke(
        ["report", "--benchmark", AVIBENCH.name, "--output-dir", str(output_dir), "--label", label]
    )
    assert result.code == 0, result.stderr
    paths = RunPaths(output_dir, label, AVIBENCH.name)
    return paths.report_md, paths.report_html


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


class PageParser(HTMLParser):
    """Collects every table (rows of cell texts), every image source, and tags that would load something."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images.append(dict(attrs)["src"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse_page(text: str) -> PageParser:
    parser = PageParser()
    parser.feed(text)
    parser.close()
    return parser


def test_summary_numbers_read_an_eval_json_written_before_the_core() -> None:
    from avibench.benchmarks.avibench.table import summary_numbers

    stages = {"perception": 50.0, "understanding": 60.0, "reasoning": 70.0, "sensation": 20.0}
    taxonomy = {"l1_task": 60.0, "l2_modality": 55.0, "l3_stage": 50.0, "l4_domain": 30.0}
    older = {
        "profile": "reference",
        "stages": stages,
        "overall": 50.0,
        "taxonomy": taxonomy,
        "by_profile": {
            "reference": {"tasks": {}, "stages": stages, "overall": 50.0},
            "strict": {"tasks": {}, "stages": {**stages, "sensation": 10.0}, "overall": 47.5},
        },
    }
    assert summary_numbers(older) == {"stages": stages, "overall": 50.0, "taxonomy": taxonomy}
    strict = summary_numbers(older, "strict")
    assert strict["stages"]["sensation"] == 10.0 and strict["overall"] == 47.5
    assert strict["taxonomy"] == dict.fromkeys(taxonomy)  # never recorded for the other profile
