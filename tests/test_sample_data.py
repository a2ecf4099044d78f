"""The generated sample benchmark: layout, schema, determinism, and ground truths that are true of the media.

The media checks decode every file again (Pillow, soundfile, PyAV) and measure what is drawn or heard:
connected components and their colours and silhouettes, centroid tracks across frames, tone events and their
pitch, and loudness per frame slot. The only knowledge shared with the generator is the vocabulary table
(which pitch belongs to which coloured shape), which is the benchmark's definition of "the object that makes
the sound".
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
import soundfile as sf
from PIL import Image, ImageDraw
from scipy import ndimage
from test_validate import pre_pairs

from avibench.benchmarks.avibench.dataset import Sample, load_task, task_dir
from avibench.benchmarks.avibench.sample_data import generate
from avibench.benchmarks.avibench.sample_data.vocab import COLOURS, SOURCES, Source
from avibench.benchmarks.avibench.tasks import AVIBENCH
from avibench.definitions import constants_for
from avibench.errors import AvibenchError
from avibench.kits.media import BACKGROUND, FPS, SR, draw_shape

SLOT = SR // FPS  # audio samples per video frame / AVLG frame slot


# ---- measuring media -----------------------------------------------------------------------------------------


def image(path: Path) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB"), dtype=np.int16)


def video_frames(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24").astype(np.int16) for f in container.decode(video=0)]


def video_audio(path: Path) -> np.ndarray:
    with av.open(str(path)) as container:
        assert container.streams.audio, f"{path.name} has no audio stream"
        stream = container.streams.audio[0]
        assert stream.codec_context.name == "aac" and stream.sample_rate == SR
        return np.concatenate([f.to_ndarray().reshape(-1) for f in container.decode(audio=0)])


def wav(path: Path) -> np.ndarray:
    data, rate = sf.read(path)
    assert rate == SR and data.ndim == 1, f"{path.name}: expected 16 kHz mono"
    return data


def box_of(mask: np.ndarray) -> list[int] | None:
    ys, xs = np.nonzero(mask)
    if not len(xs):
        return None
    return [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]


def iou(a: list[int], b: list[int]) -> float:
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def nearest_colour(rgb: np.ndarray) -> str:
    return min(COLOURS, key=lambda name: float(np.sum((rgb - np.array(COLOURS[name])) ** 2)))


def blobs(img: np.ndarray, min_area: int = 30) -> list[dict[str, Any]]:
    """Connected components of non-background pixels, with box, centroid, colour name and mask."""
    labels, n = ndimage.label(np.abs(img - np.array(BACKGROUND)).max(axis=2) > 50)
    found = []
    for k in range(1, n + 1):
        mask = labels == k
        if mask.sum() < min_area:
            continue
        ys, xs = np.nonzero(mask)
        colour = nearest_colour(np.median(img[mask], axis=0))
        found.append({"box": box_of(mask), "centre": (xs.mean(), ys.mean()), "colour": colour, "mask": mask})
    return found


def of_colour(found: list[dict[str, Any]], colour: str) -> list[dict[str, Any]]:
    return [b for b in found if b["colour"] == colour]


def shape_kind(blob: dict[str, Any], kinds: tuple[str, ...]) -> str:
    """The kind whose silhouette, drawn in the blob's own box, overlaps the blob best."""
    h, w = blob["mask"].shape

    def overlap(kind: str) -> float:
        canvas = Image.new("L", (w, h), 0)
        draw_shape(ImageDraw.Draw(canvas), kind, tuple(blob["box"]), 255)
        template = np.asarray(canvas) > 0
        return (template & blob["mask"]).sum() / (template | blob["mask"]).sum()

    best = max(kinds, key=overlap)
    if best in ("cube", "cuboid"):  # the same silhouette; a cuboid is the long one
        bw, bh = blob["box"][2:]
        best = "cuboid" if bw > 1.3 * bh else "cube"
    return best


def events(signal: np.ndarray, window: int = 80) -> list[tuple[int, int]]:
    """Sound events: runs of 5 ms windows whose RMS exceeds a tenth of the loudest window."""
    n = len(signal) // window
    rms = np.sqrt((signal[: n * window].reshape(n, window) ** 2).mean(axis=1))
    if rms.max() < 1e-3:
        return []
    loud = rms > 0.1 * rms.max()
    runs, start = [], None
    for i, on in enumerate([*loud, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start * window, i * window))
            start = None
    return runs


