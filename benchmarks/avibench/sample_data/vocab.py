"""The sample benchmark's fixed audio-visual vocabulary.

Each sound source has one pitch, one colour and one shape, and every task uses the same table, so "the
object that makes this sound" has one checkable meaning across tasks: a tone at a source's pitch belongs
to the shape drawn in that source's colour. Names are chosen from the reference class lists so ground
truths use the benchmark's own class vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

from avibench.definitions import constants_for
from avibench.kits.media import RGB

COLOURS: dict[str, RGB] = {
    "red": (220, 40, 40),
    "orange": (240, 140, 30),
    "yellow": (235, 215, 40),
    "green": (40, 200, 60),
    "cyan": (40, 210, 220),
    "blue": (40, 90, 235),
    "purple": (150, 50, 210),
    "magenta": (225, 50, 210),
    "white": (235, 235, 235),
    "gray": (128, 128, 128),
}


@dataclass(frozen=True)
class Source:
    """A sound-making object: its class name, its pitch in Hz, and how it is drawn."""

    name: str
    freq: float
    colour_name: str
    shape: str

    @property
    def colour(self) -> RGB:
        return COLOURS[self.colour_name]

    @property
    def described(self) -> str:
        """The object in words with its article, e.g. "an orange circle"."""
        article = "an" if self.colour_name[0] in "aeiou" else "a"
        return f"{article} {self.colour_name} {self.shape}"


SOURCES: tuple[Source, ...] = (
    Source("cello", 220.0, "blue", "square"),
    Source("saxophone", 330.0, "white", "triangle"),
    Source("piano", 440.0, "yellow", "diamond"),
    Source("dog", 550.0, "orange", "circle"),
    Source("guitar", 660.0, "magenta", "square"),
    Source("violin", 880.0, "red", "circle"),
    Source("cat", 990.0, "cyan", "triangle"),
    Source("flute", 1320.0, "green", "diamond"),
)


def sources_in(task: str, key: str) -> tuple[Source, ...]:
    """The vocabulary sources whose name is in the given class list of the task's prompt definitions
    (``sources_in("AMIC", "amic_cls_list")``)."""
    names = set(constants_for(task)[key])
    return tuple(s for s in SOURCES if s.name in names)
