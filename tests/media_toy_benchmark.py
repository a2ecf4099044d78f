"""A plug-in written from docs/plugins.md alone that sends all three media kinds: an image, a clip and a video.

Layout: ``<root>/scenes.jsonl``, one question a line: ``id``, ``media`` (``{"image": ..., "audio": ..., "video":
...}``, paths under the root) and ``answer`` (the colour shown). One task, accuracy. It knows nothing of where
media may be: the core keeps its media inside the data root and checks that each decodes as its kind.
"""

from __future__ import annotations

import json
import random
import wave
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import av
import numpy as np
from PIL import Image

from avibench.errors import DatasetError
from avibench.items import Item, Part
from avibench.level_metrics.task_metrics import accuracy
from avibench.plugin import Benchmark, Problem, Task

FILE = "scenes.jsonl"
COLOURS = {"red": (220, 30, 30), "green": (30, 200, 60), "blue": (30, 60, 220)}


def _wav(path: Path, freq: float) -> None:
    rate = 8000
    pcm = (0.3 * np.sin(2 * np.pi * freq * np.arange(rate // 4) / rate) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())


def _mp4(path: Path, rgb: tuple[int, int, int]) -> None:
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=4)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for _ in range(4):
            frame = av.VideoFrame.from_ndarray(np.full((32, 32, 3), rgb, dtype=np.uint8), format="rgb24")
            container.mux(stream.encode(frame))
        container.mux(stream.encode(None))


class MediaToyBench(Benchmark):
    name: ClassVar[str] = "mediatoy"
    title: ClassVar[str] = "Media toy: which colour?"
    templates: ClassVar[tuple[str, ...]] = ("plain",)
    download_root: ClassVar[Path] = Path("data/mediatoy")
    sample_root: ClassVar[Path] = Path("data/mediatoy-sample")

    def tasks(self) -> tuple[Task, ...]:
        return (Task("colour", "Which colour is shown", "video", metric=accuracy),)

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / FILE,)

    def available(self, root: Path) -> tuple[Task, ...]:
        return self.tasks() if (Path(root) / FILE).is_file() else ()

    def _records(self, root: Path) -> list[dict]:
        path = Path(root) / FILE
        records = []
        for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"invalid JSON ({exc.msg})", index=index) from None
        return records

    def load(self, root: Path, task: Task, template: str | None = None) -> list[Item]:
        return [
            Item(
                benchmark=self.name,
                task=task.name,
                item_id=record["id"],
                index=index,
                parts=(
                    Part.image(Path(root) / record["media"]["image"]),
                    Part.audio(Path(root) / record["media"]["audio"]),
                    Part.video(Path(root) / record["media"]["video"]),
                    Part.text("Which colour is shown? Answer with one word."),
                ),
                answer=record["answer"],
                options=tuple(COLOURS),
                template="plain",
                source=record,
            )
            for index, record in enumerate(self._records(root))
        ]

    def validate(self, root: Path, tasks: Sequence[Task]) -> list[Problem]:
        try:
            records = self._records(root)
        except DatasetError as exc:
            return [Problem(exc.path, exc.message, index=exc.index, field=exc.field)]
        return [
            Problem(str(Path(root) / FILE), "file not found", index=i, field=f"media.{kind}")
            for i, record in enumerate(records)
            for kind, rel in record["media"].items()
            if not (Path(root) / rel).is_file()
        ]

    def generate_sample(self, out: Path, *, seed: int = 0, full_size: bool = False) -> dict[str, int]:
        lines = []
        for n, (colour, rgb) in enumerate(COLOURS.items()):
            qid = f"s{n}"
            folder = Path(out) / "media"
            folder.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (16, 16), rgb).save(folder / f"{qid}.png")
            _wav(folder / f"{qid}.wav", 300.0 + 100 * n)
            _mp4(folder / f"{qid}.mp4", rgb)
            media = {"image": f"media/{qid}.png", "audio": f"media/{qid}.wav", "video": f"media/{qid}.mp4"}
            lines.append(json.dumps({"id": qid, "media": media, "answer": colour}))
        (Path(out) / FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return {"colour": len(lines)}

    def extract(self, item: Item, text: str) -> str | None:
        said = {c for c in COLOURS if c in text.lower()}
        return said.pop() if len(said) == 1 else None

    def random_answer(self, item: Item, rng: random.Random) -> str:
        return rng.choice(list(COLOURS))

    def oracle_answer(self, item: Item, rng: random.Random) -> str:
        return f"It is {item.answer}."
