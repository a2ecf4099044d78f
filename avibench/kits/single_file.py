"""A benchmark of one task whose questions are listed in one metadata file under the data root.

Daily-Omni (``qa.json``), WorldSense (``worldsense_qa.json``) and OmniBench (one JSONL file) are such benchmarks:
which tasks a data root holds, which files its fingerprint covers and whether it is the official release follow
from the file alone. A plug-in subclasses :class:`SingleFileBenchmark`, names the task, the file and the release's
question count, and writes only its own ``load``, ``validate``, ``question_count`` and ``generate_sample``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from avibench.plugin import Benchmark, Task, sample_dataset


class SingleFileBenchmark(Benchmark):
    """One task, one metadata file. ``single_task``: the task; ``dataset_file``: the file, relative to the data
    root; ``official_count``: how many questions the release holds (``None``: not checked)."""

    single_task: ClassVar[Task]
    dataset_file: ClassVar[Path]
    official_count: ClassVar[int | None] = None

    def tasks(self) -> tuple[Task, ...]:
        return (self.single_task,)

    def available(self, root: Path) -> tuple[Task, ...]:
        return (self.single_task,) if (Path(root) / self.dataset_file).is_file() else ()

    def data_files(self, root: Path, task: Task) -> tuple[Path, ...]:
        return (Path(root) / self.dataset_file,)

    def question_count(self, path: Path) -> int:
        """How many questions the metadata file at ``path`` lists (for :meth:`dataset_kind`)."""
        raise NotImplementedError(f"{type(self).__name__} declares official_count but no question_count")

    def dataset_kind(self, root: Path, tasks: Sequence[Task]) -> dict[str, str]:
        """Sample data by its marker; otherwise official only with as many questions as the release."""
        found = sample_dataset(root)
        if found is not None or self.official_count is None:
            return found or super().dataset_kind(root, tasks)
        path = Path(root) / self.dataset_file
        count = self.question_count(path) if path.is_file() else 0
        if count != self.official_count:
            return {
                "kind": "other",
                "why": f"{path} holds {count} questions, the release {self.official_count}",
            }
        return {"kind": "official", "why": f"the release's {count} questions and no sample marker"}