def pitch(segment: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(segment * np.hanning(len(segment))))
    return float(np.argmax(spectrum) * SR / len(segment))


def peakiness(segment: np.ndarray) -> float:
    """Peak-to-mean ratio of the spectrum: high for a clean tone, low for noise."""
    spectrum = np.abs(np.fft.rfft(segment))
    return float(spectrum.max() / spectrum.mean())


def source_at(freq: float) -> Source:
    best = min(SOURCES, key=lambda s: abs(s.freq - freq))
    assert abs(best.freq - freq) < 25, f"{freq:.0f} Hz is no vocabulary pitch"
    return best


def heard(signal: np.ndarray) -> list[Source]:
    """The source of each sound event, in order."""
    return [source_at(pitch(signal[a:b])) for a, b in events(signal)]


def sounding_slots(signal: np.ndarray, n_slots: int) -> set[int]:
    """Frame slots (0.1 s) that hold sound."""
    slots = signal[: n_slots * SLOT].reshape(n_slots, SLOT)
    return {k for k, rms in enumerate(np.sqrt((slots**2).mean(axis=1))) if rms > 0.05}


def phrase_direction(a: tuple[float, float], b: tuple[float, float]) -> tuple[int, int]:
    """Sign of the movement along x and y (image coordinates; +y is down)."""
    return tuple(int(np.sign(round(q - p))) if abs(q - p) > 8 else 0 for p, q in zip(a, b, strict=True))


# ---- helpers over the dataset ----------------------------------------------------------------------------------


def samples(root: Path, task: str) -> list[Sample]:
    return load_task(root, task)


def formal(root: Path, task: str) -> list[Sample]:
    return [s for s in samples(root, task) if not s.is_pre]


def options_key(s: Sample) -> Any:
    return s.question.get("options")


# ---- layout and schema -----------------------------------------------------------------------------------------


def test_every_task_folder_holds_6_to_10_entries_that_load(sample_root: Path) -> None:
    for spec in AVIBENCH.tasks:
        loaded = load_task(sample_root, spec)
        assert 6 <= len(loaded) <= 10, spec.name
        for s in loaded:
            assert s.entry["task"] == spec.name
            assert re.fullmatch(r"(pre_)?\d{5}", s.id), s.id
            assert set(s.entry) == {"id", "task", "subtask", "input", "output"}
            assert set(s.entry["input"]) == {"pre_question", "question", "video", "audio_list", "image_list"}


def test_media_exist_inside_their_task_folder_with_the_right_kind(sample_root: Path) -> None:
    suffixes = {"wavs": {".wav"}, "images": {".png", ".jpg"}, "videos": {".mp4"}}
    for spec in AVIBENCH.tasks:
        folder = task_dir(sample_root, spec).resolve()
        for s in load_task(sample_root, spec):
            inp = s.entry["input"]
            refs = [
                *(inp["audio_list"] or []),
                *(inp["image_list"] or []),
                *([inp["video"]] if inp["video"] else []),
            ]
            assert refs, f"{spec.name} {s.id} has no media"
            for ref in refs:
                assert ref.startswith("./input/"), ref
                path = (folder / ref).resolve()
                assert path.is_file() and path.is_relative_to(folder), ref
                assert path.suffix in suffixes[Path(ref).parts[1]], ref
            assert all(p.suffix == ".wav" for p in s.audios) and (s.video is None or s.video.suffix == ".mp4")


def test_media_families_per_task(sample_root: Path) -> None:
    video_tasks = {"VSQA_V", "AVSQA", "AVM", "AVC", "AVH", "VAH", "AVQA"}
    with_wav = {"ASQA", "AVSQA", "AMIC", "AVL", "AVM", "AVR", "VAR", "AVC", "AVH", "VAH", "AVQA", "AVLG"}
    for spec in AVIBENCH.tasks:
        for s in load_task(sample_root, spec):
            assert (s.video is not None) == (spec.name in video_tasks), spec.name
            assert bool(s.audios) == (spec.name in with_wav), spec.name
    for s in formal(sample_root, "AVLG"):
        assert [p.name for p in s.images] == [f"{k}.jpg" for k in range(10)]
    for s in formal(sample_root, "VAR"):
        assert len(s.images) == 1 and [p.name for p in s.audios] == [f"{s.id}_{k:02d}.wav" for k in range(5)]
    for s in formal(sample_root, "AVR"):
        assert len(s.audios) == 1 and [p.name for p in s.images] == [f"{s.id}_{k:02d}.png" for k in range(5)]


