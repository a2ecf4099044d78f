"""Builders of the perception tasks: AMIC, VMIC, AVL, AVM."""

from __future__ import annotations

from collections.abc import Callable

from avibench.benchmarks.avibench.sample_data.entries import Group, Question, TaskContext, source_clip, walk
from avibench.benchmarks.avibench.sample_data.vocab import SOURCES, Source, sources_in
from avibench.kits.media import Box, grid_cells, picture, timeline, tone

SAMPLES = 8
EVENT_S, EVENT_GAP_S = 0.12, 0.08
IMAGE_WH = (160, 120)


def _class_counts(
    ctx: TaskContext, pool: tuple[Source, ...], max_classes: int, max_count: int
) -> dict[Source, int]:
    n = int(ctx.rng.integers(1, max_classes + 1))
    return {s: int(ctx.rng.integers(1, max_count + 1)) for s in ctx.pick(pool, n)}


def _counts_answer(counts: dict[Source, int]) -> dict[str, str]:
    return {s.name: str(n) for s, n in sorted(counts.items(), key=lambda item: item[0].name)}


def _amic(ctx: TaskContext, sid: str, pool: tuple[Source, ...]) -> Question:
    """Each source sounds as separate tone events at its pitch; its count is the number of its events."""
    counts = _class_counts(ctx, pool, 3, 2)
    events = [s for s, n in counts.items() for _ in range(n)]
    order = ctx.rng.permutation(len(events))
    step = EVENT_S + EVENT_GAP_S
    audio = timeline(
        0.1 + step * len(events),
        [(0.05 + step * i, tone(events[j].freq, EVENT_S, 0.5)) for i, j in enumerate(order)],
    )
    return {"answer": _counts_answer(counts), "audio_list": [ctx.wav(f"{sid}.wav", audio)]}


VMIC_CELLS = grid_cells(5, 4, 20, IMAGE_WH)


def _vmic(ctx: TaskContext, sid: str, pool: tuple[Source, ...]) -> Question:
    """Each class is drawn as separate copies of its shape in its colour, one per grid cell."""
    counts = _class_counts(ctx, pool, 3, 4)
    boxes = iter(ctx.pick(VMIC_CELLS, sum(counts.values())))
    shapes = [(s.shape, next(boxes), s.colour) for s, n in counts.items() for _ in range(n)]
    image = ctx.image(f"{sid}.jpg", picture(IMAGE_WH, shapes))
    return {"answer": _counts_answer(counts), "image_list": [image]}


def _box_in_cell(ctx: TaskContext, cell: Box) -> Box:
    """A box of random even size (24-34 px) at a random even position inside a cell, 4 px clear of its far edges."""
    x, y, cw, ch = cell
    w, h = (2 * int(v) for v in ctx.rng.integers(12, 18, size=2))
    dx, dy = (2 * int(ctx.rng.integers(0, (c - 4 - s) // 2 + 1)) for c, s in ((cw, w), (ch, h)))
    return x + dx, y + dy, w, h


AVL_CELLS = [(40 * c, 40 * r, 40, 40) for r in range(3) for c in range(4)]


def _avl(ctx: TaskContext, sid: str, pool: tuple[Source, ...]) -> Question:
    """Sounding objects are drawn at their boxes and heard one after another; one silent object is drawn too."""
    n_classes = int(ctx.rng.integers(1, 3))
    chosen = ctx.pick(pool, n_classes + 1)
    sounding, silent = chosen[:n_classes], chosen[n_classes]
    instances = [s for s in sounding for _ in range(int(ctx.rng.integers(1, 3)))]
    *boxes, silent_box = (_box_in_cell(ctx, cell) for cell in ctx.pick(AVL_CELLS, len(instances) + 1))
    placed = list(zip(instances, boxes, strict=True))
    shapes = [(s.shape, box, s.colour) for s, box in placed] + [(silent.shape, silent_box, silent.colour)]
    audio = timeline(
        0.1 + 0.45 * n_classes, [(0.05 + 0.45 * i, tone(s.freq, 0.4)) for i, s in enumerate(sounding)]
    )
    return {
        "answer": {
            "bbox": {f"{s.name}_{i + 1}": list(box) for i, (s, box) in enumerate(placed)},
            "original_wh": list(IMAGE_WH),
        },
        "image_list": [ctx.image(f"{sid}.jpg", picture(IMAGE_WH, shapes))],
        "audio_list": [ctx.wav(f"{sid}.wav", audio)],
    }


def _avm(ctx: TaskContext, sid: str, answer: str) -> Question:
    """A shape blinks; its beeps fall on the frames where it shows ("yes") or where it is hidden ("no")."""
    source = ctx.pick(SOURCES)
    a = int(ctx.rng.integers(0, 4))
    shown = {a, a + 1, a + 5, a + 6}
    beeps = shown if answer == "yes" else {f + 2 for f in shown}
    box = (int(ctx.rng.integers(10, 80)), int(ctx.rng.integers(10, 50)), 32, 32)
    video, wav = source_clip(ctx, sid, source, box, shown, sorted(beeps))
    return {"answer": answer, "video": video, "audio_list": [wav]}


def _on_classes(task: str) -> list[tuple[Source, ...]]:
    """Each sample draws from the vocabulary sources in the task's class list."""
    return [sources_in(task, f"{task.lower()}_cls_list")] * SAMPLES


AMIC_TEXT = "Which sound-emitting objects can you hear in the audio, and how many of each?"
VMIC_TEXT = "Which objects are visible in the image, and how many of each?"
AVL_TEXT = "Locate every sound-emitting object in the image."
AVM_TEXT = "Do the beeps in the audio sound exactly when the shape is shown in the video?"
BUILDERS: dict[str, Callable[[TaskContext], list[Group]]] = {
    "AMIC": lambda ctx: walk(
        ctx, _on_classes("AMIC"), _amic, prompt="prompt_amic", text=AMIC_TEXT, options="amic_cls_list"
    ),
    "VMIC": lambda ctx: walk(
        ctx, _on_classes("VMIC"), _vmic, prompt="prompt_vmic", text=VMIC_TEXT, options="vmic_cls_list"
    ),
    "AVL": lambda ctx: walk(ctx, _on_classes("AVL"), _avl, prompt="prompt_avl", text=AVL_TEXT),
    "AVM": lambda ctx: walk(
        ctx, ctx.yes_no(SAMPLES), _avm, prompt="prompt_avm", text=AVM_TEXT, options="avm_options_list"
    ),
}
