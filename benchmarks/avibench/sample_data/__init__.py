"""The generated sample benchmark: the official layout with real media whose ground truths are true of it."""

from avibench.benchmarks.avibench.sample_data.generator import generate

__all__ = ["generate"]