def test_pseudo_keys_are_the_reference_keys(sample_root: Path) -> None:
    """Every prompt/options value is a key of the task's definitions, except the two reference quirks."""
    quirks = Counter()
    for spec in AVIBENCH.tasks:
        table = constants_for(spec.name)
        for s in load_task(sample_root, spec):
            for field in ("prompt", "options"):
                value = s.question.get(field)
                if value is None:
                    continue
                if value in table:
                    continue
                quirks[(spec.name, field, value)] += 1
    assert set(quirks) == {("AVQA", "prompt", "prompt_avqa"), ("AVSQA", "options", "options_yes_no")}
    expected_prompts = {
        "AMIC": "prompt_amic",
        "VMIC": "prompt_vmic",
        "AVL": "prompt_avl",
        "AVLG": "prompt_avlg",
        "AVR": "prompt_avr",
        "VAR": "prompt_var",
        "AVH": "prompt_avh",
        "VAH": "prompt_vah",
        "AVM": "prompt_avm",
    }
    for task, prompt in expected_prompts.items():
        assert {s.question.get("prompt") for s in samples(sample_root, task)} == {prompt}
    assert all(
        "prompt" not in s.question and "options" not in s.question for s in samples(sample_root, "AVC")
    )
    assert {options_key(s) for s in formal(sample_root, "AVQA")} == {
        "avqa_options_list_is",
        "avqa_cls_list",
        None,
    }
    assert {options_key(s) for s in formal(sample_root, "ASQA")} == {
        "options_sound_volume",
        "options_sound_order",
        "options_sound_clarity",
        None,
    }


def test_ground_truth_shapes(sample_root: Path) -> None:
    for task, key in (("AMIC", "amic_cls_list"), ("VMIC", "vmic_cls_list")):
        for s in formal(sample_root, task):
            assert s.answer and all(k in constants_for(task)[key] for k in s.answer), s.answer
            assert all(isinstance(v, str) and v.isdigit() and int(v) > 0 for v in s.answer.values())
    for s in formal(sample_root, "AVL"):
        assert set(s.answer) == {"bbox", "original_wh"}
        w, h = s.answer["original_wh"]
        for key, (x, y, bw, bh) in s.answer["bbox"].items():
            name, k = key.rsplit("_", 1)
            assert name in constants_for("AVL")["avl_cls_list"] and k.isdigit()
            assert min(x, y) >= 0 and x + bw <= w and y + bh <= h
        assert [int(k.rsplit("_", 1)[1]) for k in s.answer["bbox"]] == list(
            range(1, len(s.answer["bbox"]) + 1)
        )
    nulls = 0
    for s in formal(sample_root, "AVLG"):
        assert list(s.answer["bbox"]) == [f"frame_{k}" for k in range(10)]
        assert s.answer["original_wh"] == list(Image.open(s.images[0]).size)
        nulls += sum(box is None for box in s.answer["bbox"].values())
    assert nulls > 0
    for task in ("AVR", "VAR"):
        answers = [s.answer for s in formal(sample_root, task)]
        assert [] not in answers and all(a == sorted(set(a)) for a in answers)
    for task in ("AVM", "AVH", "VAH"):
        assert {s.answer for s in formal(sample_root, task)} == {"yes", "no"}
    for task in ("ASQA", "VSQA_I", "VSQA_V", "AVQA"):
        for s in formal(sample_root, task):
            if isinstance(s.options, list):
                assert s.answer in s.options, (task, s.id, s.answer)  # exact spelling and case
            else:
                assert options_key(s) is None and s.answer.isdigit(), (task, s.id)
    assert {s.subtask for s in formal(sample_root, "ASQA") if s.answer.isdigit()} == {"beats_counting"}
    assert "common" in {s.subtask for s in formal(sample_root, "VSQA_I")}
    assert {s.answer for s in formal(sample_root, "VSQA_V")} & {
        "Cube",
        "Sphere",
        "Cone",
        "Triangular pyramid",
    }
    for s in formal(sample_root, "AVSQA"):
        assert all(part in s.options for part in s.answer.split(";"))
    assert any(";" in s.answer for s in formal(sample_root, "AVSQA"))
    for s in formal(sample_root, "AVC"):
        assert 3 <= len(s.answer) <= 5 and all(isinstance(r, str) and r for r in s.answer)


