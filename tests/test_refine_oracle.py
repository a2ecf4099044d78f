"""The oracle baseline (ground truth phrased as models answer) must refine, by rules alone, to full marks.

The checks below follow the reference scorer's parsing (spec section 4) for each family, so a canonical
format the scorer would misread fails here even before the evaluate stage exists.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from avibench.benchmarks.avibench.dataset import Sample, load_task
from avibench.benchmarks.avibench.plugin import AVIBench
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.contracts import RunPaths
from avibench.infer.cli import infer
from avibench.refine.llm_fallback import LLMSettings
from avibench.refine.runner import refine_run
from avibench.store import latest_by_index


def _clean(text: str) -> str:
    return re.sub(r"[^\w\s]", "", text.lower())


def _full_match(pred: str, sample: Sample) -> bool:
    cleaned = _clean(pred)
    label = str(sample.answer)
    options = sample.options if isinstance(sample.options, list) else []
    hits = []
    for option in options:
        m = re.search(rf"\b{re.escape(_clean(str(option)))}\b", cleaned)
        if m and _clean(str(option)):
            hits.append((m.start(), option))
    if hits:
        cleaned = sorted(hits, key=lambda h: h[0])[0][1]
    if cleaned == label:
        return True
    first = re.search(r"\d+", cleaned)
    return label.isdigit() and first is not None and first.group() == label


def _avsqa(pred: str, sample: Sample) -> bool:
    def parts(text: str) -> list[str]:
        return sorted(p.strip() for p in text.lower().strip().split(";"))

    return parts(pred.replace("*", "").replace("#", "")) == parts(str(sample.answer))


def _mic(pred: str, sample: Sample) -> bool:
    parsed = json.loads(pred.replace("'", '"'))
    return {k: int(v) for k, v in parsed.items()} == {k: int(v) for k, v in sample.answer.items()}


def _iou(a: list[float], b: list[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _truth_boxes(sample: Sample) -> tuple[dict[str, Any], float, float]:
    truth = sample.answer
    boxes = truth.get("bbox", truth)
    width, height = truth.get("original_wh") or (1, 1)
    return boxes, float(width), float(height)


def _xyxy(box: list[float]) -> list[float]:
    x, y, w, h = box
    return [x, y, x + w, y + h]


def _avl(pred: str, sample: Sample) -> bool:
    boxes, width, height = _truth_boxes(sample)
    parsed = ast.literal_eval(pred)
    assert set(parsed) == {k for k, v in boxes.items() if v}
    for key, gt in boxes.items():
        x1, y1, x2, y2 = ast.literal_eval(parsed[key])
        assert max(abs(x1), abs(y1), abs(x2), abs(y2)) <= 1.5  # read as normalised by the scorer's heuristic
        if _iou([x1 * width, y1 * height, x2 * width, y2 * height], _xyxy(gt)) < 0.99:
            return False
    return True


def _avlg(pred: str, sample: Sample) -> bool:
    boxes, width, height = _truth_boxes(sample)
    parsed = ast.literal_eval(pred)
    for key, gt in boxes.items():
        p = parsed.get(key)
        if gt is None:
            if p is not None:
                return False
        elif p is None or _iou([p[0] * width, p[1] * height, p[2] * width, p[3] * height], _xyxy(gt)) < 0.99:
            return False
    return True


def _retrieval(pred: str, sample: Sample) -> bool:
    tokens = _clean(pred).replace("\n", " ").split(" ")
    return sorted({int(t) for t in tokens if t.isdigit()}) == sorted(set(sample.answer))


CHECKS = {
    "full_match": _full_match,
    "avsqa": _avsqa,
    "mic": _mic,
    "avl": _avl,
    "avlg": _avlg,
    "retrieval": _retrieval,
}


@pytest.fixture(scope="module")
def oracle_run(sample_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("oracle")
    result = CliRunner().invoke(
        infer,
        ["--model", "oracle", "--data-root", str(sample_root), "--output-dir", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    paths = RunPaths(out, "oracle", "avibench")
    refine_run(
        AVIBench(), AVIBENCH.tasks, data_root=sample_root, paths=paths, mode="rules", settings=LLMSettings()
    )
    return paths.root


@pytest.mark.parametrize("spec", [t for t in AVIBENCH.tasks if t.metric != "caption"], ids=lambda t: t.name)
def test_oracle_refines_to_full_marks(spec: Any, sample_root: Path, oracle_run: Path) -> None:
    samples = load_task(sample_root, spec)
    refined = latest_by_index(oracle_run / "refine" / f"{spec.name}.jsonl")
    check = CHECKS[spec.metric]
    wrong = []
    for sample in samples:
        if sample.answer is None:
            continue  # invalid pre-question slots are not scored
        record = refined[sample.index]
        expected_method = "passthrough" if spec.family == "passthrough" else "rule"
        if record["method"] != expected_method or not check(record["predict"], sample):
            wrong.append((sample.index, record["raw"], record["predict"]))
    assert not wrong
