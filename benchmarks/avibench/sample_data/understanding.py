"""Builders of the understanding tasks: AVR, VAR (retrieval through the shared vocabulary) and AVC."""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from avibench.benchmarks.avibench.sample_data.entries import CLIP_FRAMES, Group, Question, TaskContext, walk
from avibench.benchmarks.avibench.sample_data.vocab import SOURCES, Source
from avibench.kits.media import Shape, frame_beeps, lerp, picture, render_frames, tone

CANDIDATES = 5
THUMB_WH = (64, 64)
# Matching candidates per sample. Never 0: the reference scorer gives R@1 = R@3 = 0 to a correct empty answer,
# so an empty ground truth would cap even a perfect model below 100 (tests/test_metrics_retrieval.py proves it).
MATCHES = (2, 1, 2, 1, 3, 1, 2, 1)


def _candidates(ctx: TaskContext, n_match: int) -> tuple[Source, list[Source], list[int]]:
    """A target source and ``CANDIDATES`` sources of which exactly ``n_match`` (at random places) are it."""
    target = ctx.pick(SOURCES)
    others = [s for s in SOURCES if s != target]
    hits = sorted(int(i) for i in ctx.rng.choice(CANDIDATES, size=n_match, replace=False))
    return target, [target if i in hits else ctx.pick(others) for i in range(CANDIDATES)], hits


def _thumb(ctx: TaskContext, source: Source) -> Image.Image:
    x, y = (int(v) for v in ctx.rng.integers(4, 24, size=2))
    return picture(THUMB_WH, [(source.shape, (x, y, 36, 36), source.colour)])


def _avr(ctx: TaskContext, sid: str, n_match: int) -> Question:
    """Reference: one source's tone. Candidates: images; the GT ones show that source's shape and colour."""
    target, candidates, hits = _candidates(ctx, n_match)
    images = [ctx.image(f"{sid}_{i:02d}.png", _thumb(ctx, s)) for i, s in enumerate(candidates)]
    audio = ctx.wav(f"{sid}.wav", tone(target.freq, 0.8))
    return {"answer": hits, "audio_list": [audio], "image_list": images}


def _var(ctx: TaskContext, sid: str, n_match: int) -> Question:
    """Reference: an image of one source. Candidates: wavs; the GT ones are that source's tone."""
    target, candidates, hits = _candidates(ctx, n_match)
    wavs = [ctx.wav(f"{sid}_{i:02d}.wav", tone(s.freq, 0.5)) for i, s in enumerate(candidates)]
    return {"answer": hits, "image_list": [ctx.image(f"{sid}.png", _thumb(ctx, target))], "audio_list": wavs}


Point = tuple[int, int]
DIRECTIONS: dict[str, tuple[Point, Point]] = {  # phrase -> start and end position
    "left to right": ((6, 34), (94, 34)),
    "right to left": ((94, 34), (6, 34)),
    "top to bottom": ((50, 2), (50, 66)),
    "bottom to top": ((50, 66), (50, 2)),
}
NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}
CAPTIONS = (
    "{Object} moves from {direction} while a tone beeps {times} times.",
    "{Times} short beeps sound as {object} slides from {direction}.",
    "On a dark background {object} travels from {direction}, and a beep is heard {times} times.",
    "{Object} glides from {direction} to the sound of {times} beeps.",
    "While {object} moves from {direction}, {times} beeps are heard.",
)


def _avc(ctx: TaskContext, sid: str, k: int) -> Question:
    """A source's shape moves in one direction while its tone beeps a few times; the captions say so."""
    source = ctx.pick(SOURCES)
    direction = ctx.pick(list(DIRECTIONS))
    start, end = DIRECTIONS[direction]
    times = int(ctx.rng.integers(2, 5))

    def shapes_at(f: int) -> list[Shape]:
        return [(source.shape, (*lerp(start, end, f / (CLIP_FRAMES - 1)), 28, 28), source.colour)]

    audio = frame_beeps(source.freq, [1 + 3 * i for i in range(times)], CLIP_FRAMES)
    count, thing = NUMBER_WORDS[times], source.described
    words = {"object": thing, "Object": thing.capitalize(), "direction": direction, "times": count}
    refs = [c.format(**words, Times=count.capitalize()) for c in CAPTIONS]
    return {
        "answer": refs[: 3 + k % 3],
        "video": ctx.video(f"{sid}.mp4", render_frames(CLIP_FRAMES, shapes_at), audio),
        "audio_list": [ctx.wav(f"{sid}.wav", audio)],
    }


AVR_TEXT = "Which images show the object that makes the sound in the audio?"
VAR_TEXT = "Which sounds in the list are made by the object in the image?"
BUILDERS: dict[str, Callable[[TaskContext], list[Group]]] = {
    "AVR": lambda ctx: walk(ctx, MATCHES, _avr, prompt="prompt_avr", text=AVR_TEXT),
    "VAR": lambda ctx: walk(ctx, MATCHES, _var, prompt="prompt_var", text=VAR_TEXT),
    "AVC": lambda ctx: walk(ctx, range(6), _avc, text="Describe what you see and hear in the clip."),
}
