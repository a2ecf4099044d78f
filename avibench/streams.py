"""The one rule for the two output streams, for every command.

* **stdout: results.** What a stage produced: its result table (infer's counts, refine's per-task lines, eval's
  scores, run's closing table) and the files it wrote. Every result table is headed by a line that names the
  stage, the benchmark and the run (:func:`result_heading`), so a log of stdout alone says what each table is.
* **stderr: the way there.** Progress bars and lines, ``run``'s ``[i/n] benchmark: stage`` headers, notes,
  warnings and errors.

So ``avibench run ... > results.log`` keeps every table with its benchmark, and the terminal still shows progress.
"""

from __future__ import annotations


def result_heading(stage: str, benchmark: str, label: str) -> str:
    """The line above a stage's result table: ``== eval mmar (run oracle) ==``."""
    return f"== {stage} {benchmark} (run {label}) =="
