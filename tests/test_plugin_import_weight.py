"""Loading a plug-in, as every eval does, imports no media library: the file writers of the sample kit and the
audio readers of validation import theirs when they first run (PyAV, soundfile and Pillow took a tenth of a
second of every eval)."""

from __future__ import annotations

import subprocess
import sys

from avibench.plugin import benchmark_names

MEDIA_LIBRARIES = ("av", "soundfile", "PIL")

CHECK = """
import sys
from avibench.plugin import get_benchmark
for name in sys.argv[1:]:
    get_benchmark(name)
print(",".join(m for m in {libraries!r} if m in sys.modules))
"""


def test_no_plugin_imports_a_media_library_when_loaded() -> None:
    names = benchmark_names()
    assert len(names) >= 8
    result = subprocess.run(
        [sys.executable, "-c", CHECK.format(libraries=MEDIA_LIBRARIES), *names],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "", f"loading {', '.join(names)} imported {result.stdout.strip()}"


def test_the_check_sees_a_media_library() -> None:
    """The check itself: a library imported in the process is reported."""
    code = CHECK.replace("from avibench.plugin import get_benchmark", "import PIL\nget_benchmark = str")
    result = subprocess.run(
        [sys.executable, "-c", code.format(libraries=MEDIA_LIBRARIES)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "PIL"
