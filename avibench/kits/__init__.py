"""Kits: what benchmarks have in common, written once (see docs/plugins.md, "Kits").

* :mod:`avibench.kits.records`: metadata files (JSON, JSON lines, CSV/TSV, Parquet) read into rows, JSON-lines
  files read and written, fingerprints per task of a shared file;
* :mod:`avibench.kits.fields`: field checks of rows, as problems naming file, entry and field;
* :mod:`avibench.kits.media`: deterministic sample media (tones, tone words, pictures, clips) in official formats;
* :mod:`avibench.kits.multiple_choice`: lettering, official letter rules, strict reading, gold, baselines,
  accuracy per field, rotations;
* :mod:`avibench.kits.classification`: answers read as one label of a vocabulary, F1 metrics, chance levels;
* :mod:`avibench.kits.judged`: answers scored by an LLM judge: the declaration (template data file, reply parser
  per profile, samples, asks), the journaled runner, failure accounting, ``--judge-*`` options, ``meta.judge``,
  the outcome of judging each part (a missing key a note, a broken judge an error) and the report's judge paragraph.
  Its ``--judge-*`` options and template data files are read by :mod:`avibench.kits.judge_options`, which a
  plug-in's eval-options declaration imports without the runner.
* :mod:`avibench.kits.published`: published tables as JSON data (``prompts/<benchmark>/published.json``), one
  reader, the rows ``published()`` returns;
* :mod:`avibench.kits.pages`: report blocks benchmarks share (an official breakdown in both profiles);
* :mod:`avibench.kits.single_file`: a benchmark of one task listed in one metadata file (which tasks a root holds,
  its data files, whether it is the release).
"""
