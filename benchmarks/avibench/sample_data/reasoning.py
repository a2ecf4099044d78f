"""Builders of the reasoning tasks: AVH, VAH, AVQA, AVLG."""

from __future__ import annotations

from collections.abc import Callable

from avibench.benchmarks.avibench.sample_data.entries import (
    CLIP_FRAMES,
    Group,
    Question,
    TaskContext,
    source_clip,
    walk,
)
from avibench.benchmarks.avibench.sample_data.vocab import SOURCES, Source, sources_in
from avibench.kits.media import VIDEO_WH, Box, frame_beeps, lerp, picture

SAMPLES = 8


def _random_box(ctx: TaskContext, size: int = 30) -> Box:
    x, y = (int(ctx.rng.integers(4, limit - size - 4)) for limit in VIDEO_WH)
    return x, y, size, size


def _avh(ctx: TaskContext, sid: str, answer: str) -> Question:
    """Asks whether a named shape is visible while the beeps sound; for "no" a different shape is drawn."""
    asked, drawn = ctx.pick(SOURCES, 2)
    if answer == "yes":
        drawn = asked
    a = int(ctx.rng.integers(1, 5))
    video, wav = source_clip(ctx, sid, drawn, _random_box(ctx), set(range(a, a + 6)), [a + 1, a + 4])
    text = f"While the beeps sound, is {asked.described} visible in the video?"
    return {"text": text, "answer": answer, "video": video, "audio_list": [wav]}


def _vah(ctx: TaskContext, sid: str, answer: str) -> Question:
    """Asks whether a beep sounds while the shape is visible; for "no" the beeps fall after it has gone."""
    source = ctx.pick(SOURCES)
    a = int(ctx.rng.integers(0, 2))
    beeps = [a + 1, a + 3] if answer == "yes" else [a + 7, a + 9]
    video, wav = source_clip(ctx, sid, source, _random_box(ctx), set(range(a, a + 5)), beeps)
    text = f"The video shows {source.described}. Do you hear a beep while it is visible?"
    return {"text": text, "answer": answer, "video": video, "audio_list": [wav]}


AVQA_QUESTIONS: dict[str, tuple[str, str | None]] = {  # kind -> text, options (None: a numeric answer)
    "instrument": ("Which instrument is playing?", "avqa_cls_list"),
    "visible": ("Is the playing instrument visible in the video?", "avqa_options_list_is"),
    "count": ("How many times does the instrument sound?", None),
    "sound": ("Is there any sound in the video?", "avqa_options_list_is"),
}
# per sample: the questions asked of its clip, and whether the clip is silent. The first clip is asked
# twice under one id, as in the reference data.
AVQA_PLAN = (
    (("instrument", "visible"), False),
    (("count",), False),
    (("sound",), True),
    (("instrument",), False),
    (("sound",), False),
    (("count",), False),
    (("instrument",), False),
)
LEAKY_PROMPT_SAMPLE = "00003"  # this sample carries the undefined pseudo-key "prompt_avqa", sent verbatim


def _avqa_answer(kind: str, source: Source, beeps: list[int]) -> str:
    answers = {"instrument": source.name, "visible": "yes", "count": str(len(beeps))}
    return answers.get(kind, "yes" if beeps else "no")


def _avqa(ctx: TaskContext, sid: str, step: tuple[tuple[str, ...], bool]) -> list[Question]:
    """A clip of one instrument's shape; its tone sounds a counted number of times (never in a silent clip)."""
    kinds, silent = step
    source = ctx.pick(sources_in("AVQA", "avqa_cls_list"))
    beeps = [] if silent else [1 + 3 * i for i in range(int(ctx.rng.integers(1, 5)))]
    video, wav = source_clip(ctx, sid, source, _random_box(ctx), set(range(CLIP_FRAMES)), beeps)
    prompt = {"prompt": "prompt_avqa"} if sid == LEAKY_PROMPT_SAMPLE else {}
    return [
        {
            **prompt,
            "text": AVQA_QUESTIONS[kind][0],
            "options": AVQA_QUESTIONS[kind][1],
            "answer": _avqa_answer(kind, source, beeps),
            "video": video,
            "audio_list": [wav],
        }
        for kind in kinds
    ]


AVLG_FRAMES = 10
AVLG_PLAN = (2, 0, 3, 2, 0, 2, 3)  # null (silent, hidden) frames per sample
AVLG_TEXTS = (
    "Where is the sound-emitting {name} in each frame? Answer null for frames where it is not heard.",
    "Track the object that makes the sound across the 10 frames.",
)


def _avlg(ctx: TaskContext, sid: str, n_null: int) -> list[Question]:
    """The sounding object moves across 10 frames and is heard only while drawn; a silent object stays still."""
    source, still = ctx.pick(sources_in("AVL", "avl_cls_list"), 2)
    size = 2 * int(ctx.rng.integers(12, 16))
    x0, x1 = (int(v) for v in ctx.rng.integers(2, VIDEO_WH[0] - size - 2, size=2))
    y0, y1 = (int(v) for v in ctx.rng.integers(2, 66 - size, size=2))
    start = int(ctx.rng.integers(0, AVLG_FRAMES - n_null + 1))
    hidden = set(range(start, start + n_null))
    boxes: list[Box | None] = [
        None if f in hidden else (*lerp((x0, y0), (x1, y1), f / (AVLG_FRAMES - 1)), size, size)
        for f in range(AVLG_FRAMES)
    ]
    still_box = (int(ctx.rng.integers(4, 100)), 70, 22, 22)
    back = (still.shape, still_box, still.colour)
    drawn = [[back] if box is None else [back, (source.shape, box, source.colour)] for box in boxes]
    images = [ctx.image(f"{sid}/{f}.jpg", picture(VIDEO_WH, shapes)) for f, shapes in enumerate(drawn)]
    audio = frame_beeps(source.freq, [f for f, box in enumerate(boxes) if box is not None], AVLG_FRAMES)
    answer = {
        "bbox": {f"frame_{f}": None if box is None else list(box) for f, box in enumerate(boxes)},
        "original_wh": list(VIDEO_WH),
    }
    wav = ctx.wav(f"{sid}.wav", audio)
    texts = AVLG_TEXTS if sid == "00000" else AVLG_TEXTS[:1]
    return [
        {"text": t.format(name=source.name), "answer": answer, "image_list": images, "audio_list": [wav]}
        for t in texts
    ]


BUILDERS: dict[str, Callable[[TaskContext], list[Group]]] = {
    "AVH": lambda ctx: walk(ctx, ctx.yes_no(SAMPLES), _avh, prompt="prompt_avh", options="avh_options_list"),
    "VAH": lambda ctx: walk(ctx, ctx.yes_no(SAMPLES), _vah, prompt="prompt_vah", options="vah_options_list"),
    "AVQA": lambda ctx: walk(ctx, AVQA_PLAN, _avqa),
    "AVLG": lambda ctx: walk(ctx, AVLG_PLAN, _avlg, prompt="prompt_avlg"),
}