def test_double_confirm_pre_questions_follow_their_formal_entries(sample_root: Path) -> None:
    for spec in AVIBENCH.tasks:
        loaded = load_task(sample_root, spec)
        pres = [s for s in loaded if s.is_pre]
        if not spec.double_confirm:
            assert not pres, spec.name
            continue
        pairs = pre_pairs(loaded)
        assert set(pairs) == {s.index for s in pres}
        assert all(formal_index < pre_index for pre_index, formal_index in pairs.items())
        assert {s.formal_id for s in pres} == {s.id for s in loaded if not s.is_pre}
        assert any(pre_index - formal_index > 1 for pre_index, formal_index in pairs.items())
        for s in pres:
            assert s.answer == "yes" and options_key(s) == "options_yes_no"
            assert s.media == loaded[pairs[s.index]].media
    invalid = [s for s in samples(sample_root, "VSQA_I") if s.is_pre and s.question["text"] is None]
    assert [s.subtask for s in invalid] == ["common"]


def test_repeated_ids_share_media(sample_root: Path) -> None:
    for spec in AVIBENCH.tasks:
        ids = Counter(s.id for s in load_task(sample_root, spec))
        repeated = [i for i, n in ids.items() if n > 1]
        if spec.name in ("AVQA", "AVLG", "VSQA_V"):
            assert len(repeated) == 1, spec.name
            same = [s for s in load_task(sample_root, spec) if s.id == repeated[0]]
            assert len({s.media for s in same}) == 1 and len({s.question["text"] for s in same}) == len(same)
        else:
            assert not repeated, spec.name


# ---- determinism, size, time, full size ---------------------------------------------------------------------------


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_same_seed_gives_byte_identical_files_within_budget(sample_root: Path, tmp_path: Path) -> None:
    start = time.perf_counter()
    counts = generate(tmp_path / "again", seed=0)
    elapsed = time.perf_counter() - start
    assert tree_digest(tmp_path / "again") == tree_digest(sample_root)
    assert counts == {spec.name: len(load_task(sample_root, spec)) for spec in AVIBENCH.tasks}
    assert elapsed < 20
    assert sum(p.stat().st_size for p in sample_root.rglob("*") if p.is_file()) < 20e6


def test_another_seed_gives_other_content(sample_root: Path, tmp_path: Path) -> None:
    generate(tmp_path / "other", seed=1)
    ours, theirs = tree_digest(sample_root), tree_digest(tmp_path / "other")
    changed = [path for path in ours if path.endswith("data.json") and ours[path] != theirs.get(path)]
    assert len(changed) >= 10


def test_regenerating_replaces_stale_files(tmp_path: Path) -> None:
    generate(tmp_path, seed=1)
    stale = task_dir(tmp_path, AVIBENCH.task("AMIC")) / "input" / "wavs" / "stale.wav"
    stale.write_bytes(b"old")
    generate(tmp_path, seed=1)
    assert not stale.exists()


def test_negative_seed_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(AvibenchError, match="seed"):
        generate(tmp_path, seed=-1)


def test_full_size_has_the_paper_counts_and_shares_media(sample_root: Path, tmp_path: Path) -> None:
    counts = generate(tmp_path, seed=0, full_size=True)
    assert counts == {spec.name: spec.paper_count for spec in AVIBENCH.tasks}
    assert sum(counts.values()) == 5864
    for spec in AVIBENCH.tasks:
        entries = json.loads((task_dir(tmp_path, spec) / "data.json").read_text())
        assert len(entries) == spec.paper_count
        media_files = sorted(p.name for p in (task_dir(tmp_path, spec) / "input").rglob("*") if p.is_file())
        assert media_files == sorted(
            p.name for p in (task_dir(sample_root, spec) / "input").rglob("*") if p.is_file()
        )
        if spec.double_confirm:
            loaded = load_task(tmp_path, spec)
            pairs = pre_pairs(loaded)
            assert len(pairs) == sum(s.is_pre for s in loaded)
            assert all(f < p for p, f in pairs.items())


