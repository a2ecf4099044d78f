"""The model families the in-process ``transformers`` backend knows, in one table.

A family says how its chat messages carry each medium, which transformers Auto class loads it, and what its
generation needs (Qwen-Omni checkpoints hold a speech "talker" that a text benchmark never uses: it is not
loaded and text comes from the "thinker" alone). Anything not declared here is refused with one line that
lists what is supported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.util import find_spec
from typing import Any, Literal

from avibench.errors import AvibenchError

VideoMode = Literal["native", "frames", "none"]


@dataclass(frozen=True)
class Family:
    """How one model family is loaded, prompted and asked to generate."""

    name: str
    architectures: tuple[str, ...]
    """``config.architectures[0]`` values of the checkpoints this entry covers."""
    auto_class: str
    """The transformers Auto class that loads the checkpoint."""
    audio: bool = True
    image: bool = False
    video: VideoMode = "none"
    """``native``: frames go to the processor's video input; ``frames``: frames are sent as images and the
    soundtrack as an audio clip after them; ``none``: the family takes no video."""
    audio_in_video: bool = False
    """The processor interleaves a video's soundtrack with its frames (one placeholder for both)."""
    audio_inline: bool = False
    """The chat template wants the audio placeholder token inside the text, not a typed ``audio`` part."""
    thinker: bool = False
    """Generate with the ``thinker`` sub-model (Qwen-Omni): text out, no speech."""
    load_kwargs: Mapping[str, Any] = field(default_factory=dict)
    """Config overrides at load time (e.g. do not build the speech generator)."""
    video_fps: float = 2.0
    """Frames per second sampled from a video when the processor declares no rate of its own."""
    max_frames: int = 64
    """At most this many frames per video when the processor declares no limit of its own."""
    needs: tuple[str, ...] = ()
    """Python packages the family's processor needs beyond avibench's own dependencies."""

    def missing_packages(self) -> list[str]:
        return [name for name in self.needs if find_spec(name) is None]


_QWEN_OMNI = {
    "auto_class": "AutoModelForMultimodalLM",
    "image": True,
    "video": "native",
    "audio_in_video": True,
    "max_frames": 768,
    # transformers builds the Qwen-Omni processors around a torchvision video processor
    "needs": ("torchvision",),
}

FAMILIES: tuple[Family, ...] = (
    Family(
        "Qwen2.5-Omni",
        ("Qwen2_5OmniForConditionalGeneration",),
        thinker=True,
        load_kwargs={"enable_audio_output": False},
        **_QWEN_OMNI,
    ),
    Family("Qwen2.5-Omni thinker", ("Qwen2_5OmniThinkerForConditionalGeneration",), **_QWEN_OMNI),
    Family(
        "Qwen3-Omni-MoE",
        ("Qwen3OmniMoeForConditionalGeneration",),
        thinker=True,
        load_kwargs={"enable_audio_output": False},
        **_QWEN_OMNI,
    ),
    Family("Qwen3-Omni-MoE thinker", ("Qwen3OmniMoeThinkerForConditionalGeneration",), **_QWEN_OMNI),
    Family("Qwen2-Audio", ("Qwen2AudioForConditionalGeneration",), auto_class="AutoModelForMultimodalLM"),
    Family(
        "Audio Flamingo 3",
        ("AudioFlamingo3ForConditionalGeneration",),
        auto_class="AutoModelForSeq2SeqLM",
    ),
    Family(
        "Gemma 3n",
        ("Gemma3nForConditionalGeneration",),
        auto_class="AutoModelForMultimodalLM",
        image=True,
        video="frames",
        max_frames=8,
    ),
    Family(
        "Phi-4-multimodal",
        ("Phi4MultimodalForCausalLM",),
        auto_class="AutoModelForMultimodalLM",
        image=True,
        video="frames",
        max_frames=8,
        needs=("torchvision",),
    ),
    Family(
        "Granite Speech",
        ("GraniteSpeechForConditionalGeneration",),
        auto_class="AutoModelForMultimodalLM",
        audio_inline=True,
        needs=("torchaudio",),
    ),
)


def supported_architectures() -> list[str]:
    return [arch for family in FAMILIES for arch in family.architectures]


def family_for(architecture: str | None) -> Family:
    """The family of a checkpoint's architecture, or a one-line error listing the supported ones."""
    for family in FAMILIES:
        if architecture in family.architectures:
            missing = family.missing_packages()
            if missing:
                raise AvibenchError(
                    f"{family.name} needs {', '.join(missing)}: pip install 'avibench[local]' "
                    f"(or pip install {' '.join(missing)})"
                )
            return family
    raise AvibenchError(
        f"the transformers backend does not support architecture {architecture!r}; supported: "
        + ", ".join(supported_architectures())
    )
