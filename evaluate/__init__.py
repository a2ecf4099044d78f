"""The score stage (``avibench eval``) and the reports built on its output.

``runner.evaluate`` pairs predictions (refine journals or reference-format files, :mod:`.predictions`) with the
dataset, scores every task in both profiles with :mod:`avibench.level_metrics`, and builds eval.json;
:mod:`.fense` provides FENSE for AVC from local model files. Importing this package loads no model library.
"""