# ---- ground truth matches media: audio -----------------------------------------------------------------------------


def test_asqa_answers_are_what_the_wav_sounds_like(sample_root: Path) -> None:
    for s in formal(sample_root, "ASQA"):
        signal = wav(s.audios[0])
        parts = [signal[a:b] for a, b in events(signal)]
        key = options_key(s)
        if s.subtask == "beats_counting":
            assert len(parts) == int(s.answer)
            continue
        assert len(parts) == 2, (s.id, len(parts))
        if key == "options_sound_volume":
            rms = [np.sqrt(np.mean(p**2)) for p in parts]
            assert s.answer == ("first" if rms[0] > rms[1] else "last") and max(rms) > 2 * min(rms)
        elif key == "options_sound_order":
            assert s.answer == ("sound" if peakiness(parts[0]) > peakiness(parts[1]) else "noise")
        else:
            assert s.answer == ("first" if peakiness(parts[0]) > peakiness(parts[1]) else "last")
    kinds = {options_key(s) for s in formal(sample_root, "ASQA")} | {
        s.subtask for s in formal(sample_root, "ASQA")
    }
    assert {"options_sound_volume", "options_sound_order", "options_sound_clarity", "beats_counting"} <= kinds


def test_amic_counts_are_the_tone_events_per_pitch(sample_root: Path) -> None:
    for s in formal(sample_root, "AMIC"):
        counted = Counter(src.name for src in heard(wav(s.audios[0])))
        assert {name: str(n) for name, n in counted.items()} == s.answer


def test_var_answers_are_the_wavs_with_the_pictured_objects_pitch(sample_root: Path) -> None:
    for s in formal(sample_root, "VAR"):
        (shown,) = blobs(image(s.images[0]))
        matches = [i for i, path in enumerate(s.audios) if heard(wav(path))[0].colour_name == shown["colour"]]
        assert matches == s.answer


# ---- ground truth matches media: images ----------------------------------------------------------------------------


def test_vmic_counts_are_connected_components_per_class_colour(sample_root: Path) -> None:
    by_colour = {s.colour_name: s.name for s in SOURCES}
    for s in formal(sample_root, "VMIC"):
        counted = Counter(by_colour[b["colour"]] for b in blobs(image(s.images[0])))
        assert {name: str(n) for name, n in counted.items()} == s.answer


def test_avl_boxes_enclose_the_drawn_sounding_objects(sample_root: Path) -> None:
    for s in formal(sample_root, "AVL"):
        found = blobs(image(s.images[0]))
        sounding = {src.name for src in heard(wav(s.audios[0]))}
        assert sounding == {key.rsplit("_", 1)[0] for key in s.answer["bbox"]}
        for key, box in s.answer["bbox"].items():
            colour = next(src.colour_name for src in SOURCES if src.name == key.rsplit("_", 1)[0])
            assert max(iou(box, b["box"]) for b in of_colour(found, colour)) > 0.9, (s.id, key)
        silent = [
            b
            for b in found
            if b["colour"] not in {src.colour_name for src in SOURCES if src.name in sounding}
        ]
        assert len(silent) == 1 and len(found) == len(s.answer["bbox"]) + 1


def test_avlg_boxes_track_the_object_only_while_it_sounds(sample_root: Path) -> None:
    for s in formal(sample_root, "AVLG"):
        signal = wav(s.audios[0])
        (source,) = set(heard(signal))
        loud = sounding_slots(signal, 10)
        for k, path in enumerate(s.images):
            gt = s.answer["bbox"][f"frame_{k}"]
            drawn = of_colour(blobs(image(path)), source.colour_name)
            assert (k in loud) == (gt is not None), (s.id, k)
            if gt is None:
                assert not drawn, (s.id, k)
            else:
                assert len(drawn) == 1 and iou(gt, drawn[0]["box"]) > 0.9, (s.id, k)


