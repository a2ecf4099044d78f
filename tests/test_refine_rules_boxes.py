"""Rule refine for AVL and AVLG boxes: any scale in, normalised xyxy out; refused when it would be a guess."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from PIL import Image

from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.refine.context import RefineContext, class_list
from avibench.refine.rules_boxes import parse_avl
from avibench.refine.rules_frames import parse_avlg

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
    ("On the 0-1000 grid: {'Dogs': [100, 200, 500, 600]}", {"dog_1": [0.1, 0.2, 0.5, 0.6]}),
    # whole numbers with no unit could be pixels of an image of any size as well as thousandths
    ("{'Dogs': [100, 200, 500, 600]}", None),
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
    (
        "Boxes on a 0-1000 scale.\nFrame 0: [100, 200, 500, 600]\nFrame 1: None",
        _all(frame_0=[0.1, 0.2, 0.5, 0.6]),
    ),
    ("Frame 0: [100, 200, 500, 600]\nFrame 1: None", None),
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


@pytest.fixture
def vga(tmp_path: Path) -> Path:
    image = tmp_path / "vga.png"
    Image.new("RGB", (640, 480)).save(image)
    return image


NEW_AVL_STYLES = [
    ('```json\n[{"bbox_2d": [64, 48, 320, 240], "label": "violin"}]\n```', {"violin_1": [0.1, 0.1, 0.5, 0.5]}),
    ('Sure!\n[{"bbox_2d": [0, 0, 640, 480], "label": "Car"}]', {"car_1": [0.0, 0.0, 1.0, 1.0]}),
    ('{"erhu_1": {"x1": 0.1, "y1": 0.2, "x2": 0.3, "y2": 0.4}}', {"erhu_1": [0.1, 0.2, 0.3, 0.4]}),
    ('[{"name": "cat", "left": 0.5, "top": 0.5, "right": 0.6, "bottom": 0.7}]', {"cat_1": [0.5, 0.5, 0.6, 0.7]}),
    ('{"dog": {"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}}', {"dog_1": [0.1, 0.2, 0.4, 0.6]}),
    ('tuba_1 = {"x_min": 0.2, "y_min": 0.1, "x_max": 0.4, "y_max": 0.5}', {"tuba_1": [0.2, 0.1, 0.4, 0.5]}),
    ("- **Pipa**: [0.2, 0.2, 0.4, 0.8]\n- **Erhu**: [0.5, 0.2, 0.7, 0.8]",
     {"pipa_1": [0.2, 0.2, 0.4, 0.8], "erhu_2": [0.5, 0.2, 0.7, 0.8]}),
    ("The horse is at [64, 48, 320, 240]. All coordinates are pixels.", {"horse_1": [0.1, 0.1, 0.5, 0.5]}),
    ("The flute goes from (64, 48) to (320, 240), in pixels.", {"flute_1": [0.1, 0.1, 0.5, 0.5]}),
    # refused: two objects in one clause, a whole-answer label, both pixel and grid scales, swapped points
    ("The person holding the violin: [0.1, 0.2, 0.3, 0.4]", None),
    ('answer = {"x_min": 0.1, "y_min": 0.2, "x_max": 0.3, "y_max": 0.4}', None),
    ("The dog is at [64, 48, 320, 240] (pixels on a 0-1000 scale).", None),
    ("The flute goes from (320, 240) to (64, 48) pixels.", None),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "expected"), NEW_AVL_STYLES)
def test_parse_avl_model_native_styles(raw: str, expected: dict[str, list[float]] | None, vga: Path) -> None:
    ctx = RefineContext(task="AVL", family="avl", classes=class_list(AVIBENCH.task("AVL")), image=vga)
    assert _avl(raw, ctx) == expected


def test_qwen_pixel_boxes_need_the_image_size() -> None:
    assert _avl('[{"bbox_2d": [64, 48, 320, 240], "label": "dog"}]') is None


SAME = [0.1, 0.2, 0.5, 0.6]
NEW_AVLG_STYLES = [
    ("Convention: x, y, width, height.\nframe_0: [0.1, 0.2, 0.4, 0.4]\nframe_1: null",
     _all(frame_0=[0.1, 0.2, 0.5, 0.6])),
    ("The guitar stays at [0.1, 0.2, 0.5, 0.6] throughout.", {f"frame_{k}": SAME for k in range(10)}),
    ("Frames 0-9: [0.1, 0.2, 0.5, 0.6]", {f"frame_{k}": SAME for k in range(10)}),
    ("| frame | box |\n|--|--|\n| frame_4 | [0.1, 0.2, 0.5, 0.6] |\n| frame_5 | not visible |", _all(frame_4=SAME)),
    ("Frames 0-2: [0.1, 0.2, 0.5, 0.6]\nFrame 2: None", None),
    ("It is at [0.1, 0.2, 0.5, 0.6] in every frame but moves later.", None),
    ("| frame | box |\n|--|--|\n| 0 | [0.1, 0.2, 0.5, 0.6] |\n| 0 | [0.2, 0.2, 0.5, 0.6] |", None),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "expected"), NEW_AVLG_STYLES)
def test_parse_avlg_new_styles(raw: str, expected: dict[str, object] | None) -> None:
    assert _frames(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "The guitar and the person are both at [0.2, 0.2, 0.8, 0.9].",
        "The violin might be at [0.1, 0.1, 0.3, 0.4], or the cello at [0.5, 0.1, 0.8, 0.9].",
    ],
)
def test_avl_prose_naming_two_objects_or_hedging_is_refused(raw: str) -> None:
    assert _avl(raw) is None


def test_avlg_hedged_all_frames_and_short_separator_tables() -> None:
    assert _frames("Perhaps it is at [0.1, 0.1, 0.4, 0.5] in every frame, or elsewhere.") is None
    table = "| frame | xmin | ymin | xmax | ymax |\n|:-:|:-:|:-:|:-:|:-:|\n| 3 | 0.2 | 0.2 | 0.6 | 0.7 |"
    assert _frames(table) == _all(frame_3=[0.2, 0.2, 0.6, 0.7])
