"""avibench: evaluation toolkit for omni-modal LLMs, built around AVI-Bench."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("avibench")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"