def test_avr_answers_are_the_images_of_the_sounding_object(sample_root: Path) -> None:
    for s in formal(sample_root, "AVR"):
        (source,) = set(heard(wav(s.audios[0])))
        matches = []
        for i, path in enumerate(s.images):
            (shown,) = blobs(image(path))
            if shown["colour"] == source.colour_name:
                assert shape_kind(shown, ("circle", "square", "triangle", "diamond")) == source.shape
                matches.append(i)
        assert matches == s.answer


def test_vsqa_i_answers_describe_the_image(sample_root: Path) -> None:
    colour_option = {"purple": "puprle"}
    regions = {
        (0, 0): "top left",
        (1, 0): "top center",
        (2, 0): "top right",
        (1, 1): "center",
        (0, 2): "bottom left",
        (1, 2): "bottom center",
        (2, 2): "bottom right",
    }
    for s in formal(sample_root, "VSQA_I"):
        img = image(s.images[0])
        found = blobs(img)
        key = options_key(s)
        if key == "get_from_color":
            (shape,) = found
            assert colour_option.get(shape["colour"], shape["colour"]) == s.answer
        elif key == "get_from_space_hard":
            (shape,) = found
            cx, cy = shape["centre"]
            cell = (int(3 * cx / img.shape[1]), int(3 * cy / img.shape[0]))
            assert regions[cell] == s.answer
        elif key == "get_from_3d-task2":
            (shape,) = found
            assert shape_kind(shape, ("cone", "cube", "cylinder", "cuboid")) == s.answer
        elif key is None:
            assert len(found) == int(s.answer)
            assert all(shape_kind(b, ("circle", "square", "triangle")) == "square" for b in found)
        else:
            assert s.subtask == "common"
            red_circles = [
                b for b in of_colour(found, "red") if shape_kind(b, ("circle", "square")) == "circle"
            ]
            assert s.answer == ("yes" if red_circles else "no")


# ---- ground truth matches media: video ------------------------------------------------------------------------------


def tracks(frames: list[np.ndarray]) -> dict[str, list[dict[str, Any] | None]]:
    """Per colour, its single blob in each frame (None where it is absent)."""
    per_frame = [blobs(f) for f in frames]
    colours = {b["colour"] for found in per_frame for b in found}
    out = {}
    for colour in colours:
        track = []
        for found in per_frame:
            mine = of_colour(found, colour)
            assert len(mine) <= 1
            track.append(mine[0] if mine else None)
        out[colour] = track
    return out


def test_every_video_is_h264_with_an_audio_track_that_matches_its_wav(sample_root: Path) -> None:
    checked = 0
    for spec in AVIBENCH.tasks:
        for s in load_task(sample_root, spec):
            if s.video is None or s.is_pre:
                continue
            with av.open(str(s.video)) as container:
                (v,) = container.streams.video
                assert v.codec_context.name == "h264" and v.codec_context.pix_fmt == "yuv420p"
            track = video_audio(s.video)
            n = len(video_frames(s.video))
            if s.audios:
                assert sounding_slots(track, n) == sounding_slots(wav(s.audios[0]), n), (spec.name, s.id)
            checked += 1
    assert checked >= 30


def test_vsqa_v_answers_describe_the_clip(sample_root: Path) -> None:
    shape_option = {"Triangular pyramid": "pyramid", "Cone": "cone", "Cube": "cube", "Sphere": "sphere"}
    diagonal = {
        (1, 1): "Top-left to bottom-right",
        (-1, 1): "Top-right to bottom-left",
        (1, -1): "Bottom-left to top-right",
        (-1, -1): "Bottom-right to top-left",
    }
    movement = {(1, 0): "horizontal", (0, 1): "vertical", (1, 1): "inclined"}
    for s in formal(sample_root, "VSQA_V"):
        frames = video_frames(s.video)
        key = options_key(s)
        if key is None:
            assert len(blobs(frames[0])) == int(s.answer)
            continue
        moving = max(
            (t for t in tracks(frames).values() if t[0] and t[-1]),
            key=lambda t: (
                abs(t[-1]["centre"][0] - t[0]["centre"][0]) + abs(t[-1]["centre"][1] - t[0]["centre"][1])
            ),
        )
        dx, dy = phrase_direction(moving[0]["centre"], moving[-1]["centre"])
        if key == "what_shape":
            assert shape_option[s.answer] == shape_kind(moving[0], tuple(shape_option.values()))
        elif key == "what_movement_2d":
            assert movement[(abs(dx), abs(dy))] == s.answer
        elif key == "spacial_change":
            assert diagonal[(dx, dy)] == s.answer
        else:
            assert shape_kind(moving[0], ("square", "circle", "triangle")) == s.answer


