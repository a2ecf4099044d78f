"""Rule refine for AVL and AVLG boxes: any scale in, normalised xyxy out; refused when it would be a guess."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from PIL import Image

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import RefineContext, class_list
from avibench.refine.rules_boxes import parse_avl, parse_avlg

AVL = RefineContext(task="AVL", family="avl", classes=class_list(AVIBENCH.task("AVL")))
AVLG = RefineContext(task="AVLG", family="avlg")


def _avl(raw: str, ctx: RefineContext = AVL) -> dict[str, list[float]] | None:
    result = parse_avl(raw, ctx)
    if result is None:
        return None
    return {k: ast.literal_eval(v) for k, v in ast.literal_eval(result).items()}


AVL_CASES = [
    (
        "answer={'dog_1': '[0.1, 0.2, 0.5, 0.6]', 'guitar_2': '[0.3, 0.3, 0.9, 0.9]'}",
        {"dog_1": [0.1, 0.2, 0.5, 0.6], "guitar_2": [0.3, 0.3, 0.9, 0.9]},
    ),
    ('```json\n{"dog_1": [0.1, 0.2, 0.5, 0.6]}\n```', {"dog_1": [0.1, 0.2, 0.5, 0.6]}),
    ("{'Dogs': [100, 200, 500, 600]}", {"dog_1": [0.1, 0.2, 0.5, 0.6]}),
    ('[{"box_2d": [200, 100, 600, 500], "label": "dog"}]', {"dog_1": [0.1, 0.2, 0.5, 0.6]}),
    (
        "{'person': [[0.1, 0.1, 0.2, 0.2], [0.5, 0.5, 0.6, 0.6]]}",
        {"person_1": [0.1, 0.1, 0.2, 0.2], "person_2": [0.5, 0.5, 0.6, 0.6]},
    ),
    ("{'Lawn Mower 1': '0.1, 0.2, 0.5, 0.6'}", {"lawn-mower_1": [0.1, 0.2, 0.5, 0.6]}),
    (
        "dog_1: [0.1, 0.2, 0.5, 0.6]\ncat_2: [0.2, 0.2, 0.3, 0.3]",
        {"dog_1": [0.1, 0.2, 0.5, 0.6], "cat_2": [0.2, 0.2, 0.3, 0.3]},
    ),
    ("answer={}", {}),
    # refused
    ("{'dog_1': [100, 200, 1500, 600]}", None),  # pixels, but no image to know the size
    ("{'dog_1': '[0.5, 0.2, 0.1, 0.6]'}", None),  # corners out of order (perhaps xywh)
    ("{'dog_1': '[x_min, y_min, x_max, y_max]'}", None),
    ("{'dog_1': [0.1, 0.2, 0.5]}", None),
    ("{'dog_1': [NaN, 0.2, 0.5, 0.6]}", None),
    ("{'dog_1': [0.1, 0.2, 0.5, 0.6]", None),
    ("I cannot locate objects in images.", None),
    ("", None),
]


@pytest.mark.parametrize(("raw", "expected"), AVL_CASES)
def test_parse_avl(raw: str, expected: dict[str, list[float]] | None) -> None:
    assert _avl(raw) == expected


def test_avl_canonical_string_values() -> None:
    result = parse_avl("answer={'dog_1': [0.1, 0.2, 0.5, 0.6]}", AVL)
    assert result == '{"dog_1": "[0.1, 0.2, 0.5, 0.6]"}'
    assert json.loads(result) == {"dog_1": "[0.1, 0.2, 0.5, 0.6]"}


def test_pixel_boxes_use_the_image_size(tmp_path: Path) -> None:
    image = tmp_path / "frame.png"
    Image.new("RGB", (2000, 1500)).save(image)
    ctx = RefineContext(task="AVL", family="avl", classes=class_list(AVIBENCH.task("AVL")), image=image)
    assert _avl("{'dog_1': [200, 300, 1200, 1500]}", ctx) == {"dog_1": [0.1, 0.2, 0.6, 1.0]}
    assert _avl("{'dog_1': [20, 30, 120, 150]} (pixel coordinates)", ctx) == {
        "dog_1": [0.01, 0.02, 0.06, 0.1]
    }


def _frames(raw: str, ctx: RefineContext = AVLG) -> dict[str, object] | None:
    result = parse_avlg(raw, ctx)
    return None if result is None else ast.literal_eval(result)


def _all(**given: object) -> dict[str, object]:
    return {f"frame_{k}": given.get(f"frame_{k}") for k in range(10)}


AVLG_CASES = [
    (
        "answer={'frame_0': [0.1, 0.2, 0.5, 0.6], 'frame_1': None, 'frame_2': []}",
        _all(frame_0=[0.1, 0.2, 0.5, 0.6], frame_2=[]),
    ),
    ('{"frame_0": [0.1, 0.2, 0.5, 0.6], "frame_1": null}', _all(frame_0=[0.1, 0.2, 0.5, 0.6])),
    ("Frame 0: [100, 200, 500, 600]\nFrame 1: None", _all(frame_0=[0.1, 0.2, 0.5, 0.6])),
    ("{'frame_3': 'none', 'frame_12': [0.1, 0.1, 0.2, 0.2]}", _all()),
    (
        "{'frame_0': [0.1, 0.2, 0.5, 0.6], 'frame_1': [x_1, y_1, w_1, h_1]}".replace(
            "[x_1, y_1, w_1, h_1]", "'[x, y]'"
        ),
        _all(frame_0=[0.1, 0.2, 0.5, 0.6], frame_1=[]),
    ),
    # refused
    ("{'frame_0': [0.1, 0.2, 0.5, 0.6], 'frame_1': [0.2, 0.3", None),
    ("{'frame_0': [x0_min, y0_min, x0_max, y0_max], 'frame_1': None}", None),
    ("The object is near the man.", None),
    ("", None),
]


@pytest.mark.parametrize(("raw", "expected"), AVLG_CASES)
def test_parse_avlg(raw: str, expected: dict[str, object] | None) -> None:
    assert _frames(raw) == expected


def test_avlg_canonical_is_a_python_literal_with_none() -> None:
    result = parse_avlg("{'frame_0': [0.1, 0.2, 0.5, 0.6], 'frame_1': null}", AVLG)
    assert result is not None and result.startswith("{'frame_0': [0.1, 0.2, 0.5, 0.6], 'frame_1': None, ")
