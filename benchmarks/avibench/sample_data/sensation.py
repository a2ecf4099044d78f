"""Builders of the sensation (PriSe) tasks: ASQA, VSQA_I, VSQA_V, AVSQA, each formal question with its
double-confirm pre-question."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from avibench.benchmarks.avibench.sample_data.entries import (
    CLIP_FRAMES,
    HEAR_CHECK,
    SEE_CHECK,
    Group,
    Question,
    TaskContext,
    walk,
)
from avibench.benchmarks.avibench.sample_data.vocab import COLOURS
from avibench.kits.media import (
    FPS,
    SHAPES_2D,
    VIDEO_WH,
    Box,
    Shape,
    click,
    frame_beeps,
    grid_cells,
    lerp,
    noise,
    picture,
    render_frames,
    silence,
    timeline,
    tone,
)

# ---- ASQA: loudness, order, clarity, beat counting on 16 kHz wavs --------------------------------------------


ASQAClip = tuple[np.ndarray, str, str | None, str, str | None]  # audio, text, options, GT, subtask


def _asqa_volume(ctx: TaskContext) -> ASQAClip:
    answer = ctx.pick(["first", "last"])
    freq = ctx.pick([440.0, 660.0, 880.0])
    loud, soft = tone(freq, 0.3, 0.6), tone(freq, 0.3, 0.12)
    first, last = (loud, soft) if answer == "first" else (soft, loud)
    text = "Two beeps play one after the other. Which one is louder?"
    return timeline(1.0, [(0.1, first), (0.6, last)]), text, "options_sound_volume", answer, None


def _asqa_order(ctx: TaskContext) -> ASQAClip:
    answer = ctx.pick(["sound", "noise"])
    sound, hiss = tone(ctx.pick([330.0, 550.0]), 0.35, 0.5), noise(ctx.rng, 0.35, 0.5)
    first, last = (sound, hiss) if answer == "sound" else (hiss, sound)
    text = "The audio holds a pitched sound and a burst of noise. Which comes first?"
    return timeline(1.0, [(0.1, first), (0.55, last)]), text, "options_sound_order", answer, None


def _asqa_clarity(ctx: TaskContext) -> ASQAClip:
    answer = ctx.pick(["first", "last"])
    freq = ctx.pick([440.0, 660.0])
    clean = tone(freq, 0.3, 0.4)
    muddy = tone(freq, 0.3, 0.15) + noise(ctx.rng, 0.3, 0.6)
    first, last = (clean, muddy) if answer == "first" else (muddy, clean)
    text = "Two tones play one after the other. Which one is clearer?"
    return timeline(1.0, [(0.1, first), (0.6, last)]), text, "options_sound_clarity", answer, None


def _asqa_beats(ctx: TaskContext) -> ASQAClip:
    count = int(ctx.rng.integers(2, 7))
    audio = timeline(0.2 + 0.18 * count, [(0.1 + 0.18 * k, click()) for k in range(count)])
    return audio, "How many beats do you hear?", None, str(count), "beats_counting"


def _asqa(ctx: TaskContext, sid: str, make: Callable[[TaskContext], ASQAClip]) -> Question:
    audio, text, options, answer, subtask = make(ctx)
    wav = ctx.wav(f"{sid}.wav", audio)
    return {"text": text, "options": options, "answer": answer, "subtask": subtask, "audio_list": [wav]}


# ---- VSQA_I: colour, position, solids, counting on still images ------------------------------------------------

REGIONS: dict[str, tuple[int, int]] = {  # option -> (column, row) of a 3 x 3 grid
    "center": (1, 1),
    "top left": (0, 0),
    "top center": (1, 0),
    "top right": (2, 0),
    "bottom left": (0, 2),
    "bottom center": (1, 2),
    "bottom right": (2, 2),
}
COLOUR_OPTIONS = {"blue": "blue", "green": "green", "red": "red", "puprle": "purple", "yellow": "yellow"}
SOLID_BOXES: dict[str, tuple[int, int]] = {
    "cube": (44, 44),
    "cuboid": (66, 36),
    "cylinder": (32, 50),
    "cone": (40, 50),
}
W, H = VIDEO_WH


def _centred(w: int, h: int, ctx: TaskContext, jitter: int = 6) -> Box:
    dx, dy = (int(v) for v in ctx.rng.integers(-jitter, jitter + 1, size=2))
    return (W - w) // 2 + dx, (H - h) // 2 + dy, w, h


VSQAImage = tuple[list[Shape], str, str | None, str, str | None]  # shapes, text, options, GT, subtask


def _vsqa_colour(ctx: TaskContext) -> VSQAImage:
    option = ctx.pick(list(COLOUR_OPTIONS))
    shapes = [(ctx.pick(SHAPES_2D), _centred(36, 36, ctx, 20), COLOURS[COLOUR_OPTIONS[option]])]
    return shapes, "What is the colour of the shape in the image?", "get_from_color", option, None


def _vsqa_position(ctx: TaskContext) -> VSQAImage:
    region = ctx.pick(list(REGIONS))
    col, row = REGIONS[region]
    shapes = [("circle", grid_cells(3, 3, 24)[row * 3 + col], COLOURS["white"])]
    return shapes, "Where is the circle located?", "get_from_space_hard", region, None


def _vsqa_solid(ctx: TaskContext) -> VSQAImage:
    kind = ctx.pick(list(SOLID_BOXES))
    shapes = [(kind, _centred(*SOLID_BOXES[kind], ctx), COLOURS[ctx.pick(["cyan", "orange", "gray"])])]
    return shapes, "Which solid is shown in the image?", "get_from_3d-task2", kind, None


def _vsqa_count(ctx: TaskContext) -> VSQAImage:
    count = int(ctx.rng.integers(2, 6))
    colour = COLOURS[ctx.pick(["yellow", "green", "white"])]
    shapes = [("square", box, colour) for box in ctx.pick(grid_cells(4, 3, 18), count)]
    return shapes, "How many squares are there in the image?", None, str(count), None


def _vsqa_common(ctx: TaskContext) -> VSQAImage:
    answer = ctx.pick(["yes", "no"])
    kind, colour = ("circle", "red") if answer == "yes" else ctx.pick([("circle", "blue"), ("square", "red")])
    shapes = [(kind, _centred(32, 32, ctx, 24), COLOURS[colour])]
    return shapes, "Is there a red circle in the image?", "get_yes_no", answer, "common"


def _vsqa_i(ctx: TaskContext, sid: str, make: Callable[[TaskContext], VSQAImage]) -> Question:
    shapes, text, options, answer, subtask = make(ctx)
    image = ctx.image(f"{sid}.jpg", picture(VIDEO_WH, shapes))
    return {"text": text, "options": options, "answer": answer, "subtask": subtask, "image_list": [image]}


# ---- VSQA_V: shape, movement, moving object, counting on silent clips -------------------------------------------

SHAPE_OPTIONS = {"pyramid": "Triangular pyramid", "cone": "Cone", "cube": "Cube", "sphere": "Sphere"}
# option -> how far the object travels in x and y over the clip
MOVES: dict[str, tuple[int, int]] = {"horizontal": (77, 0), "vertical": (0, 55), "inclined": (77, 55)}
DIAGONALS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {  # option -> start and end corner (0/1 x, y)
    "Top-left to bottom-right": ((0, 0), (1, 1)),
    "Top-right to bottom-left": ((1, 0), (0, 1)),
    "Bottom-left to top-right": ((0, 1), (1, 0)),
    "Bottom-right to top-left": ((1, 1), (0, 0)),
}


# the shapes drawn in frame k, and the questions asked of the clip as (text, options, GT)
VSQAClip = tuple[Callable[[int], list[Shape]], list[tuple[str, str | None, str]]]


def _clip_shape(ctx: TaskContext) -> VSQAClip:
    kind = ctx.pick(list(SHAPE_OPTIONS))
    colour = COLOURS[ctx.pick(["red", "cyan", "yellow"])]
    question = ("What is the shape of the object in the video?", "what_shape", SHAPE_OPTIONS[kind])
    return (lambda k: [(kind, (30 + 2 * k, 28, 40, 40), colour)]), [question]


def _clip_movement(ctx: TaskContext) -> VSQAClip:
    move = ctx.pick(list(MOVES))
    dx, dy = MOVES[move]
    start = (10 if dx else 52, 8 if dy else 36)
    end = (start[0] + dx, start[1] + dy)
    colour = COLOURS[ctx.pick(["green", "orange", "white"])]
    question = ("How does the object move in the video?", "what_movement_2d", move)
    return (lambda k: [("circle", (*lerp(start, end, k / (CLIP_FRAMES - 1)), 24, 24), colour)]), [question]


def _clip_moving_object(ctx: TaskContext) -> VSQAClip:
    """One clip asked two questions under one id, as the reference data does."""
    mover, still = ctx.pick(["square", "circle", "triangle"], 2)
    path = ctx.pick(list(DIAGONALS))
    (x0, y0), (x1, y1) = DIAGONALS[path]
    a, b = (8 + 64 * x0, 6 + 60 * y0), (8 + 64 * x1, 6 + 60 * y1)
    still_box = (8 + 92 * x0, 6 + 62 * y1, 22, 22)  # the free corner beside the start, off the path
    questions = [
        ("Which object is moving in the video?", "which_object", mover),
        ("How does the moving object change its position?", "spacial_change", path),
    ]

    def shapes_at(k: int) -> list[Shape]:
        moved = (*lerp(a, b, k / (CLIP_FRAMES - 1)), 26, 26)
        return [(still, still_box, COLOURS["blue"]), (mover, moved, COLOURS["yellow"])]

    return shapes_at, questions


def _clip_count(ctx: TaskContext) -> VSQAClip:
    """A numeric question: no options, scored by digit matching."""
    count = int(ctx.rng.integers(2, 6))
    boxes = ctx.pick(grid_cells(4, 3, 20), count)
    question = ("How many circles appear in the video?", None, str(count))
    return (lambda k: [("circle", box, COLOURS["magenta"]) for box in boxes]), [question]


def _vsqa_v(ctx: TaskContext, sid: str, make: Callable[[TaskContext], VSQAClip]) -> list[Question]:
    shapes_at, questions = make(ctx)
    video = ctx.video(f"{sid}.mp4", render_frames(CLIP_FRAMES, shapes_at), silence(CLIP_FRAMES / FPS))
    return [{"text": t, "options": o, "answer": a, "video": video} for t, o, a in questions]


# ---- AVSQA: which objects sound; sounding objects hop while their beeps play ------------------------------------

AVSQA_KINDS = ("cube", "pyramid", "cone", "sphere")
AVSQA_COLOURS = ("red", "blue", "white", "green")
BEEP_FRAMES = (2, 3, 7, 8)
HOP = 10


def _avsqa_scene(ctx: TaskContext, sid: str, n_sounding: int) -> tuple[list[tuple[str, str]], str, str]:
    """Three objects in a row; ``n_sounding`` of them hop on the beep frames. Returns objects, video, wav."""
    kinds = ctx.pick(AVSQA_KINDS, 3)
    colours = ctx.pick(AVSQA_COLOURS, 3)
    sounding = set(ctx.pick(range(3), n_sounding))

    def shapes_at(k: int) -> list[Shape]:
        hops = [HOP if i in sounding and k in BEEP_FRAMES else 0 for i in range(3)]
        return [(kinds[i], (8 + 40 * i, 44 - hops[i], 32, 32), COLOURS[colours[i]]) for i in range(3)]

    audio = frame_beeps(ctx.pick([440.0, 660.0]), BEEP_FRAMES, CLIP_FRAMES)
    video = ctx.video(f"{sid}.mp4", render_frames(CLIP_FRAMES, shapes_at), audio)
    wav = ctx.wav(f"{sid}.wav", audio)
    return [(kinds[i], colours[i]) for i in sorted(sounding)], video, wav


AVSQA_PLAN = (("object", 1), ("object", 2), ("color", 1), ("object", 1))  # what is asked, sounding objects


def _avsqa(ctx: TaskContext, sid: str, step: tuple[str, int]) -> Question:
    asked, n_sounding = step
    objects, video, wav = _avsqa_scene(ctx, sid, n_sounding)
    if asked == "object":
        text = "Which objects make a sound?"
        answer = ";".join(sorted((kind for kind, _ in objects), key=AVSQA_KINDS.index))
    else:
        text = "What is the colour of the object that makes a sound?"
        answer = objects[0][1]
    options = f"avsqa_options_list_{asked}"
    return {"text": text, "options": options, "answer": answer, "video": video, "audio_list": [wav]}


BUILDERS: dict[str, Callable[[TaskContext], list[Group]]] = {
    "ASQA": lambda ctx: walk(
        ctx, (_asqa_volume, _asqa_order, _asqa_clarity, _asqa_beats, _asqa_volume), _asqa, check=HEAR_CHECK
    ),
    "VSQA_I": lambda ctx: walk(
        ctx, (_vsqa_colour, _vsqa_position, _vsqa_solid, _vsqa_count, _vsqa_common), _vsqa_i, check=SEE_CHECK
    ),
    "VSQA_V": lambda ctx: walk(
        ctx, (_clip_shape, _clip_movement, _clip_moving_object, _clip_count), _vsqa_v, check=SEE_CHECK
    ),
    "AVSQA": lambda ctx: walk(ctx, AVSQA_PLAN, _avsqa, check=HEAR_CHECK, prompt="prompt_avsqa"),
}