def test_avsqa_answers_are_the_objects_that_hop_with_the_beeps(sample_root: Path) -> None:
    for s in formal(sample_root, "AVSQA"):
        frames = video_frames(s.video)
        beeps = sounding_slots(wav(s.audios[0]), len(frames))
        assert beeps
        sounding = []
        for colour, track in tracks(frames).items():
            assert all(track)
            hopping = {k for k, b in enumerate(track) if b["box"][1] < track[0]["box"][1] - 5}
            assert hopping in (set(), beeps)
            if hopping:
                kind = shape_kind(track[0], ("cube", "pyramid", "cone", "sphere"))
                sounding.append((kind, colour))
        if options_key(s) == "avsqa_options_list_color":
            assert [colour for _, colour in sounding] == [s.answer]
        else:
            assert sorted(kind for kind, _ in sounding) == sorted(s.answer.split(";"))


def test_avm_answer_is_whether_beeps_fall_on_the_shown_frames(sample_root: Path) -> None:
    for s in formal(sample_root, "AVM"):
        frames = video_frames(s.video)
        shown = {k for k, f in enumerate(frames) if blobs(f)}
        beeps = sounding_slots(wav(s.audios[0]), len(frames))
        assert shown and beeps
        assert s.answer == ("yes" if shown == beeps else "no")


def asked_object(text: str) -> tuple[str, str]:
    colour, shape = re.search(r"\ban? (\w+) (\w+)\b", text.split(",")[-1]).groups()
    return colour, shape


def test_avh_and_vah_answers_match_what_is_shown_while_it_beeps(sample_root: Path) -> None:
    for task in ("AVH", "VAH"):
        for s in formal(sample_root, task):
            colour, shape = asked_object(s.question["text"])
            frames = video_frames(s.video)
            beeps = sounding_slots(wav(s.audios[0]), len(frames))
            shown = set()
            for k, f in enumerate(frames):
                mine = of_colour(blobs(f), colour)
                if mine and shape_kind(mine[0], ("circle", "square", "triangle", "diamond")) == shape:
                    shown.add(k)
            if task == "AVH":
                assert s.answer == ("yes" if beeps <= shown else "no"), (task, s.id)
            else:
                assert shown, (task, s.id)
                assert s.answer == ("yes" if beeps & shown else "no"), (task, s.id)


def test_avqa_answers_match_the_clip(sample_root: Path) -> None:
    for s in formal(sample_root, "AVQA"):
        signal = video_audio(s.video)
        sources = heard(signal)
        if options_key(s) == "avqa_cls_list":
            assert {src.name for src in sources} == {s.answer}
        elif options_key(s) is None:
            assert len(sources) == int(s.answer)
        elif "visible" in s.question["text"]:
            (src,) = set(sources)
            assert all(of_colour(blobs(f), src.colour_name) for f in video_frames(s.video))
            assert s.answer == "yes"
        else:
            assert s.answer == ("yes" if sources else "no")


def test_avc_references_describe_the_clip(sample_root: Path) -> None:
    directions = {
        (1, 0): "left to right",
        (-1, 0): "right to left",
        (0, 1): "top to bottom",
        (0, -1): "bottom to top",
    }
    numbers = {2: "two", 3: "three", 4: "four"}
    for s in formal(sample_root, "AVC"):
        frames = video_frames(s.video)
        ((colour, track),) = tracks(frames).items()
        shape = shape_kind(track[0], ("circle", "square", "triangle", "diamond"))
        direction = directions[phrase_direction(track[0]["centre"], track[-1]["centre"])]
        beeps = len(events(video_audio(s.video)))
        assert beeps == len(events(wav(s.audios[0])))
        for ref in s.answer:
            text = ref.lower()
            assert f"{colour} {shape}" in text and direction in text and numbers[beeps] in text, ref
