"""What a rule parser may know about a sample: only what the model was shown (never the ground truth)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from avibench.definitions import constants_for


class TaskShape(Protocol):
    """What the rules know of a task: its name, refine family, metric kind and class vocabulary key."""

    name: str
    family: str
    metric: str
    class_list_key: str | None


#: Options pseudo-keys that the reference leaves unresolved (their option lists are commented out there):
#: the model sees the key itself, and the ground truth is a digit string.
NUMERIC_OPTION_KEYS = frozenset({"how_many", "get_lines_count", "get_from_3d-task3"})
#: The unresolved AVSQA pre-question key: the question is a yes/no question.
YES_NO_OPTION_KEYS = frozenset({"options_yes_no", "get_yes_no"})
YES_NO_OPTIONS: tuple[str, ...] = ("yes", "no", "not sure")

_COUNT_QUESTION = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b|\bhow often\b|\bhow much times\b", re.I)


@dataclass(frozen=True)
class RefineContext:
    """The question side of one sample, as the rule parsers and the refine prompts need it."""

    task: str
    family: str
    subtask: str | None = None
    question: str = ""
    prompt_text: str = ""
    options: tuple[str, ...] = ()
    expects_number: bool = False
    multi_answer: bool = False
    classes: tuple[str, ...] = ()
    n_candidates: int | None = None
    image: Path | None = field(default=None, compare=False)

    @cached_property
    def image_size(self) -> tuple[int, int] | None:
        """Width and height of the image the model saw (for pixel boxes); ``None`` when unreadable."""
        if self.image is None:
            return None
        try:
            from PIL import Image

            with Image.open(self.image) as img:
                return img.size
        except Exception:
            return None


def _option_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value if isinstance(v, str | int | float) and str(v).strip())
    return ()


def class_list(spec: TaskShape) -> tuple[str, ...]:
    """The class vocabulary the prompt of a MIC/AVL task names."""
    if spec.class_list_key is None:
        return ()
    return _option_list(constants_for(spec.name).get(spec.class_list_key))


def build_context(
    spec: TaskShape,
    *,
    question: str = "",
    options: Any = "",
    subtask: str | None = None,
    prompt_text: str = "",
    is_pre: bool = False,
    n_candidates: int | None = None,
    image: Path | None = None,
) -> RefineContext:
    """The context of one question from its parts (``options`` as the scorer sees them: a list, '' or a raw key)."""
    resolved = _option_list(options)
    # A beats_counting pre-question ("Can you hear any sound?") shares the subtask but is a yes/no question.
    expects_number = (subtask == "beats_counting" and not is_pre) or bool(_COUNT_QUESTION.search(question))
    if isinstance(options, str) and options in YES_NO_OPTION_KEYS:
        resolved = YES_NO_OPTIONS
    elif isinstance(options, str) and options in NUMERIC_OPTION_KEYS:
        expects_number = True
    return RefineContext(
        task=spec.name,
        family=spec.family,
        subtask=subtask,
        question=question,
        prompt_text=prompt_text,
        options=resolved if spec.family == "qa" else (),
        expects_number=expects_number and spec.family == "qa",
        multi_answer=spec.metric == "avsqa" and not is_pre,
        classes=class_list(spec) or (resolved if spec.family == "mic" else ()),
        n_candidates=n_candidates,
        image=image if spec.family in ("avl", "avlg") else None,
    )
