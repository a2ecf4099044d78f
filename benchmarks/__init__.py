"""Benchmark plug-ins shipped with avibench, one subpackage each (found through the ``avibench.benchmarks`` entry points)."""
